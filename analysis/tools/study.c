/* SPDX-License-Identifier: MIT */
/*
 * study.c - `stalewin-report plan PLAN [--json]`: a plan's cells, each
 * runnable with its `vm run` arguments or not with its reason (what
 * scripts/stalewin-study runs); `stalewin-report study DIR [--json]`: the
 * statistics of a study folder's finished runs per cell (repstats.h),
 * written to DIR/study.json and shown as text.
 *
 * A study folder: plan.ini (the plan as run), cells/<cell id>/run-<k>/
 * (one vm run each) and run-<k>.done beside a run that finished whole.
 */
#include <glob.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "figstats.h"
#include "fmt.h"
#include "plan.h"
#include "repstats.h"
#include "runrow.h"

static int print_cell(const struct sw_plan_cell *c, void *ctx)
{
	json_t *arr = ctx;
	if (arr) {
		json_array_append_new(arr, json_pack("{s:s,s:s,s:s,s:s,s:s,s:b,s:s,s:s,s:i,s:i,s:i}",
				      "id", c->id, "kernel", c->kernel, "policy", c->policy, "fs", c->fs,
				      "workload", c->workload, "runnable", c->runnable, "why", c->why,
				      "args", c->args, "repeats", c->g->repeats, "lead_s", c->lead_s,
				      "est_s", c->est_s));
		json_object_set_new(json_array_get(arr, json_array_size(arr) - 1), "ordering",
				    json_boolean(c->ordering));
		json_object_set_new(json_array_get(arr, json_array_size(arr) - 1), "fault",
				    c->fault[0] ? json_string(c->fault) : json_null());
		return 0;
	}
	if (c->runnable)
		printf("run %s %d %d %s\n", c->id, c->g->repeats, c->est_s, c->args);
	else
		printf("skip %s %s\n", c->id, c->why);
	return 0;
}

static int print_batch(const struct sw_plan_batch *b, void *ctx)
{
	(void)ctx;
	/* batch1: its fault allows one experiment a boot (vm run refuses more) */
	printf("%s %d %d ", b->once ? "batch1" : "batch", b->g->repeats, b->est_s);
	for (int i = 0; i < b->n; i++)
		printf("%s%s", i ? "," : "", b->ids[i]);
	printf(" %s\n", b->args);
	return 0;
}

int sw_plan_main(int argc, char **argv)
{
	const char *plan;
	int batches = 0;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--batches")) {
			batches = 1;
			memmove(argv + i, argv + i + 1, (size_t)(argc - i) * sizeof(*argv));
			argc--;
			break;
		}
	int json, rc = sw_cli_one_arg(argc, argv, "plan", "plan file",
				      "usage: stalewin-report plan PLAN [--json | --batches]\n"
				      "  one line a cell: 'run ID REPEATS EST_S VM-RUN-ARGS...' or\n"
				      "  'skip ID REASON' (analysis/tools/plan.h: the keys);\n"
				      "  --batches: one line a boot, 'batch REPEATS EST_S ID,ID... VM-RUN-ARGS...'\n"
				      "  (the cells one vm run makes, in its experiment order); 'batch1' for a\n"
				      "  cell whose fault allows one experiment a boot (each repeat a boot)\n",
				      &plan, &json);
	if (rc >= 0)
		return rc;
	struct sw_plan *p = malloc(sizeof(*p));
	char err[768];
	if (!p)
		return 1;
	if (sw_plan_load(plan, p, err, sizeof(err))) {
		fprintf(stderr, "stalewin-report plan: %s\n", err);
		free(p);
		return 2;
	}
	if (batches) {
		rc = sw_plan_batches(p, print_batch, NULL);
		free(p);
		if (rc)
			fprintf(stderr, "stalewin-report plan: %s: a batch's vm run arguments do not fit\n", plan);
		return rc ? 2 : 0;
	}
	json_t *arr = json ? json_array() : NULL;
	sw_plan_cells(p, print_cell, arr);
	if (arr) {
		json_t *root = json_pack("{s:s,s:i,s:s,s:o}", "schema", "stalewin-plan", "schema_version", 1,
					 "plan", plan, "cells", arr);
		json_dumpf(root, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(root);
	}
	free(p);
	return 0;
}

struct study {
	const char *dir;
	json_t *cells;
	FILE *txt;
	struct sw_summary *S;
	int cells_run, runs;
};

/* a cell's equal ctimes and its faults split by query, summed over its
 * runs (attrs.c, queried.c): what the observer table compares */
struct cell_attrs {
	int64_t eq, faults;
	struct sw_queried q;
	int n_eq, n_q;
};

static void attrs_add(struct cell_attrs *a, const struct sw_reveal *A, json_t *ro)
{
	if (A->equal_ctime >= 0 && A->faults >= 0) {
		a->eq += A->equal_ctime;
		a->faults += A->faults;
		a->n_eq++;
		json_object_set_new(ro, "equal_ctime", json_integer((json_int_t)A->equal_ctime));
		json_object_set_new(ro, "faulting_stores", json_integer((json_int_t)A->faults));
	}
	if (A->by_query.known) {
		sw_queried_add(&a->q, &A->by_query);
		a->n_q++;
		json_object_set_new(ro, "faults_by_query", sw_queried_json(&A->by_query));
	}
}

/* the cell's "attributes" (null: no native run counted them) and its
 * text lines */
static void attrs_cell(FILE *f, json_t *o, const struct cell_attrs *a)
{
	json_t *at = json_object();
	if (a->n_eq) {
		json_object_set_new(at, "equal_ctime", json_integer((json_int_t)a->eq));
		json_object_set_new(at, "faulting_stores", json_integer((json_int_t)a->faults));
		json_object_set_new(at, "runs", json_integer(a->n_eq));
		fprintf(f, "  %-12s %lld of %lld faults left ctime equal (%d runs)\n", "eq ctime",
			(long long)a->eq, (long long)a->faults, a->n_eq);
	}
	if (a->n_q) {
		json_t *q = sw_queried_json(&a->q);
		json_object_set_new(q, "runs", json_integer(a->n_q));
		json_object_set_new(at, "faults_by_query", q);
		fprintf(f, "  %-12s after a query %lld of %lld faults changed ctime, with none %lld of %lld\n",
			"by query", (long long)a->q.queried_changed, (long long)a->q.queried,
			(long long)a->q.unqueried_changed, (long long)a->q.unqueried);
	}
	json_object_set_new(o, "attributes", json_object_size(at) ? at : (json_decref(at), json_null()));
}

static double share(int64_t part, int64_t whole)
{
	return whole > 0 ? (double)part / (double)whole : -1;
}

void sw_study_pct(char *b, size_t n, double sh, long long whole)
{
	if (sh >= 0)
		snprintf(b, n, "%.1f%% of %lld", 100 * sh, whole);
	else
		snprintf(b, n, "-");
}

/* The cells of the plan's query_rate axis (a rate and runs): their rate,
 * truth p50 and shares of faults, into r (at most max); how many */
int sw_study_observer_rows(json_t *cells, struct sw_obs_row *r, int max)
{
	size_t i;
	json_t *c;
	int n = 0;
	json_array_foreach(cells, i, c) {
		json_t *q = json_object_get(c, "query_rate"), *at = json_object_get(c, "attributes");
		if (!json_is_string(q) || !json_integer_value(json_object_get(c, "n")) || n == max)
			continue;
		struct sw_obs_row *o = &r[n++];
		json_t *m = json_object_get(json_object_get(c, "truth_p50_s"), "median");
		json_t *bq = json_object_get(at, "faults_by_query");
#define GI(o, a, b) json_integer_value(json_object_get(json_object_get(o, a), b))
		snprintf(o->id, sizeof(o->id), "%s", json_string_value(json_object_get(c, "id")));
		snprintf(o->rate, sizeof(o->rate), "%s", json_string_value(q));
		/* -1: ">end"; -2: not measured (blind.c) */
		o->truth_p50_s = json_is_number(m) ? json_number_value(m)
				 : json_is_string(json_object_get(c, "truth_not_measured")) ? -2 : -1;
		o->faults = json_integer_value(json_object_get(at, "faulting_stores"));
		o->equal_share = share(json_integer_value(json_object_get(at, "equal_ctime")), o->faults);
		o->queried = GI(bq, "queried", "faults");
		o->queried_changed = share(GI(bq, "queried", "changed"), o->queried);
		o->unqueried = GI(bq, "unqueried", "faults");
		o->unqueried_changed = share(GI(bq, "unqueried", "changed"), o->unqueried);
#undef GI
	}
	return n;
}

/* The observer effect over the plan's query_rate axis: per cell with a
 * rate, its truth p50, its share of equal ctimes, and the share of its
 * faults that changed ctime after a query and with none; and the same
 * as DIR/observer.svg */
static void observer_table(FILE *f, const char *dir, json_t *cells)
{
	struct sw_obs_row *r = calloc(json_array_size(cells) + 1, sizeof(*r));
	char err[256];
	int n = r ? sw_study_observer_rows(cells, r, (int)json_array_size(cells)) : 0;
	if (n)
		fprintf(f, "observer effect (the plan's query_rate axis; faults summed over a cell's runs):\n"
			"  %-40s %-6s %-9s %-18s %-20s %s\n", "cell", "rate", "truth p50",
			"equal ctimes", "changed after query", "changed with none");
	for (int i = 0; i < n; i++) {
		char p50[16] = "-", eq[40], qa[40], qn[40];
		if (r[i].truth_p50_s >= 0)
			sw_fmt_qv(p50, sizeof(p50), (int64_t)(r[i].truth_p50_s * 1e9));
		sw_study_pct(eq, sizeof(eq), r[i].equal_share, r[i].faults);
		sw_study_pct(qa, sizeof(qa), r[i].queried_changed, r[i].queried);
		sw_study_pct(qn, sizeof(qn), r[i].unqueried_changed, r[i].unqueried);
		fprintf(f, "  %-40s %-6s %-9s %-18s %-20s %s\n", r[i].id, r[i].rate, p50, eq, qa, qn);
	}
	if (n && sw_fmt_observer_plot(dir, r, n, err, sizeof(err)))
		fprintf(stderr, "stalewin-report study: no observer plot: %s\n", err);
	else if (n)
		fprintf(f, "  (plotted: %s/observer.svg)\n", dir);
	free(r);
}

static json_t *stats_json(const int64_t *v, int n, int64_t floor_ns)
{
	struct sw_repstats st;
	if (sw_repstats(v, n, 0.95, floor_ns, &st))
		return json_null();
#define S_OR_NULL(x) ((x) < 0 ? json_null() : json_real((double)(x) / 1e9))
	json_t *reg = json_pack("{s:i}", "count", st.regimes);
	if (st.regimes == 2) {
		json_object_set_new(reg, "b_runs", json_integer(st.regime_b_n));
		json_object_set_new(reg, "a_median", S_OR_NULL(st.regime_a_median_ns));
		json_object_set_new(reg, "b_median", S_OR_NULL(st.regime_b_median_ns));
	}
	return json_pack("{s:o,s:o,s:o,s:f,s:o,s:o,s:o}", "median", S_OR_NULL(st.median_ns), "ci_lo",
			 S_OR_NULL(st.ci_lo_ns), "ci_hi", S_OR_NULL(st.ci_hi_ns), "ci_coverage", st.coverage,
			 "min", S_OR_NULL(st.min_ns), "max", S_OR_NULL(st.max_ns), "regimes", reg);
#undef S_OR_NULL
}

static void text_stat(FILE *f, const char *name, const int64_t *v, int n, int64_t floor_ns)
{
	struct sw_repstats st;
	char a[16], b[16], c[16];
	if (sw_repstats(v, n, 0.95, floor_ns, &st))
		return;
	sw_fmt_qv(a, sizeof(a), st.median_ns);
	sw_fmt_qv(b, sizeof(b), st.ci_lo_ns);
	sw_fmt_qv(c, sizeof(c), st.ci_hi_ns);
	fprintf(f, "  %-12s %6s  95%% CI %s..%s (covers %.0f%%)", name, a, b, c, 100 * st.coverage);
	if (st.regimes == 2) {
		sw_fmt_qv(a, sizeof(a), st.regime_a_median_ns);
		sw_fmt_qv(b, sizeof(b), st.regime_b_median_ns);
		fprintf(f, "\n  %-12s two regimes: %d of %d runs in B, %s | %s", "", st.regime_b_n, st.n, a, b);
	}
	fputc('\n', f);
}

static int study_cell(const struct sw_plan_cell *c, void *ctx)
{
	struct study *s = ctx;
	const struct sw_plan_group *g = c->g;
	int wb = g->wb_ms ? g->wb_ms : 5000, ex = g->expire_ms ? g->expire_ms : 30000;
	json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:b,s:i,s:i,s:i}", "id", c->id, "kernel", c->kernel,
			      "policy", c->policy, "fs", c->fs, "workload", c->workload, "runnable",
			      c->runnable, "planned", g->repeats, "lead_s", c->lead_s, "duration_s",
			      g->duration_s);
	json_object_set_new(o, "ordering", json_boolean(c->ordering));
	/* the probe's GETATTRs a second per target, null: vm run's default */
	json_object_set_new(o, "query_rate", c->query[0] ? json_string(c->query) : json_null());
	/* the run's --fault, null: none (the verdict compares like with like) */
	json_object_set_new(o, "fault", c->fault[0] ? json_string(c->fault) : json_null());
	json_object_set_new(o, "writeback", json_pack("{s:i,s:i,s:b,s:f}", "writeback_ms", wb, "expire_ms", ex,
						      "scaled", g->wb_ms != 0, "scale", 30000.0 / ex));
	json_array_append_new(s->cells, o);
	if (!c->runnable) {
		json_object_set_new(o, "why", json_string(c->why));
		fprintf(s->txt, "%s\n  not runnable: %s\n", c->id, c->why);
		return 0;
	}
	char pat[2048];
	snprintf(pat, sizeof(pat), "%s/cells/%s/run-*.done", s->dir, c->id);
	glob_t gl;
	int n = 0;
	int64_t p50[SW_REPSTATS_MAX], p90[SW_REPSTATS_MAX], vd[SW_REPSTATS_MAX], vc[SW_REPSTATS_MAX];
	double upd[SW_REPSTATS_MAX];
	int nvd = 0, nvc = 0, nt = 0; /* nt: runs whose writer saw its updates */
	int64_t res = 0;
	char blind[200] = "";
	struct cell_attrs ca = { 0 };
	/* server-crash: the stores on disk after the reboot, and the ones the
	 * client never saw changed, summed over the cell's runs (crash.c) */
	int64_t cr[5] = { 0 };
	int ncr = 0;
	json_t *dirs = json_array(), *runs = json_array();
	if (glob(pat, 0, NULL, &gl) == 0) {
		for (size_t i = 0; i < gl.gl_pathc && n < SW_REPSTATS_MAX; i++) {
			char run[2048];
			snprintf(run, sizeof(run), "%.*s", (int)(strlen(gl.gl_pathv[i]) - 5), gl.gl_pathv[i]);
			struct sw_analyze_opts ao = { 0 };
			sw_summary_free(s->S); /* the run before's */
			int rc = sw_analyze(run, &ao, s->S);
			if (rc == 1 || rc == 2) {
				fprintf(stderr, "stalewin-report study: %s: not analysed (exit %d), left out\n", run, rc);
				continue;
			}
			struct sw_runrow r;
			sw_runrow_fill(s->S, &r);
			/* every analysed run in DIR/study.sqlite too (stalewin
			 * report archive query --db DIR/study.sqlite) */
			char db[1024];
			snprintf(db, sizeof(db), "%s/study.sqlite", s->dir);
			if (sw_archive_add_summary(db, s->S))
				fprintf(stderr, "stalewin-report study: %s: not archived in %s\n", run, db);
			json_t *ro = json_pack("{s:s}", "dir", run + strlen(s->dir) + 1);
			/* each run's figures: what verdict resamples; a native
			 * writer that never looked (blind.c) has no truth, and the
			 * updates it counted are its one look's */
#define NS_S(x) ((x) < 0 ? json_null() : json_real((double)(x) / 1e9))
			/* null: ">end"; a view key is left out where the run had none */
			if (!s->S->updates_unseen) {
				p50[nt] = r.truth_p50_ns;
				p90[nt] = sw_fig_quantile(&s->S->truth, 0.9);
				upd[nt] = r.updates_per_1k;
				json_object_set_new(ro, "truth_p50_s", NS_S(p50[nt]));
				json_object_set_new(ro, "truth_p90_s", NS_S(p90[nt]));
				json_object_set_new(ro, "updates_per_1k", json_real(upd[nt++]));
			} else {
				snprintf(blind, sizeof(blind), "%s", s->S->updates_unseen_why);
				json_object_set_new(ro, "truth_not_measured", json_string(blind));
			}
			if (r.view_default.src != SW_VIEW_NONE && r.view_default.p50_ns != -2)
				vd[nvd++] = r.view_default.p50_ns;
			if (r.view_cto.src != SW_VIEW_NONE && r.view_cto.p50_ns != -2)
				vc[nvc++] = r.view_cto.p50_ns;
			if (r.resolution_ns > res)
				res = r.resolution_ns;
			json_array_append_new(dirs, json_string(run + strlen(s->dir) + 1));
			if (r.view_default.src != SW_VIEW_NONE && r.view_default.p50_ns != -2)
				json_object_set_new(ro, "view_default_p50_s", NS_S(r.view_default.p50_ns));
			if (r.view_cto.src != SW_VIEW_NONE && r.view_cto.p50_ns != -2)
				json_object_set_new(ro, "view_cto_p50_s", NS_S(r.view_cto.p50_ns));
			/* what the verdict's correctness findings count: stores no
			 * update followed before the end, stores whose own fault's
			 * update came before their data, READs that took old data
			 * under those new times */
			uint64_t rh = 0;
			for (int o = 0; o < s->S->nobs; o++)
				rh += s->S->obs[o].race_read_hits;
			json_object_set_new(ro, "stores", json_integer((json_int_t)r.stores));
			json_object_set_new(ro, "truth_unresolved", json_integer((json_int_t)r.truth_unresolved));
			json_object_set_new(ro, "race_stores", json_integer((json_int_t)s->S->race_stores));
			json_object_set_new(ro, "race_read_hits", json_integer((json_int_t)rh));
			attrs_add(&ca, &s->S->attrs, ro);
			for (int fi = 0; fi < s->S->nfaults && fi < SW_MAX_FAULTS; fi++) {
				const struct sw_fault *F = &s->S->fault[fi];
				if (strcmp(F->kind, "server-crash") || F->crash_on_disk < 0)
					continue;
				const int64_t v[5] = { F->crash_before, F->crash_on_disk, F->crash_never_read,
						       F->crash_probe_base, F->crash_probe_never };
				for (int x = 0; x < 5; x++)
					cr[x] += v[x] > 0 ? v[x] : 0;
				ncr++;
				json_object_set_new(ro, "crash_on_disk", json_integer((json_int_t)F->crash_on_disk));
				json_object_set_new(ro, "crash_never_read",
						    json_integer((json_int_t)F->crash_never_read));
			}
			/* every kernel reader's view, "view:v3 kept-open" (NFS
			 * version, reader mode, and the mount's attribute cache
			 * when not the default): the verdict compares each */
			for (int j = 0; j < s->S->nkread; j++) {
				const struct sw_kread *k = &s->S->kr[j];
				char key[96], ac[40] = "";
				if (!k->fig.n)
					continue;
				if (k->prof.noac)
					snprintf(ac, sizeof(ac), " noac");
				else if (k->prof.acregmin_ns == k->prof.acregmax_ns)
					snprintf(ac, sizeof(ac), " actimeo=%g", (double)k->prof.acregmin_ns / 1e9);
				snprintf(key, sizeof(key), "view:v%s %s%s", k->prof.vers == 4 ? "4.2" : "3", k->mode, ac);
				if (!json_object_get(ro, key))
					json_object_set_new(ro, key, NS_S(sw_fig_quantile(&k->fig, 0.5)));
			}
			json_array_append_new(runs, ro);
#undef NS_S
			n++;
		}
		globfree(&gl);
	}
	s->runs += n;
	s->cells_run += n > 0;
	json_object_set_new(o, "n", json_integer(n));
	json_object_set_new(o, "dirs", dirs);
	json_object_set_new(o, "runs", runs);
	fprintf(s->txt, "%s\n  runs %d of %d%s\n", c->id, n, g->repeats,
		g->wb_ms ? "  (writeback scaled)" : "");
	if (!n)
		return 0;
	json_object_set_new(o, "truth_p50_s", nt ? stats_json(p50, nt, res) : json_null());
	json_object_set_new(o, "truth_p90_s", nt ? stats_json(p90, nt, res) : json_null());
	json_object_set_new(o, "truth_not_measured", blind[0] ? json_string(blind) : json_null());
	json_object_set_new(o, "view_default_p50_s", nvd ? stats_json(vd, nvd, res) : json_null());
	json_object_set_new(o, "view_cto_p50_s", nvc ? stats_json(vc, nvc, res) : json_null());
	struct sw_repstats_f u = { 0 };
	if (nt) {
		sw_repstats_f(upd, nt, 0.95, &u);
		json_object_set_new(o, "updates_per_1k",
				    json_pack("{s:f,s:f,s:f,s:f,s:f}", "median", u.median, "ci_lo", u.ci_lo,
					      "ci_hi", u.ci_hi, "min", u.min, "max", u.max));
	} else
		json_object_set_new(o, "updates_per_1k", json_null());
	if (nt < n)
		fprintf(s->txt, "  %-12s not measured in %d of %d runs: %s\n", "truth", n - nt, n, blind);
	text_stat(s->txt, "truth p50", p50, nt, res);
	text_stat(s->txt, "truth p90", p90, nt, res);
	if (nvd)
		text_stat(s->txt, "default p50", vd, nvd, res);
	if (nvc)
		text_stat(s->txt, "cto p50", vc, nvc, res);
	if (nt)
		fprintf(s->txt, "  %-12s %6.0f  95%% CI %.0f..%.0f\n", "upd/1k", u.median, u.ci_lo, u.ci_hi);
	attrs_cell(s->txt, o, &ca);
	if (ncr) {
		json_object_set_new(o, "crash", json_pack("{s:i,s:I,s:I,s:I,s:I,s:I}", "runs", ncr, "before",
							  (json_int_t)cr[0], "on_disk", (json_int_t)cr[1],
							  "never_read", (json_int_t)cr[2], "probe_base",
							  (json_int_t)cr[3], "probe_never", (json_int_t)cr[4]));
		fprintf(s->txt, "  %-12s %lld of %lld stores on disk after the reboot never read by the\n"
			"  %-12s client (%d runs; the probe's times hid %lld of %lld)\n", "crash",
			(long long)cr[2], (long long)cr[1], "", ncr, (long long)cr[4], (long long)cr[3]);
	}
	return 0;
}

int sw_study_main(int argc, char **argv)
{
	const char *dir;
	int json, rc0 = sw_cli_one_arg(argc, argv, "study", "study folder",
				       "usage: stalewin-report study DIR [--json]\n"
				       "  per cell of DIR/plan.ini, the statistics of its finished\n"
				       "  runs (DIR/cells/ID/run-K with run-K.done); writes DIR/study.json\n",
				       &dir, &json);
	if (rc0 >= 0)
		return rc0;
	struct study s = { .dir = dir };
	char path[1024], err[768];
	struct sw_plan *p = malloc(sizeof(*p));
	s.S = calloc(1, sizeof(*s.S)); /* sw_summary_free: safe at once */
	if (!p || !s.S) {
		free(p);
		free(s.S);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/plan.ini", s.dir);
	if (sw_plan_load(path, p, err, sizeof(err))) {
		fprintf(stderr, "stalewin-report study: %s (expected a study folder with its plan.ini)\n", err);
		free(p);
		free(s.S);
		return 2;
	}
	s.cells = json_array();
	s.txt = json ? fopen("/dev/null", "w") : stdout;
	if (!s.txt) {
		perror("stalewin-report study: /dev/null");
		free(p);
		free(s.S);
		return 1;
	}
	fprintf(s.txt, "stalewin study %s (plan %s)\n", s.dir, path);
	sw_plan_cells(p, study_cell, &s);
	/* stalewin study --boot-reuse leaves DIR/boot-reuse: runs shared boots */
	char marker[1024];
	snprintf(marker, sizeof(marker), "%s/boot-reuse", s.dir);
	json_t *root = json_pack("{s:s,s:i,s:s,s:o,s:i,s:i,s:b}", "schema", "stalewin-study", "schema_version", 2,
				 "plan", path, "cells", s.cells, "cells_with_runs", s.cells_run, "runs", s.runs,
				 "boot_reuse", access(marker, F_OK) == 0);
	snprintf(path, sizeof(path), "%s/study.json", s.dir);
	int rc = json_dump_file(root, path, JSON_INDENT(2)) ? 1 : 0;
	if (rc)
		fprintf(stderr, "stalewin-report study: cannot write %s\n", path);
	if (json) {
		json_dumpf(root, stdout, JSON_INDENT(2));
		putchar('\n');
		fclose(s.txt);
	} else {
		observer_table(s.txt, s.dir, s.cells);
		fprintf(s.txt, "%d runs in %d cells; 95%% CI: the exact bootstrap interval of the median\n"
			"(covers: its chance to hold the true median for this n); %s\n",
			s.runs, s.cells_run, path);
	}
	json_decref(root);
	free(p);
	sw_summary_free(s.S);
	free(s.S);
	return rc;
}
