/* SPDX-License-Identifier: MIT */
/*
 * stalewin-report RUN [--format text|csv|json|all] [--out DIR] [--plots]
 *                     [--profiles FILE]
 * stalewin-report compare RUN|@RUN_ID ... [--format text|json] [--db F]
 * stalewin-report summary RUN... [--json] [--profiles FILE]
 * stalewin-report fanin RUN... [--json]   the clients of one writer run
 * stalewin-report mail RUN... [--to LIST] [--subject S] [--attach F]...
 * stalewin-report archive add RUN --db F | list --db F | query --db F ...
 * Exit: 0 complete, 4 complete with faults (faults.json: the first line
 * names them), 3 partial (printed, marked partial), 2 bad input,
 * 1 runtime failure.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bands.h"
#include "cli.h"
#include "fmt.h"

static void usage(FILE *f)
{
	fputs("usage: stalewin-report RUN [--format text|csv|json|all] [--out DIR]\n"
	      "                           [--plots] [--profiles FILE] [--validation FILE]\n"
	      "                           [--replay-log FILE (each kernel reader's replay step)]\n"
	      "       stalewin-report compare RUN|@RUN_ID... [--format text|json] [--db F]\n"
	      "       stalewin-report summary RUN... [--json] [--profiles FILE]\n"
	      "       stalewin-report fanin RUN... [--json]  (the clients of one writer run)\n"
	      "       stalewin-report mail RUN... [--to LIST] [--subject S] [--attach F]...\n"
	      "       stalewin-report plan PLAN [--json]\n"
	      "       stalewin-report study DIR [--json]\n"
	      "       stalewin-report verdict DIR [--json]\n"
	      "       stalewin-report cost-section FILE [--json]\n"
	      "       stalewin-report archive add RUN... --db F\n"
	      "       stalewin-report archive list --db F\n"
	      "       stalewin-report archive query --db F [--policy P] [--kernel K]\n"
	      "                                  [--figure NAME] [--sql SELECT...]\n"
	      "exit: 0 complete, 4 complete with faults, 3 partial report, 2 bad input,\n"
	      "      1 runtime failure\n", f);
}

static FILE *open_out(const char *dir, const char *name, char *path, size_t n)
{
	snprintf(path, n, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "stalewin-report: cannot write %s: %s\n", path, strerror(errno));
	return f;
}

static int report_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "format", 1, 0, 'f' }, { "out", 1, 0, 'o' }, { "plots", 0, 0, 'p' },
		{ "profiles", 1, 0, 'P' }, { "help", 0, 0, 'h' },
		{ "validation", 1, 0, 'V' }, { "replay-log", 1, 0, 'R' }, { 0, 0, 0, 0 } };
	const char *fmt = "text", *out = NULL, *pfile = NULL, *vfile = NULL, *rlog = NULL;
	int plots = 0, o;
	static struct sw_profile prof[SW_MAX_PROFILES];
	int nprof = 0;
	char cmd[2048];

	sw_join_argv(cmd, sizeof(cmd), argc, argv);
	while ((o = getopt_long(argc, argv, "f:o:phP:", lo, NULL)) != -1) {
		switch (o) {
		case 'f': fmt = optarg; break;
		case 'o': out = optarg; break;
		case 'p': plots = 1; break;
		case 'P': pfile = optarg; break;
		case 'V': vfile = optarg; break;
		case 'R': rlog = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "stalewin-report: expected exactly one run folder, saw %d arguments\n",
			argc - optind);
		usage(stderr);
		return 2;
	}
	int want_text = !strcmp(fmt, "text") || !strcmp(fmt, "all");
	int want_csv = !strcmp(fmt, "csv") || !strcmp(fmt, "all");
	int want_json = !strcmp(fmt, "json") || !strcmp(fmt, "all");
	if (!want_text && !want_csv && !want_json) {
		fprintf(stderr, "stalewin-report: expected --format text|csv|json|all, saw '%s'\n", fmt);
		return 2;
	}
	if (pfile && sw_load_profiles(pfile, prof, &nprof))
		return 2;
	const char *run = argv[optind];
	int all = !strcmp(fmt, "all");
	if (all && !out)
		out = run; /* RUN/report.{txt,csv,json} */
	if (out && mkdir(out, 0777) && errno != EEXIST) {
		fprintf(stderr, "stalewin-report: cannot create %s: %s\n", out, strerror(errno));
		return 1;
	}
	char path[4200];
	FILE *ftxt = NULL, *fcsv = NULL, *fjson = NULL;
	if (out) {
		if ((want_text && !(ftxt = open_out(out, "report.txt", path, sizeof(path)))) ||
		    (want_csv && !(fcsv = open_out(out, "report.csv", path, sizeof(path)))) ||
		    (want_json && !(fjson = open_out(out, "report.json", path, sizeof(path)))))
			return 1;
	} else {
		ftxt = want_text ? stdout : NULL;
		fcsv = want_csv ? stdout : NULL;
		fjson = want_json ? stdout : NULL;
	}
	struct sw_summary *S = malloc(sizeof(*S));
	char err[512], pd[4200];
	if (!S)
		return 1;
	snprintf(pd, sizeof(pd), "%s/plots", out ? out : run);
	if (plots && mkdir(pd, 0777) && errno != EEXIST) {
		fprintf(stderr, "stalewin-report: cannot create %s: %s\n", pd, strerror(errno));
		free(S);
		return 1;
	}
	/* the outputs that need each store: the CSV all, the plots the first */
	struct sw_analyze_opts ao = { .nprof = nprof, .prof = nprof ? prof : NULL,
				      .keep_rows = fcsv ? UINT64_MAX : plots ? SW_PLOT_POINTS : 0,
				      .keep_updates = plots ? SW_PLOT_POINTS : 0 };
	(void)cmd;
	FILE *frl = NULL;
	if (rlog) {
		if (!(frl = fopen(rlog, "w"))) {
			fprintf(stderr, "stalewin-report: cannot write %s: %s\n", rlog, strerror(errno));
			free(S);
			return 1;
		}
		sw_fmt_replay_step_head(frl);
		ao.on_replay_step = sw_fmt_replay_step;
		ao.step_ctx = frl;
	}
	int rc = sw_analyze(run, &ao, S);
	if (frl && fclose(frl)) {
		fprintf(stderr, "stalewin-report: cannot write %s: %s\n", rlog, strerror(errno));
		rc = 1;
	}
	if (rc == 2 || rc == 1) {
		sw_report_problems_stderr(S, 2);
		sw_summary_free(S);
		free(S);
		return rc;
	}
	if (strncmp(S->policy, "native", 6))
		snprintf(S->valid_wb, sizeof(S->valid_wb), "not validated (stalewin validate; --validation FILE)");
	else
		snprintf(S->valid_wb, sizeof(S->valid_wb), "no model: the kernel's own writeback");
	snprintf(S->valid_replay, sizeof(S->valid_replay), "not validated (stalewin validate --vm; --validation FILE)");
	if (vfile && sw_validation_load(S, vfile, err, sizeof(err))) {
		fprintf(stderr, "stalewin-report: %s\n", err);
		sw_summary_free(S);
		free(S);
		return 2;
	}
	if (vfile && !strncmp(S->policy, "native", 6))
		snprintf(S->valid_wb, sizeof(S->valid_wb), "no model: the kernel's own writeback");
	/* every output from the same finished summary */
	if (fcsv)
		sw_fmt_csv(fcsv, S);
	if (ftxt)
		sw_fmt_text(ftxt, S);
	if (fjson)
		sw_fmt_json(fjson, S);
	if (plots && sw_fmt_plots(pd, S, err, sizeof(err))) {
		fprintf(stderr, "stalewin-report: plots: %s\n", err);
		if (!rc)
			rc = 1;
	}
	FILE *fs[3] = { ftxt, fcsv, fjson };
	for (int i = 0; i < 3; i++)
		if (fs[i] && fs[i] != stdout && fclose(fs[i])) {
			fprintf(stderr, "stalewin-report: write failed: %s\n", strerror(errno));
			rc = 1;
		}
	if (fflush(stdout)) {
		fprintf(stderr, "stalewin-report: write to stdout failed: %s\n", strerror(errno));
		rc = 1;
	}
	sw_report_problems_stderr(S, rc);
	sw_summary_free(S);
	free(S);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "compare"))
		return sw_compare_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "summary"))
		return sw_summary_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "fanin"))
		return sw_fanin_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "mail"))
		return sw_mail_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "plan"))
		return sw_plan_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "study"))
		return sw_study_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "verdict"))
		return sw_verdict_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "cost-section"))
		return sw_costsec_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "validate"))
		return sw_validate_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "archive"))
		return sw_archive_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "report")) {
		argv[1] = argv[0];
		return report_main(argc - 1, argv + 1);
	}
	return report_main(argc, argv);
}
