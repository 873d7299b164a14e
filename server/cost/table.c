/* SPDX-License-Identifier: MIT */
/* table.c - cost rows side by side, ratios and findings (row.h). */
#include "row.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "?";
}

/* a number, or NAN for null or missing */
static double num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Same kernel, filesystem, thread count, query and spacing. */
static int same_group(json_t *a, json_t *b)
{
	return !strcmp(str(a, "kernel"), str(b, "kernel")) &&
	       !strcmp(str(a, "fs"), str(b, "fs")) &&
	       !strcmp(str(a, "query"), str(b, "query")) &&
	       num(a, "threads") == num(b, "threads") &&
	       json_is_true(json_object_get(a, "spaced")) ==
		       json_is_true(json_object_get(b, "spaced")) &&
	       json_is_true(json_object_get(a, "pressure")) ==
		       json_is_true(json_object_get(b, "pressure"));
}

/* The group's baseline: its eager row, else its stock row, else NULL. */
static json_t *baseline(json_t *rows, json_t *row)
{
	static const char *const base[2] = { "eager", "stock" };
	size_t i;
	int b;
	json_t *r;

	for (b = 0; b < 2; b++)
		json_array_foreach(rows, i, r)
			if (same_group(r, row) && !strcmp(str(r, "policy"), base[b]))
				return r;
	return NULL;
}

static json_t *ratio(double a, double b)
{
	if (isnan(a) || isnan(b) || b <= 0)
		return json_null();
	return json_real(round(a / b * 100.0) / 100.0);
}

/* "N x fewer", "N x more", "the same", "none against N" */
static void compare_words(char *buf, size_t len, double v, double base)
{
	if (v == base)
		snprintf(buf, len, "the same");
	else if (v == 0)
		snprintf(buf, len, "none");
	else if (base == 0)
		snprintf(buf, len, "more, against none");
	else if (v < base)
		snprintf(buf, len, "%.1fx fewer", base / v);
	else
		snprintf(buf, len, "%.1fx more", base > 0 ? v / base : INFINITY);
}

/* One sentence on a per-1000 count of row against its baseline. */
static void count_finding(json_t *out, json_t *row, json_t *base, const char *key,
			  const char *what)
{
	double v = num(row, key), b = num(base, key);
	char words[64], line[512];

	if (isnan(v) || isnan(b) || (v == 0 && b == 0))
		return;
	compare_words(words, sizeof(words), v, b);
	snprintf(line, sizeof(line), "%s, %s, %d thread(s), query %s: %s: %.1f %s per "
		 "1000 stores against %s's %.1f (%s)", str(row, "kernel"), str(row, "fs"),
		 (int)num(row, "threads"), str(row, "query"), str(row, "policy"), v, what,
		 str(base, "policy"), b, words);
	json_array_append_new(out, json_string(line));
}

/* The fault latency's p50 and p99 as ratios to the baseline's (only a
 * ratio is said of a TCG guest's latency). */
static void latency_finding(json_t *out, json_t *row, json_t *base)
{
	double r50 = num(row, "fault_p50_vs_base"), r99 = num(row, "fault_p99_vs_base");
	char line[512];

	if (isnan(r50) || isnan(r99))
		return;
	snprintf(line, sizeof(line), "%s, %s, %d thread(s), query %s: %s: fault p50 "
		 "%.2fx and p99 %.2fx %s's%s", str(row, "kernel"), str(row, "fs"),
		 (int)num(row, "threads"), str(row, "query"), str(row, "policy"), r50, r99,
		 str(base, "policy"), json_is_true(json_object_get(row, "tcg")) ?
		 " (TCG: ratios only)" : "");
	json_array_append_new(out, json_string(line));
}

/* A row whose stores were not each exactly one fault: said, not hidden. */
static void fault_finding(json_t *out, json_t *row)
{
	char line[512];

	if (json_is_true(json_object_get(row, "faults_exact")))
		return;
	snprintf(line, sizeof(line), "%s, %s, %s, %d thread(s): %.0f stores took %.0f "
		 "faults, %.0f of them exactly one: the latency covers those only",
		 str(row, "kernel"), str(row, "fs"), str(row, "policy"),
		 (int)num(row, "threads"), num(row, "stores"), num(row, "faults"),
		 num(row, "one_fault_stores"));
	json_array_append_new(out, json_string(line));
}

static int policy_rank(const char *p)
{
	static const char *const order[] = { "eager", "stock", "deferred", "lang" };
	int i;

	for (i = 0; i < 4; i++)
		if (!strcmp(p, order[i]))
			return i;
	return 4;
}

/* kernel, fs, query, spacing, threads, then eager, stock, deferred, lang */
static int row_order(const void *x, const void *y)
{
	json_t *a = *(json_t *const *)x, *b = *(json_t *const *)y;
	static const char *const keys[] = { "kernel", "fs", "query" };
	double ta = num(a, "threads"), tb = num(b, "threads");
	int i, c;

	for (i = 0; i < 3; i++)
		if ((c = strcmp(str(a, keys[i]), str(b, keys[i]))))
			return c;
	c = json_is_true(json_object_get(a, "spaced")) - json_is_true(json_object_get(b, "spaced"));
	if (!c)
		c = json_is_true(json_object_get(a, "pressure")) -
		    json_is_true(json_object_get(b, "pressure"));
	if (c)
		return c;
	if (ta != tb)
		return ta < tb ? -1 : 1;
	return policy_rank(str(a, "policy")) - policy_rank(str(b, "policy"));
}

/* rows in the table's order, in place */
static void sort_rows(json_t *rows)
{
	size_t n = json_array_size(rows), i;
	json_t **v = calloc(n ? n : 1, sizeof(*v));

	if (!v)
		return;
	for (i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(rows, i));
	qsort(v, n, sizeof(*v), row_order);
	json_array_clear(rows);
	for (i = 0; i < n; i++)
		json_array_append_new(rows, v[i]);
	free(v);
}

json_t *sw_cost_findings(json_t *rows)
{
	json_t *out = json_array(), *row;
	size_t i;

	sort_rows(rows);

	json_array_foreach(rows, i, row) {
		json_t *base = baseline(rows, row);

		fault_finding(out, row);
		json_object_set_new(row, "fault_p50_vs_base",
				    base ? ratio(num(row, "fault_p50_us"), num(base, "fault_p50_us")) : json_null());
		json_object_set_new(row, "fault_p99_vs_base",
				    base ? ratio(num(row, "fault_p99_us"), num(base, "fault_p99_us")) : json_null());
		json_object_set_new(row, "handles_vs_base",
				    base ? ratio(num(row, "handles_per_1k"), num(base, "handles_per_1k")) : json_null());
		json_object_set_new(row, "pages_per_s_vs_base",
				    base ? ratio(num(row, "pages_per_s"), num(base, "pages_per_s")) : json_null());
		json_object_set_new(row, "baseline", base ? json_string(str(base, "policy")) : json_null());
		if (!base || base == row)
			continue;
		latency_finding(out, row, base);
		count_finding(out, row, base, "updates_per_1k", "timestamp updates");
		count_finding(out, row, base, "handles_per_1k",
			      !strncmp(str(row, "handle_event"), "xfs/", 4) ?
			      "transactions" : "journal handles");
		count_finding(out, row, base, "commits_per_1k",
			      !strncmp(str(row, "commit_event"), "btrfs/", 6) ?
			      "transaction commits in the round" :
			      "journal commits in the round (stores and msync; later "
			      "ones, such as the journal thread's commit of eager's "
			      "handles, not counted)");
		count_finding(out, row, base, "dirty_inode_per_1k", "inode dirtyings");
	}
	return out;
}

/* "12.3" or "-" for null, right-aligned in w columns */
static void cell(FILE *f, double v, int w, int prec)
{
	if (isnan(v))
		fprintf(f, " %*s", w, "-");
	else
		fprintf(f, " %*.*f", w, prec, v);
}

static void group_header(FILE *f, json_t *row)
{
	fprintf(f, "\n%s (%s), %s\n%d thread(s), query %s%s\n", str(row, "kernel"),
		str(row, "kernel_release"), str(row, "fs"), (int)num(row, "threads"),
		str(row, "query"), json_is_true(json_object_get(row, "spaced")) ?
		", stores a tick apart" : "");
	if (!isnan(num(row, "polls_per_s")))
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
		if (!prev || !same_group(prev, row))
			group_header(f, row);
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
		wrap(f, json_string_value(s));
}
