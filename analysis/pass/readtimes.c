/* SPDX-License-Identifier: MIT */
/* readtimes.c - a reader's logged read times, a bounded window of them. */
#include <stdint.h>
#include <stdlib.h>

#include "readtimes.h"

static int64_t at(const struct sw_readtimes *rt, size_t i)
{
	return rt->t[(rt->head + i) % rt->cap];
}

static int push(struct sw_readtimes *rt, int64_t t)
{
	if (rt->n == rt->cap) {
		size_t nc = rt->cap ? rt->cap * 2 : 256;
		if (nc > SW_RT_MAX || rt->n >= SW_RT_MAX)
			nc = SW_RT_MAX;
		if (nc <= rt->cap)
			return -1;
		int64_t *nt = malloc(nc * sizeof(*nt));
		if (!nt)
			return -1;
		for (size_t i = 0; i < rt->n; i++)
			nt[i] = at(rt, i);
		free(rt->t);
		rt->t = nt;
		rt->cap = nc;
		rt->head = 0;
	}
	/* a read never starts before the one logged before it; a damaged
	 * log's step back is held at the previous time */
	if (rt->n && t < at(rt, rt->n - 1))
		t = at(rt, rt->n - 1);
	rt->t[(rt->head + rt->n) % rt->cap] = t;
	rt->n++;
	return 0;
}

/* the first read starting at or after x; INT64_MAX: none logged */
static int64_t rt_ceil(void *ctx, int64_t x)
{
	struct sw_readtimes *rt = ctx;
	while (!rt->eof && (rt->n == 0 || at(rt, rt->n - 1) < x)) {
		int64_t t;
		if (!rt->next(rt->ctx, &t)) {
			rt->eof = 1;
			break;
		}
		if (push(rt, t)) {
			rt->eof = 1;
			rt->capped = 1;
			break;
		}
	}
	if (rt->n == 0)
		return INT64_MAX;
	int64_t last = at(rt, rt->n - 1);
	if (last < x) {
		/* past the reader's last read: its period continues from there
		 * (the pass counts a replayed read after the reader's last one
		 * as unseen itself, as it did with the grid) */
		if (rt->period_ns <= 0)
			return INT64_MAX;
		__int128 k = ((__int128)x - last + rt->period_ns - 1) / rt->period_ns;
		__int128 v = last + k * rt->period_ns;
		return v > INT64_MAX ? INT64_MAX : (int64_t)v;
	}
	size_t lo = 0, hi = rt->n - 1; /* at(hi) >= x */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (at(rt, mid) >= x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return at(rt, lo);
}

void sw_readtimes_init(struct sw_readtimes *rt, int (*next)(void *, int64_t *),
		       void *ctx, int64_t period_ns)
{
	*rt = (struct sw_readtimes){ .next = next, .ctx = ctx, .period_ns = period_ns };
	rt->src.ceil = rt_ceil;
	rt->src.ctx = rt;
}

void sw_readtimes_drop_before(struct sw_readtimes *rt, int64_t t_ns)
{
	/* the last read stays: the period continues from it */
	while (rt->n > 1 && at(rt, 0) < t_ns) {
		rt->head = (rt->head + 1) % rt->cap;
		rt->n--;
	}
}

void sw_readtimes_free(struct sw_readtimes *rt)
{
	free(rt->t);
	rt->t = NULL;
	rt->cap = rt->n = rt->head = 0;
}

int sw_readtimes_array_next(void *ctx, int64_t *t_ns)
{
	struct sw_readtimes_array *a = ctx;
	if (a->i >= a->n)
		return 0;
	*t_ns = a->t[a->i++];
	return 1;
}
