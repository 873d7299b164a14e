/* SPDX-License-Identifier: MIT */
/*
 * Description: stalewin-cost table's arithmetic on rows whose answer is
 * known (server/cost/table.c): each row's ratios to its group's eager row
 * (else stock), the findings' sentences ("100x fewer", "no saving",
 * "none"), null figures kept out of ratios and findings (never read as 0),
 * rows sorted by group then eager, stock, deferred, lang, and a row whose
 * stores were not each one fault named.  A table that divides by a null,
 * compares across kernels or thread counts, or calls a null zero fails.
 */
#include <jansson.h>
#include <string.h>

#include "check.h"
#include "row.h"

/* a row of kernel K, fs F, policy P, T threads: p50 us, handles/1k,
 * updates/1k (a negative value: null) */
static json_t *mkrow(const char *k, const char *f, const char *p, int t, double p50,
		     double hdl, double upd)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:i, s:s, s:b, s:i, s:i, s:i, s:b}",
			      "kernel", k, "kernel_release", "x", "fs", f, "policy", p,
			      "threads", t, "query", "statx", "spaced", 0, "stores", 1000,
			      "faults", 1000, "one_fault_stores", 1000, "faults_exact", 1);

	json_object_set_new(o, "fault_p50_us", json_real(p50));
	json_object_set_new(o, "fault_p99_us", json_real(2 * p50));
	json_object_set_new(o, "handles_per_1k", hdl < 0 ? json_null() : json_real(hdl));
	json_object_set_new(o, "updates_per_1k", upd < 0 ? json_null() : json_real(upd));
	json_object_set_new(o, "commits_per_1k", json_null());
	return o;
}

static int has_finding(json_t *f, const char *needle)
{
	size_t i;
	json_t *s;

	json_array_foreach(f, i, s)
		if (strstr(json_string_value(json_object_get(s, "text")), needle))
			return 1;
	return 0;
}

static json_t *find(json_t *rows, const char *fs, const char *pol, int t)
{
	size_t i;
	json_t *r;

	json_array_foreach(rows, i, r)
		if (!strcmp(json_string_value(json_object_get(r, "fs")), fs) &&
		    !strcmp(json_string_value(json_object_get(r, "policy")), pol) &&
		    json_integer_value(json_object_get(r, "threads")) == t)
			return r;
	return NULL;
}

SW_CASE(ratios_and_findings)
{
	json_t *rows = json_array(), *f, *d;

	json_array_append_new(rows, mkrow("k", "ext4", "deferred", 1, 50, 10, 10));
	json_array_append_new(rows, mkrow("k", "ext4", "eager", 1, 100, 1000, 1000));
	json_array_append_new(rows, mkrow("k", "ext4", "lang", 1, 100, 10, 1000));
	json_array_append_new(rows, mkrow("k", "ext4", "deferred", 2, 50, 0, 0));
	f = sw_cost_findings(rows);
	d = find(rows, "ext4", "deferred", 1);
	CHECK(d && json_real_value(json_object_get(d, "fault_p50_vs_base")) == 0.5);
	CHECK(d && json_real_value(json_object_get(d, "handles_vs_base")) == 0.01);
	CHECK(has_finding(f, "deferred: 10 timestamp updates per 1000 stores against "
			     "eager's 1000 (100x fewer)"));
	CHECK(has_finding(f, "lang: 1000 timestamp updates per 1000 stores against "
			     "eager's 1000 (no saving)"));
	CHECK(has_finding(f, "deferred: fault p50 0.50x and p99"));
	/* the 2-thread row has no eager of its own: no ratio, no finding */
	d = find(rows, "ext4", "deferred", 2);
	CHECK(d && json_is_null(json_object_get(d, "fault_p50_vs_base")));
	CHECK(!has_finding(f, "2 thread(s)"));
	/* sorted: eager first in its group */
	CHECK(!strcmp(json_string_value(json_object_get(json_array_get(rows, 0), "policy")),
		      "eager"));
	json_decref(f);
	json_decref(rows);
}

SW_CASE(null_is_not_zero)
{
	json_t *rows = json_array(), *f, *d;

	json_array_append_new(rows, mkrow("k", "tmpfs", "eager", 1, 10, -1, 500));
	json_array_append_new(rows, mkrow("k", "tmpfs", "deferred", 1, 10, -1, 0));
	f = sw_cost_findings(rows);
	d = find(rows, "tmpfs", "deferred", 1);
	CHECK(d && json_is_null(json_object_get(d, "handles_vs_base")));
	CHECK(!has_finding(f, "journal handles"), "a null count made a finding");
	CHECK(has_finding(f, "deferred: 0 timestamp updates per 1000 stores against "
			     "eager's 500 (none)"));
	json_decref(f);
	json_decref(rows);
}

SW_CASE(inexact_faults_named)
{
	json_t *rows = json_array(), *r = mkrow("k", "ext4", "eager", 2, 10, 1, 1), *f;

	json_object_set_new(r, "faults", json_integer(3));
	json_object_set_new(r, "one_fault_stores", json_integer(3));
	json_object_set_new(r, "faults_exact", json_false());
	json_array_append_new(rows, r);
	f = sw_cost_findings(rows);
	CHECK(has_finding(f, "1000 stores took 3 faults, 3 of them exactly one"));
	json_decref(f);
	json_decref(rows);
}

SW_CASE(kernels_apart)
{
	json_t *rows = json_array(), *f, *d;

	json_array_append_new(rows, mkrow("a", "ext4", "eager", 1, 100, 1000, 1000));
	json_array_append_new(rows, mkrow("b", "ext4", "deferred", 1, 50, 10, 10));
	f = sw_cost_findings(rows);
	d = find(rows, "ext4", "deferred", 1);
	CHECK(d && json_is_null(json_object_get(d, "baseline")),
	      "a deferred row compared with another kernel's eager");
	CHECK(json_array_size(f) == 0, "a finding across kernels");
	json_decref(f);
	json_decref(rows);
}

SW_MAIN()
