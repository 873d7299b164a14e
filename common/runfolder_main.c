/* SPDX-License-Identifier: MIT */
/*
 * stalewin-runfolder - the run folder's meta.json, clock.json and list of
 * logs, in the one shape of runfolder.h, for every orchestrator.
 *
 *   stalewin-runfolder meta DIR [--str K=V] [--int K=N] [--bool K=true|false]
 *       [--json K=JSON] [--json-file K=FILE] [--kv-file K=FILE]
 *       [--table K=FILE:COL,COL...] [--argv N ARG1..ARGN]
 *   stalewin-runfolder clock DIR --before FILE [--after FILE] [--note TEXT]
 *       [--name FILE]
 *   stalewin-runfolder fault DIR --str kind=K [--int t_start_real_ns=N]
 *       [--int t_end_real_ns=N] [--bool cut_short=true] [--str|--int ... K=V]
 *   stalewin-runfolder record-bytes TYPE
 *
 * Keys may be dotted (server.kind).  meta adds "format", "host" (unless
 * given) and "logs" (every *.swlog in DIR).  record-bytes prints what a log
 * grows by per record of TYPE (ATTR, STORE, ...).  fault appends one
 * fault or outage to DIR/faults.json (runfolder.h).  Exit 0, 2 bad input,
 * 1 cannot write.
 */
#include <stdio.h>
#include <string.h>

#include "parse.h"
#include "runfolder.h"
#include "swlog.h"

#define PROG "stalewin-runfolder"

static void usage(FILE *f)
{
	fputs("usage: " PROG " meta DIR [--str K=V] [--int K=N] [--bool K=true|false]\n"
	      "                 [--json K=JSON] [--json-file K=FILE] [--kv-file K=FILE]\n"
	      "                 [--table K=FILE:COL,COL...] [--argv N ARG1..ARGN]\n"
	      "       " PROG " clock DIR --before FILE [--after FILE] [--note TEXT] [--name FILE]\n"
	      "       " PROG " fault DIR --str kind=K [--int t_start_real_ns=N] [--int t_end_real_ns=N] [...]\n"
	      "       " PROG " record-bytes TYPE\n", f);
}

static int bad(const char *what)
{
	fprintf(stderr, PROG ": %s\n", what);
	return 2;
}

/* --str|--int|... K=V pairs into m; 0 or 2 (said why). */
static int set_args(json_t *m, int argc, char **argv)
{
	static const struct { const char *opt; char kind; } kinds[] = {
		{ "--str", 's' }, { "--int", 'i' }, { "--bool", 'b' }, { "--json", 'j' },
		{ "--json-file", 'f' }, { "--kv-file", 'k' }, { "--table", 't' },
	};
	char err[512];
	for (int i = 0; i < argc; i++) {
		size_t k;
		for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			if (!strcmp(argv[i], kinds[k].opt))
				break;
		if (k == sizeof(kinds) / sizeof(kinds[0]) || i + 1 >= argc) {
			snprintf(err, sizeof(err), "expected --str|--int|--bool|--json K=V, saw '%s'", argv[i]);
			return bad(err);
		}
		if (sw_rf_set_arg(m, kinds[k].kind, argv[++i], err, sizeof(err)))
			return bad(err);
	}
	return 0;
}

static int fault_main(const char *dir, int argc, char **argv)
{
	char err[600];
	json_t *f = json_object();
	int rc = set_args(f, argc, argv);
	if (!rc && !json_is_string(json_object_get(f, "kind")))
		rc = bad("expected --str kind=KIND (ganesha-restart, partition, control-outage, ...)");
	if (rc) {
		json_decref(f);
		return rc;
	}
	if (sw_rf_fault_add(dir, f, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	return 0;
}

static int meta_main(const char *dir, int argc, char **argv)
{
	static const struct { const char *opt; char kind; } kinds[] = {
		{ "--str", 's' }, { "--int", 'i' }, { "--bool", 'b' }, { "--json", 'j' },
		{ "--json-file", 'f' }, { "--kv-file", 'k' }, { "--table", 't' },
	};
	json_t *m = json_object();
	char err[512];
	int rc = 0;

	json_object_set_new(m, "format", json_integer(SW_RUNFOLDER_FORMAT));
	for (int i = 0; i < argc && !rc; i++) {
		if (!strcmp(argv[i], "--argv")) {
			uint64_t n;
			if (i + 1 >= argc || sw_parse_u64(argv[i + 1], 10, 0, 0, (uint64_t)(argc - i - 2), &n)) {
				rc = bad("expected --argv N and then N arguments");
				break;
			}
			json_t *a = json_array();
			for (i += 2; n; n--, i++)
				json_array_append_new(a, json_string(argv[i]));
			i--;
			json_object_set_new(m, "argv", a);
			continue;
		}
		size_t k;
		for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			if (!strcmp(argv[i], kinds[k].opt))
				break;
		if (k == sizeof(kinds) / sizeof(kinds[0]) || i + 1 >= argc) {
			snprintf(err, sizeof(err), "expected --str|--int|--bool|--json|--json-file|--kv-file|--table K=V or --argv, saw '%s'",
				 argv[i]);
			rc = bad(err);
			break;
		}
		if (sw_rf_set_arg(m, kinds[k].kind, argv[++i], err, sizeof(err)))
			rc = bad(err);
	}
	if (!rc) {
		if (!json_object_get(m, "host"))
			json_object_set_new(m, "host", sw_rf_host());
		json_object_set_new(m, "logs", sw_rf_logs(dir));
		if (sw_rf_write(dir, "meta.json", m, err, sizeof(err)))
			rc = 1, fprintf(stderr, PROG ": %s\n", err);
	}
	json_decref(m);
	return rc;
}

static json_t *load(const char *path, int need, char *err, size_t errlen)
{
	json_error_t je;
	json_t *v = json_load_file(path, JSON_DECODE_ANY, &je);
	if (!v && need)
		snprintf(err, errlen, "expected a clock estimate (JSON) in %s, saw: %s", path, je.text);
	if (v && json_is_null(v)) {
		json_decref(v);
		v = NULL;
	}
	return v;
}

static int clock_main(const char *dir, int argc, char **argv)
{
	const char *before = NULL, *after = NULL, *note = NULL, *name = "clock.json";
	char err[600] = "";
	int rc = 0;

	for (int i = 0; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--before")) before = argv[i + 1];
		else if (!strcmp(argv[i], "--after")) after = argv[i + 1];
		else if (!strcmp(argv[i], "--note")) note = argv[i + 1];
		else if (!strcmp(argv[i], "--name")) name = argv[i + 1];
		else return bad("expected --before FILE [--after FILE] [--note TEXT] [--name FILE]");
	}
	if (!before || argc % 2)
		return bad("expected --before FILE [--after FILE] [--note TEXT] [--name FILE]");
	json_t *b = load(before, 1, err, sizeof(err));
	if (!b)
		return bad(err[0] ? err : "the --before estimate is null");
	json_t *a = after ? load(after, 0, err, sizeof(err)) : NULL;
	json_t *c = sw_rf_clock(b, a, note);
	if (sw_rf_write(dir, name, c, err, sizeof(err)))
		rc = 1, fprintf(stderr, PROG ": %s\n", err);
	json_decref(c);
	json_decref(a);
	json_decref(b);
	return rc;
}

static int record_bytes_main(const char *name)
{
	for (unsigned t = 1; t < 256; t++)
		if (swlog_record_bytes((uint16_t)t) && !strcmp(swlog_type_name((uint16_t)t), name)) {
			printf("%u\n", swlog_record_bytes((uint16_t)t));
			return 0;
		}
	fprintf(stderr, PROG ": expected a record type (ATTR, STORE, UPDATE, KREAD, ...), saw '%s'\n",
		name);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "meta"))
		return meta_main(argv[2], argc - 3, argv + 3);
	if (argc >= 3 && !strcmp(argv[1], "clock"))
		return clock_main(argv[2], argc - 3, argv + 3);
	if (argc >= 3 && !strcmp(argv[1], "fault"))
		return fault_main(argv[2], argc - 3, argv + 3);
	if (argc == 3 && !strcmp(argv[1], "record-bytes"))
		return record_bytes_main(argv[2]);
	usage(stderr);
	return 2;
}
