/* SPDX-License-Identifier: MIT */
/* cli.c - what the subcommands of stalewin-report share (cli.h): the
 * command line as one string, problems to stderr, a profile file, the
 * usage and run-count answers. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

int sw_cli_usage(int opt, const char *usage)
{
	fputs(usage, opt == 'h' ? stdout : stderr);
	return opt == 'h' ? 0 : 2;
}

int sw_cli_one_arg(int argc, char **argv, const char *cmd, const char *what, const char *usage,
		   const char **arg, int *json)
{
	static const struct option lo[] = { { "json", 0, 0, 'j' }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
	int o;
	*json = 0;
	optind = 1;
	while ((o = getopt_long(argc, argv, "jh", lo, NULL)) != -1) {
		if (o != 'j')
			return sw_cli_usage(o, usage);
		*json = 1;
	}
	if (argc - optind != 1) {
		fprintf(stderr, "stalewin-report %s: expected one %s, saw %d arguments\n", cmd, what,
			argc - optind);
		return 2;
	}
	*arg = argv[optind];
	return -1;
}

int sw_cli_check_runs(const char *cmd, int n, int max)
{
	if (n >= 1 && n <= max)
		return 0;
	fprintf(stderr, "stalewin-report %s: expected 1..%d run folders, saw %d\n", cmd, max, n);
	return 2;
}

void sw_join_argv(char *dst, size_t n, int argc, char **argv)
{
	size_t used = 0;
	dst[0] = 0;
	for (int i = 0; i < argc && used < n; i++) {
		int w = snprintf(dst + used, n - used, "%s%s", i ? " " : "", argv[i]);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

int sw_report_problems_stderr(const struct sw_summary *S, int rc)
{
	for (int i = 0; i < S->nprob; i++) {
		const struct sw_problem *p = &S->prob[i];
		if (rc == 2 || p->partial) {
			if (p->record >= 0)
				fprintf(stderr, "stalewin-report: %s: record %lld: %s\n", p->file,
					(long long)p->record, p->msg);
			else
				fprintf(stderr, "stalewin-report: %s: %s\n", p->file, p->msg);
		}
	}
	if (rc == 3)
		fprintf(stderr, "stalewin-report: partial report (%llu problems), exit 3\n",
			(unsigned long long)S->nprob_total);
	if (rc == 4)
		fprintf(stderr, "stalewin-report: complete, with %d faults (faults.json), exit 4\n",
			S->nfaults);
	return rc;
}

int sw_load_profiles(const char *file, struct sw_profile *prof, int *nprof)
{
	char err[512];
	int n = sw_profiles_load(file, prof, SW_MAX_PROFILES, err, sizeof(err));
	if (n <= 0) {
		fprintf(stderr, "stalewin-report: %s\n",
			n == 0 ? "profile file has no profiles" : err);
		return 2;
	}
	*nprof = n;
	return 0;
}
