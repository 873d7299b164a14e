/* SPDX-License-Identifier: MIT */
/*
 * hist.h - bounded-memory log-linear histogram for percentiles (HDR style).
 *
 * Values are non-negative int64 (ns, us, counts).  Buckets: values below
 * 2^SUB_BITS are exact; above, each power of two is split into
 * 2^SUB_BITS linear sub-buckets, so the relative error of a reported
 * percentile is below 2^-SUB_BITS (SUB_BITS 7: < 0.8 %).  Memory is fixed
 * (64 * 128 buckets * 8 bytes = 64 KiB) whatever the number of values.
 * Percentiles report the bucket's upper bound, clamped to the exact max.
 */
#ifndef STALEWIN_HIST_H
#define STALEWIN_HIST_H

#include <stdint.h>

#define SW_HIST_SUB_BITS 7
#define SW_HIST_SUB (1 << SW_HIST_SUB_BITS)
#define SW_HIST_BUCKETS (64 * SW_HIST_SUB)

struct sw_hist {
	uint64_t count;                  /* values recorded */
	int64_t min, max;                /* exact, valid when count > 0 */
	double sum;                      /* for the mean */
	uint64_t b[SW_HIST_BUCKETS];     /* counts per bucket */
};

void sw_hist_init(struct sw_hist *h);
void sw_hist_add(struct sw_hist *h, int64_t v); /* v < 0 is recorded as 0 */
void sw_hist_merge(struct sw_hist *dst, const struct sw_hist *src);
/* q in [0,1]; 0 when empty. */
int64_t sw_hist_quantile(const struct sw_hist *h, double q);
/* Share of values strictly greater than v, in [0,1]. */
double sw_hist_share_above(const struct sw_hist *h, int64_t v);
double sw_hist_mean(const struct sw_hist *h);

#endif
