/* SPDX-License-Identifier: MIT */
/*
 * validation.c - which `stalewin validate` run the model-based rows of a
 * report rest on: reads the validate JSON (--validation FILE)
 * and writes one line for the writeback model (host/guest writeback pairs)
 * and one for the client replay (kernel-reader pairs) into the summary.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

static void line(char *out, size_t len, const char *id, int in, int tot,
		 double w50, double w90, const char *what)
{
	if (tot == 0)
		snprintf(out, len, "not validated: validate %s has no %s pairs", id, what);
	else
		snprintf(out, len,
			 "validate %s: %d/%d %s pairs within bands, worst p50 err %.1f%%, p90 %.1f%%",
			 id, in, tot, what, 100 * w50, 100 * w90);
}

int sw_validation_load(struct sw_summary *S, const char *file, char *err, int errlen)
{
	json_error_t je;
	json_t *v = json_load_file(file, 0, &je), *pairs, *p;
	size_t i;
	int in[2] = { 0, 0 }, tot[2] = { 0, 0 };
	double w50[2] = { 0, 0 }, w90[2] = { 0, 0 };

	if (!v || !json_is_array(pairs = json_object_get(v, "pairs"))) {
		snprintf(err, errlen, "--validation %s: expected stalewin validate JSON with \"pairs\", saw %s",
			 file, v ? "no pairs array" : je.text);
		json_decref(v);
		return -1;
	}
	const char *id = json_string_value(json_object_get(v, "run_id"));
	json_array_foreach(pairs, i, p) {
		const char *n = json_string_value(json_object_get(p, "name"));
		int k = n && strstr(n, "kread") ? 1 : 0; /* 1: replay pair */
		json_t *re = json_object_get(p, "rel_err");
		double a = json_number_value(json_object_get(re, "p50"));
		double b = json_number_value(json_object_get(re, "p90"));
		tot[k]++;
		in[k] += json_is_true(json_object_get(p, "within"));
		w50[k] = a > w50[k] ? a : w50[k];
		w90[k] = b > w90[k] ? b : w90[k];
	}
	line(S->valid_wb, sizeof(S->valid_wb), id ? id : "?", in[0], tot[0], w50[0], w90[0], "writeback");
	line(S->valid_replay, sizeof(S->valid_replay), id ? id : "?", in[1], tot[1], w50[1], w90[1], "replay");
	json_decref(v);
	return 0;
}
