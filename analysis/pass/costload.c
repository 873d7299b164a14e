/* SPDX-License-Identifier: MIT */
/* costload.c - a cost.json read for the Cost section, found beside run
 * or study folders, and the mail's refusal of its absolute latencies not
 * known to be a machine's (costload.h). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "costload.h"

static double num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void copy(char *dst, size_t n, json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	snprintf(dst, n, "%s", s ? s : "");
}

static int same_group(const struct sw_costsec_row *a, const struct sw_costsec_row *b)
{
	return !strcmp(a->kernel, b->kernel) && !strcmp(a->fs, b->fs) &&
	       !strcmp(a->query, b->query) && a->threads == b->threads &&
	       a->spaced == b->spaced && a->pressure == b->pressure;
}

static void row_of(json_t *o, struct sw_costsec_row *r)
{
	json_t *tcg = json_object_get(o, "tcg");

	copy(r->kernel, sizeof(r->kernel), o, "kernel");
	copy(r->release, sizeof(r->release), o, "kernel_release");
	copy(r->policy, sizeof(r->policy), o, "policy");
	copy(r->fs, sizeof(r->fs), o, "fs");
	copy(r->query, sizeof(r->query), o, "query");
	copy(r->query_from, sizeof(r->query_from), o, "query_from");
	r->threads = (int)json_integer_value(json_object_get(o, "threads"));
	r->spaced = json_is_true(json_object_get(o, "spaced"));
	r->pressure = json_is_true(json_object_get(o, "pressure"));
	r->tcg = json_is_boolean(tcg) ? json_is_true(tcg) : -1;
	r->abs_latency = r->tcg != 1;
	r->p50_us = num(o, "fault_p50_us");
	r->p99_us = num(o, "fault_p99_us");
	r->p50_x = num(o, "fault_p50_vs_base");
	r->p99_x = num(o, "fault_p99_vs_base");
	r->handles = num(o, "handles_per_1k");
	r->commits = num(o, "commits_per_1k");
	r->updates = num(o, "updates_per_1k");
	r->dirtied = num(o, "dirty_inode_per_1k");
	r->polls_per_s = num(o, "polls_per_s");
}

int sw_costsec_load(const char *path, struct sw_costsec *cs, char *err, size_t errlen)
{
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je), *rows = json_object_get(root, "rows"), *o;
	size_t i;

	memset(cs, 0, sizeof(*cs));
	snprintf(cs->path, sizeof(cs->path), "%s", path);
	if (!json_is_array(rows) || !json_array_size(rows) ||
	    json_array_size(rows) > SW_COSTSEC_MAX_ROWS) {
		snprintf(err, errlen, "%s: expected a cost.json of stalewin cost with 1..%d rows, "
			 "saw %s", path, SW_COSTSEC_MAX_ROWS, !root ? je.text :
			 !json_is_array(rows) ? "no rows" : json_array_size(rows) ?
			 "too many rows" : "no rows");
		json_decref(root);
		return -1;
	}
	json_array_foreach(rows, i, o) {
		struct sw_costsec_row *r = &cs->rows[cs->n];

		if (!json_is_string(json_object_get(o, "policy")) ||
		    !json_is_string(json_object_get(o, "fs"))) {
			snprintf(err, errlen, "%s: rows[%zu]: expected a cost row with policy "
				 "and fs, saw none", path, i);
			json_decref(root);
			return -1;
		}
		row_of(o, r);
		r->group = cs->n && same_group(r, r - 1) ? r[-1].group : cs->ngroups++;
		cs->n++;
	}
	json_array_foreach(json_object_get(root, "findings"), i, o) {
		const char *t = json_is_string(o) ? json_string_value(o)
						  : json_string_value(json_object_get(o, "text"));
		if (t)
			sw_findings_add(&cs->findings, "%s", t);
	}
	json_decref(root);
	return 0;
}

int sw_costsec_find(char *const *dirs, int n, char *path, size_t len)
{
	/* the folder itself only: a cost.json of some folder above a run
	 * would put another measurement's figures under this one's */
	for (int i = 0; i < n; i++) {
		snprintf(path, len, "%s/cost/cost.json", dirs[i]);
		if (access(path, R_OK) == 0)
			return 1;
	}
	path[0] = 0;
	return 0;
}

void sw_costsec_refusals(const struct sw_costsec *cs, struct sw_findings *out)
{
	for (int i = 0; i < cs->n; i++) {
		const struct sw_costsec_row *r = &cs->rows[i];

		if (!r->abs_latency || r->tcg == 0 || (isnan(r->p50_us) && isnan(r->p99_us)))
			continue;
		sw_findings_add(out, "%s: the Cost section would give %s's fault latency on %s "
		    "(%s, %d thread(s)) in us, but its tcg is %s: a latency is posted only "
		    "from a row that says tcg false (a TCG guest's: ratios only).",
		    cs->path, r->policy, r->kernel, r->fs, r->threads,
		    r->tcg == 1 ? "true" : "missing or null");
	}
}
