/* SPDX-License-Identifier: MIT */
/* findings.c - each cost row's ratios to its group's eager (else stock)
 * row, and the findings computed from the figures (row.h): per kernel x
 * fs x threads x query, each count per 1000 stores against the
 * baseline's ("deferred: 2 timestamp updates per 1000 stores against
 * eager's 1000 (500x fewer)"), the fault latency as ratios, and a row
 * whose stores were not each one fault.  A null figure makes no finding
 * (never read as 0); equal figures say "no saving". */
#include "row.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define str sw_cost_str
#define num sw_cost_num

/* The group's baseline: its eager row, else its stock row, else NULL. */
static json_t *baseline(json_t *rows, json_t *row)
{
	static const char *const base[2] = { "eager", "stock" };
	size_t i;
	int b;
	json_t *r;

	for (b = 0; b < 2; b++)
		json_array_foreach(rows, i, r)
			if (sw_cost_same_group(r, row) && !strcmp(str(r, "policy"), base[b]))
				return r;
	return NULL;
}

static json_t *ratio(double a, double b)
{
	if (isnan(a) || isnan(b) || b <= 0)
		return json_null();
	return json_real(round(a / b * 100.0) / 100.0);
}

/* a count as said: "2", "7.5" */
static void count_words(char *buf, size_t len, double v)
{
	if (fabs(v - round(v)) < 0.05)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.1f", v);
}

/* a factor as said: "500x", "3.8x" */
static void factor_words(char *buf, size_t len, double r)
{
	snprintf(buf, len, r >= 10 ? "%.0fx" : "%.1fx", r);
}

/* "500x fewer", "1.5x more", "no saving", "none", "more, against none" */
static void compare_words(char *buf, size_t len, double v, double base)
{
	char x[32];

	if (v == base) {
		snprintf(buf, len, "no saving");
	} else if (v == 0) {
		snprintf(buf, len, "none");
	} else if (base == 0) {
		snprintf(buf, len, "more, against none");
	} else if (v < base) {
		factor_words(x, sizeof(x), base / v);
		snprintf(buf, len, "%s fewer", x);
	} else {
		factor_words(x, sizeof(x), v / base);
		snprintf(buf, len, "%s more", x);
	}
}

/* A finding object of row against base (NULL: none) on metric. */
static json_t *finding(json_t *row, json_t *base, const char *metric, double v, double b,
		       const char *text)
{
	json_t *o = json_object();

	json_object_set_new(o, "kernel", json_string(str(row, "kernel")));
	json_object_set_new(o, "fs", json_string(str(row, "fs")));
	json_object_set_new(o, "threads", json_integer((json_int_t)num(row, "threads")));
	json_object_set_new(o, "query", json_string(str(row, "query")));
	json_object_set_new(o, "spaced", json_boolean(json_is_true(json_object_get(row, "spaced"))));
	json_object_set_new(o, "pressure",
			    json_boolean(json_is_true(json_object_get(row, "pressure"))));
	json_object_set_new(o, "policy", json_string(str(row, "policy")));
	json_object_set_new(o, "baseline", base ? json_string(str(base, "policy")) : json_null());
	json_object_set_new(o, "metric", json_string(metric));
	json_object_set_new(o, "value", isnan(v) ? json_null() : json_real(v));
	json_object_set_new(o, "baseline_value", isnan(b) ? json_null() : json_real(b));
	json_object_set_new(o, "ratio", !isnan(v) && !isnan(b) && b > 0 ? json_real(v / b)
								     : json_null());
	json_object_set_new(o, "text", json_string(text));
	return o;
}

/* "patched:7.2, ext4, 1 thread(s), query statx" (and how the stores ran) */
static void group_words(char *buf, size_t len, json_t *row)
{
	snprintf(buf, len, "%s, %s, %d thread(s), query %s%s%s", str(row, "kernel"),
		 str(row, "fs"), (int)num(row, "threads"), str(row, "query"),
		 json_is_true(json_object_get(row, "spaced")) ? ", stores a tick apart" : "",
		 json_is_true(json_object_get(row, "pressure")) ? ", an fsync-heavy writer beside"
								 : "");
}

/* One sentence on a per-1000 count of row against its baseline. */
static void count_finding(json_t *out, json_t *row, json_t *base, const char *key,
			  const char *what, const char *note)
{
	double v = num(row, key), b = num(base, key);
	char words[64], vs[32], bs[32], group[256], line[768];

	if (isnan(v) || isnan(b))
		return;
	compare_words(words, sizeof(words), v, b);
	count_words(vs, sizeof(vs), v);
	count_words(bs, sizeof(bs), b);
	group_words(group, sizeof(group), row);
	snprintf(line, sizeof(line), "%s: %s: %s %s per 1000 stores against %s's %s (%s)%s",
		 group, str(row, "policy"), vs, what, str(base, "policy"), bs, words,
		 note ? note : "");
	json_array_append_new(out, finding(row, base, key, v, b, line));
}

/* The fault latency's p50 and p99 as ratios to the baseline's (only a
 * ratio is said, of a TCG guest's latency or a machine's). */
static void latency_finding(json_t *out, json_t *row, json_t *base)
{
	double r50 = num(row, "fault_p50_vs_base"), r99 = num(row, "fault_p99_vs_base");
	char group[256], line[768];
	json_t *o;

	if (isnan(r50) || isnan(r99))
		return;
	group_words(group, sizeof(group), row);
	snprintf(line, sizeof(line), "%s: %s: fault p50 %.2fx and p99 %.2fx %s's%s", group,
		 str(row, "policy"), r50, r99, str(base, "policy"),
		 json_is_true(json_object_get(row, "tcg")) ? " (TCG: ratios only)" : "");
	o = finding(row, base, "fault_p50_us", num(row, "fault_p50_us"),
		    num(base, "fault_p50_us"), line);
	json_object_set_new(o, "p99_ratio", json_real(r99));
	json_object_set_new(o, "tcg", json_boolean(json_is_true(json_object_get(row, "tcg"))));
	json_array_append_new(out, o);
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
	json_array_append_new(out, finding(row, NULL, "faults", num(row, "faults"),
					   num(row, "stores"), line));
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

static void set_ratios(json_t *row, json_t *base)
{
	static const char *const keys[4][2] = {
		{ "fault_p50_vs_base", "fault_p50_us" }, { "fault_p99_vs_base", "fault_p99_us" },
		{ "handles_vs_base", "handles_per_1k" }, { "pages_per_s_vs_base", "pages_per_s" },
	};
	int k;

	for (k = 0; k < 4; k++)
		json_object_set_new(row, keys[k][0], base ? ratio(num(row, keys[k][1]),
								   num(base, keys[k][1]))
							  : json_null());
	json_object_set_new(row, "baseline", base ? json_string(str(base, "policy")) : json_null());
}

json_t *sw_cost_findings(json_t *rows)
{
	json_t *out = json_array(), *row;
	size_t i;

	sort_rows(rows);
	json_array_foreach(rows, i, row) {
		json_t *base = baseline(rows, row);

		fault_finding(out, row);
		set_ratios(row, base);
		if (!base || base == row)
			continue;
		latency_finding(out, row, base);
		count_finding(out, row, base, "updates_per_1k", "timestamp updates", NULL);
		count_finding(out, row, base, "handles_per_1k",
			      !strncmp(str(row, "handle_event"), "xfs/", 4) ?
			      "transactions" : "journal handles", NULL);
		count_finding(out, row, base, "commits_per_1k",
			      !strncmp(str(row, "commit_event"), "btrfs/", 6) ?
			      "transaction commits" :
			      !strncmp(str(row, "commit_event"), "xfs/", 4) ?
			      "log writes" : "journal commits",
			      "; commits within the round (stores and msync) only, not "
			      "a later one such as the journal thread's of eager's handles");
		count_finding(out, row, base, "dirty_inode_per_1k", "inode dirtyings", NULL);
	}
	return out;
}
