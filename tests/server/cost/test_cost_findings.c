/* SPDX-License-Identifier: MIT */
/*
 * Description: the findings of stalewin-cost table as objects, from a
 * fixed rows file (data/cost-rows.jsonl: the patched 7.2 guest's ext4
 * figures of docs/cost.md, a 2-thread group where eager and deferred
 * journal alike, xfs without commits, tmpfs without a journal, a host
 * row alone in its group).  Each finding carries policy, baseline,
 * metric, value, baseline_value, ratio and text; "500x fewer" where
 * deferred saves, "no saving" where the figures are equal, and no
 * finding at all where a figure is null.  A finding over a null, a
 * missing field, a wrong ratio or a finding of a group without a
 * baseline fails.
 */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "row.h"

#ifndef ROWS
#error "ROWS: the path of the fixture"
#endif

static json_t *rows, *findings;

/* the finding of kernel/fs/threads/query, policy, metric (NULL: none) */
static json_t *get(const char *fs, int t, const char *q, const char *pol, const char *metric)
{
	size_t i;
	json_t *o;

	json_array_foreach(findings, i, o)
		if (!strcmp(sw_cost_str(o, "fs"), fs) && sw_cost_num(o, "threads") == t &&
		    !strcmp(sw_cost_str(o, "query"), q) && !strcmp(sw_cost_str(o, "policy"), pol) &&
		    !strcmp(sw_cost_str(o, "metric"), metric))
			return o;
	return NULL;
}

static int has_text(json_t *o, const char *needle)
{
	return o && strstr(sw_cost_str(o, "text"), needle);
}

static void load(void)
{
	char err[512];

	if (rows)
		return;
	rows = json_array();
	CHECK(!sw_cost_rows_load(ROWS, rows, err, sizeof(err)), "%s", err);
	findings = sw_cost_findings(rows);
}

SW_CASE(saving_said_with_its_figures)
{
	json_t *o;

	load();
	o = get("ext4", 1, "statx", "deferred", "updates_per_1k");
	CHECK(o, "no updates finding for deferred, ext4, 1 thread, statx");
	CHECK(has_text(o, "patched:7.2, ext4, 1 thread(s), query statx: deferred: 2 "
			  "timestamp updates per 1000 stores against eager's 1000 "
			  "(500x fewer)"), "text: %s", sw_cost_str(o, "text"));
	CHECK(!strcmp(sw_cost_str(o, "baseline"), "eager"));
	CHECK(sw_cost_num(o, "value") == 2 && sw_cost_num(o, "baseline_value") == 1000);
	CHECK(fabs(sw_cost_num(o, "ratio") - 0.002) < 1e-9, "ratio %g",
	      sw_cost_num(o, "ratio"));
	o = get("ext4", 1, "statx", "deferred", "handles_per_1k");
	CHECK(has_text(o, "2 journal handles per 1000 stores against eager's 1000 (500x fewer)"));
	o = get("ext4", 1, "statx", "lang", "handles_per_1k");
	CHECK(has_text(o, "lang: 2 journal handles"));
	o = get("ext4", 1, "statx", "lang", "updates_per_1k");
	CHECK(has_text(o, "lang: 1002 timestamp updates per 1000 stores against eager's "
			  "1000 (1.0x more)"));
	o = get("ext4", 1, "statx", "deferred", "commits_per_1k");
	CHECK(has_text(o, "2 journal commits per 1000 stores against eager's 0 "
			  "(more, against none)"));
	CHECK(o && json_is_null(json_object_get(o, "ratio")), "a ratio over eager's 0");
	o = get("ext4", 1, "statx", "deferred", "fault_p50_us");
	CHECK(has_text(o, "fault p50 0.48x and p99 0.10x eager's (TCG: ratios only)"));
}

SW_CASE(equal_is_no_saving)
{
	json_t *o;

	load();
	o = get("ext4", 2, "none", "deferred", "handles_per_1k");
	CHECK(has_text(o, "2 thread(s), query none: deferred: 7 journal handles per 1000 "
			  "stores against eager's 7 (no saving)"));
	CHECK(o && sw_cost_num(o, "ratio") == 1);
	o = get("xfs", 1, "statx", "deferred", "handles_per_1k");
	CHECK(has_text(o, "1000 transactions per 1000 stores against eager's 1000 (no saving)"));
}

SW_CASE(null_makes_no_finding)
{
	size_t i;
	json_t *o;

	load();
	CHECK(!get("ext4", 2, "none", "deferred", "updates_per_1k"),
	      "an updates finding without --query statx (null)");
	CHECK(!get("xfs", 1, "statx", "deferred", "commits_per_1k"), "xfs commits are null");
	CHECK(!get("tmpfs", 1, "statx", "deferred", "handles_per_1k"), "tmpfs has no journal");
	CHECK(!get("tmpfs", 1, "statx", "deferred", "commits_per_1k"), "tmpfs has no journal");
	json_array_foreach(findings, i, o) {
		static const char *const keys[] = { "policy", "baseline", "metric", "value",
						    "baseline_value", "ratio", "text" };
		for (int k = 0; k < 7; k++)
			CHECK(json_object_get(o, keys[k]), "finding %zu lacks %s", i, keys[k]);
		CHECK(!isnan(sw_cost_num(o, "value")) && !isnan(sw_cost_num(o, "baseline_value")),
		      "a finding over a null: %s", sw_cost_str(o, "text"));
		CHECK(strcmp(sw_cost_str(o, "policy"), "stock"),
		      "a finding of the host row, alone in its group: %s", sw_cost_str(o, "text"));
		CHECK(strcmp(sw_cost_str(o, "policy"), sw_cost_str(o, "baseline")),
		      "a row against itself: %s", sw_cost_str(o, "text"));
	}
}

SW_CASE(counts)
{
	load();
	/* ext4 statx: deferred 5 (latency, updates, handles, commits,
	 * dirtyings), lang 5; ext4 2 threads: 4 (no updates); xfs 4 (no
	 * commits); tmpfs 3 (no handles, no commits) */
	CHECK(json_array_size(findings) == 21, "saw %zu findings", json_array_size(findings));
}

SW_MAIN()
