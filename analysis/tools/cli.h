/* SPDX-License-Identifier: MIT */
/* cli.h - the subcommands of stalewin-report. */
#ifndef STALEWIN_CLI_H
#define STALEWIN_CLI_H
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include "report.h"
int sw_compare_main(int argc, char **argv);
int sw_archive_main(int argc, char **argv);
int sw_summary_main(int argc, char **argv);
int sw_mail_main(int argc, char **argv);
int sw_plan_main(int argc, char **argv);
int sw_study_main(int argc, char **argv);
int sw_verdict_main(int argc, char **argv);
/* fanin.c: `fanin RUN... [--json]`, the clients of one writer run */
int sw_fanin_main(int argc, char **argv);
/* costsec.c: `cost-section FILE [--json]`; the Cost section of a study
 * folder's cost/cost.json, printed to f with its JSON returned (NULL:
 * none), for verdict; for mail, the section's text (malloc'd; NULL: no
 * cost.json beside the runs), each reason to refuse it added to refuse. */
struct sw_findings;
int sw_costsec_main(int argc, char **argv);
json_t *sw_costsec_verdict(FILE *f, const char *dir);
char *sw_costsec_mail(char **dirs, int n, struct sw_findings *refuse);
void sw_join_argv(char *dst, size_t n, int argc, char **argv);
int sw_report_problems_stderr(const struct sw_summary *S, int rc);
int sw_load_profiles(const char *file, struct sw_profile *prof, int *nprof);
/* The usage text for an option getopt did not take: to stdout and 0 for
 * 'h' (--help), else to stderr and 2 (the exit code). */
int sw_cli_usage(int opt, const char *usage);
/* The options of a subcommand that takes one argument (what: "plan
 * file", "study folder") and --json: -1 with *arg and *json set, else the
 * exit code (usage shown, or the wrong count named). */
int sw_cli_one_arg(int argc, char **argv, const char *cmd, const char *what, const char *usage,
		   const char **arg, int *json);
/* Add an analysed run to the SQLite archive at path (archive.c),
 * creating it: 0, or 1 / 2 with the reason on stderr. */
int sw_archive_add_summary(const char *path, const struct sw_summary *S);
/* The verdict of a study.json (verdict.c): its text to f, each
 * comparison appended to out; returns the groups compared. */
#include <jansson.h>
#include <stdio.h>
int sw_verdict(json_t *study, const char *dir, FILE *f, json_t *out);
/* The comparisons as a TL;DR of at most max_lines lines (wrapped at 72,
 * "- " items, the rest named by count); returns the items shown, -1 no
 * memory. */
int sw_verdict_tldr(FILE *f, json_t *comparisons, int max_lines);
/* Each cell of a study.json, its runs' statistics as text (72 columns). */
void sw_study_cells_text(FILE *f, json_t *study);
/* The cells of a study's query_rate axis: their rate, truth p50 and
 * shares of faults (study.c), into r (at most max); how many.  A share
 * as "52.7% of 8000", or "-". */
struct sw_obs_row;
int sw_study_observer_rows(json_t *cells, struct sw_obs_row *r, int max);
void sw_study_pct(char *b, size_t n, double sh, long long whole);
/* 0 for 1 <= n <= max run folders, else 2 with the message for `cmd`. */
int sw_cli_check_runs(const char *cmd, int n, int max);
#endif
