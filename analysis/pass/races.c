/* SPDX-License-Identifier: MIT */
/*
 * races.c - a READ+attributes pair that lands between a trap's update and
 * its data caches old data under new attributes (eager, lang).  A hit is
 * exact, no clock needed: a READ of page p returning generation < g while
 * its attributes carry the stamps of the update made in the trap of the
 * store of generation g to p.  It stays stale until the next update.
 *
 * A consumer of the pass's one writer-log stream: windows.c hands each
 * trap pair (a STORE with its own trap's UPDATE, as writer_events.c pairs
 * them) to sw_races_pair in log order, and each probe log's READs are
 * merged against those pairs by time; only a hit asks a further cursor
 * over the same open log for the next update.  Memory is a few records
 * per probe log.
 */
#include <stdlib.h>
#include <string.h>

#include "observer.h"
#include "races.h"
#include "satmath.h"
#include "swlog.h"

#define RPAGES 8

struct pair {
	uint64_t page, gen;
	int64_t t_u, t_s, mtime, ctime;
};

/* first update at or after t (monotone): a clone of the writer log's
 * reader, made at the first hit */
struct ucur {
	struct sw_wev_reader w;
	int opened, failed;
	int eof, have;
	int64_t t;
};

struct rprobe { /* one probe log with READs */
	int k;
	struct swlog_reader *pr;
	int eof;
	int have_rd;           /* rd is the next READ, t its writer time + err */
	struct sw_rec_read rd;
	int64_t t;
	struct pair last[RPAGES];
	int nlast;
	struct ucur uc;
	struct sw_obs_base base; /* pr's realtime steps (obsclock.h) */
};

struct sw_races {
	struct sw_summary *S;
	const struct sw_input *in;
	const struct sw_wev_reader *writer;
	int done;              /* the writer log's END (or last record) seen */
	int n;
	struct rprobe p[SW_MAX_PROBES];
};

static int64_t unext(struct sw_races *R, struct ucur *c, int64_t t)
{
	struct sw_wev ev;
	if (!c->opened && !c->failed) {
		if (sw_wev_clone(&c->w, R->writer)) {
			c->failed = 1;
			return -1;
		}
		c->w.updates_only = 1;
		c->opened = 1;
	}
	if (c->failed)
		return -1;
	while (!c->have || c->t < t) {
		c->have = 0;
		if (c->eof || sw_wev_next(&c->w, &ev) != SWLOG_OK || ev.rec.type == SW_REC_END) {
			c->eof = 1;
			return -1;
		}
		if (!ev.skip && ev.rec.type == SW_REC_UPDATE) {
			c->t = ev.upd.t_real_ns;
			c->have = 1;
		}
	}
	return c->t;
}

/* the probe log's next good READ into p->rd (have_rd 0 at its end) */
static void read_next(struct sw_races *R, struct rprobe *p)
{
	struct swlog_rec rec;
	p->have_rd = 0;
	while (!p->eof) {
		if (sw_obs_next(p->pr, &p->base, &rec) != SWLOG_OK || rec.type == SW_REC_END) {
			p->eof = 1;
			return;
		}
		if (rec.type != SW_REC_READ || rec.len < sizeof(struct sw_rec_read))
			continue;
		memcpy(&p->rd, rec.payload, sizeof(p->rd));
		if (p->rd.status)
			continue;
		p->t = sa(sa(p->rd.t_recv_real_ns, R->S->offset_ns), R->S->err_ns);
		p->have_rd = 1;
		return;
	}
}

/* p->rd against the trap pairs before it */
static void check_read(struct sw_races *R, struct rprobe *p)
{
	struct sw_summary *S = R->S;
	const struct sw_rec_read *rd = &p->rd;
	const struct pair *q = NULL;
	for (int i = 0; i < p->nlast; i++)
		if (p->last[i].page == rd->page)
			q = &p->last[i];
	if (!q || rd->gen >= q->gen)
		return;
	int eq = 0;
	if (rd->attrs.valid & SW_ATTR_CTIME)
		eq = rd->attrs.ctime_ns == q->ctime;
	if (rd->attrs.valid & SW_ATTR_MTIME)
		eq = (eq || !(rd->attrs.valid & SW_ATTR_CTIME)) && rd->attrs.mtime_ns == q->mtime;
	if (!eq)
		return;
	for (int i = 0; i < S->nobs; i++) {
		struct sw_observer *O = &S->obs[i];
		if (O->target != rd->target || strcmp(O->file, R->in->probe[p->k]))
			continue;
		O->race_read_hits++;
		int64_t tn = unext(R, &p->uc, q->t_s);
		if (tn >= 0)
			sw_hist_add(&O->race_stale_ns, ss(tn, sa(rd->t_recv_real_ns, S->offset_ns)));
	}
}

struct sw_races *sw_races_open(struct sw_summary *S, const struct sw_input *in,
			       const struct sw_wev_reader *writer, int *nomem)
{
	struct sw_races *R = calloc(1, sizeof(*R));
	char err[SWLOG_ERRLEN];
	*nomem = !R;
	if (!R)
		return NULL;
	R->S = S;
	R->in = in;
	R->writer = writer;
	for (int k = 0; k < in->nprobe; k++) {
		uint64_t reads = 0;
		if (!in->probe_ok[k])
			continue;
		for (int t = 0; t < in->scan[k].ntargets; t++)
			reads += in->scan[k].t[t].reads;
		if (!reads) /* nothing to look for */
			continue;
		struct rprobe *p = &R->p[R->n];
		if (swlog_open(&p->pr, in->probe[k], err))
			continue;
		p->k = k;
		R->n++;
		read_next(R, p);
	}
	if (!R->n) { /* no probe log with READs: nothing to look for */
		free(R);
		return NULL;
	}
	return R;
}

void sw_races_pair(struct sw_races *R, const struct sw_wev *ev)
{
	struct pair x = { ev->store.page, ev->store.gen, ev->own_upd.t_real_ns,
			  ev->store.t_after_real_ns, ev->own_upd.mtime_ns,
			  ev->own_upd.ctime_ns };
	if (R->done)
		return;
	for (int k = 0; k < R->n; k++) {
		struct rprobe *p = &R->p[k];
		int i;
		/* the READs before the pair (a READ at t sees the pairs up to
		 * the first one after t) */
		while (p->have_rd && p->t < x.t_u) {
			check_read(R, p);
			read_next(R, p);
		}
		for (i = 0; i < p->nlast && p->last[i].page != x.page; i++)
			;
		if (i == p->nlast && p->nlast < RPAGES)
			p->nlast++;
		if (i < RPAGES)
			p->last[i] = x;
	}
}

void sw_races_end(struct sw_races *R)
{
	if (R->done)
		return;
	R->done = 1;
	for (int k = 0; k < R->n; k++)
		for (struct rprobe *p = &R->p[k]; p->have_rd; read_next(R, p))
			check_read(R, p);
}

void sw_races_free(struct sw_races *R)
{
	if (!R)
		return;
	for (int k = 0; k < R->n; k++) {
		swlog_reader_close(R->p[k].pr);
		if (R->p[k].uc.opened)
			sw_wev_close(&R->p[k].uc.w);
	}
	free(R);
}
