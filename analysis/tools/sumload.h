/* SPDX-License-Identifier: MIT */
/* sumload.h - the summary's rows of several run folders (summary.c), for
 * `summary` and `mail`. */
#ifndef STALEWIN_SUMLOAD_H
#define STALEWIN_SUMLOAD_H
#include "report.h"
#include "runrow.h"

#define SW_SUMMARY_MAX_RUNS 64

/* Analyze dirs[0..n) into rows (labels left empty); S is scratch (the last
 * run's pass stays in it).  0, 3 (some partial) or 1/2 (stops there). */
int sw_summary_load_rows(int n, char **dirs, const struct sw_profile *prof, int nprof,
			 struct sw_runrow *rows, struct sw_summary *S);
#endif
