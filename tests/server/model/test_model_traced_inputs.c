/* SPDX-License-Identifier: MIT */
/*
 * Description: the writeback model takes three facts from a kernel
 * trace when it has them (stalewin-model-sweep --kernel-trace), and
 * its own rules place them.
 * - Jiffies (cfg.jiffy_map, model_clock.c): a TCG guest with a periodic
 *   tick loses ticks, so its jiffies step behind CLOCK_MONOTONIC, and a
 *   tick that catches up skips jiffies.  The flusher's delayed work
 *   (wb_wakeup_delayed: 100 ms = 25 jiffies, calc_index: jiffy 26) runs
 *   when the kernel's jiffies reach its bucket, not 26 * 4 ms after the
 *   store.  A model that keeps one origin and length says 104 ms in every
 *   row.
 * - knfsd's atime handle (model_journal.c swm_atime_read): the read
 *   after an update dirties the clean inode (__mark_inode_dirty
 *   I_DIRTY_SYNC) and arms the flusher; a deferred flush at 104 ms
 *   (jiffy 26) cleans the file, the read 60 ms later (or each read the
 *   kernel traced, at its time, whatever the model's updates) arms the
 *   next run.  A model that only journals it leaves the flusher unarmed.
 *   An update while a read is due leaves it due: that read is the first
 *   after the last mtime change (relatime); a model that looks again
 *   from the second update moves the read, or with the kernel's reads
 *   loses one.
 * - A commit's end (swm_commit_len): the kernel's first traced end at
 *   most 100 ms after its start, else run_commit_ns.
 * - The readers' first read before the run (cfg.first_read_mono_ns: the
 *   file's atime at the writer's open, newer than its ctime): knfsd's
 *   read of the new file journals atime like a read after an update,
 *   dirties the clean inode and arms the flusher.  A model without it
 *   leaves the flusher idle until the first store; one that applies it
 *   beside the kernel's own traced reads, or from before its start (a
 *   settled file), arms a run the kernel did not.
 */
#include <inttypes.h>
#include <stdio.h>

#include "check.h"
#include "model.h"
#include "model_int.h"
#include "records.h"

#define MS ((int64_t)1000000)
#define US ((int64_t)1000)
#define NONE INT64_MAX

static const struct sw_jiffy_anchor lag[] = { { 0, 0 }, { 60 * MS, 5 } },
				    jump[] = { { 0, 0 }, { 20 * MS, 20 }, { 24 * MS, 21 } };

static const struct {
	const char *name;
	const struct sw_jiffy_anchor *map;
	size_t n;
	int64_t writeback_ns;
	int64_t want_ns; /* the flusher armed by a store at 0 runs then */
} jiffy_cases[] = {
	{ "11 ticks lost before jiffy 5 (at 60 ms): jiffy 26 at 60 + 21 * 4 = 144 ms", lag, 2,
	  100 * MS, 144 * MS },
	{ "jiffies 1-20 in 20 ms (a tick catching up): jiffy 26 at 24 + 5 * 4 = 44 ms", jump, 3,
	  100 * MS, 44 * MS },
	{ "a 40 ms delay (jiffy 11) due in the jiffies the catch-up skipped runs with it, at 20 ms",
	  jump, 3, 40 * MS, 20 * MS },
	{ "no map: one origin, 4 ms jiffies: 104 ms", NULL, 0, 100 * MS, 104 * MS },
};

static const int64_t atime_at[] = { 150 * MS, 700 * MS };
static const int64_t atime_late[] = { 400 * MS };

static const struct {
	const char *name;
	int64_t atime_read_ns;
	const int64_t *atimes;
	size_t n;
	int64_t want_ns; /* the run after the deferred flush at 104 ms */
} atime_cases[] = {
	{ "read 60 ms after the flush's update (164 ms, jiffy 41): run at jiffy 67, 268 ms", 60 * MS,
	  NULL, 0, 268 * MS },
	{ "the kernel's read at 150 ms (jiffy 37): run at jiffy 63, 252 ms", 60 * MS, atime_at, 2,
	  252 * MS },
	{ "the kernel's only read at 400 ms (jiffy 100), 296 ms after the update: run at jiffy 126, 504 ms",
	  60 * MS, atime_late, 1, 504 * MS },
	{ "no readers: no run", 0, NULL, 0, NONE },
};

static const int64_t atime_two[] = { 50 * MS, 500 * MS };

static const struct {
	const char *name;
	const int64_t *atimes;
	size_t n;
	int64_t want_ns; /* the read due after eager updates at 0 and 20 ms */
} pending_cases[] = {
	{ "updates at 0 and 20 ms, reads 60 ms after an update: the read due at 60 ms stays", NULL, 0,
	  60 * MS },
	{ "updates at 0 and 20 ms, the kernel's reads at 50 and 500 ms: the read at 50 ms stays",
	  atime_two, 2, 50 * MS },
};

static const int64_t read_late[] = { 500 * MS };

static const struct {
	const char *name;
	int64_t start_ns;          /* the model's start (the file's creation) */
	int64_t first_read_ns;
	int64_t atime_read_ns;
	const int64_t *atimes;
	size_t n;
	int64_t until_ns;          /* advanced to, nothing stored */
	int64_t want_ns;           /* then the flusher's next run */
} first_read_cases[] = {
	{ "the first read at 300 ms (jiffy 75), the file clean: run at jiffy 101, 404 ms", 0,
	  300 * MS, 60 * MS, NULL, 0, 350 * MS, 404 * MS },
	{ "no readers (atime_read 0): no run", 0, 300 * MS, 0, NULL, 0, 350 * MS, NONE },
	{ "the kernel's own read at 500 ms (jiffy 125) instead: run at jiffy 151, 604 ms", 0,
	  300 * MS, 60 * MS, read_late, 1, 550 * MS, 604 * MS },
	{ "a read before the model's start at 400 ms (a settled file): no run", 400 * MS, 300 * MS,
	  60 * MS, NULL, 0, 450 * MS, NONE },
};

static const int64_t ends[] = { 10 * MS, 300 * MS };

static const struct {
	const char *name;
	int64_t start_ns;
	int64_t want_ns;
} commit_cases[] = {
	{ "a commit at 5 ms ends at the traced 10 ms", 5 * MS, 5 * MS },
	{ "a commit at 150 ms: the next traced end is 150 ms on, another's: 4.2 ms", 150 * MS,
	  4200 * US },
	{ "a commit at 250 ms ends at the traced 300 ms", 250 * MS, 50 * MS },
};

static void check(const char *name, int64_t want, int64_t saw)
{
	CHECK(want == saw, "%s: expected %" PRId64 " ns, saw %" PRId64 " ns", name, want, saw);
}

static int init(struct sw_model *m, const struct sw_model_cfg *cfg, const char *pol)
{
	char err[256];
	int rc = sw_model_init(m, cfg, sw_policy_find(pol), 0, err, sizeof(err));
	CHECK(rc == 0, "init: %s", err);
	return rc != 0;
}

int main(void)
{
	struct sw_model m;
	struct sw_decision d;

	for (size_t c = 0; c < sizeof(jiffy_cases) / sizeof(jiffy_cases[0]); c++) {
		struct sw_model_cfg cfg = {
			.npages = 4, .page_size = 4096, .writeback_ns = jiffy_cases[c].writeback_ns,
			.expire_ns = 5000 * MS, .jiffy_ns = 4 * MS,
			.jiffy_map = jiffy_cases[c].map, .jiffy_anchors = jiffy_cases[c].n,
		};
		if (init(&m, &cfg, "eager"))
			return 1;
		sw_model_trap(&m, 0, 0, &d);
		check(jiffy_cases[c].name, jiffy_cases[c].want_ns, sw_model_next_tick(&m));
		sw_model_free(&m);
	}
	for (size_t c = 0; c < sizeof(atime_cases) / sizeof(atime_cases[0]); c++) {
		struct sw_model_cfg cfg = {
			.npages = 4, .page_size = 4096, .writeback_ns = 100 * MS,
			.expire_ns = 50 * MS, .jiffy_ns = 4 * MS,
			.atime_read_ns = atime_cases[c].atime_read_ns,
			.atime_mono_ns = atime_cases[c].atimes, .atimes = atime_cases[c].n,
		};
		int64_t flushed = -1;
		if (init(&m, &cfg, "deferred"))
			return 1;
		sw_model_trap(&m, 0, 0, &d);
		/* the flush, then whatever comes before the next run */
		while (sw_model_next_tick(&m) < 1000 * MS) {
			int64_t t = sw_model_next_tick(&m);
			sw_model_tick(&m, t, NULL, &d);
			if (flushed >= 0)
				break;
			if (d.flushed)
				flushed = t;
		}
		CHECK(flushed == 104 * MS, "%s: expected the deferred flush at 104 ms, saw %" PRId64 " ns",
		      atime_cases[c].name, flushed);
		if (flushed == 104 * MS)
			check(atime_cases[c].name, atime_cases[c].want_ns, m.t_next_tick_mono_ns);
		sw_model_free(&m);
	}
	for (size_t c = 0; c < sizeof(pending_cases) / sizeof(pending_cases[0]); c++) {
		struct sw_model_cfg cfg = {
			.npages = 4, .page_size = 4096, .writeback_ns = 1000 * MS,
			.expire_ns = 5000 * MS, .jiffy_ns = 4 * MS, .atime_read_ns = 60 * MS,
			.atime_mono_ns = pending_cases[c].atimes, .atimes = pending_cases[c].n,
		};
		if (init(&m, &cfg, "eager"))
			return 1;
		sw_model_trap(&m, 0, 0, &d);
		sw_model_trap(&m, 1, 20 * MS, &d);
		check(pending_cases[c].name, pending_cases[c].want_ns, m.t_atime_mono_ns);
		sw_model_free(&m);
	}
	for (size_t c = 0; c < sizeof(first_read_cases) / sizeof(first_read_cases[0]); c++) {
		struct sw_model_cfg cfg = {
			.npages = 4, .page_size = 4096, .writeback_ns = 100 * MS,
			.expire_ns = 5000 * MS, .jiffy_ns = 4 * MS,
			.atime_read_ns = first_read_cases[c].atime_read_ns,
			.atime_mono_ns = first_read_cases[c].atimes, .atimes = first_read_cases[c].n,
			.first_read_mono_ns = first_read_cases[c].first_read_ns,
		};
		if (init(&m, &cfg, "deferred"))
			return 1;
		sw_model_start(&m, first_read_cases[c].start_ns);
		sw_model_advance(&m, first_read_cases[c].until_ns, NULL);
		check(first_read_cases[c].name, first_read_cases[c].want_ns,
			      m.t_next_tick_mono_ns);
		sw_model_free(&m);
	}
	for (size_t c = 0; c < sizeof(commit_cases) / sizeof(commit_cases[0]); c++) {
		struct sw_model_cfg cfg = {
			.npages = 4, .page_size = 4096, .writeback_ns = 100 * MS,
			.expire_ns = 5000 * MS, .run_commit_ns = 4200 * US,
			.commit_end_mono_ns = ends, .commit_ends = 2,
		};
		if (init(&m, &cfg, "deferred"))
			return 1;
		check(commit_cases[c].name, commit_cases[c].want_ns,
			      swm_commit_len(&m, commit_cases[c].start_ns));
		sw_model_free(&m);
	}
	return check_finish(NULL, "traced inputs: jiffies, atime handles, first read, commit ends");
}
