/* SPDX-License-Identifier: MIT */
/* hist.c - log-linear histogram (see hist.h). */
#include "hist.h"

#include <string.h>

/* Bucket index: values < SUB are exact (bucket = value); otherwise with
 * e = floor(log2 v) >= SUB_BITS, the top SUB_BITS bits after the leading one
 * pick the sub-bucket: index = (e - SUB_BITS + 1) * SUB + sub. */
static int bucket_of(uint64_t v)
{
	if (v < SW_HIST_SUB)
		return (int)v;
	int e = 63 - __builtin_clzll(v);
	int shift = e - SW_HIST_SUB_BITS;
	int sub = (int)((v >> shift) & (SW_HIST_SUB - 1));
	return (shift + 1) * SW_HIST_SUB + sub;
}

/* Largest value that falls in bucket i. */
static uint64_t bucket_hi(int i)
{
	if (i < SW_HIST_SUB)
		return (uint64_t)i;
	int shift = i / SW_HIST_SUB - 1;
	uint64_t sub = (uint64_t)(i % SW_HIST_SUB);
	uint64_t lo = ((uint64_t)SW_HIST_SUB + sub) << shift;
	return lo + ((1ull << shift) - 1);
}

void sw_hist_init(struct sw_hist *h)
{
	memset(h, 0, sizeof(*h));
}

void sw_hist_add(struct sw_hist *h, int64_t v)
{
	if (v < 0)
		v = 0;
	int i = bucket_of((uint64_t)v);
	if (i >= SW_HIST_BUCKETS)
		i = SW_HIST_BUCKETS - 1;
	h->b[i]++;
	if (h->count == 0 || v < h->min)
		h->min = v;
	if (h->count == 0 || v > h->max)
		h->max = v;
	h->count++;
	h->sum += (double)v;
}

void sw_hist_merge(struct sw_hist *dst, const struct sw_hist *src)
{
	if (src->count == 0)
		return;
	for (int i = 0; i < SW_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	if (dst->count == 0 || src->min < dst->min)
		dst->min = src->min;
	if (dst->count == 0 || src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
}

int64_t sw_hist_quantile(const struct sw_hist *h, double q)
{
	if (h->count == 0)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* rank: the smallest value v such that at least ceil(q*count) values
	 * are <= v (nearest-rank definition). */
	uint64_t rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++;
	if (rank == 0)
		rank = 1;
	uint64_t seen = 0;
	for (int i = 0; i < SW_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			int64_t hi = (int64_t)bucket_hi(i);
			if (hi > h->max)
				hi = h->max;
			if (hi < h->min)
				hi = h->min;
			return hi;
		}
	}
	return h->max;
}

double sw_hist_share_above(const struct sw_hist *h, int64_t v)
{
	if (h->count == 0)
		return 0;
	if (v < 0)
		return 1;
	/* Buckets wholly above v count fully; v's own bucket counts as not
	 * above (values in it are within the bucket's relative error of v). */
	int iv = bucket_of((uint64_t)v);
	uint64_t above = 0;
	for (int i = iv + 1; i < SW_HIST_BUCKETS; i++)
		above += h->b[i];
	return (double)above / (double)h->count;
}

double sw_hist_mean(const struct sw_hist *h)
{
	return h->count ? h->sum / (double)h->count : 0;
}
