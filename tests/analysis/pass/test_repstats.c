/* SPDX-License-Identifier: MIT */
/*
 * Description: the statistics over repeated runs (repstats.h) on seeded
 * synthetic draws with a known median.  The 95 % interval of the median
 * of 10 runs covers the true median in 90-99 % of 20,000 trials (exactly
 * 93.5 % for a continuous figure: the interval is x(2)..x(8)), and its
 * stated coverage agrees with the trials within 1.5 points; with 3 runs
 * the interval is the whole range and says 0.75.  Two separate groups of
 * five runs (0.85 s and 1.70 s) are two regimes in at least 95 % of
 * trials, one group of ten normal or lognormal draws in at most 5 %;
 * fewer than seven runs are never split; a gap no wider than the
 * resolution is never one; runs that never ended (>end) sort above
 * every figure.  A broken interval
 * (the nominal order statistics, or a bootstrap of the mean) or a regime
 * rule without its within-group test fails here.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "repstats.h"

#include "check.h"

static uint64_t rng_state;
static uint64_t next64(void) /* splitmix64 */
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
static double unif(void)
{
	return ((double)(next64() >> 11) + 0.5) / 9007199254740992.0;
}
static double normal(double mu, double sd)
{
	return mu + sd * sqrt(-2.0 * log(unif())) * cos(2.0 * M_PI * unif());
}

#define S(x) ((int64_t)((x) * 1e9))

SW_CASE(coverage)
{
	int trials = 20000, covered = 0;
	double stated = 0;
	rng_state = 42;
	for (int t = 0; t < trials; t++) {
		int64_t v[10];
		/* a skewed figure with median exactly 1.5 s: lognormal */
		for (int i = 0; i < 10; i++)
			v[i] = S(1.5 * exp(normal(0, 0.3)));
		struct sw_repstats st;
		CHECK(sw_repstats(v, 10, 0.95, 0, &st) == 0, "repstats failed");
		covered += st.ci_lo_ns <= S(1.5) && S(1.5) <= st.ci_hi_ns;
		stated = st.coverage;
		if (t == 0)
			CHECK(st.ci_lo_k == 2 && st.ci_hi_k == 8,
			      "n=10: expected the interval x(2)..x(8), saw x(%d)..x(%d)", st.ci_lo_k,
			      st.ci_hi_k);
	}
	double share = (double)covered / trials;
	printf("n=10: the 95 %% interval covered the median in %.4f of %d trials, stated %.4f\n", share,
	       trials, stated);
	CHECK(share >= 0.90 && share <= 0.99, "n=10: expected coverage in 0.90-0.99, saw %.4f", share);
	CHECK(fabs(share - stated) < 0.015, "n=10: stated coverage %.4f, trials %.4f", stated, share);
	int64_t three[3] = { S(1.2), S(1.0), S(1.4) };
	struct sw_repstats st;
	sw_repstats(three, 3, 0.95, 0, &st);
	CHECK(st.median_ns == S(1.2) && st.ci_lo_ns == S(1.0) && st.ci_hi_ns == S(1.4) &&
	      fabs(st.coverage - 0.75) < 1e-9,
	      "n=3: expected median 1.2 s, interval 1.0..1.4 s, coverage 0.75; saw %lld, %lld..%lld, %.4f",
	      (long long)st.median_ns, (long long)st.ci_lo_ns, (long long)st.ci_hi_ns, st.coverage);
	CHECK(sw_repstats(three, 0, 0.95, 0, &st) == -1 && sw_repstats(three, 3, 1.0, 0, &st) == -1,
	      "expected -1 for no values and for level 1.0");
}

SW_CASE(regimes)
{
	int trials = 2000, bi = 0, uni = 0;
	rng_state = 7;
	for (int t = 0; t < trials; t++) {
		int64_t v[10];
		for (int i = 0; i < 10; i++)
			v[i] = i % 2 ? S(normal(0.85, 0.05)) : S(normal(1.70, 0.08));
		struct sw_repstats st;
		sw_repstats(v, 10, 0.95, S(0.1), &st);
		bi += st.regimes == 2 && st.regime_b_n == 5;
		for (int i = 0; i < 10; i++)
			v[i] = t % 2 ? S(normal(1.5, 0.2)) : S(1.5 * exp(normal(0, 0.3)));
		sw_repstats(v, 10, 0.95, S(0.1), &st);
		uni += st.regimes == 2;
	}
	printf("regimes: bimodal sets split in %d of %d trials, unimodal in %d\n", bi, trials, uni);
	CHECK(bi >= trials * 95 / 100, "bimodal: expected two regimes in >= 95%% of trials, saw %d of %d", bi,
	      trials);
	CHECK(uni <= trials * 5 / 100, "unimodal: expected two regimes in <= 5%% of trials, saw %d of %d", uni,
	      trials);
	/* seven runs: three near 0.8 s, four near 1.5 s */
	int64_t d[7] = { S(0.80), S(1.49), S(0.86), S(1.55), S(0.83), S(1.53), S(1.60) };
	struct sw_repstats st;
	sw_repstats(d, 7, 0.95, S(0.1), &st);
	CHECK(st.regimes == 2 && st.regime_b_n == 4 && st.regime_a_median_ns == S(0.83) &&
	      st.regime_b_median_ns == S(1.53),
	      "0.80-1.60 s draws: expected 4 of 7 runs in regime B (medians 0.83 s and 1.53 s), saw %d regimes, %d in B, %lld / %lld",
	      st.regimes, st.regime_b_n, (long long)st.regime_a_median_ns, (long long)st.regime_b_median_ns);
	/* the same with six runs: too few to tell */
	sw_repstats(d, 6, 0.95, S(0.1), &st);
	CHECK(st.regimes == 1, "six runs: expected one regime (fewer than 7), saw %d", st.regimes);
	/* a gap within the resolution: one regime */
	int64_t q[8] = { S(1.00), S(1.00), S(1.00), S(1.00), S(1.10), S(1.10), S(1.10), S(1.10) };
	sw_repstats(q, 8, 0.95, S(0.1), &st);
	CHECK(st.regimes == 1, "a 100 ms gap at 100 ms resolution: expected one regime, saw %d", st.regimes);
	/* >end above every figure, two such runs a regime of their own */
	int64_t e[7] = { -1, S(1.0), S(1.1), -1, S(0.9), S(1.05), S(0.95) };
	sw_repstats(e, 7, 0.95, 0, &st);
	CHECK(st.max_ns == -1 && st.median_ns == S(1.05) && st.regimes == 2 && st.regime_b_n == 2 &&
	      st.regime_b_median_ns == -1,
	      "two >end runs of seven: expected max >end, median 1.05 s, 2 runs in regime B (>end); saw %lld, %lld, %d, %d, %lld",
	      (long long)st.max_ns, (long long)st.median_ns, st.regimes, st.regime_b_n,
	      (long long)st.regime_b_median_ns);
}

SW_CASE(floats)
{
	double u[5] = { 20, 18, 25, 19, 21 };
	struct sw_repstats_f st;
	CHECK(sw_repstats_f(u, 5, 0.95, &st) == 0 && st.median == 20 && st.min == 18 && st.max == 25 &&
	      st.ci_lo == 18 && st.ci_hi == 25,
	      "updates/1k of 5 runs: expected median 20, interval 18..25, saw %g, %g..%g", st.median, st.ci_lo,
	      st.ci_hi);
}

/* deferred - eager: two sets of 10 lognormal runs whose medians differ by
 * exactly 0.5 s; the interval of the difference covers it in 90-99 % of
 * 2,000 seeded trials; >end in a median is an unbounded difference */
SW_CASE(difference)
{
	int trials = 2000, covered = 0;
	rng_state = 99;
	for (int t = 0; t < trials; t++) {
		int64_t a[10], b[10];
		for (int i = 0; i < 10; i++) {
			a[i] = S(1.5 * exp(normal(0, 0.25)));
			b[i] = S(1.0 * exp(normal(0, 0.25)));
		}
		struct sw_repdiff d;
		CHECK(sw_repstats_diff(a, 10, b, 10, 0.95, &d) == 0, "repstats_diff failed");
		covered += d.ci_lo_ns <= S(0.5) && S(0.5) <= d.ci_hi_ns;
	}
	double share = (double)covered / trials;
	printf("difference of medians: the 95 %% interval covered 0.5 s in %.4f of %d trials\n", share, trials);
	CHECK(share >= 0.90 && share <= 0.99, "difference: expected coverage in 0.90-0.99, saw %.4f", share);
	int64_t x[3] = { S(2), S(2.1), S(1.9) }, y[3] = { S(1), S(1.1), S(0.9) }, e[3] = { -1, -1, S(1) };
	struct sw_repdiff d, d2;
	sw_repstats_diff(x, 3, y, 3, 0.95, &d);
	sw_repstats_diff(x, 3, y, 3, 0.95, &d2);
	CHECK(d.diff_ns == S(1.0) && d.ci_lo_ns == d2.ci_lo_ns && d.ci_hi_ns == d2.ci_hi_ns,
	      "expected a difference of 1.0 s and the same interval twice, saw %lld, %lld..%lld / %lld..%lld",
	      (long long)d.diff_ns, (long long)d.ci_lo_ns, (long long)d.ci_hi_ns, (long long)d2.ci_lo_ns,
	      (long long)d2.ci_hi_ns);
	sw_repstats_diff(e, 3, y, 3, 0.95, &d);
	CHECK(d.diff_ns == INT64_MAX, ">end in a's median: expected an unbounded difference, saw %lld",
	      (long long)d.diff_ns);
}

SW_MAIN()
