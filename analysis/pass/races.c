/* SPDX-License-Identifier: MIT */
/*
 * races.c - a READ+attributes pair that lands between a trap's update and
 * its data caches old data under new attributes (eager, lang).  A hit is
 * exact, no clock needed: a READ of page p returning generation < g while
 * its attributes carry the stamps of the update made in the trap of the
 * store of generation g to p.  It stays stale until the next update.
 *
 * One stream over each probe log's READs against a stream over the
 * writer's trap pairs (a STORE with its own trap's UPDATE, as
 * writer_events.c pairs them) and a cursor for the next update after a
 * store; memory is a few records.
 */
#include <string.h>

#include "observer.h"
#include "races.h"
#include "satmath.h"
#include "swlog.h"
#include "writer_events.h"

#define RPAGES 8

struct pair {
	uint64_t page, gen;
	int64_t t_u, t_s, mtime, ctime;
};

struct wcur {
	struct sw_wev_reader w;
	int opened;
	int eof;
	struct pair next;   /* the next trap pair, if have_next */
	int have_next;
};

static void wnext(struct wcur *w)
{
	struct sw_wev ev;
	w->have_next = 0;
	while (!w->eof) {
		if (sw_wev_next(&w->w, &ev) != SWLOG_OK || ev.rec.type == SW_REC_END) {
			w->eof = 1;
			return;
		}
		if (ev.skip || ev.rec.type != SW_REC_STORE || !ev.own)
			continue;
		w->next = (struct pair){ ev.store.page, ev.store.gen, ev.own_upd.t_real_ns,
					 ev.store.t_after_real_ns, ev.own_upd.mtime_ns,
					 ev.own_upd.ctime_ns };
		w->have_next = 1;
		return;
	}
}

/* first update at or after t (monotone) */
struct ucur {
	struct sw_wev_reader w;
	int opened;
	int eof, have;
	int64_t t;
};

static int64_t unext(struct ucur *c, int64_t t)
{
	struct sw_wev ev;
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

static void scan_probe(struct sw_summary *S, const struct sw_input *in, int k)
{
	struct wcur w = { 0 };
	struct ucur uc = { 0 };
	struct swlog_reader *pr;
	int pr_open = 0;
	struct swlog_rec rec;
	struct pair last[RPAGES];
	int nlast = 0;
	char err[SWLOG_ERRLEN];

	if (swlog_open(&pr, in->probe[k], err))
		goto out;
	pr_open = 1;
	if (sw_wev_open(&w.w, in->writer, err))
		goto out;
	w.opened = 1;
	if (sw_wev_open(&uc.w, in->writer, err))
		goto out;
	uc.w.updates_only = 1;
	uc.opened = 1;
	wnext(&w);
	while (swlog_next(pr, &rec) == SWLOG_OK) {
		if (rec.type == SW_REC_END)
			break;
		if (rec.type != SW_REC_READ || rec.len < sizeof(struct sw_rec_read))
			continue;
		struct sw_rec_read rd;
		memcpy(&rd, rec.payload, sizeof(rd));
		if (rd.status)
			continue;
		int64_t t = sa(sa(rd.t_recv_real_ns, S->offset_ns), S->err_ns);
		while (w.have_next && w.next.t_u <= t) { /* pairs up to the READ */
			int i;
			for (i = 0; i < nlast && last[i].page != w.next.page; i++)
				;
			if (i == nlast && nlast < RPAGES)
				nlast++;
			if (i < RPAGES)
				last[i] = w.next;
			wnext(&w);
		}
		const struct pair *p = NULL;
		for (int i = 0; i < nlast; i++)
			if (last[i].page == rd.page)
				p = &last[i];
		if (!p || rd.gen >= p->gen)
			continue;
		int eq = 0;
		if (rd.attrs.valid & SW_ATTR_CTIME)
			eq = rd.attrs.ctime_ns == p->ctime;
		if (rd.attrs.valid & SW_ATTR_MTIME)
			eq = (eq || !(rd.attrs.valid & SW_ATTR_CTIME)) && rd.attrs.mtime_ns == p->mtime;
		if (!eq)
			continue;
		for (int i = 0; i < S->nobs; i++) {
			struct sw_observer *O = &S->obs[i];
			if (O->target != rd.target || strcmp(O->file, in->probe[k]))
				continue;
			O->race_read_hits++;
			int64_t tn = unext(&uc, p->t_s);
			if (tn >= 0)
				sw_hist_add(&O->race_stale_ns, ss(tn, sa(rd.t_recv_real_ns, S->offset_ns)));
		}
	}
out:
	if (pr_open)
		swlog_reader_close(pr);
	if (w.opened)
		sw_wev_close(&w.w);
	if (uc.opened)
		sw_wev_close(&uc.w);
}

void sw_races_read(struct sw_summary *S, const struct sw_input *in)
{
	for (int k = 0; k < in->nprobe; k++)
		if (in->probe_ok[k]) {
			uint64_t reads = 0;
			for (int t = 0; t < in->scan[k].ntargets; t++)
				reads += in->scan[k].t[t].reads;
			if (reads) /* nothing to look for otherwise */
				scan_probe(S, in, k);
		}
}
