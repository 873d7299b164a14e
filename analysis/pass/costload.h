/* SPDX-License-Identifier: MIT */
/* costload.h - the Cost section's figures: a cost.json that `stalewin
 * cost --out DIR` wrote (server/cost: {"rows": [...], "findings": [...]},
 * docs/cost.md) read into rows grouped by kernel, fs, threads and query,
 * with what the section may say of each row's latency; the mail's
 * refusal of an absolute latency not known to be a machine's
 * (costload.c).  Formatted by output/costfmt.c. */
#ifndef STALEWIN_COSTLOAD_H
#define STALEWIN_COSTLOAD_H
#include <stddef.h>

#include "mailfacts.h"

#define SW_COSTSEC_MAX_ROWS 96

struct sw_costsec_row {
	char kernel[96], release[64], policy[16], fs[24], query[16], query_from[24];
	int threads, spaced, pressure;
	int group;         /* index of its group: rows of one kernel, fs,
			      threads, query, spacing and pressure */
	int tcg;           /* 1 true, 0 false, -1 missing or null */
	int abs_latency;   /* the section prints its latency in us: every
			      row whose tcg is not true (a TCG row: the
			      ratios alone, "TCG: ratio only") */
	/* NAN: null or missing, never 0 */
	double p50_us, p99_us, p50_x, p99_x;
	double handles, commits, updates, dirtied, polls_per_s;
};

struct sw_costsec {
	char path[1024];
	int n, ngroups;
	struct sw_costsec_row rows[SW_COSTSEC_MAX_ROWS];
	struct sw_findings findings; /* the cost.json's findings' text */
};

/* path read into cs: 0, or -1 with err saying what was expected and
 * what was seen (unreadable, no rows, a row without policy or fs, more
 * than SW_COSTSEC_MAX_ROWS rows). */
int sw_costsec_load(const char *path, struct sw_costsec *cs, char *err, size_t errlen);

/* The cost.json of run or study folders: DIR/cost/cost.json of the
 * first of dirs[0..n) that has one, in the folder itself only (the mail
 * of a study passes the study's folder).  1 found (path set), 0 none. */
int sw_costsec_find(char *const *dirs, int n, char *path, size_t len);

/* Why the section must not be mailed (added to out, one sentence a
 * reason): a row whose latency it prints in us (abs_latency) without
 * tcg false, i.e. an absolute latency not known to be a machine's. */
void sw_costsec_refusals(const struct sw_costsec *cs, struct sw_findings *out);
#endif
