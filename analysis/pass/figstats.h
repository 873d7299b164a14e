/* SPDX-License-Identifier: MIT */
/* figstats.h - the figures of a summary as the report's table shows them:
 * which figures (sw_fig_at), the columns (quantiles over all stores,
 * shares above thresholds), one figure's row computed once. */
#ifndef STALEWIN_FIGSTATS_H
#define STALEWIN_FIGSTATS_H

#include "report.h"

/* The table's columns, one list for every sink and for compare/archive:
 * the quantiles over all stores and the thresholds of the share columns. */
enum { SW_FIG_NQ = 4, SW_FIG_NTH = 3 };
extern const double sw_fig_q[SW_FIG_NQ];           /* 0.5 0.9 0.99 1.0 */
extern const char *const sw_fig_q_name[SW_FIG_NQ]; /* "p50" .. "max" */
extern const int64_t sw_fig_th_ns[SW_FIG_NTH];     /* 1 s, 5 s, 30 s */
extern const char *const sw_fig_th_name[SW_FIG_NTH]; /* "1s" "5s" "30s" */

/* One figure's row, computed once: q[] in ns (-1 "> run end", -2 no
 * stores), gt[] the share of all stores above each threshold. */
struct sw_figstats {
	uint64_t n, unresolved;
	int64_t q[SW_FIG_NQ];
	double gt[SW_FIG_NTH];
};
void sw_figstats(const struct sw_fig *f, struct sw_figstats *st);

int64_t sw_fig_quantile(const struct sw_fig *f, double q);
double sw_fig_share_above(const struct sw_fig *f, int64_t v);
double sw_fig_cdf(const struct sw_fig *f, int64_t v);

/* What a figure of the table is (also the archive's figures.kind). */
enum sw_fig_kind {
	SW_FIG_TRUTH = 0,    /* the writer's truth */
	SW_FIG_OBSERVED = 1, /* a probe target's observation */
	SW_FIG_REPLAY = 2,   /* a client profile's replay */
	SW_FIG_KREAD = 3,    /* a kernel-mount reader (its figure or replay) */
	SW_FIG_KIND_N
};
/* i-th figure of the table (truth, the first sw_fig_nobs observers,
 * replays, kread), NULL past the end. */
const struct sw_fig *sw_fig_at(const struct sw_summary *S, int i,
			       enum sw_fig_kind *kind);
/* The observers in the table and the per-store rows: the first
 * SW_ROWS_OBS of S->nobs. */
int sw_fig_nobs(const struct sw_summary *S);

/* An observer's replies per second over its span (first to last reply,
 * writer clock): (replies - 1) / span; -1 with fewer than two. */
double sw_obs_achieved_hz(const struct sw_observer *O);

/* Every observer at once, for a report of more than SW_ROWS_OBS of them:
 * the spread of their W_obs p50 and p99 over the observers that judged a
 * store (min, median: the lower middle one, max; ns, writer clock; -1
 * "> run end", -2 none judged), the worst (longest p99, then max, then
 * the largest share of stores never seen revealed, then longest p50; -1
 * none), the consistency counts summed, the achieved rates' spread
 * (replies/s, -1 none). */
struct sw_obs_spread {
	int nobs, in_rows;       /* observers; of them in the table and rows */
	int judged;              /* observers whose figure has stores */
	int64_t p50[3], p99[3];  /* min, median, max */
	int worst;               /* index into S->obs */
	uint64_t checked, consistent, low, high;
	uint64_t exc[SW_EXC_N];  /* the early and late ones' explanations, summed */
	double hz[3];            /* min, median, max */
};
/* 0, or -1 (no memory: sp says nothing judged). */
int sw_obs_spread(const struct sw_summary *S, struct sw_obs_spread *sp);

#endif
