/* SPDX-License-Identifier: MIT */
/* summary.c - `stalewin summary`: one row per run (pass/runrow.h) in a
 * table of at most 72 columns, or the same rows as JSON. */
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "runrow.h"

#define LABEL_W 11

static void view_cell(char *b, int len, const struct sw_view *v)
{
	char d[16];
	sw_fmt_qv(d, sizeof(d), v->p50_ns);
	snprintf(b, len, "%6s%c", d,
		 v->src == SW_VIEW_KERNEL ? 'k' : v->src == SW_VIEW_REPLAY ? 'r' : ' ');
}

static void per_1k(char *b, int len, double v)
{
	if (v < 10)
		snprintf(b, len, "%.1f", v);
	else if (v < 9999.5)
		snprintf(b, len, "%.0f", v);
	else
		snprintf(b, len, ">9k");
}

void sw_fmt_summary_row(FILE *f, const struct sw_runrow *r)
{
	char lab[80], t[3][16], u[16], o[16], dv[24], cv[24], k[16], tr[16];
	snprintf(lab, sizeof(lab), "%s%s", r->label, r->partial ? "!" : "");
	sw_fmt_qv(t[0], sizeof(t[0]), r->truth_p50_ns);
	sw_fmt_qv(t[1], sizeof(t[1]), r->truth_p99_ns);
	sw_fmt_qv(t[2], sizeof(t[2]), r->truth_max_ns);
	sw_fmt_pct(u, sizeof(u), r->stores ? r->uncovered_share : 0);
	sw_fmt_qv(o, sizeof(o), r->observed_p50_ns);
	view_cell(dv, sizeof(dv), &r->view_default);
	view_cell(cv, sizeof(cv), &r->view_cto);
	per_1k(k, sizeof(k), r->updates_per_1k);
	if (r->trap_p50_ns == -3)
		snprintf(tr, sizeof(tr), "tcg");
	else
		sw_fmt_qv(tr, sizeof(tr), r->trap_p50_ns);
	if (strlen(lab) > LABEL_W) {
		fprintf(f, "%.72s\n", lab);
		lab[0] = 0;
	}
	fprintf(f, "%-*s %6s %6s %6s %4s %6s %s %s %4s %6s\n", LABEL_W, lab, t[0], t[1],
		t[2], u, o, dv, cv, k, tr);
}

static void count_cell(char *b, int len, int64_t v)
{
	if (v < 0)
		snprintf(b, len, "-");
	else
		snprintf(b, len, "%lld", (long long)v);
}

/* Per run: what revealed the stores (the v4 target's replies carry both
 * the change attribute and ctime), the equal ctimes, the queries. */
static void attrs_rows(FILE *f, const struct sw_runrow *rows, int n)
{
	fprintf(f, "\n%-11s %-20s %7s %8s %5s\n", "", "revealed (v4 target)", "equal", "queries",
		"multi-");
	fprintf(f, "%-11s %6s %6s %6s %7s %8s %5s\n", "", "change", "ctime", "both", "ctime",
		"/s", "grain");
	for (int i = 0; i < n; i++) {
		const struct sw_runrow *r = &rows[i];
		char lab[80], a[48], b[24], c[24], e[24], q[24];
		snprintf(lab, sizeof(lab), "%s%s", r->label, r->partial ? "!" : "");
		/* the change attribute alone by the kernel's rule, then "+Nt"
		 * by replies torn by a racing fault */
		if (r->change_only_torn > 0)
			snprintf(a, sizeof(a), "%lld+%lldt",
				 (long long)(r->change_only - r->change_only_torn),
				 (long long)r->change_only_torn);
		else
			count_cell(a, sizeof(a), r->change_only);
		count_cell(b, sizeof(b), r->ctime_only);
		count_cell(c, sizeof(c), r->both);
		count_cell(e, sizeof(e), r->equal_ctime);
		if (r->query_hz >= 0)
			snprintf(q, sizeof(q), "%.1f", r->query_hz);
		else
			snprintf(q, sizeof(q), "%s", r->query_hz == -2 ? "wire" : "-");
		if (strlen(lab) > LABEL_W) {
			fprintf(f, "%.72s\n", lab);
			lab[0] = 0;
		}
		fprintf(f, "%-*s %6s %6s %6s %7s %8s %5s\n", LABEL_W, lab, a, b, c, e, q,
			r->multigrain < 0 ? "-" : r->multigrain ? "yes" : "no");
	}
}

void sw_fmt_summary_text(FILE *f, const struct sw_runrow *rows, int n, unsigned dims)
{
	char by[64] = "";
	size_t used = 0;
	for (int d = 0; d < SW_DIM_N; d++)
		if (dims & (1u << d)) {
			int w = snprintf(by + used, sizeof(by) - used, "%s%s",
					 used ? ", " : "", sw_runrow_dim_name(d));
			if (w > 0 && (size_t)w < sizeof(by) - used)
				used += (size_t)w;
		}
	fprintf(f, "stalewin summary: %d run%s, rows labelled by %s\n", n,
		n == 1 ? "" : "s", by);
	fprintf(f, "%-11s %-25s %6s %-15s %4s %6s\n", "", "------ truth window -----",
		"obs", "- client view -", "upd", "emul-");
	fprintf(f, "%-11s %6s %6s %6s %4s %6s %7s %6s  %4s %6s\n", "run", "p50", "p99",
		"max", "uncv", "p50", "default", "cto", "/1k", "trap");
	for (int i = 0; i < n; i++)
		sw_fmt_summary_row(f, &rows[i]);
	attrs_rows(f, rows, n);
	struct sw_repeat g[SW_REPEAT_GROUPS];
	int ng = sw_runrow_repeats(rows, n, g, SW_REPEAT_GROUPS);
	if (ng)
		fputs("\nrepeats of one command (--out, --log, --seed aside):\n", f);
	for (int i = 0; i < ng; i++) {
		char a[16], b[16], c[16], lab[80];
		snprintf(lab, sizeof(lab), "%s", rows[g[i].first].label);
		sw_fmt_qv(a, sizeof(a), g[i].p50_med_ns);
		sw_fmt_qv(b, sizeof(b), g[i].p50_min_ns);
		sw_fmt_qv(c, sizeof(c), g[i].p50_max_ns);
		if (strlen(lab) > LABEL_W) {
			fprintf(f, "%.72s\n", lab);
			lab[0] = 0;
		}
		fprintf(f, "%-*s n=%-2d truth p50 %s (%s..%s)  upd/1k %.0f (%.0f..%.0f)\n", LABEL_W,
			lab, g[i].n, a, b, c, g[i].upd_med, g[i].upd_min, g[i].upd_max);
		const struct sw_repstats *st = &g[i].p50;
		sw_fmt_qv(a, sizeof(a), st->ci_lo_ns);
		sw_fmt_qv(b, sizeof(b), st->ci_hi_ns);
		fprintf(f, "%-*s   its 95%% interval %s..%s (covers %.0f%%)\n", LABEL_W, "", a, b,
			100.0 * st->coverage);
		if (st->regimes == 2) {
			sw_fmt_qv(a, sizeof(a), st->regime_a_median_ns);
			sw_fmt_qv(b, sizeof(b), st->regime_b_median_ns);
			fprintf(f, "%-*s   two regimes: %d of %d runs in B, medians %s | %s\n", LABEL_W, "",
				st->regime_b_n, st->n, a, b);
		}
	}
	if (ng)
		fputs("  the median (the lower middle for an even n) and the range\n"
		      "  over the runs: one run's figure is one draw.  The interval\n"
		      "  is the exact percentile bootstrap of the median; covers: its\n"
		      "  chance to hold the true median (3 runs: 75%, 10: 93%).\n", f);
	fputs("\ntruth: store to the first timestamp update after it, over all\n"
	      "  stores; >end: no update before the run ended (uncv: share).\n"
	      "obs: probe GETATTR over NFS.  client view: p50 of the default\n"
	      "  mount and of close-to-open; k real kernel client (kread),\n"
	      "  r replay of the Linux client's rules.  upd/1k: timestamp\n"
	      "  updates per 1000 stores.  emul-trap: p50 of the emulator's own\n"
	      "  write-fault trap (userfaultfd + futimens), emulated rows only:\n"
	      "  a cost of the emulation, not of any kernel.\n"
	      "revealed: stores whose first differing v4 reply moved the change\n"
	      "  attribute alone (N+Tt: T of them by a GETATTR torn by a racing\n"
	      "  fault), ctime alone, or both.  equal ctime: faulting\n"
	      "  stores (native) or updates (emulated) that left ctime as it\n"
	      "  was.  queries/s: the file's planned GETATTRs (probe + kernel\n"
	      "  readers); on a multigrain fs each query makes the next stamp\n"
	      "  fine-grained.  -: not measured or not recorded.\n", f);
	int any_partial = 0;
	for (int i = 0; i < n; i++)
		any_partial |= rows[i].partial;
	if (any_partial)
		fputs("!: partial run (see its report for why).\n", f);
}

static json_t *ns_s(int64_t ns)
{
	return ns < 0 ? json_null() : json_real((double)ns / 1e9);
}

static json_t *view_json(const struct sw_view *v)
{
	json_t *o = json_object();
	json_object_set_new(o, "source", json_string(v->src == SW_VIEW_KERNEL ? "kernel"
						     : v->src == SW_VIEW_REPLAY ? "replay" : "none"));
	json_object_set_new(o, "figure", json_string(v->name));
	json_object_set_new(o, "p50_s", ns_s(v->p50_ns));
	json_object_set_new(o, "stores", json_integer((json_int_t)v->n));
	json_object_set_new(o, "unresolved", json_integer((json_int_t)v->unresolved));
	return o;
}

json_t *sw_summary_rows_json(const struct sw_runrow *rows, int n)
{
	json_t *root = json_object(), *arr = json_array();
	json_object_set_new(root, "schema", json_string("stalewin-summary"));
	json_object_set_new(root, "schema_version", json_integer(2));
	for (int i = 0; i < n; i++) {
		const struct sw_runrow *r = &rows[i];
		json_t *o = json_object();
		json_object_set_new(o, "label", json_string(r->label));
		json_object_set_new(o, "policy", json_string(r->policy));
		json_object_set_new(o, "workload", json_string(r->workload));
		json_object_set_new(o, "fs", json_string(r->fs));
		json_object_set_new(o, "kernel", json_string(r->kernel));
		/* emulated rows: the model profile they ran with ("none": the
		 * writer's defaults); null for the kernel's own */
		json_object_set_new(o, "model_profile", r->model_profile[0]
				    ? json_string(r->model_profile) : json_null());
		json_object_set_new(o, "dir", json_string(r->dir));
		json_object_set_new(o, "partial", json_boolean(r->partial));
		json_object_set_new(o, "stores", json_integer((json_int_t)r->stores));
		json_object_set_new(o, "truth_p50_s", ns_s(r->truth_p50_ns));
		json_object_set_new(o, "truth_p99_s", ns_s(r->truth_p99_ns));
		json_object_set_new(o, "truth_max_s", ns_s(r->truth_max_ns));
		json_object_set_new(o, "uncovered_share", json_real(r->uncovered_share));
		json_object_set_new(o, "observed_p50_s", ns_s(r->observed_p50_ns));
		json_object_set_new(o, "view_default", view_json(&r->view_default));
		json_object_set_new(o, "view_cto", view_json(&r->view_cto));
		json_object_set_new(o, "updates_per_1k", json_real(r->updates_per_1k));
		json_object_set_new(o, "emul_trap_p50_us", r->trap_p50_ns < 0 ? json_null()
				    : json_real((double)r->trap_p50_ns / 1e3));
		json_object_set_new(o, "revealed_change_only", r->change_only < 0 ? json_null()
				    : json_integer((json_int_t)r->change_only));
		json_object_set_new(o, "revealed_change_only_torn", r->change_only_torn < 0
				    ? json_null() : json_integer((json_int_t)r->change_only_torn));
		json_object_set_new(o, "revealed_ctime_only", r->ctime_only < 0 ? json_null()
				    : json_integer((json_int_t)r->ctime_only));
		json_object_set_new(o, "revealed_both", r->both < 0 ? json_null()
				    : json_integer((json_int_t)r->both));
		json_object_set_new(o, "equal_ctime", r->equal_ctime < 0 ? json_null()
				    : json_integer((json_int_t)r->equal_ctime));
		json_object_set_new(o, "query_rate_hz", r->query_hz < 0 ? json_null()
				    : json_real(r->query_hz));
		json_object_set_new(o, "query_rate_wire", json_boolean(r->query_hz == -2));
		json_object_set_new(o, "multigrain", r->multigrain < 0 ? json_null()
				    : json_boolean(r->multigrain));
		json_array_append_new(arr, o);
	}
	json_object_set_new(root, "rows", arr);
	/* runs of one command (--out, --log, --seed aside): their spread */
	struct sw_repeat g[SW_REPEAT_GROUPS];
	int ng = sw_runrow_repeats(rows, n, g, SW_REPEAT_GROUPS);
	json_t *reps = json_array();
	for (int i = 0; i < ng; i++) {
		json_t *o = json_object(), *dirs = json_array();
		for (int j = g[i].first; j < n; j++)
			if (!strcmp(rows[j].same, rows[g[i].first].same))
				json_array_append_new(dirs, json_string(rows[j].dir));
		json_object_set_new(o, "label", json_string(rows[g[i].first].label));
		json_object_set_new(o, "runs", json_integer(g[i].n));
		json_object_set_new(o, "dirs", dirs);
		const struct sw_repstats *st = &g[i].p50;
		json_t *reg = json_pack("{s:i}", "count", st->regimes);
		if (st->regimes == 2) {
			json_object_set_new(reg, "b_runs", json_integer(st->regime_b_n));
			json_object_set_new(reg, "a_median", ns_s(st->regime_a_median_ns));
			json_object_set_new(reg, "b_median", ns_s(st->regime_b_median_ns));
		}
		json_object_set_new(o, "truth_p50_s",
				    json_pack("{s:o,s:o,s:o,s:o,s:o,s:f,s:o}", "median", ns_s(g[i].p50_med_ns),
					      "min", ns_s(g[i].p50_min_ns), "max", ns_s(g[i].p50_max_ns),
					      "ci_lo", ns_s(st->ci_lo_ns), "ci_hi", ns_s(st->ci_hi_ns),
					      "ci_coverage", st->coverage, "regimes", reg));
		json_object_set_new(o, "updates_per_1k",
				    json_pack("{s:f,s:f,s:f,s:f,s:f}", "median", g[i].upd_med,
					      "min", g[i].upd_min, "max", g[i].upd_max,
					      "ci_lo", g[i].upd.ci_lo, "ci_hi", g[i].upd.ci_hi));
		json_array_append_new(reps, o);
	}
	json_object_set_new(root, "repeats", reps);
	return root;
}
