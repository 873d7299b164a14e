/* SPDX-License-Identifier: MIT */
/*
 * verdict.c - `stalewin-report verdict DIR [--json]`: the AS_CMTIME
 * thread's question answered from a study folder's study.json (study.c):
 * per kernel, filesystem and workload, how much longer a client's data
 * stays stale under deferred and under lang than under the same kernel's
 * eager (the difference of the medians over the runs, with its bootstrap
 * interval: repstats.h), for the truth and for the default and
 * close-to-open client views, and what each saves (timestamp updates per
 * 1000 stores).  Each comparison says its n and whether its writeback was
 * scaled; a cell with fewer than two runs compares nothing.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fmt.h"
#include "repstats.h"

/* one figure of every run of a cell: ns, -1 for >end (null); returns n
 * (runs without the figure are left out) */
static int values(json_t *cell, const char *key, int64_t *v, int max)
{
	json_t *runs = json_object_get(cell, "runs"), *r;
	size_t i;
	int n = 0;
	json_array_foreach(runs, i, r) {
		json_t *x = json_object_get(r, key);
		if (!x || n == max)
			continue;
		v[n++] = json_is_number(x) ? (int64_t)(json_number_value(x) * 1e9 + 0.5) : -1;
	}
	return n;
}

/* the sum of an integer of every run of a cell */
static long long run_sum(json_t *cell, const char *key)
{
	json_t *runs = json_object_get(cell, "runs"), *r;
	size_t i;
	long long t = 0;
	json_array_foreach(runs, i, r)
		t += json_integer_value(json_object_get(r, key));
	return t;
}

/* What each policy gets right or wrong, counted over its runs beside
 * eager's: stores no timestamp update followed before the run ended (a
 * client that cached them never learns of them while the writer only
 * rewrites writable pages); stores whose own fault's update came before
 * their data (eager's page_mkwrite) and READs that took old data under
 * those new times (cached as current until the next change).  When both
 * cells crashed the server (fault = server-crash@S), the stores the disk
 * kept that the client never read as changed, each run's beside the sum. */
/* "65/65 64/64": each run's never read / on disk */
static void crash_runs(char *b, size_t n, json_t *cell)
{
	json_t *runs = json_object_get(cell, "runs"), *r;
	size_t i, u = 0;
	b[0] = 0;
	json_array_foreach(runs, i, r) {
		json_t *nr = json_object_get(r, "crash_never_read"), *od = json_object_get(r, "crash_on_disk");
		if (!nr || !od || u >= n)
			continue;
		int k = snprintf(b + u, n - u, "%s%lld/%lld", u ? " " : "", (long long)json_integer_value(nr),
				 (long long)json_integer_value(od));
		u += k > 0 ? (size_t)k : 0;
	}
}

static void crash_rows(FILE *f, json_t *o, json_t *c, json_t *e)
{
	char rc[256], re[256];
	if (!json_object_get(c, "crash") || !json_object_get(e, "crash"))
		return;
	long long nc = run_sum(c, "crash_never_read"), dc = run_sum(c, "crash_on_disk");
	long long ne = run_sum(e, "crash_never_read"), de = run_sum(e, "crash_on_disk");
	crash_runs(rc, sizeof(rc), c);
	crash_runs(re, sizeof(re), e);
	fprintf(f, "    %-15s %lld of %lld stores on disk never read as changed against %lld of %lld\n"
		"    %-15s (each run: %s; eager's: %s)\n", "after crash", nc, dc, ne, de, "", rc, re);
	json_object_set_new(o, "crash_never_read", json_pack("{s:I,s:I,s:I,s:I,s:s,s:s}", "policy", nc,
		"policy_on_disk", dc, "eager", ne, "eager_on_disk", de, "policy_runs", rc, "eager_runs", re));
}

static json_t *correctness(FILE *f, json_t *c, json_t *e)
{
	static const char *const key[] = { "truth_unresolved", "race_stores", "race_read_hits" };
	static const char *const what[] = { "never visible", "update first", "old data read" };
	json_t *o = json_object();
	long long sc = run_sum(c, "stores"), se = run_sum(e, "stores");
	if (!sc || !se) {
		fprintf(f, "    %-15s not counted (a study.json before schema 2)\n", "correctness");
		return o;
	}
	json_object_set_new(o, "stores", json_pack("{s:I,s:I}", "policy", sc, "eager", se));
	for (int k = 0; k < 3; k++) {
		long long vc = run_sum(c, key[k]), ve = run_sum(e, key[k]);
		fprintf(f, "    %-15s %lld of %lld stores against %lld of %lld\n", what[k], vc, sc, ve, se);
		json_object_set_new(o, key[k], json_pack("{s:I,s:I}", "policy", vc, "eager", ve));
	}
	crash_rows(f, o, c, e);
	return o;
}

static double upd_median(json_t *cell)
{
	return json_number_value(json_object_get(json_object_get(cell, "updates_per_1k"), "median"));
}

static void fmt_diff(char *b, size_t n, int64_t v)
{
	char t[16];
	if (v == INT64_MAX || v == INT64_MIN) {
		snprintf(b, n, "%s", v > 0 ? "+inf" : "-inf");
		return;
	}
	sw_fmt_dur(t, sizeof(t), v < 0 ? -v : v);
	snprintf(b, n, "%s%s", v < 0 ? "-" : "+", t);
}

static json_t *diff_json(const struct sw_repdiff *d)
{
#define DS(x) ((x) == INT64_MAX || (x) == INT64_MIN ? json_null() : json_real((double)(x) / 1e9))
	return json_pack("{s:o,s:o,s:o,s:i,s:i}", "median_diff", DS(d->diff_ns), "ci_lo", DS(d->ci_lo_ns),
			 "ci_hi", DS(d->ci_hi_ns), "n", d->na, "n_eager", d->nb);
#undef DS
}

/* the difference of the medians of figure key, cell c minus cell e: 0,
 * or -1 with fewer than two runs on a side */
static int diff_of(json_t *c, json_t *e, const char *key, struct sw_repdiff *d)
{
	int64_t a[SW_REPSTATS_MAX], b[SW_REPSTATS_MAX];
	int na = values(c, key, a, SW_REPSTATS_MAX), nb = values(e, key, b, SW_REPSTATS_MAX);
	if (na < 2 || nb < 2 || sw_repstats_diff(a, na, b, nb, 0.95, d))
		return -1;
	return 0;
}

static void diff_line(FILE *f, const char *name, const struct sw_repdiff *d)
{
	char m[24], lo[24], hi[24];
	fmt_diff(m, sizeof(m), d->diff_ns);
	fmt_diff(lo, sizeof(lo), d->ci_lo_ns);
	fmt_diff(hi, sizeof(hi), d->ci_hi_ns);
	fprintf(f, "    %-15s %7s  95%% CI %s..%s  (n %d / %d)\n", name, m, lo, hi, d->na, d->nb);
}

/* policy cell c against the eager cell e of the same kernel, fs, workload */
static void compare(FILE *f, json_t *out, json_t *c, json_t *e)
{
	static const char *const fig[] = { "truth_p50_s", "view_default_p50_s", "view_cto_p50_s" };
	static const char *const name[] = { "truth p50", "default view", "cto view" };
	json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:O}", "kernel",
			      json_string_value(json_object_get(c, "kernel")), "fs",
			      json_string_value(json_object_get(c, "fs")), "workload",
			      json_string_value(json_object_get(c, "workload")), "policy",
			      json_string_value(json_object_get(c, "policy")), "against", "eager", "writeback",
			      json_object_get(c, "writeback"));
	/* +ordering: the patched kernel's 0008 journalled the update first */
	int ord = json_is_true(json_object_get(c, "ordering"));
	json_object_set_new(o, "ordering", json_boolean(ord));
	json_t *q = json_object_get(c, "query_rate");
	json_object_set_new(o, "query_rate", json_is_string(q) ? json_incref(q) : json_null());
	fprintf(f, "  %s%s - eager%s%s%s\n", json_string_value(json_object_get(c, "policy")), ord ? "+ordering" : "",
		json_is_true(json_object_get(json_object_get(c, "writeback"), "scaled")) ? " (scaled)" : "",
		json_is_string(q) ? ", queries/s " : "", json_is_string(q) ? json_string_value(q) : "");
	/* every kernel reader's view of the runs (study.json "view:..."):
	 * then the first reader of each mode (default, cto) is one of them
	 * and is not printed twice */
	json_t *r0 = json_array_get(json_object_get(c, "runs"), 0), *views = json_object();
	const char *key;
	json_t *v;
	int per_reader = 0;
	json_object_foreach(r0, key, v)
		per_reader |= !strncmp(key, "view:", 5);
	for (int k = 0; k < 3; k++) {
		struct sw_repdiff d;
		if (diff_of(c, e, fig[k], &d))
			continue;
		if (!k || !per_reader)
			diff_line(f, name[k], &d);
		json_object_set_new(o, fig[k], diff_json(&d));
	}
	json_object_foreach(r0, key, v) {
		struct sw_repdiff d;
		if (strncmp(key, "view:", 5) || diff_of(c, e, key, &d))
			continue;
		diff_line(f, key + 5, &d);
		json_object_set_new(views, key + 5, diff_json(&d));
	}
	json_object_set_new(o, "views", views);
	/* a cell whose writer never looked (analysis/pass/blind.c) has no
	 * truth and no count of updates: said, not compared */
	json_t *bc = json_object_get(c, "truth_not_measured"), *be = json_object_get(e, "truth_not_measured");
	if (json_is_string(bc) || json_is_string(be)) {
		sw_fmt_wrap(f, "    truth, updates  not measured: ", "      ", NULL,
			    json_string_value(json_is_string(bc) ? bc : be));
		json_object_set_new(o, "updates_per_1k", json_null());
	} else {
		double uc = upd_median(c), ue = upd_median(e);
		fprintf(f, "    %-15s %.1f against %.1f per 1000 stores", "updates", uc, ue);
		if (uc > 0 && ue > uc)
			fprintf(f, " (%.1fx fewer)", ue / uc);
		fputc('\n', f);
		json_object_set_new(o, "updates_per_1k", json_pack("{s:f,s:f}", "policy", uc, "eager", ue));
	}
	json_object_set_new(o, "correctness", correctness(f, c, e));
	json_array_append_new(out, o);
}

/* 1 when a comparison's difference or interval end is unbounded (null) */
static int any_unbounded(json_t *comparisons)
{
	static const char *const fig[] = { "truth_p50_s", "view_default_p50_s", "view_cto_p50_s" };
	static const char *const end[] = { "median_diff", "ci_lo", "ci_hi" };
	json_t *o, *v;
	size_t i;
	const char *k;
	json_array_foreach(comparisons, i, o) {
		for (int a = 0; a < 3; a++)
			for (int b = 0; b < 3; b++)
				if (json_is_null(json_object_get(json_object_get(o, fig[a]), end[b])))
					return 1;
		json_object_foreach(json_object_get(o, "views"), k, v)
			for (int b = 0; b < 3; b++)
				if (json_is_null(json_object_get(v, end[b])))
					return 1;
	}
	return 0;
}

int sw_verdict(json_t *study, const char *dir, FILE *f, json_t *out)
{
	json_t *cells = json_object_get(study, "cells"), *c, *e;
	size_t i, j;
	int groups = 0;
	fprintf(f, "stalewin verdict %s:\neach policy's median minus eager's, same kernel, fs and\n"
		"workload; positive: stale longer than eager\n", dir);
	json_array_foreach(cells, i, e) {
		if (strcmp(json_string_value(json_object_get(e, "policy")) ?: "", "eager") ||
		    json_integer_value(json_object_get(e, "n")) < 2)
			continue;
		int head = 0;
		json_array_foreach(cells, j, c) {
			const char *pol = json_string_value(json_object_get(c, "policy")) ?: "";
			if (j == i || !strcmp(pol, "eager") || json_integer_value(json_object_get(c, "n")) < 2)
				continue;
			int same = 1;
			/* the same query rate too: on a multigrain kernel it is
			 * part of what is measured */
			static const char *const k[] = { "kernel", "fs", "workload", "query_rate", "fault" };
			for (int x = 0; x < 5 && same; x++) {
				json_t *a = json_object_get(c, k[x]), *b = json_object_get(e, k[x]);
				same = (!a && !b) || (a && b && json_equal(a, b)); /* absent: older study.json */
			}
			same = same && json_equal(json_object_get(c, "writeback"), json_object_get(e, "writeback"));
			if (!same)
				continue;
			if (!head++) {
				groups++;
				fprintf(f, "\n%s %s %s\n", json_string_value(json_object_get(e, "kernel")),
					json_string_value(json_object_get(e, "fs")),
					json_string_value(json_object_get(e, "workload")));
			}
			compare(f, out, c, e);
		}
	}
	if (json_is_true(json_object_get(study, "boot_reuse")))
		fprintf(f, "\nruns shared boots (study --boot-reuse): on the patched 6.1 guest\n"
			"the runs after the first of a boot drew another writeback regime\n"
			"(eager p50 2.90 s against 0.60 s first in a boot, see\n"
			"docs/validation-log.md): compare within such a study only\n");
	if (!groups)
		fprintf(f, "\nno comparison: no eager cell with a policy cell of the same kernel, fs,\n"
			"workload and writeback, each of two runs or more\n");
	else
		fprintf(f, "\n95%% CI: percentile bootstrap of the difference of medians (%d\n"
			"resamples, fixed seed); n: runs of the policy / of eager.\n"
			"never visible: stores no timestamp update followed before the run\n"
			"ended; update first: stores whose own fault's update came before\n"
			"their data; old data read: READs that took old data under those new\n"
			"times; each summed over the runs of the policy / of eager.\n",
			SW_REPSTATS_BOOT);
	if (groups && any_unbounded(out))
		fprintf(f, "-inf, +inf: eager's, the policy's median (or interval end) was >end,\n"
			"no update before the run's end: the difference is unbounded.\n");
	/* crash ordering: the cells whose runs crashed the server (a plan's
	 * fault = server-crash@S) */
	int crash = 0;
	json_array_foreach(cells, i, c) {
		json_t *cr = json_object_get(c, "crash");
		if (!cr)
			continue;
		if (!crash++)
			fprintf(f, "\ncrash ordering (--fault server-crash: the server crashed after a\n"
				"writeback, rebooted on its disk; stores the disk kept that the\n"
				"client never read as changed, for good):\n");
		char each[256];
		crash_runs(each, sizeof(each), c);
		fprintf(f, "  %s: %lld of %lld never seen (%lld runs%s%s)\n",
			json_string_value(json_object_get(c, "id")) ?: "?",
			(long long)json_integer_value(json_object_get(cr, "never_read")),
			(long long)json_integer_value(json_object_get(cr, "on_disk")),
			(long long)json_integer_value(json_object_get(cr, "runs")), each[0] ? ": " : "", each);
		if (out)
			json_object_set_new(out, "crash_ordering", json_true());
	}
	if (!crash)
		fprintf(f, "\nCrash ordering needs a crash: none in this study's runs (a plan's\n"
			"fault = server-crash@S, or tests/kernel cmtime_cases, crash).\n");
	return groups;
}

/* one figure of a comparison for the TL;DR: "+0.89 s (95% CI
 * +0.88..+0.89)", or "none resolved (95% CI -2.99..+1.01)" when the
 * interval holds 0 */
static void tl_fig(char *b, size_t n, json_t *d)
{
	json_t *m = json_object_get(d, "median_diff"), *lo = json_object_get(d, "ci_lo"),
	       *hi = json_object_get(d, "ci_hi");
	char a[24], l[24], h[24];
	if (!json_is_number(m) || !json_is_number(lo) || !json_is_number(hi)) {
		snprintf(b, n, "not bounded (a run ended before an update)");
		return;
	}
	fmt_diff(a, sizeof(a), (int64_t)(json_number_value(m) * 1e9));
	fmt_diff(l, sizeof(l), (int64_t)(json_number_value(lo) * 1e9));
	fmt_diff(h, sizeof(h), (int64_t)(json_number_value(hi) * 1e9));
	if (json_number_value(lo) <= 0 && json_number_value(hi) >= 0)
		snprintf(b, n, "no difference resolved (%s, 95%% CI %s..%s)", a, l, h);
	else
		snprintf(b, n, "%s (95%% CI %s..%s)", a, l, h);
}

/* "deferred", or "deferred+ordering" (static storage) */
static const char *policy_label(json_t *o)
{
	static char b[64];
	snprintf(b, sizeof(b), "%s%s", json_string_value(json_object_get(o, "policy")) ?: "?",
		 json_is_true(json_object_get(o, "ordering")) ? "+ordering" : "");
	return b;
}

int sw_verdict_tldr(FILE *f, json_t *comparisons, int max_lines)
{
	size_t i;
	json_t *o;
	int lines = 0, shown = 0, total = (int)json_array_size(comparisons);
	json_array_foreach(comparisons, i, o) {
		char t[1536], tr[160], df[160], ct[160];
		json_t *wb = json_object_get(o, "writeback"), *tp = json_object_get(o, "truth_p50_s");
		json_t *up = json_object_get(o, "updates_per_1k");
		double uc = json_number_value(json_object_get(up, "policy")),
		       ue = json_number_value(json_object_get(up, "eager"));
		tl_fig(tr, sizeof(tr), tp);
		/* the v3 readers when the runs name each reader's version */
		json_t *vw = json_object_get(o, "views"), *vd = json_object_get(vw, "v3 kept-open"),
		       *vc = json_object_get(vw, "v3 cto");
		tl_fig(df, sizeof(df), vd ? vd : json_object_get(o, "view_default_p50_s"));
		tl_fig(ct, sizeof(ct), vc ? vc : json_object_get(o, "view_cto_p50_s"));
		const char *vl = vd && vc ? "v3 " : "";
		char scaled[48] = "";
		if (json_is_true(json_object_get(wb, "scaled")))
			snprintf(scaled, sizeof(scaled), " (writeback scaled x%.0f)",
				 json_number_value(json_object_get(wb, "scale")));
		char saved[160];
		if (uc > 0 && ue > uc)
			snprintf(saved, sizeof(saved), "%.1fx fewer timestamp updates (%.0f against %.0f per "
				 "1000 stores)", ue / uc, uc, ue);
		else
			snprintf(saved, sizeof(saved), "no fewer timestamp updates (%.0f against %.0f per "
				 "1000 stores)", uc, ue);
		char right[512] = "";
		json_t *co = json_object_get(o, "correctness");
		static const char *const ck[] = { "race_stores", "truth_unresolved" };
		static const char *const cw[] = { "an update before their data", "no update before the end" };
		for (int k = 0; k < 2; k++) {
			json_t *x = json_object_get(co, ck[k]);
			long long p = json_integer_value(json_object_get(x, "policy")),
				  q = json_integer_value(json_object_get(x, "eager"));
			size_t u = strlen(right);
			if (x && (p || q))
				snprintf(right + u, sizeof(right) - u, "; stores with %s: %lld against %lld", cw[k],
					 p, q);
		}
		json_t *cr = json_object_get(co, "crash_never_read");
		if (cr) {
			size_t u = strlen(right);
			snprintf(right + u, sizeof(right) - u, "; after a crash, stores on disk never read "
				 "as changed: %lld of %lld against %lld of %lld",
				 (long long)json_integer_value(json_object_get(cr, "policy")),
				 (long long)json_integer_value(json_object_get(cr, "policy_on_disk")),
				 (long long)json_integer_value(json_object_get(cr, "eager")),
				 (long long)json_integer_value(json_object_get(cr, "eager_on_disk")));
		}
		snprintf(t, sizeof(t), "%s %s %s%s, %s minus eager (n %lld / %lld): truth p50 %s; "
			 "%sclose-to-open view %s; %sdefault mount %s; %s%s.",
			 json_string_value(json_object_get(o, "kernel")),
			 json_string_value(json_object_get(o, "fs")),
			 json_string_value(json_object_get(o, "workload")), scaled,
			 policy_label(o),
			 (long long)json_integer_value(json_object_get(tp, "n")),
			 (long long)json_integer_value(json_object_get(tp, "n_eager")), tr, vl, ct, vl, df, saved,
			 right);
		/* the lines it takes, wrapped as the mail wraps it */
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);
		if (!m)
			return -1;
		sw_fmt_wrap(m, "- ", "  ", NULL, t);
		fclose(m);
		int nl = 0;
		for (size_t k = 0; k < len; k++)
			nl += buf[k] == '\n';
		if (lines + nl > max_lines - (i + 1 < (size_t)total)) {
			free(buf);
			break;
		}
		fputs(buf, f);
		free(buf);
		lines += nl;
		shown++;
	}
	if (shown < total)
		fprintf(f, "- and %d more comparison%s in the verdict below.\n", total - shown,
			total - shown == 1 ? "" : "s");
	if (!total)
		fputs("- no comparison: the study has no eager cell beside a policy cell of\n"
		      "  two runs or more.\n", f);
	return shown;
}

/* o's figure k (seconds) as the tables show it; -1 (">end") for null */
static void qv_of(char *b, int n, json_t *o, const char *k)
{
	json_t *x = json_object_get(o, k);
	sw_fmt_qv(b, n, json_is_number(x) ? (int64_t)(json_number_value(x) * 1e9 + 0.5) : -1);
}

static void cell_stat(FILE *f, const char *name, json_t *st)
{
	json_t *reg = json_object_get(st, "regimes");
	if (!json_is_object(st))
		return;
	char m[24], lo[24], hi[24];
	qv_of(m, sizeof(m), st, "median");
	qv_of(lo, sizeof(lo), st, "ci_lo");
	qv_of(hi, sizeof(hi), st, "ci_hi");
	fprintf(f, "  %-12s %7s  95%% CI %s..%s (covers %.0f%%)\n", name, m, lo, hi,
		100 * json_number_value(json_object_get(st, "ci_coverage")));
	if (json_integer_value(json_object_get(reg, "count")) == 2) {
		qv_of(m, sizeof(m), reg, "a_median");
		qv_of(lo, sizeof(lo), reg, "b_median");
		fprintf(f, "  %-12s two regimes: %lld of the runs in B, %s | %s\n", "",
			(long long)json_integer_value(json_object_get(reg, "b_runs")), m, lo);
	}
}

/* A query_rate cell's observer effect, two lines within a mail's 72
 * columns (the study's own table is wider: study.c) */
static void cell_observer(FILE *f, const struct sw_obs_row *r, int n, const char *id)
{
	for (int k = 0; k < n; k++) {
		if (strcmp(r[k].id, id))
			continue;
		char eq[48], qa[48], qn[48];
		sw_study_pct(eq, sizeof(eq), r[k].equal_share, r[k].faults);
		sw_study_pct(qa, sizeof(qa), r[k].queried_changed, r[k].queried);
		sw_study_pct(qn, sizeof(qn), r[k].unqueried_changed, r[k].unqueried);
		int wire = !strcmp(r[k].rate, "wire");
		fprintf(f, "  %-12s %s%s; equal ctimes %s%s\n", "query rate", r[k].rate,
			wire ? " speed" : "/s", r[k].equal_share >= 0 ? eq : "not counted",
			r[k].equal_share >= 0 ? " faults" : "");
		if (r[k].queried + r[k].unqueried > 0)
			fprintf(f, "  %-12s after a query %s, with none %s\n", "ctime moved", qa, qn);
		return;
	}
}

void sw_study_cells_text(FILE *f, json_t *study)
{
	size_t i;
	json_t *c;
	json_t *cells = json_object_get(study, "cells");
	struct sw_obs_row *obs = calloc(json_array_size(cells) + 1, sizeof(*obs));
	int nobs = obs ? sw_study_observer_rows(cells, obs, (int)json_array_size(cells)) : 0;
	json_array_foreach(cells, i, c) {
		fprintf(f, "%s\n", json_string_value(json_object_get(c, "id")));
		if (!json_is_true(json_object_get(c, "runnable"))) {
			sw_fmt_wrap(f, "  not runnable: ", "    ", NULL,
				    json_string_value(json_object_get(c, "why")) ?: "");
			continue;
		}
		json_t *wb = json_object_get(c, "writeback");
		fprintf(f, "  runs %lld of %lld", (long long)json_integer_value(json_object_get(c, "n")),
			(long long)json_integer_value(json_object_get(c, "planned")));
		if (json_is_true(json_object_get(wb, "scaled")))
			fprintf(f, "  (writeback scaled x%.0f)", json_number_value(json_object_get(wb, "scale")));
		fputc('\n', f);
		if (json_is_string(json_object_get(c, "truth_not_measured")))
			sw_fmt_wrap(f, "  truth        not measured: ", "    ", NULL,
				    json_string_value(json_object_get(c, "truth_not_measured")));
		cell_stat(f, "truth p50", json_object_get(c, "truth_p50_s"));
		cell_stat(f, "truth p90", json_object_get(c, "truth_p90_s"));
		cell_stat(f, "default p50", json_object_get(c, "view_default_p50_s"));
		cell_stat(f, "cto p50", json_object_get(c, "view_cto_p50_s"));
		json_t *u = json_object_get(c, "updates_per_1k");
		if (json_is_object(u))
			fprintf(f, "  %-12s %7.0f  95%% CI %.0f..%.0f\n", "upd/1k",
				json_number_value(json_object_get(u, "median")),
				json_number_value(json_object_get(u, "ci_lo")),
				json_number_value(json_object_get(u, "ci_hi")));
		cell_observer(f, obs, nobs, json_string_value(json_object_get(c, "id")) ?: "");
	}
	free(obs);
	if (nobs)
		fputs("query rate: GETATTRs a second against the file (the plan's axis);\n"
		      "equal ctimes: store faults that left ctime as it was; ctime moved:\n"
		      "of the faults after a query of the ctime, and with none since, those\n"
		      "that changed it (a multigrain kernel's observer effect).\n", f);
	fputs("p50, p90: a run's truth window quantiles (store to the first\n"
	      "timestamp update after it); default, cto: the kernel client's view\n"
	      "through a default mount and a close-to-open reader; upd/1k: timestamp\n"
	      "updates per 1000 stores.  The median over the runs, its 95% interval\n"
	      "(exact percentile bootstrap) and that interval's coverage.\n", f);
}

int sw_verdict_main(int argc, char **argv)
{
	const char *dir;
	int json, rc = sw_cli_one_arg(argc, argv, "verdict", "study folder",
				      "usage: stalewin-report verdict DIR [--json]\n"
				      "  deferred and lang against eager per kernel, fs and workload,\n"
				      "  from DIR/study.json (stalewin study)\n",
				      &dir, &json);
	if (rc >= 0)
		return rc;
	char path[1024];
	json_error_t je;
	snprintf(path, sizeof(path), "%s/study.json", dir);
	json_t *st = json_load_file(path, 0, &je);
	if (!json_is_array(json_object_get(st, "cells"))) {
		fprintf(stderr, "stalewin-report verdict: %s: expected a study.json with cells (stalewin "
			"study), saw %s\n", path, st ? "no cells" : je.text);
		json_decref(st);
		return 2;
	}
	FILE *f = json ? fopen("/dev/null", "w") : stdout;
	if (!f) {
		perror("stalewin-report verdict: /dev/null");
		json_decref(st);
		return 1;
	}
	json_t *out = json_array();
	sw_verdict(st, dir, f, out);
	json_t *cost = sw_costsec_verdict(f, dir); /* DIR/cost/cost.json, if any */
	if (json) {
		json_t *root = json_pack("{s:s,s:i,s:s,s:o,s:o*}", "schema", "stalewin-verdict",
					 "schema_version", 1, "study", dir, "comparisons", out, "cost", cost);
		json_dumpf(root, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(root);
		fclose(f);
	} else {
		json_decref(out);
		json_decref(cost);
	}
	json_decref(st);
	return 0;
}
