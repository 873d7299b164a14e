/* SPDX-License-Identifier: MIT */
/* json.c - the JSON report (jansson), iperf3-like start/results/end.
 * A window without an end in the logs is null, never a number. */
#include <jansson.h>

#include "fmt.h"

#define I(x) json_integer((json_int_t)(x))

json_t *sw_fig_json(const struct sw_fig *g, enum sw_fig_kind kind)
{
	static const char *const kinds[SW_FIG_KIND_N] = {
		[SW_FIG_TRUTH] = "truth", [SW_FIG_OBSERVED] = "observed",
		[SW_FIG_REPLAY] = "replay", [SW_FIG_KREAD] = "kernel-mount",
	};
	json_t *o = json_object();
	json_object_set_new(o, "name", json_string(g->name));
	json_object_set_new(o, "kind", json_string((unsigned)kind < SW_FIG_KIND_N ? kinds[kind] : "?"));
	json_object_set_new(o, "description", json_string(g->desc));
	struct sw_figstats st;
	sw_figstats(g, &st);
	sw_figstats_json(o, &st);
	return o;
}

/* many: more observers than the figures' table holds (SW_ROWS_OBS):
 * each carries its own W_obs figure and its achieved rate */
static json_t *observer(const struct sw_observer *O, int many)
{
	json_t *o = json_object(), *c = json_object(), *e = json_object(), *r = json_object();
	char m[64];
	json_object_set_new(o, "name", json_string(O->name));
	json_object_set_new(o, "file", json_string(O->file));
	json_object_set_new(o, "target", I(O->target));
	json_object_set_new(o, "vers", I(O->vers));
	json_object_set_new(o, "replies", I(O->replies));
	json_object_set_new(o, "failures", I(O->failures));
	json_object_set_new(o, "gaps", I(O->gaps));
	json_object_set_new(o, "gap_ns", I(O->gap_ns));
	json_object_set_new(o, "reads", I(O->reads));
	json_object_set_new(o, "poll_p50_ns", I(O->poll_p50_ns));
	json_object_set_new(o, "poll_p99_ns", I(O->poll_p99_ns));
	json_object_set_new(o, "rtt_p50_ns", I(O->rtt_p50_ns));
	json_object_set_new(o, "rtt_p99_ns", I(O->rtt_p99_ns));
	json_object_set_new(o, "resolution_ns", I(O->resolution_ns));
	json_object_set_new(c, "checked", I(O->checked));
	json_object_set_new(c, "consistent", I(O->consistent));
	json_object_set_new(c, "early", I(O->low));
	json_object_set_new(c, "late", I(O->high));
	for (int i = 1; i < SW_EXC_N; i++)
		if (O->exc[i])
			json_object_set_new(e, sw_exc_name(i), I(O->exc[i]));
	json_object_set_new(c, "explained", e);
	json_object_set_new(c, "no_reference", I(O->no_ref));
	json_object_set_new(c, "unseen", I(O->ended));
	json_object_set_new(o, "consistency", c);
	for (int i = 1; i < 16; i++)
		if (O->revealed[i]) {
			sw_mask_name(m, sizeof(m), (uint32_t)i);
			json_object_set_new(r, m, I(O->revealed[i]));
		}
	json_object_set_new(o, "revealed_by", r);
	json_object_set_new(o, "revealed_change_only_torn", I(O->torn));
	json_object_set_new(o, "race_attr_hits", I(O->race_attr_hits));
	json_object_set_new(o, "race_read_hits", I(O->race_read_hits));
	json_object_set_new(o, "race_read_stale_p50_ns",
			    O->race_stale_ns.count ? I(sw_hist_quantile(&O->race_stale_ns, 0.5))
						   : json_null());
	if (many) {
		struct sw_figstats st;
		json_t *w = json_object();
		double hz = sw_obs_achieved_hz(O);
		sw_figstats(&O->fig, &st);
		sw_figstats_json(w, &st); /* ns, writer clock */
		json_object_set_new(o, "window", w);
		json_object_set_new(o, "achieved_replies_per_s", hz >= 0 ? json_real(hz) : json_null());
	}
	return o;
}

/* a spread's min, median, max (ns; null: "> run end" or none judged) */
static json_t *spread3(const int64_t v[3])
{
	json_t *a = json_array();
	for (int k = 0; k < 3; k++)
		json_array_append_new(a, v[k] < 0 ? json_null() : I(v[k]));
	return a;
}

/* More observers than the figures' table holds: which are in the rows,
 * and all of them at once (figstats.h sw_obs_spread). */
static void many_observers(json_t *res, const struct sw_summary *S)
{
	struct sw_obs_spread sp;
	json_object_set_new(res, "observers_in_rows", json_pack("{s:i, s:i, s:s}",
		"rows", sw_fig_nobs(S), "of", S->nobs, "what",
		"the figures, the CSV's columns and the plots hold the first observers only; every observer's own figure is its window in observers[]"));
	if (sw_obs_spread(S, &sp))
		return;
	json_t *hz = json_array();
	for (int k = 0; k < 3; k++)
		json_array_append_new(hz, sp.hz[k] >= 0 ? json_real(sp.hz[k]) : json_null());
	json_t *e = json_object();
	for (int i = 1; i < SW_EXC_N; i++)
		if (sp.exc[i])
			json_object_set_new(e, sw_exc_name(i), I(sp.exc[i]));
	json_object_set_new(res, "observer_spread", json_pack(
		"{s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s}",
		"observers", sp.nobs, "judged", sp.judged,
		"p50_ns", spread3(sp.p50), "p99_ns", spread3(sp.p99),
		"worst", sp.worst >= 0 ? json_string(S->obs[sp.worst].name) : json_null(),
		"checked", I(sp.checked), "consistent", I(sp.consistent),
		"early", I(sp.low), "late", I(sp.high), "explained", e,
		"achieved_replies_per_s", hz,
		"what", "min, median (the lower middle one), max over the observers that judged a store; ns of the writer's CLOCK_REALTIME; worst: the longest p99, then max, then the largest share unresolved, then p50"));
}

static json_t *profile(const struct sw_profile *p)
{
	return json_pack("{s:s,s:o,s:o,s:o,s:b,s:b,s:o}", "name", p->name, "vers", I(p->vers),
			 "acregmin_ns", I(p->acregmin_ns), "acregmax_ns", I(p->acregmax_ns),
			 "noac", p->noac != 0, "cto", p->cto != 0, "read_period_ns", I(p->period_ns));
}

/* The kernel readers: how each was set up (start.options), or with
 * results what each read (results.kread). */
/* the replay's GETATTRs against the client's; null where not compared */
static json_t *revalmatch(const struct sw_revalmatch_out *m)
{
	static const char *side[] = { "none", "replay only", "client only" };
	if (!m->compared)
		return json_null();
	json_t *o = json_pack("{s:o, s:o, s:o}", "client", I(m->client), "replay", I(m->replay),
			      "matched", I(m->matched));
	if (m->side)
		json_object_set_new(o, "first_part",
			json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
				  "side", side[m->side <= 2 ? m->side : 0],
				  "t_mono_ns", I(m->first_mono_ns),
				  /* the replay's step there, or its last before */
				  "replay_read_t_mono_ns", I(m->at.tb_mono_ns),
				  "replay_changed", json_boolean(m->at.changed),
				  "replay_timeo_ms", I(m->at.timeo_ns / 1000000),
				  "replay_read_cache_jiffies", I(m->at.rcj),
				  "replay_attrtimeo_timestamp", I(m->at.ts_j),
				  "last_change_writer_ns", I(m->at.t_upd_ns),
				  "replay_seen_writer_ns", I(m->at.t_seen_ns)));
	return o;
}

static json_t *kreaders(const struct sw_summary *S, int results)
{
	json_t *a = json_array();
	for (int j = 0; j < S->nkread; j++) {
		json_t *o = results ?
			json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "file", S->kr[j].file,
				  "mode", S->kr[j].mode, "mount_options", S->kr[j].mount,
				  "page", I(S->kr[j].page), "reads", I(S->kr[j].reads),
				  "replay_revalidations", I(S->kr[j].replay_revals),
				  /* at the client's own traced RPC times */
				  "replay_traced", I(S->kr[j].replay_traced),
				  /* a change inside a traced GETATTR's window at
				   * the server: the client's own outcome taken */
				  "replay_undetermined", I(S->kr[j].replay_undetermined),
				  "replay_undetermined_against_rule", I(S->kr[j].replay_undet_flipped),
				  "replay_match", revalmatch(&S->kr[j].match),
				  /* stores crossing the refetch's READ: either
				   * answer allowed, the client's taken */
				  "replay_undetermined_stores", I(S->kr[j].replay_undet_stores),
				  "replay_undetermined_stores_taken", I(S->kr[j].replay_undet_taken),
				  /* of fig.n stores, served by the same read */
				  "replay_same_read", I(S->kr[j].replay_same_read)) :
			json_pack("{s:s, s:s, s:o}", "mount_options", S->kr[j].mount,
				  "mode", S->kr[j].mode, "profile", profile(&S->kr[j].prof));
		/* vm run --ns-clients: a kernel client of its own namespace */
		if (o && S->kr[j].netns[0]) {
			json_object_set_new(o, "netns", json_string(S->kr[j].netns));
			json_object_set_new(o, "address", json_string(S->kr[j].addr));
		}
		json_array_append_new(a, o);
	}
	return a;
}

/* "end": the status, the faults, the problems */
static json_t *end_json(const struct sw_summary *S, int exit_code)
{
	json_t *end = json_object(), *probs = json_array();
	char status[1024];
	sw_status_line(S, status, sizeof(status));
	json_object_set_new(end, "status", json_string(status));
	json_t *fa = json_array();
	for (int i = 0; i < S->nfaults; i++) {
		const struct sw_fault *F = &S->fault[i];
		json_t *o = json_object();
		json_object_set_new(o, "kind", json_string(F->kind));
		json_object_set_new(o, "t_start_real_ns", I(F->t_start_ns));
		json_object_set_new(o, "t_end_real_ns", F->t_end_ns < 0 ? json_null() : I(F->t_end_ns));
		json_object_set_new(o, "dur_ns", F->t_end_ns < 0 ? json_null() : I(F->t_end_ns >= F->t_start_ns ? F->t_end_ns - F->t_start_ns : -1));
		json_object_set_new(o, "cut_short", json_boolean(F->cut_short));
		json_object_set_new(o, "stores", I(F->stores));
		if (F->what[0])
			json_object_set_new(o, "what", json_string(F->what));
		if (F->crash_before >= 0) /* server-crash (crash.c) */
			json_object_set_new(o, "crash", json_pack("{s:I,s:I,s:I,s:I,s:I,s:I}",
				"stores_before", (json_int_t)F->crash_before,
				"on_disk_after", (json_int_t)F->crash_on_disk,
				"on_read_pages", (json_int_t)F->crash_on_read_pages,
				"never_read", (json_int_t)F->crash_never_read,
				"probe_based", (json_int_t)F->crash_probe_base,
				"probe_never_changed", (json_int_t)F->crash_probe_never));
		if (F->crash_before >= 0) { /* which: runs of generations per page */
			json_t *runs = json_array();
			for (int r = 0; r < F->ncrash_runs && r < SW_MAX_CRASH_RUNS; r++)
				json_array_append_new(runs, json_pack("{s:I,s:I,s:I}", "page",
					(json_int_t)F->crash_run[r][0], "gen_first", (json_int_t)F->crash_run[r][1],
					"gen_last", (json_int_t)F->crash_run[r][2]));
			json_object_set_new(json_object_get(o, "crash"), "never_read_stores", runs);
			json_object_set_new(json_object_get(o, "crash"), "never_read_runs",
					    json_integer(F->ncrash_runs));
		}
		json_array_append_new(fa, o);
	}
	json_object_set_new(end, "faults", fa);
	/* numbers only: json_pack cannot fail on them; update keeps the order */
	json_t *n = json_pack("{s:b,s:b,s:I,s:I,s:I,s:I,s:I}",
			      "complete", S->complete && !S->partial, "partial", S->partial,
			      "exit_code", (json_int_t)exit_code,
			      "writer_records", (json_int_t)S->records,
			      "stores", (json_int_t)S->stores,
			      "t_start_real_ns", (json_int_t)S->t_start_ns,
			      "t_end_real_ns", (json_int_t)S->t_end_ns);
	json_object_update(end, n);
	json_decref(n);
	for (int i = 0; i < S->nprob; i++) {
		json_t *p = json_object();
		json_object_set_new(p, "file", json_string(S->prob[i].file));
		json_object_set_new(p, "record", S->prob[i].record >= 0 ? I(S->prob[i].record) : json_null());
		json_object_set_new(p, "partial", json_boolean(S->prob[i].partial));
		json_object_set_new(p, "message", json_string(S->prob[i].msg));
		json_array_append_new(probs, p);
	}
	json_object_set_new(end, "problems", probs);
	json_object_set_new(end, "problems_total", I(S->nprob_total));
	return end;
}

/* results.attributes: what revealed the stores, the equal ctimes, the
 * queries of the file (attrs.c); null for what was not recorded */
static json_t *attrs_json(const struct sw_summary *S)
{
	const struct sw_reveal *A = &S->attrs;
	json_t *a = json_object();
	json_object_set_new(a, "observer", A->obs >= 0 ? json_string(S->obs[A->obs].name)
						       : json_null());
	json_object_set_new(a, "revealed", A->obs >= 0 ? I(A->revealed) : json_null());
	json_object_set_new(a, "change_only", A->obs >= 0 ? I(A->change_only) : json_null());
	json_object_set_new(a, "change_only_torn", A->obs >= 0 ? I(A->change_only_torn) : json_null());
	json_object_set_new(a, "ctime_only", A->obs >= 0 ? I(A->ctime_only) : json_null());
	json_object_set_new(a, "both", A->obs >= 0 ? I(A->both) : json_null());
	json_object_set_new(a, "neither", A->obs >= 0 ? I(A->other) : json_null());
	json_object_set_new(a, "equal_ctime", A->equal_ctime >= 0 ? I(A->equal_ctime) : json_null());
	json_object_set_new(a, "faulting_stores", A->faults >= 0 ? I(A->faults) : json_null());
	json_object_set_new(a, "equal_ctime_how", json_string(A->equal_how));
	if (A->by_query.known) {
		json_t *q = sw_queried_json(&A->by_query);
		json_object_set_new(q, "how", json_string(A->by_query.how));
		json_object_set_new(a, "faults_by_query", q);
	}
	json_object_set_new(a, "query_rate_hz", A->query_hz >= 0 ? json_real(A->query_hz)
								: json_null());
	json_object_set_new(a, "query_rate_wire", json_boolean(A->query_hz == -2));
	json_object_set_new(a, "probe_achieved_hz", A->probe_achieved_hz >= 0
			    ? json_real(A->probe_achieved_hz) : json_null());
	json_object_set_new(a, "writer_stat_after_store", A->writer_stats >= 0
			    ? json_boolean(A->writer_stats) : json_null());
	json_object_set_new(a, "multigrain", A->multigrain >= 0 ? json_boolean(A->multigrain)
								 : json_null());
	return a;
}

/* the (flusher pass, page) pairs whose trap count moves when the pass
 * moves by each window (analysis/pass/cleanedge.h): the updates two runs
 * of the same stores can differ by, their passes agreeing within it */
static json_t *clean_edge(const struct sw_summary *S)
{
	json_t *w = json_array(), *n = json_array();
	for (int k = 0; k < SW_EDGE_WINDOWS; k++) {
		json_array_append_new(w, json_integer(sw_edge_window_ms[k]));
		json_array_append_new(n, json_integer((json_int_t)S->edge_pairs[k]));
	}
	return json_pack("{s:i,s:o,s:o}", "flusher_passes", S->edge_passes,
			 "window_ms", w, "page_pairs", n);
}

/* results.delegations: the counts, each grant and recall with its times
 * (server CLOCK_MONOTONIC ns, nfsd's trace clock, whole us), each
 * reader's first read of new data after the first recall (deleg.c) */
static json_t *deleg_json(const struct sw_summary *S)
{
	const struct sw_deleg *D = &S->deleg;
	json_t *o = json_pack("{s:s?,s:s?,s:b,s:o,s:o,s:o}",
		"scenario", D->scenario[0] ? D->scenario : NULL,
		"scenario_note", D->note[0] ? D->note : NULL, "traced", D->traced,
		"granted", D->traced ? I(D->granted) : json_null(),
		"recalls", D->traced ? I(D->recalls) : json_null(),
		"returns", D->traced ? I(D->returns) : json_null());
	if (!D->traced)
		return o;
	json_t *g = json_array(), *r = json_array(), *rd = json_array();
	for (int i = 0; i < D->ngrant; i++)
		json_array_append_new(g, json_pack("{s:s,s:o}", "event", D->grant[i].event,
			"t_srv_mono_ns", I(D->grant[i].t_srv_mono_ns)));
	for (int i = 0; i < D->nrecall; i++) {
		const struct sw_deleg_recall *R = &D->recall[i];
		int64_t ret = R->t_return_srv_mono_ns, cb = R->t_cb_done_srv_mono_ns;
		json_array_append_new(r, json_pack("{s:s,s:s?,s:o,s:o,s:o,s:o}", "event", R->event,
			"task", R->task[0] ? R->task : NULL, "t_srv_mono_ns", I(R->t_srv_mono_ns),
			"t_return_srv_mono_ns", ret >= 0 ? I(ret) : json_null(),
			"t_cb_done_srv_mono_ns", cb >= 0 ? I(cb) : json_null(),
			"latency_ns", ret >= 0 ? I(ret - R->t_srv_mono_ns) : json_null()));
	}
	for (int i = 0; i < D->nreader; i++) {
		const struct sw_deleg_reader *E = &D->reader[i];
		json_array_append_new(rd, json_pack("{s:i,s:b,s:o,s:o,s:o}", "reader", E->j,
			"read_before_recall", E->judged,
			"new_data_after_recall_ns", E->after_recall_ns >= 0 ? I(E->after_recall_ns) : json_null(),
			"stale_reads_after_recall", I(E->stale_reads),
			"clock", json_pack("s++", "reader CLOCK_REALTIME + the run's offset, against the "
					   "recall in the server's CLOCK_REALTIME (the writer's ", D->srv_clock_from,
					   " record)")));
	}
	json_object_set_new(o, "grants", g);
	json_object_set_new(o, "recall_events", r);
	json_object_set_new(o, "readers_after_recall", rd);
	json_object_set_new(o, "t_writer_open_done_srv_mono_ns",
		D->t_open_done_srv_mono_ns >= 0 ? I(D->t_open_done_srv_mono_ns) : json_null());
	json_object_set_new(o, "t_first_store_srv_mono_ns",
		D->t_first_store_srv_mono_ns >= 0 ? I(D->t_first_store_srv_mono_ns) : json_null());
	return o;
}

json_t *sw_summary_json(const struct sw_summary *S, int exit_code)
{
	json_t *root = json_object(), *st = json_object(), *res = json_object();
	json_t *figs = json_array(), *obs = json_array();
	json_t *profs = json_array(), *cost = json_object(), *bc = json_object();
	json_t *race = json_object(), *fs = json_object();
	json_t *clk = json_object(), *opt = json_object();
	char hex[32];

	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)S->run_id);
	json_object_set_new(root, "schema", json_string("stalewin-report"));
	json_object_set_new(root, "schema_version", I(SW_REPORT_SCHEMA));
	json_object_set_new(st, "tool", json_string("stalewin-report"));
	json_object_set_new(st, "version", json_string(STALEWIN_VERSION));
	json_object_set_new(st, "jansson_version", json_string(JANSSON_VERSION));
	json_object_set_new(st, "run_dir", json_string(S->run_dir));
	json_object_set_new(st, "run_id", json_string(hex));
	json_object_set_new(st, "synthetic", json_boolean(S->synthetic));
	json_object_set_new(st, "command", json_string(S->cmdline));
	json_object_set_new(st, "kernel", json_string(S->kernel));
	json_object_set_new(st, "trap", json_string(S->trap));
	json_object_set_new(fs, "type", json_string(S->fs));
	json_object_set_new(fs, "mount_options", json_string(S->fs_opts));
	/* the file's last status change (its creation for a run's new file)
	 * and a reader's first read since, before the writer's set-up */
	json_object_set_new(fs, "file_changed_before_setup_ns",
			    S->file_changed_ns < 0 ? json_null() : I(S->file_changed_ns));
	json_object_set_new(fs, "file_read_before_setup_ns",
			    S->file_read_ns < 0 ? json_null() : I(S->file_read_ns));
	/* sw_settle_ns of the writer's writeback, and whether the file had
	 * been changed that long before the set-up (null: unknown) */
	json_object_set_new(fs, "settle_ns", S->settle_ns < 0 ? json_null() : I(S->settle_ns));
	json_object_set_new(fs, "file_settled",
			    S->settle_ns < 0 || S->file_changed_ns < 0 ? json_null()
					     : json_boolean(S->file_changed_ns >= S->settle_ns));
	json_object_set_new(st, "filesystem", fs);
	json_object_set_new(st, "sysctls", json_string(S->sysctls));
	json_object_set_new(st, "libnfs_version", json_string(S->libnfs));
	json_object_set_new(st, "policy", json_string(S->policy));
	json_object_set_new(st, "workload", json_string(S->workload));
	json_object_set_new(st, "validation", json_pack("{s:s,s:s,s:o}", "writeback_model",
				S->valid_wb, "replay", S->valid_replay, "model_profile",
				S->model_profile[0] ? json_string(S->model_profile) : json_null()));
	json_object_set_new(clk, "clock_json", json_boolean(S->clock_file));
	json_object_set_new(clk, "offset_ns", I(S->offset_ns));
	json_object_set_new(clk, "err_ns", I(S->err_ns));
	json_object_set_new(clk, "moved_ns", S->clock_file ? I(S->clock_moved_ns) : json_null());
	json_object_set_new(clk, "moved_interval_ns",
			    S->clock_interval_ns ? I(S->clock_interval_ns) : json_null());
	{ /* the writer's realtime steps: its records on its monotonic clock */
		json_t *steps = json_array();
		for (int i = 0; i < S->nclock_steps && i < SW_MAX_CLOCK_STEPS; i++)
			json_array_append_new(steps, json_pack("{s:o,s:o}", "at_ns",
					      I(S->clock_step[i].t_ns - S->t_start_ns), "step_ns",
					      I(S->clock_step[i].step_ns)));
		json_object_set_new(clk, "writer_realtime_steps", steps);
		steps = json_array(); /* the client's, on its logs' first base */
		for (int i = 0; i < S->nobs_steps && i < SW_MAX_CLOCK_STEPS; i++)
			json_array_append_new(steps, json_pack("{s:o,s:o,s:s}", "at_ns",
					      I(S->obs_step[i].t_ns + S->offset_ns - S->t_start_ns),
					      "step_ns", I(S->obs_step[i].step_ns), "log", S->obs_step_log));
		json_object_set_new(clk, "client_realtime_steps", steps);
		json_object_set_new(clk, "after_offset_raw_ns",
				    S->clock_after_raw_ns ? I(S->clock_after_raw_ns) : json_null());
	}
	json_object_set_new(st, "clock", clk);
	json_object_set_new(st, "truth_not_measured",
			    S->updates_unseen ? json_string(S->updates_unseen_why) : json_null());
	for (int i = 0; i < S->nprof; i++)
		json_array_append_new(profs, profile(&S->prof[i]));
	json_object_set_new(opt, "profiles", profs);
	if (S->has_kread)
		json_object_set_new(opt, "kread_readers", kreaders(S, 0));
	json_object_set_new(st, "options", opt);
	json_object_set_new(root, "start", st);

	enum sw_fig_kind kind;
	const struct sw_fig *g;
	for (int i = 0; (g = sw_fig_at(S, i, &kind)); i++)
		json_array_append_new(figs, sw_fig_json(g, kind));
	json_object_set_new(res, "figures", figs);
	for (int i = 0; i < S->nobs; i++)
		json_array_append_new(obs, observer(&S->obs[i], S->nobs > SW_ROWS_OBS));
	json_object_set_new(res, "observers", obs);
	if (S->nobs > SW_ROWS_OBS)
		many_observers(res, S);
	json_object_set_new(cost, "updates", I(S->updates));
	for (int c = 0; c < 10; c++)
		if (S->upd_cause[c])
			json_object_set_new(bc, sw_cause_name((uint32_t)c), I(S->upd_cause[c]));
	json_object_set_new(cost, "updates_by_cause", bc);
	json_object_set_new(cost, "spurious_updates", I(S->spurious));
	json_object_set_new(cost, "equal_timestamp_pairs", I(S->collisions));
	json_object_set_new(cost, "traps", I(S->traps));
	json_object_set_new(cost, "trap_p50_ns", I(sw_hist_quantile(&S->trap_ns, 0.5)));
	json_object_set_new(cost, "trap_p99_ns", I(sw_hist_quantile(&S->trap_ns, 0.99)));
	json_object_set_new(cost, "update_call_p50_ns", I(sw_hist_quantile(&S->upd_cost_ns, 0.5)));
	if (S->edge_passes && !S->edge_void)
		json_object_set_new(cost, "clean_edge", clean_edge(S));
	json_object_set_new(res, "cost", cost);
	json_object_set_new(race, "stores_after_own_update", I(S->race_stores));
	json_object_set_new(race, "gap_p50_ns", I(sw_hist_quantile(&S->race_gap_ns, 0.5)));
	json_object_set_new(race, "gap_max_ns", I(S->race_gap_ns.count ? S->race_gap_ns.max : 0));
	json_object_set_new(res, "race", race);
	json_object_set_new(res, "attributes", attrs_json(S));
	json_object_set_new(res, "delegations", deleg_json(S));
	if (S->has_kread)
		json_object_set_new(res, "kread", kreaders(S, 1));
	if (S->nfsd.have) /* vm run: knfsd's counters from set-up to the writer's end */
		json_object_set_new(res, "nfsd", json_pack("{s:i, s:f, s:o, s:o, s:o, s:i}",
			"threads", S->nfsd.threads, "seconds", S->nfsd.secs,
			"rpc_calls", I((int64_t)S->nfsd.calls), "getattr_v3", I((int64_t)S->nfsd.getattr3),
			"getattr_v4", I((int64_t)S->nfsd.getattr4), "client_addresses", S->nfsd.clients));
	json_object_set_new(root, "results", res);

	json_object_set_new(root, "end", end_json(S, exit_code));
	return root;
}

int sw_fmt_json(FILE *f, const struct sw_summary *S)
{
	json_t *j = sw_summary_json(S, S->partial ? 3 : S->nfaults ? 4 : 0);
	int rc = json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', f);
	json_decref(j);
	return rc;
}
