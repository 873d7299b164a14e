/* SPDX-License-Identifier: MIT */
/* clockstep.c - steps of the writer's realtime clock, seen in its log: the
 * jumps of realtime - monotonic between records (writer_events.h
 * SW_CLOCK_STEP_MIN_NS).  Every writer-log cursor keeps the records on the
 * log's first base already (writer_events.c); these steps are what the
 * report says about it, and what corrects the clock estimate measured
 * after the run (runload.c), which carries the step. */
#include "report.h"
#include "satmath.h"
#include "writer_events.h"

static int near(int64_t a, int64_t b)
{
	int64_t d = ss(a, b);
	return d <= SW_CLOCK_STEP_MIN_NS && d >= -SW_CLOCK_STEP_MIN_NS;
}

/* A step is a new level of realtime - monotonic that a later record with
 * both clocks confirms: the writer's threads log in their own order, so
 * a record read before the step may come after one read after it (it
 * leaves the candidate pending). */
int sw_clock_steps_scan(struct sw_summary *S, const struct swlog_reader *writer)
{
	struct swlog_reader *r;
	struct swlog_rec rec;
	int64_t off0 = 0, level = 0, cand = 0, cand_t = 0, re, mo;
	int have = 0, pending = 0;

	S->nclock_steps = 0;
	if (!writer || swlog_reader_clone(&r, writer))
		return -1; /* (the pass reports an unreadable log) */
	while (swlog_next(r, &rec) == SWLOG_OK) {
		if (!sw_wev_rec_clocks(&rec, &re, &mo))
			continue;
		int64_t off = ss(re, mo), d;
		if (!have) {
			off0 = level = off;
			have = 1;
			continue;
		}
		if (pending && near(off, cand)) {
			d = ss(cand, level);
			if (S->nclock_steps < SW_MAX_CLOCK_STEPS)
				S->clock_step[S->nclock_steps] = (struct sw_clock_step){
					.t_ns = cand_t, .step_ns = d };
			S->nclock_steps++;
			level = cand;
			pending = 0;
			continue;
		}
		d = ss(off, level);
		if (near(off, level) || d >= SW_WEV_SANE_NS || d <= -SW_WEV_SANE_NS)
			continue; /* (a record read before the candidate keeps it
				     pending; damage: the sanity check's) */
		pending = 1;
		cand = off;
		cand_t = sa(mo, off0);
	}
	swlog_reader_close(r);
	return 0;
}
