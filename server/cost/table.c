/* SPDX-License-Identifier: MIT */
/* table.c - cost rows side by side with their ratios, and the findings
 * under them (row.h); the ratios and findings are findings.c's. */
#include "row.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define str sw_cost_str
#define num sw_cost_num

/* "12.3" or "-" for null, right-aligned in w columns */
static void cell(FILE *f, double v, int w, int prec)
{
	if (isnan(v))
		fprintf(f, " %*s", w, "-");
	else
		fprintf(f, " %*.*f", w, prec, v);
}

static void group_header(FILE *f, json_t *rows, json_t *row)
{
	fprintf(f, "\n%s (%s), %s\n%d thread(s), query %s%s\n", str(row, "kernel"),
		str(row, "kernel_release"), str(row, "fs"), (int)num(row, "threads"),
		str(row, "query"), json_is_true(json_object_get(row, "spaced")) ?
		", stores a tick apart" : "");
	if (!strcmp(str(row, "query_from"), "client-guest")) {
		double lo = INFINITY, hi = -INFINITY;
		size_t i;
		json_t *r;

		json_array_foreach(rows, i, r) {
			double v = num(r, "polls_per_s");

			if (!sw_cost_same_group(r, row) || isnan(v))
				continue;
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
		fprintf(f, "the client guest polls the file over NFS, asked %.0f statx/s,\n"
			"reached %.0f..%.0f/s\n", num(row, "query_rate"), lo, hi);
	} else if (!isnan(num(row, "polls_per_s")))
		fprintf(f, "an NFS client polls the file (%.0f statx/s)\n",
			num(row, "polls_per_s"));
	if (json_is_true(json_object_get(row, "pressure")))
		fprintf(f, "with an fsync-heavy writer beside (%.0f fsyncs/s)\n",
			num(row, "pressure_fsyncs_per_s"));
	if (json_is_true(json_object_get(row, "tcg")))
		fprintf(f, "fault latency us: TCG: compare within this table only\n");
	fprintf(f, "%-8s %6s %4s %7s %4s %6s %6s %6s %6s %7s\n", "policy", "p50us", "x",
		"p99us", "x", "maxus", "hdl/1k", "cmt/1k", "upd/1k", "pages/s");
}

/* "- text" wrapped at 72 columns between words, continued by "  " */
static void wrap(FILE *f, const char *text)
{
	const char *p = text, *lead = "- ";

	while (*p) {
		size_t n = strlen(p), cut = n;

		if (n > 70) {
			cut = 70;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = 70;
		}
		fprintf(f, "%s%.*s\n", lead, (int)cut, p);
		p += cut;
		while (*p == ' ')
			p++;
		lead = "  ";
	}
}

void sw_cost_text(FILE *f, json_t *rows, json_t *findings)
{
	json_t *row, *prev = NULL, *s;
	size_t i;

	json_array_foreach(rows, i, row) {
		if (!prev || !sw_cost_same_group(prev, row))
			group_header(f, rows, row);
		prev = row;
		fprintf(f, "%-8s", str(row, "policy"));
		cell(f, num(row, "fault_p50_us"), 6, 1);
		cell(f, num(row, "fault_p50_vs_base"), 4, 2);
		cell(f, num(row, "fault_p99_us"), 7, 1);
		cell(f, num(row, "fault_p99_vs_base"), 4, 2);
		cell(f, num(row, "fault_max_us"), 6, 0);
		cell(f, num(row, "handles_per_1k"), 6, 1);
		cell(f, num(row, "commits_per_1k"), 6, 1);
		cell(f, num(row, "updates_per_1k"), 6, 1);
		cell(f, num(row, "pages_per_s"), 7, 0);
		fputc('\n', f);
	}
	fprintf(f, "\nx: the ratio to the group's eager (else stock) row (the handles'"
		"\nratio and the hold times: --json).  Counts per 1000 stores, as"
		"\nthey are; -: not measured (--json says why).\n");
	if (json_array_size(findings))
		fprintf(f, "\nFindings:\n");
	json_array_foreach(findings, i, s)
		wrap(f, json_is_string(s) ? json_string_value(s) : str(s, "text"));
}
