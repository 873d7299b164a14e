/* SPDX-License-Identifier: MIT */
/*
 * Description: percentiles from the bounded histogram must match the exact
 * nearest-rank percentiles of the same values within the stated relative
 * error (2^-7).  A broken bucket mapping shows as a percentile off by a
 * power of two, a non-monotonic quantile, or a share-above that disagrees
 * with counting.
 */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "hist.h"

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

int main(void)
{
	enum { N = 100000 };
	static int64_t v[N];
	static struct sw_hist h;
	sw_hist_init(&h);
	srand(7);
	for (int i = 0; i < N; i++) {
		/* log-uniform over 1 ns .. ~100 s */
		double e = (double)rand() / RAND_MAX * 36.5;
		v[i] = (int64_t)exp2(e);
		sw_hist_add(&h, v[i]);
	}
	qsort(v, N, sizeof(v[0]), cmp);
	const double qs[] = { 0.01, 0.1, 0.5, 0.9, 0.99, 0.999 };
	int64_t last = -1;
	for (unsigned i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		int64_t exact = v[(size_t)(qs[i] * N + 0.999999) - 1];
		int64_t got = sw_hist_quantile(&h, qs[i]);
		double rel = exact ? (double)(got - exact) / (double)exact : 0;
		CHECK(got >= exact && rel <= 1.0 / 128, "q%.3f: exact %lld, hist %lld (rel %.4f)",
		      qs[i], (long long)exact, (long long)got, rel);
		CHECK(got >= last, "quantiles not monotonic at q%.3f", qs[i]);
		last = got;
	}
	CHECK(sw_hist_quantile(&h, 1.0) == v[N - 1] && sw_hist_quantile(&h, 0) == v[0],
	      "min/max not exact");
	/* share above 1 s vs counting */
	int64_t s1 = 1000000000;
	int above = 0;
	for (int i = 0; i < N; i++)
		above += v[i] > s1;
	double share = sw_hist_share_above(&h, s1);
	CHECK(share <= (double)above / N + 0.01 && share >= (double)above / N - 0.01,
	      "share above 1s: %.4f vs counted %.4f", share, (double)above / N);
	/* small exact values */
	struct sw_hist s;
	sw_hist_init(&s);
	for (int i = 1; i <= 100; i++)
		sw_hist_add(&s, i);
	CHECK(sw_hist_quantile(&s, 0.5) == 50 && sw_hist_quantile(&s, 0.99) == 99,
	      "exact small: p50 %lld p99 %lld", (long long)sw_hist_quantile(&s, 0.5),
	      (long long)sw_hist_quantile(&s, 0.99));
	struct sw_hist m;
	sw_hist_init(&m);
	sw_hist_merge(&m, &s);
	sw_hist_merge(&m, &h);
	CHECK(m.count == (uint64_t)N + 100 && m.min == 1, "merge");
	return check_finish(NULL, "test_hist: ok");
}
