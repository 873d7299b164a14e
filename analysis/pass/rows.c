/* SPDX-License-Identifier: MIT */
/*
 * rows.c - the per-store table a pass keeps when an output needs each
 * store (the CSV, the plots' timeline): report.h struct sw_rows.  A store
 * is packed into ROW_FIXED + 12 bytes per probe target (the first
 * SW_ROWS_OBS) + 8 per replayed profile + 17 per kernel reader
 * (docs/architecture.md), in chunks of about CHUNK_BYTES so the table
 * never needs one large block.
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define CHUNK_BYTES (1u << 20)
/* page 8, gen 8, t_s 8, trap_ns 8, w_truth 8, aux 8 (race gap when covered
 * by its own update, the lower bound when uncovered), flags 4, cause 4,
 * own 1 */
#define ROW_FIXED 57u
#define OBS_BYTES 12u   /* w_ns 8, status | exc << 2 | revealed << 8 */
#define KREAD_BYTES 17u /* seen 1, w_ns 8, replay_ns 8 */

struct sw_rows {
	int nobs, nprof, nkread;
	size_t stride;          /* bytes of one packed store */
	uint64_t keep, n;       /* stores to keep at most; kept */
	uint64_t per_chunk;     /* stores in a chunk */
	uint8_t **chunk;
	size_t nchunk, cap;
	uint64_t keep_upd, nupd;
	struct { int64_t t; uint32_t cause; } *upd;
	int64_t t0;             /* the first event's time, 0 none yet */
};

struct sw_rows *sw_rows_new(const struct sw_summary *S, uint64_t keep_rows,
			    uint64_t keep_updates)
{
	struct sw_rows *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->nobs = S->nobs < SW_ROWS_OBS ? S->nobs : SW_ROWS_OBS; /* the first */
	t->nprof = S->nprof;
	t->nkread = S->nkread;
	t->stride = ROW_FIXED + OBS_BYTES * (size_t)t->nobs + 8 * (size_t)t->nprof +
		    KREAD_BYTES * (size_t)t->nkread;
	t->per_chunk = CHUNK_BYTES / t->stride;
	t->keep = keep_rows;
	t->keep_upd = keep_updates;
	if (keep_updates && !(t->upd = malloc(keep_updates * sizeof(*t->upd)))) {
		free(t);
		return NULL;
	}
	return t;
}

void sw_rows_free(struct sw_rows *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nchunk; i++)
		free(t->chunk[i]);
	free(t->chunk);
	free(t->upd);
	free(t);
}

/* n bytes between the packed row at *p and a field: into the row when
 * pack, out of it otherwise */
static void mv(uint8_t **p, void *field, size_t n, int pack)
{
	if (pack)
		memcpy(*p, field, n);
	else
		memcpy(field, *p, n);
	*p += n;
}

/* one layout for both ways (rows.c's header comment); aux and own as the
 * caller computed or will spread them */
static void xfer(const struct sw_rows *t, uint8_t *p, struct sw_store_row *r,
		 int64_t *aux, uint8_t *own, int pack)
{
	mv(&p, &r->page, 8, pack);
	mv(&p, &r->gen, 8, pack);
	mv(&p, &r->t_s_ns, 8, pack);
	mv(&p, &r->trap_ns, 8, pack);
	mv(&p, &r->w_truth_ns, 8, pack);
	mv(&p, aux, 8, pack);
	mv(&p, &r->flags, 4, pack);
	mv(&p, &r->truth_cause, 4, pack);
	mv(&p, own, 1, pack);
	for (int i = 0; i < t->nobs; i++) {
		uint32_t b = (uint32_t)r->obs[i].status | (uint32_t)r->obs[i].exc << 2 |
			     r->obs[i].revealed << 8;
		mv(&p, &r->obs[i].w_ns, 8, pack);
		mv(&p, &b, 4, pack);
		r->obs[i].status = (int)(b & 3);
		r->obs[i].exc = (int)(b >> 2 & 63);
		r->obs[i].revealed = b >> 8;
	}
	for (int i = 0; i < t->nprof; i++)
		mv(&p, &r->replay_ns[i], 8, pack);
	for (int j = 0; j < t->nkread; j++) {
		uint8_t seen = (uint8_t)r->kr[j].seen;
		mv(&p, &seen, 1, pack);
		r->kr[j].seen = seen;
		mv(&p, &r->kr[j].w_ns, 8, pack);
		mv(&p, &r->kr[j].replay_ns, 8, pack);
	}
}

static uint8_t *slot(struct sw_rows *t)
{
	uint64_t c = t->n / t->per_chunk;
	if (c == t->nchunk) {
		if (t->nchunk == t->cap) {
			size_t nc = t->cap ? 2 * t->cap : 64;
			uint8_t **n = realloc(t->chunk, nc * sizeof(*n));
			if (!n)
				return NULL;
			t->chunk = n;
			t->cap = nc;
		}
		if (!(t->chunk[t->nchunk] = malloc(t->per_chunk * t->stride)))
			return NULL;
		t->nchunk++;
	}
	return t->chunk[c] + (t->n % t->per_chunk) * t->stride;
}

int sw_rows_add(struct sw_rows *t, const struct sw_store_row *r)
{
	if (!t->t0)
		t->t0 = r->t_s_ns;
	if (t->n >= t->keep)
		return 0;
	uint8_t *p = slot(t), own = (uint8_t)r->own_update;
	int64_t aux = r->own_update ? r->race_gap_ns : r->w_truth_ns < 0 ? r->w_truth_lb_ns : 0;
	struct sw_store_row c = *r;
	if (!p)
		return -1;
	xfer(t, p, &c, &aux, &own, 1);
	t->n++;
	return 0;
}

void sw_rows_add_update(struct sw_rows *t, int64_t t_ns, uint32_t cause)
{
	if (!t->t0)
		t->t0 = t_ns;
	if (t->nupd < t->keep_upd) {
		t->upd[t->nupd].t = t_ns;
		t->upd[t->nupd++].cause = cause;
	}
}

uint64_t sw_rows_n(const struct sw_rows *t)
{
	return t ? t->n : 0;
}

uint64_t sw_rows_nupdates(const struct sw_rows *t)
{
	return t ? t->nupd : 0;
}

int64_t sw_rows_t0(const struct sw_rows *t)
{
	return t ? t->t0 : 0;
}

void sw_rows_update(const struct sw_rows *t, uint64_t i, int64_t *t_ns, uint32_t *cause)
{
	*t_ns = t->upd[i].t;
	*cause = t->upd[i].cause;
}

void sw_rows_get(const struct sw_rows *t, uint64_t i, struct sw_store_row *r)
{
	uint8_t *p = t->chunk[i / t->per_chunk] + (i % t->per_chunk) * t->stride, own;
	int64_t aux;

	memset(r, 0, sizeof(*r));
	xfer(t, p, r, &aux, &own, 0);
	r->index = i;
	r->own_update = own;
	if (own)
		r->race_gap_ns = aux;
	else if (r->w_truth_ns < 0)
		r->w_truth_lb_ns = aux;
	r->nobs = t->nobs;
	r->nprof = t->nprof;
	r->nkread = t->nkread;
}
