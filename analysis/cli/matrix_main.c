/* SPDX-License-Identifier: MIT */
/*
 * stalewin-matrix OUT --kernels K,... --fs F,... --workloads W,...
 *                 [--sysctls S] [--writer-args S] [--duration N] [--wall S]
 *                 [--json] [--check]
 * The tables and findings of `stalewin vm matrix` (vm/matrix.sh) from its
 * output folder OUT (analysis/validate/matrix.h); writes OUT/matrix.json and
 * prints the text (or, with --json, the JSON object).  --check: the quick
 * test's assertions instead, one "FAIL: ..." line each.
 * Exit: 0 every cell present and complete (--check: every assertion
 * held), 1 cells missing or partial (--check: a failure), 2 bad input.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "matrix.h"

static void usage(FILE *f)
{
	fputs("usage: stalewin-matrix OUT --kernels K,... --fs F,... --workloads W,...\n"
	      "                       [--sysctls S] [--writer-args S] [--duration N]\n"
	      "                       [--wall S] [--json] [--check]\n"
	      "exit: 0 complete (--check: passed), 1 cells missing or partial (--check:\n"
	      "      failed), 2 bad input\n", f);
}

static int save(const struct sw_matrix *M, json_t *j)
{
	char p[4200];
	snprintf(p, sizeof(p), "%s/matrix.json", M->out);
	FILE *f = fopen(p, "w");
	if (!f || json_dumpf(j, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) ||
	    fputc('\n', f) == EOF || fclose(f)) {
		fprintf(stderr, "stalewin-matrix: cannot write %s: %s\n", p, strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "kernels", 1, 0, 'k' }, { "fs", 1, 0, 'f' }, { "workloads", 1, 0, 'w' },
		{ "sysctls", 1, 0, 's' }, { "writer-args", 1, 0, 'a' }, { "duration", 1, 0, 'd' },
		{ "wall", 1, 0, 'W' }, { "json", 0, 0, 'j' }, { "check", 0, 0, 'c' },
		{ "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
	const char *kernels = NULL, *fs = NULL, *wls = NULL, *sysctls = "", *wargs = "";
	const char *dur = "", *wall = "";
	int json = 0, chk = 0, o;
	while ((o = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (o) {
		case 'k': kernels = optarg; break;
		case 'f': fs = optarg; break;
		case 'w': wls = optarg; break;
		case 's': sysctls = optarg; break;
		case 'a': wargs = optarg; break;
		case 'd': dur = optarg; break;
		case 'W': wall = optarg; break;
		case 'j': json = 1; break;
		case 'c': chk = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	struct stat st;
	errno = 0;
	if (optind + 1 != argc || !kernels || !fs || !wls) {
		fprintf(stderr, "stalewin-matrix: expected OUT and --kernels, --fs, --workloads, saw %d "
			"folders%s%s%s\n", argc - optind, kernels ? "" : ", no --kernels",
			fs ? "" : ", no --fs", wls ? "" : ", no --workloads");
		usage(stderr);
		return 2;
	}
	if (stat(argv[optind], &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "stalewin-matrix: expected a matrix output folder, saw '%s' (%s)\n",
			argv[optind], errno ? strerror(errno) : "not a folder");
		return 2;
	}
	static struct sw_matrix M;
	char err[512];
	if (sw_matrix_init(&M, argv[optind], kernels, fs, wls, err, sizeof(err))) {
		fprintf(stderr, "stalewin-matrix: %s\n", err);
		return 2;
	}
	snprintf(M.sysctls, sizeof(M.sysctls), "%s", sysctls);
	snprintf(M.writer_args, sizeof(M.writer_args), "%s", wargs);
	snprintf(M.duration, sizeof(M.duration), "%s", dur);
	snprintf(M.wall, sizeof(M.wall), "%s", wall);
	int rc = 0;
	if (sw_matrix_load(&M, err, sizeof(err)) || sw_matrix_findings(&M)) {
		fprintf(stderr, "stalewin-matrix: %s\n", err[0] ? err : "out of memory");
		sw_matrix_free(&M);
		return 1;
	}
	if (chk) {
		int bad = sw_matrix_check(&M, stdout);
		if (!bad)
			printf("PASS: %d cells, %d quiet runs; findings: %d\n", M.ncells, M.nquiet,
			       M.nfindings);
		sw_matrix_free(&M);
		return bad ? 1 : 0;
	}
	json_t *j = sw_matrix_json(&M);
	rc = save(&M, j);
	if (json) {
		json_dumpf(j, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
		fputc('\n', stdout);
	} else
		sw_matrix_text(stdout, &M);
	json_decref(j);
	if (!rc && (M.nmissing || M.nproblems))
		rc = 1;
	if (fflush(stdout)) {
		fprintf(stderr, "stalewin-matrix: write to stdout failed: %s\n", strerror(errno));
		rc = 1;
	}
	sw_matrix_free(&M);
	return rc;
}
