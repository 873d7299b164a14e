/* SPDX-License-Identifier: MIT */
/*
 * row.h - a cost row: a measure.h result as JSON (jansson), the one shape
 * stalewin-cost measure prints and stalewin-cost table reads; and the
 * table: rows of one invocation side by side, ratios to eager (or stock)
 * of the same kernel, filesystem, thread count and query, and the
 * findings in sentences.  Field names and units: docs/cost.md.
 */
#ifndef STALEWIN_COST_ROW_H
#define STALEWIN_COST_ROW_H

#include <jansson.h>
#include <stdio.h>

#include "measure.h"

/* The row of cfg's result (new reference; NULL: out of memory). */
json_t *sw_cost_row(const struct sw_cost_cfg *cfg, const struct sw_cost_result *res,
		    int tcg);

/* Rows from a file of JSON objects, one or more per line, appended to
 * rows; 0, or -1 with err naming the file and line. */
int sw_cost_rows_load(const char *path, json_t *rows, char *err, size_t errlen);

/* A row's string field ("?" when missing), number field (NAN for null
 * or missing: never 0), and whether two rows are of one group (kernel,
 * fs, threads, query, spacing, pressure). */
const char *sw_cost_str(json_t *row, const char *key);
double sw_cost_num(json_t *row, const char *key);
int sw_cost_same_group(json_t *a, json_t *b);

/* Each row gains its ratios to the baseline of its group:
 * fault_p50_vs_base, fault_p99_vs_base, handles_vs_base, pages_per_s_vs_base
 * (null without a baseline or a figure).  Returns the findings (new
 * reference), an array of objects: kernel, fs, threads, query, spaced,
 * pressure, policy, baseline, metric (a row's key: updates_per_1k,
 * handles_per_1k, commits_per_1k, dirty_inode_per_1k, fault_p50_us;
 * faults for a row whose stores were not each one fault), value,
 * baseline_value, ratio (value / baseline_value, null where it has no
 * meaning) and text, the sentence.  No finding where either figure is
 * null; "no saving" where they are equal. */
json_t *sw_cost_findings(json_t *rows);

/* The text table (72 columns) and the findings under it. */
void sw_cost_text(FILE *out, json_t *rows, json_t *findings);

#endif
