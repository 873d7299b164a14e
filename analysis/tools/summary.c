/* SPDX-License-Identifier: MIT */
/* summary.c - `stalewin-report summary RUN... [--json]`: one row per run
 * (pass/runrow.c), printed by output/summary.c, then the Cost section of
 * a run folder's own cost/cost.json (costsec.c).  Also the loader the
 * mail shares (sw_summary_load_rows). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fmt.h"
#include "runrow.h"
#include "sumload.h"

int sw_summary_load_rows(int n, char **dirs, const struct sw_profile *prof, int nprof,
			 struct sw_runrow *rows, struct sw_summary *S)
{
	int worst = 0;
	for (int i = 0; i < n; i++) {
		struct sw_analyze_opts ao = { .nprof = nprof, .prof = nprof ? prof : NULL };
		sw_summary_free(S); /* the run before's (S zeroed at first) */
		int rc = sw_analyze(dirs[i], &ao, S);
		if (rc == 1 || rc == 2) {
			sw_report_problems_stderr(S, 2);
			return rc;
		}
		if (rc == 3) {
			sw_report_problems_stderr(S, 3);
			worst = 3;
		}
		sw_runrow_fill(S, &rows[i]);
	}
	return worst;
}

int sw_summary_main(int argc, char **argv)
{
	static const struct option lo[] = { { "json", 0, 0, 'j' }, { "profiles", 1, 0, 'P' },
					    { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
	static struct sw_profile prof[SW_MAX_PROFILES];
	int nprof = 0, o, json = 0;

	optind = 1;
	while ((o = getopt_long(argc, argv, "jP:h", lo, NULL)) != -1) {
		if (o == 'j')
			json = 1;
		else if (o == 'P') {
			if (sw_load_profiles(optarg, prof, &nprof))
				return 2;
		} else
			return sw_cli_usage(o, "usage: stalewin-report summary RUN... [--json] [--profiles FILE]\n");
	}
	int n = argc - optind;
	if (sw_cli_check_runs("summary", n, SW_SUMMARY_MAX_RUNS))
		return 2;
	struct sw_runrow *rows = calloc((size_t)n, sizeof(*rows));
	struct sw_summary *S = calloc(1, sizeof(*S)); /* sw_summary_free: safe at once */
	int rc = 1;
	if (rows && S)
		rc = sw_summary_load_rows(n, argv + optind, prof, nprof, rows, S);
	if (rc == 0 || rc == 3) {
		unsigned dims = sw_runrow_label(rows, n);
		if (json) {
			json_t *j = sw_summary_rows_json(rows, n);
			json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			fputc('\n', stdout);
			json_decref(j);
		} else {
			sw_fmt_summary_text(stdout, rows, n, dims);
			/* the Cost section of the first run folder with its own
			 * cost/cost.json (stalewin cost --out RUN/cost) */
			for (int i = 0; i < n; i++) {
				json_t *c = sw_costsec_verdict(stdout, argv[optind + i]);
				if (c) {
					json_decref(c);
					break;
				}
			}
		}
		if (fflush(stdout)) {
			perror("stalewin-report summary: stdout");
			rc = 1;
		}
	}
	free(rows);
	if (S)
		sw_summary_free(S);
	free(S);
	return rc;
}
