/* SPDX-License-Identifier: MIT */
/* cleanedge.c - the updates that hinge on a flusher pass's time
 * (cleanedge.h). */
#include <stdlib.h>
#include <string.h>

#include "cleanedge.h"

const int sw_edge_window_ms[SW_EDGE_WINDOWS] = { 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024 };

/* a file of 16 GiB in 4 KiB pages: past it the figure is void, not a
 * table of gigabytes */
#define EDGE_MAX_PAGES ((size_t)1 << 22)
#define NONE INT64_MIN

void sw_edge_init(struct sw_cleanedge *e)
{
	memset(e, 0, sizeof(*e));
	e->c_cur = NONE;
}

static int64_t *grow64(int64_t *a, size_t old, size_t n)
{
	int64_t *b = realloc(a, n * sizeof(*b));
	if (b)
		for (size_t i = old; i < n; i++)
			b[i] = NONE;
	return b;
}

static int pages_for(struct sw_cleanedge *e, uint64_t page)
{
	size_t n = e->npages ? e->npages : 1024, old = e->npages;
	int64_t *a;

	if (page < e->npages)
		return 0;
	if (page >= EDGE_MAX_PAGES)
		return -1;
	while (n <= page)
		n *= 2;
	if (!(a = grow64(e->f_prev, old, n)))
		return -1;
	e->f_prev = a;
	if (!(a = grow64(e->f_cur, old, n)))
		return -1;
	e->f_cur = a;
	if (!(a = grow64(e->last, old, n)))
		return -1;
	e->last = a;
	e->npages = n;
	return 0;
}

static int push(uint64_t **list, size_t *n, size_t *cap, uint64_t page)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 256;
		uint64_t *b = realloc(*list, c * sizeof(*b));
		if (!b)
			return -1;
		*list = b;
		*cap = c;
	}
	(*list)[(*n)++] = page;
	return 0;
}

void sw_edge_store(struct sw_cleanedge *e, uint64_t page, int64_t t)
{
	if (e->oom)
		return;
	if (pages_for(e, page)) {
		e->oom = 1;
		return;
	}
	if (e->last[page] == NONE || t > e->last[page])
		e->last[page] = t;
	if (e->f_prev[page] == NONE) {
		if (push(&e->touched, &e->ntouched, &e->cap_touched, page)) {
			e->oom = 1;
			return;
		}
		e->f_prev[page] = t;
	}
	/* (a store logged after a pass it preceded, by another thread's
	 * record order, belongs before it) */
	if (e->f_cur[page] == NONE && (e->c_cur == NONE || t >= e->c_cur)) {
		if (push(&e->touched_cur, &e->ntouched_cur, &e->cap_touched_cur, page)) {
			e->oom = 1;
			return;
		}
		e->f_cur[page] = t;
	}
}

/* the pass c_cur, between the one before and the next: every page
 * stored in between, its first store f and its last l */
static void count_pass(struct sw_cleanedge *e)
{
	int64_t c = e->c_cur;

	for (size_t i = 0; i < e->ntouched; i++) {
		uint64_t p = e->touched[i];
		int64_t f = e->f_prev[p], l = e->last[p];
		if (f >= l)
			continue; /* one store: one trap wherever the pass falls */
		for (int k = 0; k < SW_EDGE_WINDOWS; k++) {
			int64_t w = (int64_t)sw_edge_window_ms[k] * 1000000;
			int reach = l > c - w && f < c + w;
			int edge = (f >= c - w && f <= c + w) || (l >= c - w && l <= c + w);
			e->pairs[k] += reach && edge;
		}
	}
}

void sw_edge_clean(struct sw_cleanedge *e, int64_t t)
{
	if (e->oom)
		return;
	if (e->ncleans)
		count_pass(e);
	for (size_t i = 0; i < e->ntouched; i++)
		e->f_prev[e->touched[i]] = NONE;
	/* the pages stored since the last pass are those since the pass
	 * before the new one */
	for (size_t i = 0; i < e->ntouched_cur; i++) {
		uint64_t p = e->touched_cur[i];
		e->f_prev[p] = e->f_cur[p];
		e->f_cur[p] = NONE;
	}
	uint64_t *sw = e->touched;
	size_t cap = e->cap_touched;
	e->touched = e->touched_cur;
	e->ntouched = e->ntouched_cur;
	e->cap_touched = e->cap_touched_cur;
	e->touched_cur = sw;
	e->cap_touched_cur = cap;
	e->ntouched_cur = 0;
	e->c_cur = t;
	e->ncleans++;
}

int sw_edge_finish(struct sw_cleanedge *e)
{
	if (!e->oom && e->ncleans)
		count_pass(e);
	return e->oom ? -1 : 0;
}

void sw_edge_free(struct sw_cleanedge *e)
{
	free(e->f_prev);
	free(e->f_cur);
	free(e->last);
	free(e->touched);
	free(e->touched_cur);
	sw_edge_init(e);
}
