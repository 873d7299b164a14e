/* SPDX-License-Identifier: MIT */
/*
 * fanin.c - `stalewin-report fanin RUN... [--json]`: the clients of one
 * writer run side by side (a lead's `stalewin run` and the clients that
 * attached to it, `stalewin run --attach`).  Each folder is analysed as
 * its report analyses it; per client: its clock offset estimate and its
 * error, its probe's observed staleness p50 and p99; then the spread
 * across clients (largest minus smallest) and the worst client (the
 * largest p99, a window past the run's end above every other, then the
 * largest p50).  Folders of more than one writer run are refused (exit 2,
 * each run id with its folders named).
 *
 * Windows: ns; -1 "past the run's end" (a store some client never saw
 * revealed), -2 none (no probe).  Offsets: the writer's CLOCK_REALTIME
 * minus the client's, ns, from the client's clock.json (0 exactly, err
 * 0, on a run whose client shares the writer's host and wrote none).
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fmt.h"

#define FANIN_MAX 512 /* client folders at once */

struct fanin_client {
	char name[64];     /* meta.json client_id; "lead" for the run's own */
	const char *dir;
	int attached;
	int clock_json;    /* 1: the offset was estimated (clock.json) */
	int64_t offset_ns, err_ns;
	uint64_t stores;   /* stores of the observed figure */
	int64_t p50_ns, p99_ns;  /* observed window quantiles: -1 >end, -2 none */
	int64_t res_ns;    /* probe 0's resolution, -1 unknown */
};

/* a window for ordering: past the end above every window, none below */
static double win_key(int64_t v)
{
	return v == -1 ? 1e30 : v < 0 ? -1 : (double)v;
}

/* The index of the worst client: largest p99, then largest p50. */
static int sw_fanin_worst(const struct fanin_client *c, int n)
{
	int w = 0;
	for (int i = 1; i < n; i++) {
		double a = win_key(c[i].p99_ns), b = win_key(c[w].p99_ns);
		if (a > b || (a == b && win_key(c[i].p50_ns) > win_key(c[w].p50_ns)))
			w = i;
	}
	return w;
}

/* Largest minus smallest of a window over the clients: -1 when one is
 * past the end and another is not (unbounded), -2 when none has one. */
static int64_t spread(const struct fanin_client *c, int n, int p99)
{
	int64_t lo = -2, hi = -2;
	int past = 0, some = 0;
	for (int i = 0; i < n; i++) {
		int64_t v = p99 ? c[i].p99_ns : c[i].p50_ns;
		if (v == -1)
			past++;
		if (v < 0)
			continue;
		some++;
		lo = lo < 0 || v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	if (past && past == n)
		return 0; /* every client past the end: they agree */
	if (past)
		return -1;
	return some ? hi - lo : -2;
}

/* meta.json's run id and client: 0, or 2 with the reason on stderr */
static int read_meta(const char *dir, char *id, size_t idlen, struct fanin_client *c)
{
	char p[4096];
	json_error_t je;
	snprintf(p, sizeof(p), "%s/meta.json", dir);
	json_t *m = json_load_file(p, 0, &je);
	const char *rid = m ? json_string_value(json_object_get(m, "run_id")) : NULL;
	if (!rid) {
		fprintf(stderr, "stalewin-report fanin: expected a run folder with meta.json "
			"naming its run_id, saw %s (%s)\n", dir, m ? "no run_id" : je.text);
		json_decref(m);
		return 2;
	}
	snprintf(id, idlen, "%s", rid);
	c->attached = json_is_true(json_object_get(m, "attached"));
	const char *cid = json_string_value(json_object_get(m, "client_id"));
	snprintf(c->name, sizeof(c->name), "%s", cid ? cid : c->attached ? "?" : "lead");
	json_decref(m);
	return 0;
}

/* Every folder of one run id: 0, or 2 naming each id and its folders */
static int one_run(char ids[][40], char **dirs, int n)
{
	int i, j;
	for (i = 1; i < n && !strcmp(ids[i], ids[0]); i++)
		;
	if (i == n)
		return 0;
	fprintf(stderr, "stalewin-report fanin: expected the folders of one writer run, saw "
		"run ids");
	for (i = 0; i < n; i++) {
		for (j = 0; j < i && strcmp(ids[j], ids[i]); j++)
			;
		if (j < i)
			continue; /* named already */
		fprintf(stderr, "%s %s (", i ? ";" : "", ids[i]);
		for (j = i; j < n; j++)
			if (!strcmp(ids[j], ids[i]))
				fprintf(stderr, "%s%s", j > i ? " " : "", dirs[j]);
		fputc(')', stderr);
	}
	fputc('\n', stderr);
	return 2;
}

static json_t *jwin(int64_t v)
{
	return v < 0 ? json_null() : json_integer((json_int_t)v);
}

static void print_text(const struct fanin_client *c, int n, const char *id,
		       const struct sw_summary *S, int64_t t50, int64_t t99)
{
	char a[24], b[24], d[24];
	int w = sw_fanin_worst(c, n);
	int64_t s50 = spread(c, n, 0), s99 = spread(c, n, 1);

	sw_fmt_qv(a, sizeof(a), t50);
	sw_fmt_qv(b, sizeof(b), t99);
	printf("fanin  run %s  %d clients  %s %s\n", id, n, S->policy, S->workload);
	printf("truth  p50 %s  p99 %s  (the writer's log, one for all)\n", a, b);
	printf("%-12s %10s %9s %7s %8s %8s %8s\n", "client", "offset", "+-err", "stores",
	       "obs p50", "obs p99", "res");
	for (int i = 0; i < n; i++) {
		char o[24], e[24];
		if (c[i].clock_json) {
			snprintf(o, sizeof(o), "%+.1fus", c[i].offset_ns / 1e3);
			snprintf(e, sizeof(e), "%.1fus", c[i].err_ns / 1e3);
		} else {
			snprintf(o, sizeof(o), "0 (host)");
			snprintf(e, sizeof(e), "0");
		}
		sw_fmt_qv(a, sizeof(a), c[i].p50_ns);
		sw_fmt_qv(b, sizeof(b), c[i].p99_ns);
		sw_fmt_qv(d, sizeof(d), c[i].res_ns < 0 ? -2 : c[i].res_ns);
		printf("%-12.12s %10s %9s %7llu %8s %8s %8s\n", c[i].name, o, e,
		       (unsigned long long)c[i].stores, a, b, d);
	}
	sw_fmt_qv(a, sizeof(a), s50);
	sw_fmt_qv(b, sizeof(b), s99);
	printf("spread (largest - smallest): p50 %s  p99 %s%s\n", a, b,
	       s50 == -1 || s99 == -1 ? "  (>end: some clients saw every store, some not)" : "");
	sw_fmt_qv(a, sizeof(a), c[w].p99_ns);
	sw_fmt_qv(b, sizeof(b), c[w].p50_ns);
	printf("worst  %s (%s): p99 %s, p50 %s\n", c[w].name, c[w].dir, a, b);
}

static json_t *to_json(const struct fanin_client *c, int n, const char *id,
		       const struct sw_summary *S, int64_t t50, int64_t t99)
{
	json_t *cl = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(cl, json_pack("{s:s,s:s,s:b,s:b,s:I,s:I,s:I,s:o,s:o,s:o}",
			"client", c[i].name, "dir", c[i].dir, "attached", c[i].attached,
			"clock_json", c[i].clock_json, "offset_ns", (json_int_t)c[i].offset_ns,
			"err_ns", (json_int_t)c[i].err_ns, "stores", (json_int_t)c[i].stores,
			"observed_p50_ns", jwin(c[i].p50_ns), "observed_p99_ns", jwin(c[i].p99_ns),
			"resolution_ns", jwin(c[i].res_ns)));
	int w = sw_fanin_worst(c, n);
	int64_t s50 = spread(c, n, 0), s99 = spread(c, n, 1);
	return json_pack("{s:i,s:s,s:s,s:s,s:o,s:o,s:o,s:{s:o,s:o,s:b},s:{s:s,s:s,s:o,s:o}}",
		"schema_version", 1, "run_id", id, "policy", S->policy, "workload", S->workload,
		"truth_p50_ns", jwin(t50), "truth_p99_ns", jwin(t99), "clients", cl,
		"spread", "observed_p50_ns", jwin(s50), "observed_p99_ns", jwin(s99),
		"unbounded", s50 == -1 || s99 == -1,
		"worst", "client", c[w].name, "dir", c[w].dir, "observed_p99_ns", jwin(c[w].p99_ns),
		"observed_p50_ns", jwin(c[w].p50_ns));
}

int sw_fanin_main(int argc, char **argv)
{
	static const struct option lo[] = { { "json", 0, 0, 'j' }, { "help", 0, 0, 'h' },
					    { 0, 0, 0, 0 } };
	int o, json = 0, rc = 0;

	optind = 1;
	while ((o = getopt_long(argc, argv, "jh", lo, NULL)) != -1) {
		if (o == 'j')
			json = 1;
		else
			return sw_cli_usage(o, "usage: stalewin-report fanin RUN... [--json]\n"
					    "  the clients of one writer run (a lead and the runs "
					    "attached to it) side by side\n");
	}
	int n = argc - optind;
	char **dirs = argv + optind;
	if (sw_cli_check_runs("fanin", n, FANIN_MAX))
		return 2;
	struct fanin_client *c = calloc((size_t)n, sizeof(*c));
	char (*ids)[40] = calloc((size_t)n, sizeof(*ids));
	struct sw_summary *S = calloc(1, sizeof(*S)); /* sw_summary_free: safe at once */
	if (!c || !ids || !S) {
		fprintf(stderr, "stalewin-report fanin: out of memory\n");
		rc = 1;
		goto out;
	}
	for (int i = 0; i < n && !rc; i++) {
		c[i].dir = dirs[i];
		rc = read_meta(dirs[i], ids[i], sizeof(ids[i]), &c[i]);
	}
	if (rc || (rc = one_run(ids, dirs, n)))
		goto out;
	int64_t t50 = -2, t99 = -2;
	for (int i = 0; i < n; i++) {
		struct sw_analyze_opts ao = { 0 };
		int r = sw_analyze(dirs[i], &ao, S);
		if (r == 1 || r == 2) {
			sw_report_problems_stderr(S, 2);
			rc = r;
			goto out;
		}
		char hex[40];
		snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)S->run_id);
		if (strcmp(hex, ids[i])) {
			fprintf(stderr, "stalewin-report fanin: expected %s's logs of run %s (its "
				"meta.json), saw run %s\n", dirs[i], ids[i], hex);
			rc = 2;
			goto out;
		}
		if (r == 3)
			rc = 3; /* a partial client: said, the others still shown */
		c[i].clock_json = S->clock_file;
		c[i].offset_ns = S->offset_ns;
		c[i].err_ns = S->err_ns;
		c[i].p50_ns = c[i].p99_ns = -2;
		c[i].res_ns = S->nobs > 0 ? S->obs[0].resolution_ns : -1;
		enum sw_fig_kind kind;
		const struct sw_fig *g;
		for (int k = 0; (g = sw_fig_at(S, k, &kind)); k++) {
			if (kind == SW_FIG_TRUTH && i == 0) {
				t50 = sw_fig_quantile(g, 0.5);
				t99 = sw_fig_quantile(g, 0.99);
			}
			if (kind == SW_FIG_OBSERVED) { /* probe 0's first target */
				c[i].stores = g->n;
				c[i].p50_ns = sw_fig_quantile(g, 0.5);
				c[i].p99_ns = sw_fig_quantile(g, 0.99);
				break;
			}
		}
		sw_summary_free(S);
	}
	if (json) {
		json_t *j = to_json(c, n, ids[0], S, t50, t99);
		json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(j);
	} else {
		print_text(c, n, ids[0], S, t50, t99);
	}
	if (fflush(stdout)) {
		perror("stalewin-report fanin: stdout");
		rc = 1;
	}
out:
	free(c);
	free(ids);
	if (S)
		sw_summary_free(S);
	free(S);
	return rc;
}
