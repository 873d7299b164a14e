/* SPDX-License-Identifier: MIT */
/*
 * kreadpass.c - the pass's kernel mount readers (windows.c): each store's
 * first read of its generation by each reader, and the replay of that
 * mount's options at the reader's own logged reads and the client's
 * traced jiffies (replay.c, nfstrace.c), its steps matched with the
 * client's GETATTRs (revalmatch.c).
 */
#include <string.h>

#include "pass_priv.h"
#include "satmath.h"

static int kread_next(struct sw_summary *S, struct sw_kread *K, struct kcur *C);

/* the replay's read source for a kernel reader: the start of each read it
 * logged (KREAD t_before; nfs_file_read -> nfs_revalidate_mapping checks
 * the attribute cache as the read begins), failed reads left out */
int pass_kread_time_next(void *ctx, struct sw_read_time *t)
{
	struct kcur *C = ctx;
	struct swlog_rec rec;
	struct sw_rec_kread q;
	while (sw_obs_next(C->r2, &C->base2, &rec) == SWLOG_OK && rec.type != SW_REC_END) {
		if (rec.type != SW_REC_KREAD || rec.len < sizeof(q))
			continue;
		memcpy(&q, rec.payload, sizeof(q));
		if (q.err)
			continue;
		t->t_ns = sa(q.t_before_real_ns, C->offset_ns);
		t->tb_mono_ns = q.t_before_mono_ns;
		t->ta_mono_ns = q.t_after_mono_ns;
		sw_nfstrace_attach(C->nt, C->j, t);
		return 1;
	}
	return 0;
}

/* A kernel reader that opened the file before the writer's set-up cached
 * the times from before it: the set-up's stamp is a change it will find
 * (seen in the VM: a v3 reader's first revalidation).  The stamp is its ctime:
 * the server's coarse clock, in the writer's clock, within a tick of the
 * change (the set-up itself lasts ~70 ms in the VM, its self-check
 * included), kept within the set-up's span.  Key 0 stands for what the
 * reader cached at its open; the set-up's is its ctime (v3) or a number no
 * update has (v4: the change attribute moved). */
static void setup_change(struct pass *P, int j, int64_t tj)
{
	const struct sw_rec_setup *u = &P->setup;
	const struct sw_profile *p = &P->S->kr[j].prof;
	if (!P->have_setup ||
	    (u->ctime_ns == u->ctime_before_ns && (p->vers < 4 || u->mtime_ns == u->mtime_before_ns)))
		return;
	int64_t t = u->ctime_ns;
	if (t < u->t_real_ns)
		t = u->t_real_ns;
	if (t > u->t_done_real_ns)
		t = u->t_done_real_ns;
	if (tj >= t)
		return;
	/* its calls span [t_real, t_done] (0.5 s under load): a GETATTR
	 * inside may see a change before the final stamp's time (VM, host
	 * load 6: a v3 kept-open reader's GETATTR 145 ms before that stamp
	 * found one and refetched) */
	sw_replay_update_window(&P->kc[j].sim, t, u->t_real_ns, u->t_done_real_ns,
				p->vers >= 4 ? UINT64_MAX : (uint64_t)u->ctime_ns);
}

static void step_fwd(void *ctx, const struct sw_replay_step *s)
{
	const struct step_fwd *f = ctx;
	sw_revalmatch_add(f->m, s); /* out of memory: no match, said */
	if (f->o && f->o->on_replay_step)
		f->o->on_replay_step(f->o->step_ctx, f->j, s);
}

void pass_sims_start(struct pass *P, int64_t t0)
{
	struct sw_summary *S = P->S;
	for (int i = 0; i < S->nprof; i++)
		sw_replay_init(&P->sim[i], &S->prof[i], t0, 0);
	for (int j = 0; j < S->nkread; j++) {
		/* a kernel reader's replay starts where the reader did: its
		 * open filled the attribute cache then, and its reads follow
		 * its own period from there */
		struct kcur *C = &P->kc[j];
		int64_t tj = t0;
		C->offset_ns = S->offset_ns;
		if (C->open && !C->valid && !C->eof)
			kread_next(S, &S->kr[j], C);
		if (C->valid)
			tj = sa(C->q.t_before_real_ns, S->offset_ns);
		if (C->open2) {
			sw_replay_init_reads(&C->sim, &S->kr[j].prof, &C->rt.src, tj, 0);
			/* its steps: matched with the client's own GETATTRs
			 * (revalmatch.h), and to the caller's hook */
			C->fwd = (struct step_fwd){ .o = P->o, .j = j, .m = &C->match };
			C->sim.on_step = step_fwd;
			C->sim.step_ctx = &C->fwd;
			/* the client's jiffies grid, when the run recorded it */
			sw_replay_set_jiffies(&C->sim, P->in->ctick_ns, P->in->ctick_phase_ns);
			/* the reader's clock against the writer's (clock.json) */
			C->sim.err_ns = S->err_ns;
		} else
			sw_replay_init(&C->sim, &S->kr[j].prof, tj, 0);
		setup_change(P, j, tj);
	}
	P->sims_up = 1;
}

/* replay: when does a client in state `live` first serve data fetched at or
 * after t_s?  -1: not before the log ends.  *alt: the other answer the
 * logs allow (stored while the last refetch's RPC was on its way: served
 * by it, or not), else -2. */
int64_t pass_replay_store(struct pass *P, const struct sw_replay *live, int64_t t_s, int slot,
			  int64_t *alt)
{
	*alt = -2;
	/* no update since the last store: its answer still holds if it is not
	 * before this store (the first fill >= an earlier t_s that is >= t_s) */
	if (P->fill_ok[slot] && (P->fill_at[slot] < 0 || P->fill_at[slot] >= t_s))
		return P->fill_at[slot] < 0 ? -1 : ss(P->fill_served[slot], t_s);
	struct sw_replay r = *live;
	r.on_step = NULL; /* a look ahead, not the replay's own steps */
	sw_replay_advance(&r, t_s);
	/* stored after the last refetching read began and before its READ:
	 * served when that read returned (not cached: the next store asks
	 * again) */
	if (sw_replay_served_early(&r, t_s))
		return ss(r.t_served_ns, t_s);
	int maybe = sw_replay_maybe_early(&r, t_s);
	if (maybe)
		*alt = ss(r.t_served_ns, t_s);
	int64_t f = sw_replay_pending_fill(&r), served = sw_replay_served(&r, f);
	for (int i = 0; f < 0 && i < SW_TC_LOOKAHEAD; i++) {
		const struct sw_upd *u = sw_tc_get(&P->tc, i);
		if (!u)
			break;
		uint64_t fills = r.fills;
		sw_replay_update_span(&r, u->t, u->t_done, sw_upd_key(r.p, u));
		/* a read that began before the update and fetched after it
		 * (its RPC still saw it) serves this store when it returns */
		if (sw_replay_served_early(&r, u->t) ||
		    (r.fills != fills && r.t_fill_ns == r.t_attr_ns && r.t_attr_ns < u->t)) {
			f = r.t_attr_ns;
			served = r.t_served_ns;
		} else {
			f = sw_replay_pending_fill(&r);
			served = sw_replay_served(&r, f);
		}
	}
	/* cached by the read's start: a later store before it is served by
	 * the same read, when it returns */
	P->fill_ok[slot] = 1;
	P->fill_at[slot] = f;
	P->fill_served[slot] = served;
	return f < 0 ? -1 : ss(served, t_s);
}


/* kernel reader j: first read of the page returning this generation */
static int kread_next(struct sw_summary *S, struct sw_kread *K, struct kcur *C)
{
	struct swlog_rec rec;
	while (!C->eof) {
		if (sw_obs_next(C->r, &C->base, &rec) != SWLOG_OK || rec.type == SW_REC_END) {
			C->eof = 1;
			break;
		}
		if (rec.type == SW_REC_KREAD && rec.len >= sizeof(C->q)) {
			memcpy(&C->q, rec.payload, sizeof(C->q));
			C->valid = 1;
			C->t_last_read_ns = sa(C->q.t_after_real_ns, S->offset_ns);
			K->reads++;
			return 1;
		}
	}
	return 0;
}

void pass_kread_store(struct pass *P, int j, const struct sw_rec_store *s)
{
	struct sw_summary *S = P->S;
	struct sw_kread *K = &S->kr[j];
	struct kcur *C = &P->kc[j];
	if (K->page == UINT64_MAX && !C->valid && kread_next(S, K, C))
		K->page = C->q.page; /* learn the page from the log */
	if (s->page != K->page) {
		P->row.kr[j].seen = 0;
		return;
	}
	for (;;) {
		if (C->valid && !C->q.err && C->q.page == s->page && C->q.gen >= s->gen)
			break;
		C->valid = 0;
		if (!kread_next(S, K, C))
			break;
	}
	int64_t w = C->valid ? ss(sa(C->q.t_after_real_ns, S->offset_ns), s->t_after_real_ns) : -1;
	if (w < 0 && C->valid)
		w = 0;
	P->row.kr[j].seen = C->valid ? 1 : 2;
	P->row.kr[j].w_ns = w;
	fig_add(&K->fig, w);
	int64_t alt;
	P->row.kr[j].replay_ns = pass_replay_store(P, &C->sim, s->t_after_real_ns, SW_MAX_PROFILES + j, &alt);
	/* either answer allowed (the store and the refetch's READ crossed on
	 * the wire): the client's, when it is one of the two, counted */
	if (alt != -2) {
		K->replay_undet_stores++;
		if (w >= 0 && alt >= 0 && (w > alt ? w - alt : alt - w) < SW_UNDET_SAME_NS) {
			P->row.kr[j].replay_ns = alt;
			K->replay_undet_taken++;
		}
	}
	/* the reader stopped: a replayed read after its last one is no more
	 * seen than the real reader's (the same terms on both sides) */
	if (C->eof && P->row.kr[j].replay_ns >= 0 &&
	    sa(s->t_after_real_ns, P->row.kr[j].replay_ns) > C->t_last_read_ns)
		P->row.kr[j].replay_ns = -1;
	fig_add(&K->replay, P->row.kr[j].replay_ns);
	/* served by the same read on both sides (or by none) */
	int64_t r = P->row.kr[j].replay_ns;
	K->replay_same_read += (w < 0 && r < 0) ||
			       (w >= 0 && r >= 0 && (w > r ? w - r : r - w) < SW_UNDET_SAME_NS);
}

