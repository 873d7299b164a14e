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
/* i-th figure of the table (truth, observers, replays, kread), NULL past
 * the end. */
const struct sw_fig *sw_fig_at(const struct sw_summary *S, int i,
			       enum sw_fig_kind *kind);

#endif
