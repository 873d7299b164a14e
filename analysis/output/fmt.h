/* SPDX-License-Identifier: MIT */
/* fmt.h - shared by the format modules. */
#ifndef STALEWIN_FMT_H
#define STALEWIN_FMT_H
#include <stdio.h>

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
/* a quantile value as the table prints it: "-", ">end" or a duration */
void sw_fmt_qv(char *buf, int len, int64_t v);
/* a share as the table prints it: "0", "<.1%", "2.5%", "40%" */
void sw_fmt_pct(char *buf, int len, double share);
/* the table row "name n p50 p90 p99 max >1s >5s >30s uncov" */
void sw_fmt_fig_row(FILE *f, const char *label, const struct sw_figstats *st);

int64_t sw_fig_quantile(const struct sw_fig *f, double q);
double sw_fig_share_above(const struct sw_fig *f, int64_t v);
double sw_fig_cdf(const struct sw_fig *f, int64_t v);
void sw_fmt_q(char *buf, int len, const struct sw_fig *f, double q);
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
/* "mtime+ctime" for a SW_ATTR_* mask */
void sw_mask_name(char *buf, int len, uint32_t m);
#include <jansson.h>
/* stores, unresolved, p50_ns..max_ns (null: "> run end"), share_gt_* */
void sw_figstats_json(json_t *o, const struct sw_figstats *st);
json_t *sw_fig_json(const struct sw_fig *g, enum sw_fig_kind kind);
json_t *sw_summary_json(const struct sw_summary *S, int exit_code);
#endif
