/* SPDX-License-Identifier: MIT */
/* compare.c - several runs side by side in the report's table shape
 * (policy vs policy, kernel vs kernel).  A run is a folder, or @RUN_ID
 * from an archive (--db F). */
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmp.h"
#include "fmt.h"

void sw_cmp_from_summary(const struct sw_summary *S, struct sw_cmp_run *r)
{
	const struct sw_fig *g;
	enum sw_fig_kind kind;
	memset(r, 0, sizeof(*r));
	snprintf(r->run_id, sizeof(r->run_id), "%016llx", (unsigned long long)S->run_id);
	snprintf(r->dir, sizeof(r->dir), "%s", S->run_dir);
	snprintf(r->policy, sizeof(r->policy), "%s", S->policy);
	snprintf(r->workload, sizeof(r->workload), "%s", S->workload);
	snprintf(r->kernel, sizeof(r->kernel), "%s", S->kernel);
	snprintf(r->fs, sizeof(r->fs), "%s", S->fs);
	r->partial = S->partial;
	r->stores = S->stores;
	r->updates = S->updates;
	r->spurious = S->spurious;
	r->collisions = S->collisions;
	r->traps = S->traps;
	r->trap_p50_ns = sw_hist_quantile(&S->trap_ns, 0.5);
	r->trap_p99_ns = sw_hist_quantile(&S->trap_ns, 0.99);
	r->resolution_ns = S->nobs ? S->obs[0].resolution_ns : -1;
	for (int i = 0; (g = sw_fig_at(S, i, &kind)) && r->nfig < SW_CMP_MAX_FIG; i++) {
		struct sw_cmp_fig *c = &r->fig[r->nfig++];
		snprintf(c->name, sizeof(c->name), "%s", g->name);
		c->kind = kind;
		sw_figstats(g, &c->s);
	}
}

/* "  A /path": a path longer than the line goes on in 66-column pieces
 * ending in a backslash, so every line fits 72 columns. */
static void print_folded(FILE *f, const char *label, const char *path)
{
	size_t len = strlen(path), w = 66;
	fprintf(f, "  %-2s", label);
	for (size_t at = 0; at < len || at == 0; at += w) {
		int more = len - at > w;
		fprintf(f, "%s%.*s%s\n", at ? "    " : "", (int)(more ? w : len - at),
			path + at, more ? "\\" : "");
		if (!more)
			break;
	}
}

void sw_cmp_print_text(FILE *f, struct sw_cmp_run *runs, int n)
{
	char d1[16], d2[16];
	fprintf(f, "stalewin compare: %d runs (run folders: the legend at the end)\n", n);
	for (int i = 0; i < n; i++) {
		struct sw_cmp_run *r = &runs[i];
		fprintf(f, "  %s %s %-9.20s %.16s%s\n     kernel %.40s fs %.16s\n",
			r->label, r->run_id, r->policy, r->workload[0] ? r->workload : "-",
			r->partial ? " PARTIAL" : "", r->kernel, r->fs);
	}
	fputs("\npercentiles over all stores; uncov = \"> run end\" (counted as longest)\n", f);
	fprintf(f, "%-16s%6s%7s%7s%7s%7s%5s%5s%5s%6s\n", "figure / run", "n", "p50",
		"p90", "p99", "max", ">1s", ">5s", ">30s", "uncov");
	/* figure names in first-seen order across runs */
	char seen[SW_CMP_MAX_FIG * 4][48];
	int nseen = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < runs[i].nfig; j++) {
			int k;
			for (k = 0; k < nseen && strcmp(seen[k], runs[i].fig[j].name); k++)
				;
			if (k == nseen && nseen < SW_CMP_MAX_FIG * 4)
				snprintf(seen[nseen++], 48, "%s", runs[i].fig[j].name);
		}
	for (int k = 0; k < nseen; k++) {
		fprintf(f, "%s\n", seen[k]);
		for (int i = 0; i < n; i++)
			for (int j = 0; j < runs[i].nfig; j++) {
				const struct sw_cmp_fig *c = &runs[i].fig[j];
				if (strcmp(c->name, seen[k]))
					continue;
				char lab[72]; /* printed %-16.16s: the buffer only holds it */
				snprintf(lab, sizeof(lab), "  %s %s", runs[i].label, runs[i].policy);
				sw_fmt_fig_row(f, lab, &c->s);
			}
	}
	fprintf(f, "\n%-16s%8s%9s%9s%8s%10s%10s\n", "cost / run", "stores", "updates",
		"spurious", "traps", "trap p50", "trap p99");
	for (int i = 0; i < n; i++) {
		struct sw_cmp_run *r = &runs[i];
		char lab[72]; /* printed %-16.16s: the buffer only holds it */
		sw_fmt_dur(d1, sizeof(d1), r->trap_p50_ns);
		sw_fmt_dur(d2, sizeof(d2), r->trap_p99_ns);
		snprintf(lab, sizeof(lab), "  %s %s", r->label, r->policy);
		fprintf(f, "%-16.16s%8llu%9llu%9llu%8llu%10s%10s\n", lab,
			(unsigned long long)r->stores, (unsigned long long)r->updates,
			(unsigned long long)r->spurious, (unsigned long long)r->traps, d1, d2);
	}
	fputs("\nrun folders:\n", f);
	for (int i = 0; i < n; i++)
		print_folded(f, runs[i].label, runs[i].dir);
}

int sw_cmp_print_json(FILE *f, struct sw_cmp_run *runs, int n)
{
	json_t *root = json_object(), *arr = json_array();
	json_object_set_new(root, "schema", json_string("stalewin-compare"));
	json_object_set_new(root, "schema_version", json_integer(SW_REPORT_SCHEMA));
	for (int i = 0; i < n; i++) {
		struct sw_cmp_run *r = &runs[i];
		json_t *o = json_object(), *figs = json_array();
		json_object_set_new(o, "label", json_string(r->label));
		json_object_set_new(o, "run_id", json_string(r->run_id));
		json_object_set_new(o, "dir", json_string(r->dir));
		json_object_set_new(o, "policy", json_string(r->policy));
		json_object_set_new(o, "workload", json_string(r->workload));
		json_object_set_new(o, "kernel", json_string(r->kernel));
		json_object_set_new(o, "filesystem", json_string(r->fs));
		json_object_set_new(o, "partial", json_boolean(r->partial));
		json_object_set_new(o, "stores", json_integer((json_int_t)r->stores));
		json_object_set_new(o, "updates", json_integer((json_int_t)r->updates));
		json_object_set_new(o, "spurious_updates", json_integer((json_int_t)r->spurious));
		json_object_set_new(o, "traps", json_integer((json_int_t)r->traps));
		json_object_set_new(o, "trap_p50_ns", json_integer(r->trap_p50_ns));
		json_object_set_new(o, "trap_p99_ns", json_integer(r->trap_p99_ns));
		for (int j = 0; j < r->nfig; j++) {
			const struct sw_cmp_fig *c = &r->fig[j];
			json_t *g = json_object();
			json_object_set_new(g, "name", json_string(c->name));
			sw_figstats_json(g, &c->s);
			json_array_append_new(figs, g);
		}
		json_object_set_new(o, "figures", figs);
		json_array_append_new(arr, o);
	}
	json_object_set_new(root, "runs", arr);
	int rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', f);
	json_decref(root);
	return rc;
}

int sw_compare_main(int argc, char **argv)
{
	static const struct option lo[] = { { "format", 1, 0, 'f' }, { "db", 1, 0, 'd' },
					    { "profiles", 1, 0, 'P' }, { 0, 0, 0, 0 } };
	const char *fmt = "text", *db = NULL;
	static struct sw_profile prof[SW_MAX_PROFILES];
	int nprof = 0, o, worst = 0;
	char err[512];

	while ((o = getopt_long(argc, argv, "f:d:P:", lo, NULL)) != -1) {
		if (o == 'f')
			fmt = optarg;
		else if (o == 'd')
			db = optarg;
		else if (o == 'P') {
			if (sw_load_profiles(optarg, prof, &nprof))
				return 2;
		} else
			return 2;
	}
	int n = argc - optind;
	if (n < 1 || n > 26 || (strcmp(fmt, "text") && strcmp(fmt, "json"))) {
		fprintf(stderr, "stalewin-report compare: expected 1..26 runs (folders or @RUN_ID with --db) and --format text|json\n");
		return 2;
	}
	struct sw_cmp_run *runs = calloc((size_t)n, sizeof(*runs));
	struct sw_summary *S = calloc(1, sizeof(*S)); /* sw_summary_free: safe at once */
	if (!runs || !S) {
		free(runs);
		free(S);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		const char *a = argv[optind + i];
		if (a[0] == '@') {
			if (!db) {
				fprintf(stderr, "stalewin-report compare: %s needs --db F\n", a);
				worst = 2;
				break;
			}
			if (sw_archive_load(db, a + 1, &runs[i], err, sizeof(err))) {
				fprintf(stderr, "stalewin-report compare: %s\n", err);
				worst = 2;
				break;
			}
		} else {
			struct sw_analyze_opts ao = { .nprof = nprof, .prof = nprof ? prof : NULL };
			sw_summary_free(S); /* the run before's */
			int rc = sw_analyze(a, &ao, S);
			if (rc == 1 || rc == 2) {
				sw_report_problems_stderr(S, 2);
				worst = rc;
				break;
			}
			if (rc == 3) {
				sw_report_problems_stderr(S, 3);
				worst = 3;
			}
			sw_cmp_from_summary(S, &runs[i]);
		}
		snprintf(runs[i].label, sizeof(runs[i].label), "%c", 'A' + i);
	}
	if (worst != 1 && worst != 2) {
		if (!strcmp(fmt, "json"))
			sw_cmp_print_json(stdout, runs, n);
		else
			sw_cmp_print_text(stdout, runs, n);
	}
	free(runs);
	sw_summary_free(S);
	free(S);
	return worst;
}
