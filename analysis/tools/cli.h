/* SPDX-License-Identifier: MIT */
/* cli.h - the subcommands of stalewin-report. */
#ifndef STALEWIN_CLI_H
#define STALEWIN_CLI_H
#include <stddef.h>
#include "report.h"
int sw_compare_main(int argc, char **argv);
int sw_archive_main(int argc, char **argv);
int sw_summary_main(int argc, char **argv);
int sw_mail_main(int argc, char **argv);
void sw_join_argv(char *dst, size_t n, int argc, char **argv);
int sw_report_problems_stderr(const struct sw_summary *S, int rc);
int sw_load_profiles(const char *file, struct sw_profile *prof, int *nprof);
#endif
