/* SPDX-License-Identifier: MIT */
/*
 * pass_priv.h - the one pass's state (windows.c), shared with its kernel
 * reader half (kreadpass.c: each kernel mount reader's figure and the
 * replay of its mount options).  Not an interface: the pass's own files.
 */
#ifndef STALEWIN_PASS_PRIV_H
#define STALEWIN_PASS_PRIV_H

#include "cleanedge.h"
#include "obsclock.h"
#include "nfstrace.h"
#include "observer.h"
#include "races.h"
#include "readtimes.h"
#include "report.h"
#include "revalmatch.h"
#include "runload.h"
#include "swlog.h"
#include "truthcur.h"

/* the same read's return, on two clocks' paths (the reader's realtime at
 * its end; its start plus its monotonic length): well under a read apart */
#define SW_UNDET_SAME_NS 1000000

struct step_fwd { /* a kernel reader's replay steps: kept, and to the
		    caller's hook */
	const struct sw_analyze_opts *o;
	int j;
	struct sw_revalmatch *m;
};

struct pass {
	struct sw_summary *S;
	const struct sw_analyze_opts *o;
	struct sw_input *in;
	struct sw_races *races;
	int rows_full;            /* the per-store table ran out of memory */
	struct sw_truth_cur tc;
	struct sw_obs_cursor cur[SW_MAX_OBS];
	struct sw_replay sim[SW_MAX_PROFILES];
	int sims_up;
	/* the first fill after the last store's t_s, per sim (index
	 * SW_MAX_PROFILES + j: kernel reader j's replay): valid until the
	 * next update is pushed */
	int fill_ok[SW_MAX_PROFILES + SW_MAX_KREAD];
	int64_t fill_at[SW_MAX_PROFILES + SW_MAX_KREAD];     /* that read's start */
	int64_t fill_served[SW_MAX_PROFILES + SW_MAX_KREAD]; /* its return */
	struct kcur {             /* one kernel-mount reader log */
		struct swlog_reader *r;
		int open;
		struct sw_rec_kread q; /* its current record */
		int valid, eof;
		int64_t t_last_read_ns; /* writer clock: last KREAD's t_after */
		struct sw_replay sim;  /* replay of its mount options */
		struct swlog_reader *r2; /* second cursor: its read times */
		int open2;
		struct sw_obs_base base, base2; /* r's, r2's realtime steps */
		int64_t offset_ns;     /* probe -> writer clock (S->offset_ns) */
		struct sw_readtimes rt; /* the replay's reads: the reader's logged ones */
		const struct sw_nfstrace *nt; /* the client's RPC times, or NULL */
		int j;                 /* its reader number (nt's dev lines) */
		struct step_fwd fwd;   /* its replay's steps (o->on_replay_step) */
		struct sw_revalmatch match; /* its replay's GETATTRs, kept */
	} kc[SW_MAX_KREAD];
	struct sw_upd last, prev;    /* last two updates the main reader saw */
	int have_last, have_prev;
	struct sw_upd trap;          /* the last trap update not yet claimed by
				     its STORE (other threads' records may
				     come between the two) */
	int have_trap;
	struct sw_rec_setup setup; /* the writer's set-up stamp (SETUP) */
	int have_setup;
	struct sw_cleanedge edge; /* the updates hinging on a pass's time */
	uint64_t open_stores;     /* stores since the last update not covered */
	uint64_t nstore;
	struct sw_store_row row;
};

static inline void fig_add(struct sw_fig *f, int64_t w)
{
	f->n++;
	if (w < 0)
		f->unresolved++;
	else
		sw_hist_add(&f->h, w);
}

/* kreadpass.c */
int pass_kread_time_next(void *ctx, struct sw_read_time *t);
void pass_sims_start(struct pass *P, int64_t t0);
int64_t pass_replay_store(struct pass *P, const struct sw_replay *live, int64_t t_s, int slot,
			  int64_t *alt);
void pass_kread_store(struct pass *P, int j, const struct sw_rec_store *s);

#endif
