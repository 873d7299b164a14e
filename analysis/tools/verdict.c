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
	fprintf(f, "  %s - eager%s\n", json_string_value(json_object_get(c, "policy")),
		json_is_true(json_object_get(json_object_get(c, "writeback"), "scaled")) ? " (scaled)" : "");
	for (int k = 0; k < 3; k++) {
		int64_t a[SW_REPSTATS_MAX], b[SW_REPSTATS_MAX];
		int na = values(c, fig[k], a, SW_REPSTATS_MAX), nb = values(e, fig[k], b, SW_REPSTATS_MAX);
		struct sw_repdiff d;
		if (na < 2 || nb < 2 || sw_repstats_diff(a, na, b, nb, 0.95, &d))
			continue;
		char m[24], lo[24], hi[24];
		fmt_diff(m, sizeof(m), d.diff_ns);
		fmt_diff(lo, sizeof(lo), d.ci_lo_ns);
		fmt_diff(hi, sizeof(hi), d.ci_hi_ns);
		fprintf(f, "    %-13s %7s  95%% CI %s..%s  (n %d / %d)\n", name[k], m, lo, hi, d.na, d.nb);
		json_object_set_new(o, fig[k], diff_json(&d));
	}
	double uc = upd_median(c), ue = upd_median(e);
	fprintf(f, "    %-13s %.1f against %.1f per 1000 stores", "updates", uc, ue);
	if (uc > 0 && ue > uc)
		fprintf(f, " (%.1fx fewer)", ue / uc);
	fputc('\n', f);
	json_object_set_new(o, "updates_per_1k", json_pack("{s:f,s:f}", "policy", uc, "eager", ue));
	json_array_append_new(out, o);
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
	json_t *st = json_load_file(path, 0, &je), *cells = json_object_get(st, "cells"), *c, *e;
	if (!json_is_array(cells)) {
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
	size_t i, j;
	int groups = 0;
	fprintf(f, "stalewin verdict %s: each policy's median minus eager's, same kernel,\n"
		"fs and workload; positive: stale longer than eager\n", dir);
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
			static const char *const k[] = { "kernel", "fs", "workload" };
			for (int x = 0; x < 3 && same; x++)
				same = json_equal(json_object_get(c, k[x]), json_object_get(e, k[x]));
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
	if (!groups)
		fprintf(f, "\nno comparison: no eager cell with a policy cell of the same kernel, fs,\n"
			"workload and writeback, each of two runs or more\n");
	else
		fprintf(f, "\n95%% CI: percentile bootstrap of the difference of medians (%d\n"
			"resamples, fixed seed); n: runs of the policy / of eager.\n", SW_REPSTATS_BOOT);
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
