/* SPDX-License-Identifier: MIT */
/* bands_fmt.c - the text of validate's rows and its footer (bands.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bands.h"

/* a JSON value as jq writes it into a string: numbers shortest, strings
 * bare, null as "null" */
static const char *val(const json_t *v, char *b, size_t len)
{
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v)) {
		snprintf(b, len, "%lld", (long long)json_integer_value(v));
		return b;
	}
	if (json_is_real(v)) {
		double d = json_real_value(v);

		if (d == floor(d) && fabs(d) < 1e17) {
			snprintf(b, len, "%.0f", d);
			return b;
		}
		for (int p = 1; p <= 17; p++) {
			snprintf(b, len, "%.*g", p, d);
			if (strtod(b, NULL) == d)
				break;
		}
		return b;
	}
	if (json_is_true(v) || json_is_false(v))
		return json_is_true(v) ? "true" : "false";
	return "null";
}

static json_t *at(const json_t *o, const char *path)
{
	char k[64];
	const char *dot;
	json_t *v = (json_t *)o;

	while (v && (dot = strchr(path, '.'))) {
		snprintf(k, sizeof(k), "%.*s", (int)(dot - path), path);
		v = json_object_get(v, k);
		path = dot + 1;
	}
	return v ? json_object_get(v, path) : NULL;
}

/* seconds with two decimals; ">end" for null */
static const char *secs(const json_t *v, char *b, size_t len)
{
	char t[40];
	json_t *r;

	if (!json_is_number(v))
		return ">end";
	r = json_real(round(json_number_value(v) / 1e9 * 100) / 100);
	snprintf(b, len, "%ss", val(r, t, sizeof(t)));
	json_decref(r);
	return b;
}

/* a relative error as a percentage, one decimal; "n/a" for null */
static const char *pct(const json_t *v, char *b, size_t len)
{
	char t[40];
	json_t *r;

	if (!json_is_number(v))
		return "n/a";
	r = json_real(round(json_number_value(v) * 1000) / 10);
	snprintf(b, len, "%s%%", val(r, t, sizeof(t)));
	json_decref(r);
	return b;
}

#define V(o, p) val(at(o, p), vb[vi++ % 8], sizeof(vb[0]))
#define S(o, p) secs(at(o, p), vb[vi++ % 8], sizeof(vb[0]))
#define P(o, p) pct(at(o, p), vb[vi++ % 8], sizeof(vb[0]))

static void side_line(FILE *f, const char *label, const json_t *row, const char *k)
{
	static const struct {
		const char *key;
		int secs; /* a time in ns, printed in s */
	} figs[] = { { "p50", 1 }, { "p90", 1 }, { "p99", 1 }, { "max", 1 },
		     { "uncovered", 0 }, { "updates", 0 } };
	char vb[8][64], p[32];
	unsigned vi = 0;

	fprintf(f, "  %s", label);
	for (size_t i = 0; i < sizeof(figs) / sizeof(figs[0]); i++) {
		snprintf(p, sizeof(p), "%s.%s", k, figs[i].key);
		fprintf(f, " %s %s", figs[i].key, figs[i].secs ? S(row, p) : V(row, p));
	}
	snprintf(p, sizeof(p), "%s.stores", k);
	fprintf(f, " (%s stores)\n", V(row, p));
}

/* a sweep's {min, median, max} as "a..b..c" in s */
static void range_s(FILE *f, const json_t *r)
{
	static const char *const k[] = { "min", "median", "max" };
	char b[64];

	for (int i = 0; i < 3; i++)
		fprintf(f, "%s%s", i ? ".." : "", secs(json_object_get(r, k[i]), b, sizeof(b)));
}

/* "updates U; [WHAT]off by p50 X p90 Y": the updates at UPD, the relative
 * errors at K.p50_rel_err and K.p90_rel_err */
static void updates_off(FILE *f, const json_t *row, const char *upd,
			const char *what, const char *k)
{
	char vb[8][64], p50[96], p90[96];
	unsigned vi = 0;

	snprintf(p50, sizeof(p50), "%s.p50_rel_err", k);
	snprintf(p90, sizeof(p90), "%s.p90_rel_err", k);
	fprintf(f, "updates %s; ", V(row, upd));
	fprintf(f, "%soff by p50 %s ", what, P(row, p50));
	fprintf(f, "p90 %s\n", P(row, p90));
}

static void sweep_lines(FILE *f, const json_t *row)
{
	char vb[8][64];
	unsigned vi = 0;
	const json_t *e = at(row, "emulated_replay");

	fprintf(f, "  sweep: the model on the real run's stores, %s phases: p50 ",
		V(row, "model_sweep.phases"));
	range_s(f, at(row, "model_sweep.p50"));
	fprintf(f, " p90 ");
	range_s(f, at(row, "model_sweep.p90"));
	fprintf(f, " (min..median..max) ");
	updates_off(f, row, "model_sweep.updates.median", "median ", "model_sweep");
	if (e && !json_is_null(e)) {
		fprintf(f, "  emulated replay: the model on the emulated run's own stores at its lead (%s ms), ",
			V(e, "lead_ms"));
		fprintf(f, "pages dirty at each store's start / end: p50 %s / ", S(e, "start.p50"));
		fprintf(f, "%s p90 ", S(e, "end.p50"));
		fprintf(f, "%s / ", S(e, "start.p90"));
		fprintf(f, "%s updates ", S(e, "end.p90"));
		fprintf(f, "%s / ", V(e, "start.updates"));
		fprintf(f, "%s\n", V(e, "end.updates"));
	}
	if (!json_is_object(at(row, "model_sweep.kernel_phase")))
		return;
	fprintf(f, "  kernel phase: the model on those stores from the kernel's own first flusher run: p50 %s ",
		S(row, "model_sweep.kernel_phase.p50"));
	fprintf(f, "p90 %s ", S(row, "model_sweep.kernel_phase.p90"));
	updates_off(f, row, "model_sweep.kernel_phase.updates", "", "model_sweep.kernel_phase");
}

static void runs_line(FILE *f, const json_t *row)
{
	char vb[8][64];
	unsigned vi = 0;
	const char *sides[2] = { "runs.model", "runs.real" };

	fprintf(f, "  runs:  ");
	for (int s = 0; s < 2; s++) {
		json_t *a = at(row, sides[s]), *r;
		size_t i;

		fprintf(f, "%s p50 ", s ? "  real" : "model");
		json_array_foreach(a, i, r)
			fprintf(f, "%s%s", i ? " " : "", S(r, "p50"));
	}
	fprintf(f, "  (compared: %s, ", V(row, "runs.compared.model"));
	fprintf(f, "%s: the median of each)\n", V(row, "runs.compared.real"));
}

static int one_line(FILE *f, const json_t *row)
{
	char vb[8][64];
	unsigned vi = 0;
	const json_t *lead = at(row, "lead_s"), *fails = at(row, "fails"), *x;
	size_t i;

	fprintf(f, "%s [", V(row, "name"));
	fprintf(f, "%s, wb ", V(row, "fs"));
	fprintf(f, "%s ms, expire ", V(row, "writeback_ms"));
	fprintf(f, "%s ms, ", V(row, "expire_ms"));
	fprintf(f, "%s s", V(row, "duration_s"));
	if (lead && !json_is_null(lead) && !json_is_false(lead))
		fprintf(f, ", first store %s s after the file's creation", V(row, "lead_s"));
	fprintf(f, ", load %s]\n", V(row, "load_avg"));
	side_line(f, "model:", row, "model");
	side_line(f, "real: ", row, "real");
	if (json_is_object(at(row, "model_sweep")))
		sweep_lines(f, row);
	if (json_is_number(at(row, "replay_rpc.revalidations")) ||
	    json_is_string(at(row, "replay_rpc.revalidations"))) {
		fprintf(f, "  replay: %s of ", V(row, "replay_rpc.traced"));
		fprintf(f, "%s revalidations at the client's traced jiffies\n",
			V(row, "replay_rpc.revalidations"));
	}
	if (json_is_object(at(row, "replay_rpc.match"))) {
		fprintf(f, "  GETATTRs: replay %s, ", V(row, "replay_rpc.match.replay"));
		fprintf(f, "client %s, ", V(row, "replay_rpc.match.client"));
		fprintf(f, "at the same read %s", V(row, "replay_rpc.match.matched"));
		if (json_is_object(at(row, "replay_rpc.match.first_part"))) {
			fprintf(f, "; first apart: %s ", V(row, "replay_rpc.match.first_part.side"));
			fprintf(f, "at %s ns", V(row, "replay_rpc.match.first_part.t_mono_ns"));
		}
		fprintf(f, "\n");
	}
	if (json_is_object(at(row, "runs")))
		runs_line(f, row);
	if (json_is_number(at(row, "clean_edge_pairs"))) {
		fprintf(f, "  updates band: +-%s (1 per 10 s, and ", V(row, "updates_tolerance"));
		fprintf(f, "%s of the model's (pass, page) pairs trap once or twice ", V(row, "clean_edge_pairs"));
		fprintf(f, "as a pass moves by %s ms)\n", V(row, "clean_edge_window_ms"));
	}
	fprintf(f, "  err:   p50 %s ", P(row, "rel_err.p50"));
	fprintf(f, "p90 %s ", P(row, "rel_err.p90"));
	fprintf(f, "p99 %s  -> ", P(row, "rel_err.p99"));
	if (json_is_true(at(row, "within"))) {
		fprintf(f, "within bands\n");
	} else {
		fprintf(f, "OUTSIDE: ");
		json_array_foreach(fails, i, x)
			fprintf(f, "%s%s", i ? ", " : "", val(x, vb[0], sizeof(vb[0])));
		fprintf(f, "\n");
	}
	return ferror(f) ? -1 : 0;
}

int sw_band_line(FILE *f, json_t *row)
{
	json_t *r;
	size_t i;

	if (!json_is_array(row))
		return one_line(f, row);
	json_array_foreach(row, i, r)
		if (one_line(f, r))
			return -1;
	return 0;
}

int sw_band_footer(FILE *f, json_t *summary)
{
	char vb[8][64];
	unsigned vi = 0;

	fprintf(f, "validate %s: ", V(summary, "run_id"));
	fprintf(f, "%s/", V(summary, "pairs_within_bands"));
	fprintf(f, "%s pairs within bands; ", V(summary, "pairs_total"));
	fprintf(f, "worst p50 error %s, ", P(summary, "worst_p50_rel_err"));
	fprintf(f, "worst p90 error %s\n", P(summary, "worst_p90_rel_err"));
	if (json_is_string(at(summary, "vm")))
		fprintf(f, "--vm: skipped: %s\n", V(summary, "vm"));
	return ferror(f) ? -1 : 0;
}
