/* SPDX-License-Identifier: MIT */
/* readtimes.c - a reader's logged read times, a bounded window of them. */
#include <stdint.h>
#include <stdlib.h>

#include "readtimes.h"
#include "ring.h"

static const struct sw_read_time *rd(const struct sw_readtimes *rt, size_t i)
{
	return &rt->t[(rt->head + i) % rt->cap];
}

static int64_t at(const struct sw_readtimes *rt, size_t i)
{
	return rd(rt, i)->t_ns;
}

/* the first held read whose start (writer clock, or with mono the
 * reader's) is >= x; the last one's is */
static size_t lower_bound(const struct sw_readtimes *rt, int64_t x, int mono)
{
	size_t lo = 0, hi = rt->n - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((mono ? rd(rt, mid)->chk_mono_ns : at(rt, mid)) >= x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static int push(struct sw_readtimes *rt, struct sw_read_time q)
{
	if (rt->n == rt->cap) {
		size_t nc = rt->cap ? rt->cap * 2 : 256;
		if (nc > SW_RT_MAX || rt->n >= SW_RT_MAX)
			nc = SW_RT_MAX;
		if (nc <= rt->cap)
			return -1;
		struct sw_read_time *nt = sw_ring_regrow(rt->t, sizeof(*nt), rt->head, rt->n, rt->cap, nc);
		if (!nt)
			return -1;
		rt->t = nt;
		rt->cap = nc;
		rt->head = 0;
	}
	/* a read never starts before the one logged before it; a damaged
	 * log's step back is held at the previous time */
	if (rt->n && q.t_ns < at(rt, rt->n - 1))
		q.t_ns = at(rt, rt->n - 1);
	if (rt->n && q.tb_mono_ns < rd(rt, rt->n - 1)->tb_mono_ns)
		q.tb_mono_ns = rd(rt, rt->n - 1)->tb_mono_ns;
	/* the attribute check: traced, or as the read began; in order */
	if (!q.chk_mono_ns)
		q.chk_mono_ns = q.tb_mono_ns;
	if (rt->n && q.chk_mono_ns < rd(rt, rt->n - 1)->chk_mono_ns)
		q.chk_mono_ns = rd(rt, rt->n - 1)->chk_mono_ns;
	if (q.ta_mono_ns < q.tb_mono_ns)
		q.ta_mono_ns = q.tb_mono_ns;
	rt->t[(rt->head + rt->n) % rt->cap] = q;
	rt->n++;
	return 0;
}

/* one more read from the log: 1, or 0 at its end (or the window full) */
static int load_one(struct sw_readtimes *rt)
{
	struct sw_read_time q = { 0 };
	if (rt->eof)
		return 0;
	if (!rt->next(rt->ctx, &q)) {
		rt->eof = 1;
		return 0;
	}
	if (push(rt, q)) {
		rt->eof = 1;
		rt->capped = 1;
		return 0;
	}
	return 1;
}

/* the first read starting at or after x; INT64_MAX: none logged */
static int64_t rt_ceil(void *ctx, int64_t x)
{
	struct sw_readtimes *rt = ctx;
	while ((rt->n == 0 || at(rt, rt->n - 1) < x) && load_one(rt))
		;
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
	return at(rt, lower_bound(rt, x, 0));
}

/* past the last logged read the reader's period goes on, in both clocks */
static struct sw_read_time beyond(const struct sw_readtimes *rt, int64_t k)
{
	const struct sw_read_time *l = rd(rt, rt->n - 1);
	__int128 d = (__int128)k * rt->period_ns;
	struct sw_read_time q = { 0 };
	q.t_ns = d + l->t_ns > INT64_MAX ? INT64_MAX : (int64_t)(d + l->t_ns);
	q.tb_mono_ns = d + l->tb_mono_ns > INT64_MAX ? INT64_MAX : (int64_t)(d + l->tb_mono_ns);
	q.ta_mono_ns = q.chk_mono_ns = q.tb_mono_ns;
	q.beyond = 1;
	return q;
}

/* the first read whose attribute check (reader clock: traced, else its
 * start) is at or after m */
static int64_t rt_ceil_mono(void *ctx, int64_t m)
{
	struct sw_readtimes *rt = ctx;
	while ((rt->n == 0 || rd(rt, rt->n - 1)->chk_mono_ns < m) && load_one(rt))
		;
	if (rt->n == 0)
		return INT64_MAX;
	const struct sw_read_time *l = rd(rt, rt->n - 1);
	if (l->chk_mono_ns < m) {
		if (rt->period_ns <= 0)
			return INT64_MAX;
		__int128 k = ((__int128)m - l->tb_mono_ns + rt->period_ns - 1) / rt->period_ns;
		return k > INT64_MAX / 2 ? INT64_MAX : beyond(rt, (int64_t)k).t_ns;
	}
	return at(rt, lower_bound(rt, m, 1));
}

/* the read starting at t (the first one, when several share t) */
static int rt_get(void *ctx, int64_t t, struct sw_read_time *out)
{
	struct sw_readtimes *rt = ctx;
	while ((rt->n == 0 || at(rt, rt->n - 1) < t) && load_one(rt))
		;
	if (rt->n == 0)
		return 0;
	if (at(rt, rt->n - 1) < t) {
		if (rt->period_ns <= 0)
			return 0;
		int64_t d = t - at(rt, rt->n - 1);
		*out = beyond(rt, d / rt->period_ns);
		return out->t_ns == t;
	}
	size_t lo = lower_bound(rt, t, 0);
	if (at(rt, lo) != t)
		return 0;
	*out = *rd(rt, lo);
	return 1;
}

void sw_readtimes_init(struct sw_readtimes *rt,
		       int (*next)(void *, struct sw_read_time *), void *ctx,
		       int64_t period_ns)
{
	*rt = (struct sw_readtimes){ .next = next, .ctx = ctx, .period_ns = period_ns };
	rt->src.ceil = rt_ceil;
	rt->src.ceil_mono = rt_ceil_mono;
	rt->src.get = rt_get;
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

int sw_readtimes_array_next(void *ctx, struct sw_read_time *q)
{
	struct sw_readtimes_array *a = ctx;
	if (a->i >= a->n)
		return 0;
	q->t_ns = a->t[a->i];
	q->tb_mono_ns = a->tb_mono ? a->tb_mono[a->i] : 0;
	q->ta_mono_ns = a->ta_mono ? a->ta_mono[a->i] : q->tb_mono_ns;
	q->ga_send_mono_ns = a->ga_send ? a->ga_send[a->i] : 0;
	q->ga_reply_mono_ns = a->ga_reply ? a->ga_reply[a->i] : 0;
	q->rd_send_mono_ns = a->rd_send ? a->rd_send[a->i] : 0;
	q->rd_reply_mono_ns = a->rd_reply ? a->rd_reply[a->i] : 0;
	q->chk_mono_ns = a->chk ? a->chk[a->i] : 0;
	q->op_send_mono_ns = a->op_send ? a->op_send[a->i] : 0;
	q->op_reply_mono_ns = a->op_reply ? a->op_reply[a->i] : 0;
	q->op_refresh_mono_ns = a->op_refresh ? a->op_refresh[a->i] : 0;
	q->ac_reply_mono_ns = a->ac_reply ? a->ac_reply[a->i] : 0;
	q->ga_in_open = a->ga_in_open ? a->ga_in_open[a->i] : 0;
	q->ga_send_ev_mono_ns = a->ga_send_ev ? a->ga_send_ev[a->i] : 0;
	q->ga_reply_ev_mono_ns = a->ga_reply_ev ? a->ga_reply_ev[a->i] : 0;
	q->rd_send_ev_mono_ns = a->rd_send_ev ? a->rd_send_ev[a->i] : 0;
	q->rd_done_ev_mono_ns = a->rd_done_ev ? a->rd_done_ev[a->i] : 0;
	q->op_send_ev_mono_ns = q->op_reply_ev_mono_ns = 0;
	a->i++;
	return 1;
}
