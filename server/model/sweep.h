/* SPDX-License-Identifier: MIT */
/*
 * sweep.h - the writeback model on a real run's own stores, at many
 * flusher phases (what `stalewin validate` compares a kernel run with).
 *
 * A validate pair compares one emulated run with one kernel run.  Both
 * have a phase the model cannot know: when the flusher's delayed work was
 * first armed (by whatever the machine dirtied before), and so when the
 * fprop writeout periods tick.  One emulated run is one draw of that phase;
 * a kernel figure outside every phase's figure is a model error, not luck.
 * sw_sweep_run() drives the model with the kernel run's store and sync
 * times, the file created (model started) at t_create, and returns the
 * truth figures the model would have produced for those very stores.
 * Pure computation: no clocks, no I/O.
 */
#ifndef STALEWIN_SWEEP_H
#define STALEWIN_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* One event of the run, in log order. */
struct sw_sweep_ev {
	int64_t t_mono_ns;       /* store: when it trapped, if it did
				    (stalewin-model-sweep: its end, when the
				    page is dirty); sync: the call's start */
	int64_t t_after_mono_ns; /* store: its data visible (t_s); sync: = t */
	uint64_t page;           /* store: page index; sync: SW_NO_PAGE */
	uint32_t cause;          /* 0: a store; SW_CAUSE_MSYNC_ASYNC,
				    _MSYNC_SYNC, _FSYNC: that call */
};

/* The model's truth figures for the run's stores at one phase. */
struct sw_sweep_out {
	uint64_t updates;   /* timestamp updates the model made */
	uint64_t stores;    /* stores of the run */
	uint64_t uncovered; /* stores no update followed before t_end */
	int64_t p50_ns;     /* truth window (store to the first update at or
			       after its trap), nearest rank; -1: ">end" */
	int64_t p90_ns;     /* likewise */
	int64_t max_ns;     /* -1 when some store is uncovered */
	int64_t *upd_t;     /* caller's array, or NULL: the first upd_cap
			       update times (mono ns) are copied there */
	size_t upd_cap;
	int64_t *period_t;  /* caller's array, or NULL: the first period_cap
			       firings of the writeout_period timer the
			       model made (mono ns), period_n of them */
	size_t period_cap, period_n;
	int64_t *commit_t;  /* caller's array, or NULL: the first commit_cap
			       jbd2 commits the model made (mono ns),
			       commit_n of them */
	size_t commit_cap, commit_n;
};

/* Sorts v[0..n) ascending. */
void sw_sweep_sort(int64_t *v, size_t n);

/* Runs the model (cfg, pol) from t_create_mono_ns over ev[0..n) (time
 * order) to t_end_mono_ns.  out's upd_t, upd_cap, period_t,
 * period_cap, commit_t and commit_cap are read, the rest is written.  Returns 0, or -errno with a one-line reason in err (bad
 * config, a store out of the model's pages, no memory). */
int sw_sweep_run(const struct sw_model_cfg *cfg,
		 const struct sw_policy_ops *pol, const struct sw_sweep_ev *ev,
		 size_t n, int64_t t_create_mono_ns, int64_t t_end_mono_ns,
		 struct sw_sweep_out *out, char *err, size_t errlen);
/* Likewise, the flusher's first run at t_first_run_mono_ns (a traced
 * kernel run: the timer fires a few ms after its bucket, which no rule
 * places), the model's own rules from then on. */
int sw_sweep_run_from(const struct sw_model_cfg *cfg,
		      const struct sw_policy_ops *pol,
		      const struct sw_sweep_ev *ev, size_t n,
		      int64_t t_create_mono_ns, int64_t t_first_run_mono_ns,
		      int64_t t_end_mono_ns, struct sw_sweep_out *out,
		      char *err, size_t errlen);

#endif
