/* SPDX-License-Identifier: MIT */
/*
 * bands_cli.c - `stalewin-report validate MODE ...`: the bands and verdicts
 * of scripts/stalewin-validate and scripts/validate-vm.sh (bands.h).
 *
 *   row --name N --fs FS --workload ARGS --writeback-ms N --expire-ms N
 *       --duration-s N --resolution-ms N --load TEXT --model REPORT
 *       --real REPORT [--lead-s N] [--sweep SWEEP] [--replay-start SWEEP
 *       --replay-end SWEEP] [--runs RUNS] [--host-trace FILE --bdi MAJ:MIN]
 *                                    a pair's row (JSON); with the host's
 *                                    writeback trace, writebacks of the
 *                                    disk the flusher did not make fail it
 *   kread --run NAME --every-ms N --load TEXT REPORT
 *                                    a row per kernel reader (JSON array)
 *   failed NAME                      the row of a pair whose runs failed
 *   median-run REPORT...             1-based index of the median truth p50
 *   runs --compared-model K --compared-real K --model REPORT...
 *        --real REPORT...            every run's figures (for row --runs)
 *   line ROW                         a row (or an array of rows) as text
 *   summary --id ID --load TEXT [--vm-skipped TEXT]... ROW...
 *                                    the validate object (JSON)
 *   footer SUMMARY                   its last lines as text
 *   verdict SUMMARY                  exit 0 within, 1 outside, 3 --vm skipped
 * Exit 2 on bad input, with one line saying what was expected.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bands.h"

#define MAXF 64

static int bad(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "stalewin-report validate: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	return 2;
}

static json_t *load(const char *path, int *rc)
{
	json_error_t e;
	json_t *v = json_load_file(path, JSON_DECODE_ANY, &e);

	if (!v) {
		fprintf(stderr, "stalewin-report validate: expected JSON in %s, saw: %s (line %d)\n",
			path, e.text, e.line);
		*rc = 2;
	}
	return v;
}

enum { STR, NUM, DOC, DOCS, STRS };
struct list {
	json_t *doc[MAXF];
	const char *str[MAXF];
	size_t n;
};
struct opt {
	const char *name; /* "--name" */
	int kind;
	void *dst;        /* const char **, json_t **, struct list * */
};

/* OPTION VALUE pairs by the table, the other words into pos; 0 or 2 */
static int parse(int argc, char **argv, const struct opt *t, struct list *pos)
{
	int rc = 0;

	for (int i = 1; i < argc && !rc; i++) {
		const struct opt *o = t;

		while (o && o->name && strcmp(o->name, argv[i]))
			o++;
		if (!o || !o->name) {
			if (!strncmp(argv[i], "--", 2))
				return bad("expected an option of this mode (stalewin-report validate --help), saw '%s'%s",
					   argv[i], "");
			if (pos->n == MAXF)
				return bad("expected at most 64 files, saw more (at '%s')%s", argv[i], "");
			pos->str[pos->n++] = argv[i];
			continue;
		}
		if (i + 1 >= argc)
			return bad("expected a value after %s, saw none%s", o->name, "");
		const char *v = argv[++i];
		json_t **j = o->dst;
		struct list *l = o->dst;

		switch (o->kind) {
		case STR: *(const char **)o->dst = v; break;
		case NUM:
			json_decref(*j);
			*j = json_loads(v, JSON_DECODE_ANY, NULL);
			if (!json_is_number(*j))
				rc = bad("expected %s as a number, saw '%s'", o->name, v);
			break;
		case DOC: json_decref(*j); *j = load(v, &rc); break;
		default:
			if (l->n == MAXF)
				return bad("expected at most 64 of %s, saw more (at '%s')", o->name, v);
			l->str[l->n] = v;
			if (o->kind == DOCS && !(l->doc[l->n] = load(v, &rc)))
				break;
			l->n++;
		}
	}
	return rc;
}

static void list_free(struct list *l)
{
	for (size_t i = 0; i < l->n; i++)
		json_decref(l->doc[i]);
	l->n = 0;
}

static int emit(json_t *v)
{
	int rc = 0;

	if (json_dumpf(v, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) ||
	    fputc('\n', stdout) == EOF || fflush(stdout))
		rc = 1;
	json_decref(v);
	return rc;
}

static int need(int ok, const char *what)
{
	return ok ? 0 : bad("expected %s%s", what, "");
}

static int mode_row(int argc, char **argv)
{
	struct sw_band_pair p = { 0 };
	const struct opt t[] = {
		{ "--name", STR, &p.name }, { "--fs", STR, &p.fs },
		{ "--workload", STR, &p.workload }, { "--load", STR, &p.load },
		{ "--writeback-ms", NUM, &p.writeback_ms }, { "--expire-ms", NUM, &p.expire_ms },
		{ "--duration-s", NUM, &p.duration_s }, { "--resolution-ms", NUM, &p.resolution_ms },
		{ "--lead-s", NUM, &p.lead_s }, { "--model", DOC, &p.model },
		{ "--real", DOC, &p.real }, { "--sweep", DOC, &p.sweep },
		{ "--replay-start", DOC, &p.replay_start }, { "--replay-end", DOC, &p.replay_end },
		{ "--runs", DOC, &p.runs }, { "--host-trace", STR, &p.host_trace },
		{ "--bdi", STR, &p.bdi }, { NULL, 0, NULL },
	};
	struct list pos = { .n = 0 };
	char err[256] = "";
	int rc = parse(argc, argv, t, &pos);

	if (!rc)
		rc = need(p.name && p.fs && p.workload && p.load && p.model && p.real &&
			  p.writeback_ms && p.expire_ms && p.duration_s && p.resolution_ms && !pos.n &&
			  !p.host_trace == !p.bdi,
			  "--name, --fs, --workload, --load, --model, --real, --writeback-ms, --expire-ms, --duration-s and --resolution-ms, --host-trace and --bdi together, and no other word");
	if (!rc) {
		json_t *row = sw_band_row(&p, err, sizeof(err));

		rc = row ? emit(row) : bad("%s%s", err, "");
	}
	json_t *all[] = { p.writeback_ms, p.expire_ms, p.duration_s, p.resolution_ms, p.lead_s,
			  p.model, p.real, p.sweep, p.replay_start, p.replay_end, p.runs };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		json_decref(all[i]);
	return rc;
}

static int mode_kread(int argc, char **argv)
{
	const char *run = NULL, *ld = NULL;
	json_t *every = NULL, *rows = NULL;
	const struct opt t[] = {
		{ "--run", STR, &run }, { "--load", STR, &ld }, { "--every-ms", NUM, &every },
		{ NULL, 0, NULL },
	};
	struct list pos = { .n = 0 };
	char err[256] = "";
	int rc = parse(argc, argv, t, &pos);
	json_t *rep = NULL;

	if (!rc)
		rc = need(run && ld && every && pos.n == 1, "--run, --load, --every-ms and one report.json");
	if (!rc && (rep = load(pos.str[0], &rc)) &&
	    !(rows = sw_band_kread(rep, run, every, ld, err, sizeof(err))))
		rc = bad("%s: %s", pos.str[0], err);
	if (rows)
		rc = emit(rows);
	json_decref(rep);
	json_decref(every);
	return rc;
}

static int mode_median(int argc, char **argv)
{
	struct list r = { .n = 0 }, pos = { .n = 0 };
	const struct opt t[] = { { NULL, 0, NULL } };
	char err[256] = "";
	int rc = parse(argc, argv, t, &pos);
	size_t k;

	for (size_t i = 0; !rc && i < pos.n; i++)
		if ((r.doc[r.n] = load(pos.str[i], &rc)))
			r.n++;
	if (!rc)
		rc = need(r.n > 0, "one report.json or more");
	if (!rc) {
		k = sw_band_median_run(r.doc, r.n, err, sizeof(err));
		rc = k ? (printf("%zu\n", k) < 0) : bad("%s%s", err, "");
	}
	list_free(&r);
	return rc;
}

static int mode_runs(int argc, char **argv)
{
	const char *cm = NULL, *cr = NULL;
	struct list m = { .n = 0 }, r = { .n = 0 }, pos = { .n = 0 };
	const struct opt t[] = {
		{ "--compared-model", STR, &cm }, { "--compared-real", STR, &cr },
		{ "--model", DOCS, &m }, { "--real", DOCS, &r }, { NULL, 0, NULL },
	};
	char err[256] = "";
	int rc = parse(argc, argv, t, &pos);
	json_t *o;

	if (!rc)
		rc = need(cm && cr && m.n && r.n && !pos.n,
			  "--compared-model, --compared-real, one --model and one --real or more");
	if (!rc)
		rc = (o = sw_band_runs(m.doc, m.n, r.doc, r.n, cm, cr, err, sizeof(err)))
			     ? emit(o) : bad("%s%s", err, "");
	list_free(&m);
	list_free(&r);
	return rc;
}

static int mode_summary(int argc, char **argv)
{
	const char *id = NULL, *ld = NULL;
	struct list vm = { .n = 0 }, pos = { .n = 0 }, rows = { .n = 0 };
	const struct opt t[] = {
		{ "--id", STR, &id }, { "--load", STR, &ld }, { "--vm-skipped", STRS, &vm },
		{ NULL, 0, NULL },
	};
	char note[4096] = "";
	int rc = parse(argc, argv, t, &pos);

	if (!rc)
		rc = need(id && ld, "--id and --load");
	for (size_t i = 0; !rc && i < pos.n; i++)
		if ((rows.doc[rows.n] = load(pos.str[i], &rc)))
			rows.n++;
	for (size_t i = 0, n = 0; i < vm.n && n < sizeof(note); i++)
		n += (size_t)snprintf(note + n, sizeof(note) - n, "%s%s", i ? "; " : "", vm.str[i]);
	if (!rc)
		rc = emit(sw_band_summary(rows.doc, rows.n, id, ld, vm.n ? note : NULL));
	list_free(&rows);
	return rc;
}

/* line, footer, verdict: one JSON file each */
static int mode_one(int argc, char **argv, int which)
{
	struct list pos = { .n = 0 };
	const struct opt t[] = { { NULL, 0, NULL } };
	int rc = parse(argc, argv, t, &pos);
	json_t *v = NULL;

	if (!rc)
		rc = need(pos.n == 1, "one JSON file");
	if (!rc && (v = load(pos.str[0], &rc))) {
		if (which == 0)
			rc = sw_band_line(stdout, v) ? 1 : 0;
		else if (which == 1)
			rc = sw_band_footer(stdout, v) ? 1 : 0;
		else
			rc = sw_band_verdict(v);
	}
	json_decref(v);
	return rc;
}

static const char usage[] =
	"usage: stalewin-report validate MODE ...  (the bands of stalewin validate)\n"
	"  row --name N --fs FS --workload ARGS --load TEXT --writeback-ms N\n"
	"      --expire-ms N --duration-s N --resolution-ms N --model REPORT\n"
	"      --real REPORT [--lead-s N] [--sweep SWEEP] [--replay-start SWEEP\n"
	"      --replay-end SWEEP] [--runs RUNS] [--host-trace FILE --bdi MAJ:MIN]\n"
	"  kread --run NAME --every-ms N --load TEXT REPORT\n"
	"  failed NAME | median-run REPORT... | line ROW | footer SUMMARY\n"
	"  runs --compared-model K --compared-real K --model REPORT... --real REPORT...\n"
	"  summary --id ID --load TEXT [--vm-skipped TEXT]... ROW...\n"
	"  verdict SUMMARY   (exit 0 within bands, 1 outside, 3 --vm pairs skipped)\n";

int sw_validate_main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	if (!strcmp(m, "-h") || !strcmp(m, "--help"))
		return fputs(usage, stdout) == EOF;
	if (!strcmp(m, "row"))
		return mode_row(argc - 1, argv + 1);
	if (!strcmp(m, "kread"))
		return mode_kread(argc - 1, argv + 1);
	if (!strcmp(m, "failed") && argc == 3)
		return emit(sw_band_failed(argv[2]));
	if (!strcmp(m, "median-run"))
		return mode_median(argc - 1, argv + 1);
	if (!strcmp(m, "runs"))
		return mode_runs(argc - 1, argv + 1);
	if (!strcmp(m, "summary"))
		return mode_summary(argc - 1, argv + 1);
	if (!strcmp(m, "line") || !strcmp(m, "footer") || !strcmp(m, "verdict"))
		return mode_one(argc - 1, argv + 1, m[0] == 'l' ? 0 : m[0] == 'f' ? 1 : 2);
	return bad("expected validate row|kread|failed NAME|median-run|runs|line|summary|footer|verdict, saw '%s'%s",
		   argc > 1 ? m : "nothing", "");
}
