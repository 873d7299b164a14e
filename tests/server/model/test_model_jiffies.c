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
 * And the host's own jiffies (sw_model_host_jiffy_origin, the writer's
 * --jiffies host): a /proc/timer_list read gives the origin (the jiffy
 * current at "now at" began one tick before the tick timer's next expiry)
 * and the count; the timer wheel's buckets then fall on the kernel's
 * count, not on CLOCK_MONOTONIC / tick: with jiffies 2 ahead of mono / 4
 * ms, a 1 s delay armed at mono 0 fires at 1.016 s, not 1.024 s (seen on
 * this host: the emulated flusher 5-22 ms off the kernel's, one run to
 * the next, on CLOCK_MONOTONIC jiffies).  A file without the lines is
 * refused with what was missing.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

static const char *timer_list(const char *text)
{
	static char path[] = "/tmp/sw-timer-list-XXXXXX";
	int fd;

	strcpy(path, "/tmp/sw-timer-list-XXXXXX");
	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
		close(fd);
	}
	return path;
}

/* as 6.18 prints it (two CPUs, the tick timer of the first) */
static const char *const TL =
	"Timer List Version: v0.10\nHRTIMER_MAX_CLOCK_BASES: 8\nnow at 3433621933670 nsecs\n\n"
	"cpu: 0\n clock 0:\nactive timers:\n"
	" #0: <000000002053c4ca>, tick_nohz_handler, S:01\n"
	" # expires at 3433624000000-3433624000000 nsecs [in 2066330 to 2066330 nsecs]\n"
	" #1: <00000000d19d65b8>, hrtimer_wakeup, S:01\n"
	" # expires at 3433622329954-3433622379954 nsecs [in 396284 to 446284 nsecs]\n"
	"  .last_jiffies   : 4295750639\njiffies: 4295750639\n";

SW_CASE(timer_list_origin)
{
	const char *p = timer_list(TL);
	int64_t o = 0, n = 0;
	char err[256] = "";

	CHECK(sw_model_host_jiffy_origin(p, 4 * MS, &o, &n, err, sizeof(err)) == 0, "%s", err);
	CHECK(o == 3433620000000 && n == 4295750639,
	      "expected jiffy 4295750639 to begin at 3433620000000 ns, saw %" PRId64 " at %" PRId64, n, o);
	unlink(p);
	p = timer_list("now at 5 nsecs\n");
	CHECK(sw_model_host_jiffy_origin(p, 4 * MS, &o, &n, err, sizeof(err)) == -1);
	CHECK(strstr(err, "no jiffies") && strstr(err, "no tick timer"), "expected the missing lines named, saw: %s", err);
	unlink(p);
}

SW_CASE(wheel_on_host_jiffies)
{
	struct sw_model_cfg cfg = {
		.npages = 4, .page_size = 4096, .writeback_ns = 1000 * MS,
		.expire_ns = 3000 * MS, .jiffy_ns = 4 * MS,
	};
	struct sw_model m;
	char err[256];

	CHECK(sw_model_init(&m, &cfg, sw_policy_find("eager"), 0, err, sizeof(err)) == 0, "%s", err);
	CHECK(sw_model_wake_after(&m, 0) == 1024 * MS, "mono jiffies: expected 1.024 s, saw %" PRId64,
	      sw_model_wake_after(&m, 0));
	sw_model_free(&m);
	/* jiffy 2 begins at mono 0: 0 + 250 -> 252, level 1 -> 256, which
	 * begins 254 ticks later */
	cfg.jiffy_origin_ns = 0;
	cfg.jiffy_origin_count = 2;
	CHECK(sw_model_init(&m, &cfg, sw_policy_find("eager"), 0, err, sizeof(err)) == 0, "%s", err);
	CHECK(sw_model_wake_after(&m, 0) == 1016 * MS, "host jiffies 2 ahead: expected 1.016 s, saw %" PRId64,
	      sw_model_wake_after(&m, 0));
	sw_model_free(&m);
}

SW_MAIN()
