/* SPDX-License-Identifier: MIT */
/*
 * Description: the writeback model counts the kernel's intervals in
 * jiffies (server/model/model_clock.c swm_passed): wb_writeback's
 * dirtied_before = jiffies - msecs_to_jiffies(expire) and
 * wb_check_old_data_flush's last_old_flush + msecs_to_jiffies(interval)
 * compare jiffies, and a guest's jiffy need not last 4 ms of
 * CLOCK_MONOTONIC (traced: 3.906 ms in one boot of the patched 6.1
 * guest).  An eager store at 0 dirties the inode; the flusher, armed
 * every 100 ms (25 jiffies, run 26 jiffies later: calc_index), writes it
 * at the first run 1250 jiffies after the store.  A model that compares
 * CLOCK_MONOTONIC against 5 s flushes at 5.078 s instead of 4.977 s with
 * 3.906 ms jiffies; with 4 ms jiffies both say 5.096 s (26 * 49 = 1274
 * jiffies).
 */
#include <inttypes.h>
#include <stdio.h>

#include "check.h"
#include "model.h"
#include "records.h"

#define MS ((int64_t)1000000)

static const struct jiffy_case {
	const char *name, *what;
	int64_t jiffy_mono_ns; /* cfg.jiffy_mono_ns */
	int64_t want_us;       /* the flush */
} cases[] = {
	{ .name = "3.906ms",
	  .what = "3.906 ms jiffies: the run at jiffy 1274 (4.977 s) is 1250 jiffies after the store",
	  .jiffy_mono_ns = 3906250, .want_us = 4976562 },
	{ .name = "4ms", .what = "4 ms jiffies: the run at jiffy 1274 (5.096 s)",
	  .jiffy_mono_ns = 4000000, .want_us = 5096000 },
};

static void run(const struct jiffy_case *c)
{
	struct sw_model_cfg cfg = {
		.npages = 4, .page_size = 4096, .writeback_ns = 100 * MS,
		.expire_ns = 5000 * MS, .jiffy_ns = 4 * MS,
		.jiffy_mono_ns = c->jiffy_mono_ns,
	};
	struct sw_model m;
	struct sw_decision d;
	char err[256];
	int64_t flushed = -1;
	if (sw_model_init(&m, &cfg, sw_policy_find("eager"), 0, err, sizeof(err))) {
		CHECK(0, "%s: init: %s", c->what, err);
		return;
	}
	sw_model_trap(&m, 0, 0, &d);
	while (flushed < 0 && sw_model_next_tick(&m) <= 10000 * MS) {
		int64_t t = sw_model_next_tick(&m);
		sw_model_tick(&m, t, NULL, &d);
		if (d.flushed)
			flushed = t;
	}
	CHECK(flushed / 1000 == c->want_us, "%s: expected the flush at %" PRId64 " us, saw %" PRId64 " us",
	      c->what, c->want_us, flushed / 1000);
	sw_model_free(&m);
}
SW_VARIANTS(jiffy, cases, run)

SW_MAIN()
