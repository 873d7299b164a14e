/* SPDX-License-Identifier: MIT */
/*
 * repstats.h - one figure over repeated runs of one cell (one command):
 * its median with a confidence interval, its range, and whether the runs
 * fall into two separate regimes.  One run is one draw: the patched 6.1
 * guest's deferred p50 drew 0.80-1.92 s over runs of one command, two
 * groups that no single median describes.
 *
 * The interval is the percentile bootstrap of the median, computed
 * exactly rather than by resampling: the bootstrap median of n values is
 * their k-th order statistic (k = the lower middle, (n + 1) / 2), and
 * P(median* <= x(j)) = P(Bin(n, j / n) >= k), so the interval's ends are
 * order statistics x(l) and x(u) found without randomness (the same
 * figures from the same runs, always).  For a continuous figure the
 * probability that [x(l), x(u)] covers the true median is P(l <= B <= u -
 * 1) with B ~ Bin(n, 1/2), whatever the distribution: `coverage` says it,
 * since with few runs it falls below the nominal level (n = 3: 0.75, n =
 * 5: 0.94, n = 10: 0.93).
 *
 * Values: ns >= 0, or -1 "> run end" (no update before the run ended),
 * which sorts above every figure.
 */
#ifndef STALEWIN_REPSTATS_H
#define STALEWIN_REPSTATS_H

#include <stdint.h>

#define SW_REPSTATS_MAX 256 /* values taken (the rest ignored) */

struct sw_repstats {
	int n;                          /* values */
	int64_t median_ns;              /* the lower middle; -1 >end */
	int64_t ci_lo_ns, ci_hi_ns;     /* the interval's ends; -1 >end */
	int ci_lo_k, ci_hi_k;           /* their order statistics (1-based) */
	double level;                   /* nominal level asked (0.95) */
	double coverage;                /* its exact coverage (above) */
	int64_t min_ns, max_ns;         /* range; -1 >end */
	/* Two regimes: the sorted values split at one gap wider than four
	 * pooled within-group standard deviations and than the figure's
	 * resolution (floor), each group holding two runs or more, and n >=
	 * 7 (fewer runs split by chance too often, repstats.c); >end runs
	 * are a group of their own when they are two or more */
	int regimes;                    /* 1, or 2 */
	int regime_b_n;                 /* runs in the upper group (B) */
	int64_t regime_a_median_ns, regime_b_median_ns; /* -1 >end */
};

/* Fill st from v[0..n) (not changed); level in (0, 1), e.g. 0.95;
 * floor_ns: the figure's resolution (a gap no wider is never a regime
 * boundary).  Returns 0, or -1 with st zeroed when n < 1 or level is not
 * in (0, 1). */
int sw_repstats(const int64_t *v, int n, double level, int64_t floor_ns, struct sw_repstats *st);

/* The same for values that are not times (updates per 1000 stores):
 * median, interval ends and range only (regimes as above, floor 0). */
struct sw_repstats_f {
	int n;
	double median, ci_lo, ci_hi, min, max, coverage;
};
int sw_repstats_f(const double *v, int n, double level, struct sw_repstats_f *st);

/* The difference of two figures' medians over two sets of runs (a - b:
 * deferred's against eager's), with the percentile bootstrap interval of
 * that difference: SW_REPSTATS_BOOT resamples of each set drawn with a
 * fixed seed, so the same runs always give the same interval.  >end
 * values (-1) sort above every figure; a difference with one in a
 * median is unbounded (INT64_MAX, or INT64_MIN for b's). */
#define SW_REPSTATS_BOOT 4000
struct sw_repdiff {
	int na, nb;
	int64_t diff_ns, ci_lo_ns, ci_hi_ns;
};
int sw_repstats_diff(const int64_t *a, int na, const int64_t *b, int nb, double level,
		     struct sw_repdiff *d);

#endif
