/* SPDX-License-Identifier: MIT */
/*
 * windows.c - the one pass: writer log in order, each store resolved at
 * once by cursors that read ahead in the same logs (the next update, the
 * probe's next differing reply, the kernel reader's next generation), so
 * memory holds a few records per cursor, never the stores of the run.  The
 * writer log is opened once (runload.c); the truth lookahead is a clone of
 * the pass's reader over the same mapping, and races.c takes the trap
 * pairs from the pass's own stream.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nfstrace.h"
#include "revalmatch.h"
#include "observer.h"
#include "report.h"
#include "races.h"
#include "readtimes.h"
#include "runload.h"
#include "satmath.h"
#include "swlog.h"
#include "truthcur.h"
#include "writer_events.h"

#include "pass_priv.h"

static void fig_init(struct sw_fig *f, const char *name, const char *desc)
{
	char n[sizeof(f->name)], d[sizeof(f->desc)];
	snprintf(n, sizeof(n), "%s", name);
	snprintf(d, sizeof(d), "%s", desc);
	memset(f, 0, sizeof(*f));
	memcpy(f->name, n, sizeof(n));
	memcpy(f->desc, d, sizeof(d));
	sw_hist_init(&f->h);
}


static int stamps_eq(const struct sw_attrs *a, int64_t mtime, int64_t ctime)
{
	int ok = 0;
	if (a->valid & SW_ATTR_CTIME) {
		if (a->ctime_ns != ctime)
			return 0;
		ok = 1;
	}
	if (a->valid & SW_ATTR_MTIME) {
		if (a->mtime_ns != mtime)
			return 0;
		ok = 1;
	}
	return ok;
}

static void observe(struct pass *P, int i, const struct sw_rec_store *s,
		    const struct sw_upd *close, int own)
{
	struct sw_summary *S = P->S;
	struct sw_observer *O = &S->obs[i];
	struct sw_obs_answer a;
	int64_t t_s = s->t_after_real_ns, err = S->err_ns;
	int exc = SW_EXC_NONE;
	/* the per-store row holds the first SW_ROWS_OBS observers */
	struct sw_row_obs spare, *ro = i < SW_ROWS_OBS ? &P->row.obs[i] : &spare;

	ro->status = SW_OBS_END;
	ro->w_ns = -1;
	ro->exc = SW_EXC_NONE;
	ro->revealed = 0;
	if (sw_obs_query(&P->cur[i], ss(t_s, S->offset_ns), &a))
		return;
	ro->status = a.status;
	int race = own && a.ref && !close->equal_prev &&
		   stamps_eq(&a.ref->a, close->mtime, close->ctime);
	if (race)
		O->race_attr_hits++;
	if (a.status == SW_OBS_NO_REF) {
		O->no_ref++;
		return;
	}
	if (a.status == SW_OBS_END) {
		O->ended++;
		fig_add(&O->fig, -1);
		return;
	}
	int64_t w = ss(sa(a.recv, S->offset_ns), t_s);
	fig_add(&O->fig, w);
	O->revealed[a.revealed & 15]++;
	O->torn += a.torn;
	ro->w_ns = w;
	ro->revealed = a.revealed;
	/* the last update before the store other than its own trap's */
	const struct sw_upd *early = P->have_last ? &P->last : NULL;
	if (own && early && early->seq == close->seq)
		early = P->have_prev ? &P->prev : NULL;
	if (!close) { /* uncovered: nothing to check against */
		if (early && stamps_eq(&a.rev->a, early->mtime, early->ctime))
			ro->exc = SW_EXC_EARLY;
		return;
	}
	int64_t wt = own ? 0 : ss(close->t, t_s);
	int64_t d = ss(w, wt);
	O->checked++;
	if (d >= -err && d <= sa(O->resolution_ns, err)) {
		O->consistent++;
		return;
	}
	int64_t tu_p = ss(close->t, S->offset_ns); /* the update, probe clock */
	if (d < -err) {
		O->low++;
		exc = early && stamps_eq(&a.rev->a, early->mtime, early->ctime)
			      ? SW_EXC_EARLY : SW_EXC_CLOCK;
	} else {
		O->high++;
		if (race)
			exc = SW_EXC_RACE;
		else if (close->equal_prev)
			exc = SW_EXC_COLLISION;
		else if (a.fails_between && a.fail_last >= ss(tu_p, err))
			exc = SW_EXC_LOST;
		else if (a.gaps_between && a.gap_end >= ss(tu_p, err))
			exc = SW_EXC_GAP;
		else if (a.ref->last_send > sa(tu_p, err))
			exc = SW_EXC_SERVER_LAG;
		else if (ss(a.send, tu_p) > sa(O->poll_p99_ns, err))
			exc = SW_EXC_STALL;
		else if (ss(a.recv, a.send) > O->rtt_p99_ns)
			exc = SW_EXC_SLOW;
		else
			exc = SW_EXC_UNEXPLAINED;
	}
	O->exc[exc]++;
	ro->exc = exc;
}

/* own: the writer-log reader paired s with the update of its own trap */
static void on_store(struct pass *P, const struct sw_rec_store *s, int own_trap)
{
	struct sw_summary *S = P->S;
	struct sw_store_row *R = &P->row;
	int64_t t_s = s->t_after_real_ns;
	const struct sw_upd *close = NULL;
	int own = 0;

	if (!P->sims_up)
		pass_sims_start(P, s->t_before_real_ns);
	memset(R, 0, offsetof(struct sw_store_row, obs));
	R->index = P->nstore++;
	R->page = s->page;
	R->gen = s->gen;
	R->t_s_ns = t_s;
	R->trap_ns = s->trap_ns;
	R->flags = s->flags;
	S->stores++;
	if (s->flags & SW_STORE_TRAPPED) {
		S->traps++;
		S->traps_updated += !!(s->flags & SW_STORE_UPDATED);
		sw_hist_add(&S->trap_ns, s->trap_ns);
	}
	if (!S->store_mono_lo_ns)
		S->store_mono_lo_ns = s->t_before_mono_ns;
	S->store_mono_hi_ns = s->t_after_mono_ns;
	if (own_trap && P->have_trap) {
		own = 1;
		P->have_trap = 0;
		close = &P->trap;
		R->own_update = 1;
		R->race_gap_ns = ss(t_s, P->trap.t);
		R->w_truth_ns = 0;
		R->truth_cause = P->trap.cause;
		S->race_stores++;
		sw_hist_add(&S->race_gap_ns, R->race_gap_ns);
		sw_tc_first_after(&P->tc, t_s);
	} else {
		close = sw_tc_first_after(&P->tc, t_s);
		P->open_stores++;
		if (close) {
			R->w_truth_ns = ss(close->t, t_s);
			R->truth_cause = close->cause;
		} else {
			R->w_truth_ns = -1;
			R->w_truth_lb_ns = ss(P->tc.t_end ? P->tc.t_end : t_s, t_s);
		}
	}
	fig_add(&S->truth, R->w_truth_ns);
	R->nobs = S->nobs < SW_ROWS_OBS ? S->nobs : SW_ROWS_OBS;
	for (int i = 0; i < S->nobs; i++)
		observe(P, i, s, close, own);
	R->nprof = S->nprof;
	for (int i = 0; i < S->nprof; i++) {
		int64_t alt;
		R->replay_ns[i] = pass_replay_store(P, &P->sim[i], t_s, i, &alt);
		fig_add(&S->replay[i], R->replay_ns[i]);
	}
	R->nkread = S->nkread;
	for (int j = 0; j < S->nkread; j++)
		pass_kread_store(P, j, s);
	if (S->rows && !P->rows_full && sw_rows_add(S->rows, R)) {
		P->rows_full = 1;
		sw_problem(S, P->in->writer, -1, 1,
			   "out of memory for the per-store table: stores from %llu on left out of the CSV and plots",
			   (unsigned long long)R->index);
	}
}

static void on_update(struct pass *P, const struct sw_rec_update *u)
{
	struct sw_summary *S = P->S;
	struct sw_upd x = { .t = u->t_real_ns,
			 .t_done = u->t_done_real_ns > u->t_real_ns ? u->t_done_real_ns : u->t_real_ns,
			 .mtime = u->mtime_ns, .ctime = u->ctime_ns,
			 .page = u->page, .cause = u->cause };
	S->updates++;
	S->upd_cause[u->cause < 10 ? u->cause : 0]++;
	sw_hist_add(&S->upd_cost_ns, u->cost_ns);
	x.equal_prev = P->have_last && x.mtime == P->last.mtime && x.ctime == P->last.ctime;
	if (x.equal_prev)
		S->collisions++;
	int trap = u->cause == SW_CAUSE_TRAP ||
		   (u->cause == SW_CAUSE_NATIVE && u->page != SW_NO_PAGE);
	if (!trap && P->open_stores == 0)
		S->spurious++;
	P->open_stores = 0;
	x.seq = S->updates;
	if (!P->sims_up)
		pass_sims_start(P, u->t_real_ns);
	memset(P->fill_ok, 0, sizeof(P->fill_ok));
	for (int i = 0; i < S->nprof; i++)
		sw_replay_update(&P->sim[i], x.t, sw_upd_key(&S->prof[i], &x));
	for (int j = 0; j < S->nkread; j++) {
		sw_replay_update_span(&P->kc[j].sim, x.t, x.t_done, sw_upd_key(&S->kr[j].prof, &x));
		/* the live replay asks for nothing before its last revalidation */
		if (P->kc[j].open2)
			sw_readtimes_drop_before(&P->kc[j].rt, P->kc[j].sim.t_attr_ns);
	}
	if (trap) {
		P->trap = x;
		P->have_trap = 1;
	}
	P->prev = P->last;
	P->have_prev = P->have_last;
	P->last = x;
	P->have_last = 1;
	if (S->rows)
		sw_rows_add_update(S->rows, x.t, x.cause);
}

/* Each probe target an observer, at most SW_MAX_OBS: S->obs allocated
 * for the run's own count.  -1: no memory for them. */
static int setup_observers(struct pass *P)
{
	struct sw_summary *S = P->S;
	struct sw_input *in = P->in;
	char err[SWLOG_ERRLEN];
	int want = 0;
	for (int k = 0; k < in->nprobe; k++)
		if (in->probe_ok[k])
			want += in->scan[k].ntargets;
	if (want > SW_MAX_OBS)
		want = SW_MAX_OBS;
	if (want && !(S->obs = calloc((size_t)want, sizeof(*S->obs))))
		return -1;
	for (int k = 0; k < in->nprobe; k++) {
		if (!in->probe_ok[k])
			continue;
		for (int t = 0; t < in->scan[k].ntargets; t++) {
			const struct sw_obs_stats *st = &in->scan[k].t[t];
			if (S->nobs == SW_MAX_OBS) {
				sw_problem(S, in->probe[k], -1, 1,
					   "more than %d probe targets in the run: target %d left out",
					   SW_MAX_OBS, st->target);
				continue;
			}
			int i = S->nobs;
			struct sw_observer *O = &S->obs[i];
			if (sw_obs_open(&P->cur[i], in->probe[k], st->target, err)) {
				sw_problem(S, in->probe[k], -1, 1, "%s", err);
				continue;
			}
			S->nobs++;
			memset(O, 0, sizeof(*O));
			snprintf(O->name, sizeof(O->name), "probe-%d/t%d v%d", k,
				 st->target, st->vers);
			snprintf(O->file, sizeof(O->file), "%s", in->probe[k]);
			O->target = st->target;
			O->vers = st->vers;
			char d[96];
			snprintf(d, sizeof(d), "observed: first differing GETATTR reply (%s)", O->name);
			fig_init(&O->fig, O->name, d);
			sw_hist_init(&O->race_stale_ns);
			O->replies = st->replies;
			O->failures = st->failures;
			O->gaps = st->gaps;
			O->gap_ns = st->gap_ns;
			O->reads = st->reads;
			O->poll_p50_ns = sw_hist_quantile(&st->poll_ns, 0.5);
			O->poll_p99_ns = sw_hist_quantile(&st->poll_ns, 0.99);
			O->rtt_p50_ns = sw_hist_quantile(&st->rtt_ns, 0.5);
			O->rtt_p99_ns = sw_hist_quantile(&st->rtt_ns, 0.99);
			O->resolution_ns = sa(sa(O->poll_p99_ns, O->rtt_p99_ns), S->err_ns);
			O->t_first_ns = sa(st->t_first_recv, S->offset_ns);
			O->t_last_ns = sa(st->t_last_recv, S->offset_ns);
		}
	}
	return 0;
}


/* The figures of the replayed profiles and the kernel readers; opens the
 * readers' logs. */
static void setup_figures(struct pass *P)
{
	struct sw_summary *S = P->S;
	const struct sw_analyze_opts *o = P->o;
	const struct sw_input *in = P->in;
	char err[SWLOG_ERRLEN];

	S->nprof = o->nprof ? o->nprof : sw_n_default_profiles;
	if (S->nprof > SW_MAX_PROFILES)
		S->nprof = SW_MAX_PROFILES;
	for (int i = 0; i < S->nprof; i++) {
		char d[96];
		S->prof[i] = o->nprof ? o->prof[i] : sw_default_profiles[i];
		sw_profile_describe(&S->prof[i], d, sizeof(d));
		fig_init(&S->replay[i], S->prof[i].name, d);
	}
	for (int j = 0; j < S->nkread; j++) {
		struct sw_kread *K = &S->kr[j];
		char n[48], d[96];
		snprintf(K->file, sizeof(K->file), "%s", in->kread[j]);
		sw_profile_from_mount(K->mount, in->kread_period_ns[j], in->kread_cto[j],
				      &K->prof);
		snprintf(n, sizeof(n), "kread-%d %s", j, in->kread_cto[j] ? "cto" : "kept");
		fig_init(&K->fig, n, "kernel NFS mount: first read of the new generation");
		sw_profile_describe(&K->prof, d, sizeof(d));
		snprintf(n, sizeof(n), "kread-%d replay", j);
		fig_init(&K->replay, n, d);
		if (swlog_open(&P->kc[j].r, in->kread[j], err))
			sw_problem(S, in->kread[j], -1, 1, "%s", err);
		else
			P->kc[j].open = 1;
		/* its read times, walked by their own cursor (readtimes.h) */
		if (P->kc[j].open && !swlog_reader_clone(&P->kc[j].r2, P->kc[j].r)) {
			P->kc[j].open2 = 1;
			P->kc[j].j = j;
			P->kc[j].nt = in->nt_ok ? &in->nt : NULL;
			sw_readtimes_init(&P->kc[j].rt, pass_kread_time_next, &P->kc[j],
					  K->prof.period_ns);
		}
	}
	S->has_kread = S->nkread > 0;
}

/* The writer log, record by record: every store and update through the
 * figures.  Returns the last swlog status. */
static int writer_pass(struct pass *P, struct sw_wev_reader *wr)
{
	struct sw_summary *S = P->S;
	const struct sw_input *in = P->in;
	struct sw_wev ev;
	int st;

	while ((st = sw_wev_next(wr, &ev)) == SWLOG_OK) {
		const struct swlog_rec rec = ev.rec;
		S->records++;
		if (ev.skip == SW_WEV_SHORT) {
			sw_problem(S, in->writer, (int64_t)rec.index, 1,
				   "record %llu (%s): expected at least %u payload bytes, saw %u; skipped",
				   (unsigned long long)rec.index, swlog_type_name(rec.type),
				   swlog_min_len(rec.type), rec.len);
			continue;
		}
		S->t_start_ns = wr->t_ref;
		if (ev.skip == SW_WEV_INSANE) {
			sw_problem(S, in->writer, (int64_t)rec.index, 1,
				   "record %llu (%s): expected a time within 11 days of the log's first record, saw %lld ns; skipped",
				   (unsigned long long)rec.index, swlog_type_name(rec.type),
				   (long long)ev.t_real_ns);
			continue;
		}
		if (rec.type != SW_REC_NOTE)
			S->t_end_ns = ev.t_real_ns;
		switch (rec.type) {
		case SW_REC_STORE:
			S->t_end_ns = ev.store.t_after_real_ns;
			sw_faults_on_store(S, ev.store.t_after_real_ns);
			on_store(P, &ev.store, ev.own);
			sw_edge_store(&P->edge, ev.store.page, ev.store.t_after_real_ns);
			if (ev.own && P->races)
				sw_races_pair(P->races, &ev);
			break;
		case SW_REC_UPDATE:
			on_update(P, &ev.upd);
			break;
		case SW_REC_CLEAN: {
			struct sw_rec_clean c;
			memcpy(&c, rec.payload, sizeof(c));
			S->cleans++;
			if (c.pages && (c.cause == SW_CAUSE_KUPDATE || c.cause == SW_CAUSE_BACKGROUND))
				sw_edge_clean(&P->edge, ev.t_real_ns);
			break;
		}
		case SW_REC_SYNC:
			S->syncs++;
			break;
		case SW_REC_MUNMAP:
			S->munmaps++;
			break;
		case SW_REC_SETUP:
			sw_rec_setup_get(&P->setup, rec.payload, rec.len);
			P->have_setup = 1;
			S->file_changed_ns = ss(P->setup.t_real_ns, P->setup.ctime_before_ns);
			if (P->setup.atime_before_ns > P->setup.ctime_before_ns)
				S->file_read_ns = ss(P->setup.t_real_ns, P->setup.atime_before_ns);
			break;
		case SW_REC_END: {
			struct sw_rec_end e;
			memcpy(&e, rec.payload, sizeof(e));
			S->complete = 1;
			S->end_reason = e.reason;
			if (P->races)
				sw_races_end(P->races);
			break;
		}
		case SW_REC_NOTE: {
			struct sw_rec_note n;
			memcpy(&n, rec.payload, sizeof(n));
			if (n.level == SW_NOTE_ERROR) {
				uint32_t l = rec.len - sizeof(n) < n.len ? rec.len - (uint32_t)sizeof(n) : n.len;
				sw_problem(S, in->writer, (int64_t)rec.index, 0,
					   "writer error note: %.*s", (int)l,
					   (const char *)rec.payload + sizeof(n));
			}
			break;
		}
		default:
			break;
		}
	}
	if (P->races)
		sw_races_end(P->races);
	if (st == SWLOG_TORN)
		sw_problem(S, in->writer, (int64_t)S->records, 1,
			   "torn last record (the writer died mid-write); the %llu records before it used: %s",
			   (unsigned long long)S->records, swlog_reader_error(wr->r));
	else if (st != SWLOG_EOF)
		sw_problem(S, in->writer, (int64_t)S->records, 1,
			   "corrupt record %llu; the records before it used: %s",
			   (unsigned long long)S->records,
			   st < 0 ? strerror(-st) : swlog_reader_error(wr->r));
	else if (!S->complete)
		sw_problem(S, in->writer, (int64_t)S->records, 1,
			   "expected an END record as the last of %llu records, saw none (writer killed?): stores after the last update are shown as uncovered",
			   (unsigned long long)S->records);
	return st;
}

/* Probe replies that cannot belong to this run, clocks off by more than
 * their errors. */
static void check_observers(struct sw_summary *S)
{
	for (int i = 0; i < S->nobs; i++) {
		struct sw_observer *O = &S->obs[i];
		if (O->replies && (O->t_last_ns < S->t_start_ns || O->t_first_ns > S->t_end_ns))
			sw_problem(S, O->file, -1, 1,
				   "probe replies (%.3f..%.3f s) do not overlap the writer's run (%.3f..%.3f s, realtime after the clock offset): wrong run or wrong clock",
				   O->t_first_ns / 1e9, O->t_last_ns / 1e9,
				   S->t_start_ns / 1e9, S->t_end_ns / 1e9);
		if (O->exc[SW_EXC_CLOCK])
			sw_problem(S, O->file, -1, 0,
				   "%llu changes observed earlier than the update by more than the clock offset error (%lld ns): the offset is larger than its error allows",
				   (unsigned long long)O->exc[SW_EXC_CLOCK], (long long)S->err_ns);
	}
}

/* The pass's cursors over the writer log runload.c opened: the main
 * reader, its clone for the truth lookahead, the race scan. */
static int open_writer(struct pass *P, struct sw_wev_reader *wr)
{
	sw_wev_attach(wr, P->in->writer_r);
	P->in->writer_r = NULL;
	if (sw_wev_clone(&P->tc.w, wr))
		return -1;
	P->tc.opened = 1;
	P->tc.w.updates_only = 1;
	int nomem;
	P->races = sw_races_open(P->S, P->in, wr, &nomem);
	if (nomem)
		return -1;
	if ((P->o->keep_rows || P->o->keep_updates) &&
	    !(P->S->rows = sw_rows_new(P->S, P->o->keep_rows, P->o->keep_updates)))
		return -1;
	return 0;
}

static void close_pass(struct pass *P, struct sw_wev_reader *wr)
{
	if (wr->r)
		sw_wev_close(wr);
	if (P->in->writer_r)
		swlog_reader_close(P->in->writer_r);
	if (P->tc.opened)
		sw_wev_close(&P->tc.w);
	sw_races_free(P->races);
	sw_edge_free(&P->edge);
	for (int j = 0; j < SW_MAX_KREAD; j++) {
		if (j < P->S->nkread) {
			P->S->kr[j].replay_traced = P->kc[j].sim.traced;
			P->S->kr[j].replay_revals = P->kc[j].sim.revals;
			P->S->kr[j].replay_undetermined = P->kc[j].sim.undetermined;
			P->S->kr[j].replay_undet_flipped = P->kc[j].sim.undet_flipped;
			if (P->kc[j].nt && P->kc[j].j >= 0 && P->kc[j].j < SW_NFSTRACE_READERS)
				sw_revalmatch_finish(&P->kc[j].match, P->kc[j].nt->r[P->kc[j].j].ev,
						     P->kc[j].nt->r[P->kc[j].j].n,
						     P->kc[j].nt->t_last_mono_ns, &P->S->kr[j].match);
		}
		sw_revalmatch_free(&P->kc[j].match);
		if (P->kc[j].open)
			swlog_reader_close(P->kc[j].r);
		if (P->kc[j].open2) {
			swlog_reader_close(P->kc[j].r2);
			sw_readtimes_free(&P->kc[j].rt);
		}
	}
	sw_nfstrace_free(&P->in->nt); /* after the matches above */
	for (int i = 0; i < SW_MAX_OBS; i++)
		if (P->cur[i].opened)
			sw_obs_close(&P->cur[i]);
	sw_input_free_scans(P->in);
}

void sw_summary_free(struct sw_summary *S)
{
	free(S->obs);
	S->obs = NULL;
	S->nobs = 0;
	sw_rows_free(S->rows);
	S->rows = NULL;
}

int sw_analyze(const char *run_dir, const struct sw_analyze_opts *o,
	       struct sw_summary *S)
{
	struct pass *P = calloc(1, sizeof(*P));
	struct sw_input *in = calloc(1, sizeof(*in));
	struct sw_wev_reader wr = { 0 };
	int rc = 0;

	if (!P || !in) {
		free(P);
		free(in);
		return 1;
	}
	memset(S, 0, sizeof(*S));
	S->file_changed_ns = S->file_read_ns = S->settle_ns = -1;
	S->attrs.writer_stats = -1;
	S->writer_look_ms = -1;
	sw_hist_init(&S->trap_ns);
	sw_hist_init(&S->upd_cost_ns);
	sw_hist_init(&S->race_gap_ns);
	fig_init(&S->truth, "truth", "truth: store to the first timestamp update after it");
	if (o->cmdline_override)
		snprintf(S->cmdline, sizeof(S->cmdline), "%s", o->cmdline_override);
	P->S = S;
	P->o = o;
	P->in = in;
	sw_edge_init(&P->edge);
	if ((rc = sw_input_load(run_dir, S, in)) != 0)
		goto out;
	sw_faults_load(S, run_dir);
	sw_crash_figures(S, run_dir, in);
	setup_figures(P);
	if (setup_observers(P)) {
		sw_problem(S, in->writer, -1, 1,
			   "expected memory for the run's observers (%zu bytes each), saw none",
			   sizeof(*S->obs));
		rc = 1;
		goto out;
	}
	if (open_writer(P, &wr)) {
		sw_problem(S, in->writer, -1, 1, "out of memory for the pass's readers");
		rc = 1;
		goto out;
	}
	sw_input_free_scans(in); /* the probe logs' first-pass figures: taken */
	writer_pass(P, &wr);
	S->edge_void = sw_edge_finish(&P->edge) != 0;
	S->edge_passes = P->edge.ncleans;
	memcpy(S->edge_pairs, P->edge.pairs, sizeof(S->edge_pairs));
	sw_blind_finish(S);
	check_observers(S);
	sw_attrs_finish(S, run_dir, in->writer);
	sw_faults_finish(S);
	rc = S->partial ? 3 : S->nfaults ? 4 : 0;
out:
	close_pass(P, &wr);
	free(P);
	free(in);
	return rc;
}
