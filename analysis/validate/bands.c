/* SPDX-License-Identifier: MIT */
/* bands.c - the bands and verdicts of `stalewin validate` (bands.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bands.h"

static void *fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return NULL;
}

/* a number, or NULL for null / absent / not a number */
static const json_t *num(const json_t *v)
{
	return json_is_number(v) ? v : NULL;
}

static double dbl(const json_t *v)
{
	return json_number_value(v);
}

/* jq's `a // b` with b = 0: the number, or 0 */
static double or0(const json_t *v)
{
	return num(v) ? dbl(v) : 0;
}

static int starts(const char *s, const char *p);

static json_t *get(const json_t *o, const char *k)
{
	return json_object_get(o, k); /* NULL when o is not an object */
}

static json_t *copy(json_t *v)
{
	return v ? json_incref(v) : json_null();
}

static double max2(double a, double b)
{
	return a > b ? a : b;
}

/* |a - b| / max(b, floor, 1); 0 when both are null, null when one is:
 * windows far below the resolution are not "100 % off" */
static json_t *relerr(const json_t *a, const json_t *b, double floor)
{
	if (!num(a) && !num(b))
		return json_integer(0);
	if (!num(a) || !num(b))
		return json_null();
	return json_real(fabs(dbl(a) - dbl(b)) / max2(max2(dbl(b), floor), 1));
}

static int within(const json_t *a, const json_t *b, double tol)
{
	if (!num(a) && !num(b))
		return 1;
	if (!num(a) || !num(b))
		return 0;
	return fabs(dbl(a) - dbl(b)) <= tol;
}

/* stalewin-model-sweep writes ">end" as -1; the reports as null */
static json_t *sweep_fig(const json_t *v)
{
	if (!num(v) || dbl(v) < 0)
		return json_null();
	return json_incref((json_t *)v);
}

/* p50/p90: 10 % of the real figure or one resolution */
static double tol_pct(const json_t *real, double res_ns)
{
	return max2(0.1 * or0(real), res_ns);
}

static double tol_unc(const json_t *real)
{
	return max2(2, 0.1 * or0(real));
}

static json_t *side_of(json_t *fig, json_t *updates)
{
	return json_pack("{s:O?,s:O?,s:O?,s:O?,s:O?,s:O?,s:O?}",
			 "stores", get(fig, "stores"), "uncovered", get(fig, "unresolved"),
			 "p50", get(fig, "p50_ns"), "p90", get(fig, "p90_ns"),
			 "p99", get(fig, "p99_ns"), "max", get(fig, "max_ns"),
			 "updates", updates);
}

json_t *sw_band_side(json_t *report, char *err, size_t errlen)
{
	json_t *figs = get(get(report, "results"), "figures"), *f;
	size_t i;

	json_array_foreach(figs, i, f) {
		const char *kind = json_string_value(get(f, "kind"));

		if (kind && !strcmp(kind, "truth"))
			return side_of(f, get(get(get(report, "results"), "cost"), "updates"));
	}
	return fail(err, errlen, "expected a report with a truth figure (results.figures[].kind \"truth\"), saw %s",
		    figs ? "none" : "no results.figures");
}

static void add_fail(json_t *fails, const char *fmt, ...)
{
	char b[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	json_array_append_new(fails, json_string(b));
}

/* p50, p90, uncovered of one side against the other (both row kinds) */
static void fails_common(json_t *fails, json_t *M, json_t *R, double res_ns)
{
	if (!within(get(M, "p50"), get(R, "p50"), tol_pct(get(R, "p50"), res_ns)))
		add_fail(fails, "p50");
	if (!within(get(M, "p90"), get(R, "p90"), tol_pct(get(R, "p90"), res_ns)))
		add_fail(fails, "p90");
}

static void fails_sweep(json_t *fails, json_t *s, json_t *R, double res_ns, double upd_tol)
{
	json_t *kp = get(s, "kernel_phase"), *s50, *s90;
	const char *how = "sweep median";
	int ok50, ok90;

	if (json_is_null(s) || json_is_false(s))
		return;
	if (kp && !json_is_null(kp) && !json_is_false(kp)) {
		s50 = sweep_fig(get(kp, "p50_ns"));
		s90 = sweep_fig(get(kp, "p90_ns"));
		how = "at the kernel's phase";
	} else {
		kp = NULL;
		s50 = sweep_fig(get(get(s, "p50_ns"), "median"));
		s90 = sweep_fig(get(get(s, "p90_ns"), "median"));
	}
	ok50 = within(s50, get(R, "p50"), tol_pct(get(R, "p50"), res_ns));
	ok90 = within(s90, get(R, "p90"), tol_pct(get(R, "p90"), res_ns));
	json_decref(s50);
	json_decref(s90);
	if (!ok50)
		add_fail(fails, "model p50 %s", how);
	if (!ok90)
		add_fail(fails, "model p90 %s", how);
	if (kp && !within(get(kp, "updates"), get(R, "updates"), upd_tol))
		add_fail(fails, "model updates at the kernel's phase");
}

/* {min, median, max} with ">end" (-1) as null */
static json_t *sweep_range(json_t *o)
{
	json_t *r = json_object(), *v;
	const char *k;

	json_object_foreach(o, k, v)
		json_object_set_new(r, k, sweep_fig(v));
	return r;
}

static json_t *sweep_obj(json_t *s, json_t *R, double res_ns)
{
	json_t *kp = get(s, "kernel_phase"), *k = json_null(), *m50, *m90, *o;

	if (!s || json_is_null(s) || json_is_false(s))
		return json_null();
	if (kp && !json_is_null(kp) && !json_is_false(kp)) {
		json_t *k50 = sweep_fig(get(kp, "p50_ns")), *k90 = sweep_fig(get(kp, "p90_ns"));

		json_decref(k);
		k = json_pack("{s:O,s:O,s:O?,s:O?,s:o,s:o}", "p50", k50, "p90", k90,
			      "updates", get(kp, "updates"),
			      "first_run_mono_ns", get(kp, "flusher_run_mono_ns"),
			      "p50_rel_err", relerr(k50, get(R, "p50"), res_ns),
			      "p90_rel_err", relerr(k90, get(R, "p90"), res_ns));
		json_decref(k50);
		json_decref(k90);
	}
	m50 = sweep_fig(get(get(s, "p50_ns"), "median"));
	m90 = sweep_fig(get(get(s, "p90_ns"), "median"));
	o = json_pack("{s:I,s:o,s:o,s:O?,s:o,s:o,s:o}",
		      "phases", (json_int_t)json_array_size(get(s, "phases")),
		      "p50", sweep_range(get(s, "p50_ns")), "p90", sweep_range(get(s, "p90_ns")),
		      "updates", get(s, "updates"),
		      "p50_rel_err", relerr(m50, get(R, "p50"), res_ns),
		      "p90_rel_err", relerr(m90, get(R, "p90"), res_ns), "kernel_phase", k);
	json_decref(m50);
	json_decref(m90);
	return o;
}

/* the emulated run's own stores replayed by the model at its lead, pages
 * dirty at each store's start and end: what the writer should have
 * decided live (scripts/validate-vm.sh self_replay) */
static json_t *replay_obj(json_t *start, json_t *end)
{
	json_t *o, *sides[2] = { start, end };

	if (!start || !end || json_is_null(start) || json_is_null(end))
		return json_null();
	o = json_pack("{s:O?,s:O?}", "lead_ms", get(end, "lead_ms"),
		      "first_read_lead_ms", get(end, "first_read_lead_ms"));
	for (int i = 0; i < 2; i++) {
		json_t *ph = json_array_get(get(sides[i], "phases"), 0);
		const char *key = json_string_value(get(sides[i], "store_time"));

		json_object_set_new(o, key ? key : (i ? "end" : "start"),
				    json_pack("{s:o,s:o,s:O?}", "p50", sweep_fig(get(ph, "p50_ns")),
					      "p90", sweep_fig(get(ph, "p90_ns")),
					      "updates", get(ph, "updates")));
	}
	return o;
}

static json_t *rel_errs(json_t *M, json_t *R, double res_ns, int updates)
{
	return json_pack("{s:o,s:o,s:o,s:o,s:o}",
			 "p50", relerr(get(M, "p50"), get(R, "p50"), res_ns),
			 "p90", relerr(get(M, "p90"), get(R, "p90"), res_ns),
			 "p99", relerr(get(M, "p99"), get(R, "p99"), res_ns),
			 "uncovered", relerr(get(M, "uncovered"), get(R, "uncovered"), 1),
			 "updates", updates ? relerr(get(M, "updates"), get(R, "updates"), 1)
					    : json_null());
}

json_t *sw_band_disturbance(const char *trace, const char *bdi, char *err, size_t errlen)
{
	FILE *f = fopen(trace, "re");
	char key[64], line[1024];
	json_int_t sync = 0, vmscan = 0, other = 0;

	if (!f)
		return fail(err, errlen, "expected the host's writeback trace in %s, saw it unreadable", trace);
	snprintf(key, sizeof(key), ": writeback_start: bdi %s: ", bdi);
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, key), *r = p ? strstr(p, " reason=") : NULL;

		if (!r || starts(r, " reason=periodic") || starts(r, " reason=background"))
			continue;
		if (starts(r, " reason=sync"))
			sync++;
		else if (starts(r, " reason=vmscan"))
			vmscan++;
		else
			other++;
	}
	fclose(f);
	return json_pack("{s:I,s:I,s:I}", "sync", sync, "vmscan", vmscan, "other", other);
}

/* The model run's (flusher pass, page) pairs whose trap count moves when
 * a pass moves within the pair's timing (report.json cost.clean_edge,
 * analysis/pass/cleanedge.h; the smallest window at or above it): a
 * kernel whose passes agree with the model's that closely may differ by
 * that many updates.  The timing is the pair's resolution, but never past
 * EDGE_MAX_MS: the model claims the kernel's timer-wheel bucket for each
 * pass (a 1 s delay fires on a 32 ms boundary at HZ 250), not less, so a
 * pair of coarse resolution (burst-silence's 2.5 s) does not widen its
 * band by pairs a pass could only reach by moving more.  0 without the
 * figure. */
#define EDGE_MAX_MS 32
static json_int_t edge_pairs(json_t *model, double res_ms, double *window_ms)
{
	json_t *ce = get(get(get(model, "results"), "cost"), "clean_edge");
	json_t *w = get(ce, "window_ms"), *n = get(ce, "page_pairs");
	size_t k, len = json_array_size(w);

	if (!len || json_array_size(n) != len)
		return 0;
	for (k = 0; k + 1 < len; k++)
		if (dbl(json_array_get(w, k)) >= res_ms)
			break;
	*window_ms = dbl(json_array_get(w, k));
	return json_integer_value(json_array_get(n, k));
}

json_t *sw_band_row(const struct sw_band_pair *p, char *err, size_t errlen)
{
	json_t *M, *R, *fails, *row, *dist = NULL;
	double res_ns, upd_tol;

	if (!num(p->writeback_ms) || !num(p->expire_ms) || !num(p->duration_s) ||
	    !num(p->resolution_ms))
		return fail(err, errlen, "expected numbers for the writeback, expire, duration and resolution of pair %s",
			    p->name);
	if (!(M = sw_band_side(p->model, err, errlen)))
		return NULL;
	if (!(R = sw_band_side(p->real, err, errlen))) {
		json_decref(M);
		return NULL;
	}
	res_ns = dbl(p->resolution_ms) * 1e6;
	double edge_ms = dbl(p->resolution_ms) < EDGE_MAX_MS ? dbl(p->resolution_ms) : EDGE_MAX_MS;
	double window_ms = 0;
	json_int_t edge = edge_pairs(p->model, edge_ms, &window_ms);
	upd_tol = max2(1, dbl(p->duration_s) / 10) + (double)edge;
	fails = json_array();
	fails_common(fails, M, R, res_ns);
	if (!within(get(M, "max"), get(R, "max"), dbl(p->writeback_ms) * 1e6))
		add_fail(fails, "max");
	if (!within(get(M, "uncovered"), get(R, "uncovered"), tol_unc(get(R, "uncovered"))))
		add_fail(fails, "uncovered");
	if (!within(get(M, "updates"), get(R, "updates"), upd_tol))
		add_fail(fails, "updates");
	if (fabs(or0(get(M, "stores")) - or0(get(R, "stores"))) >
	    max2(1, 0.01 * or0(get(R, "stores"))))
		add_fail(fails, "stores differ");
	if (p->sweep)
		fails_sweep(fails, p->sweep, R, res_ns, upd_tol);
	if (p->host_trace && p->bdi &&
	    !(dist = sw_band_disturbance(p->host_trace, p->bdi, err, errlen))) {
		json_decref(M);
		json_decref(R);
		json_decref(fails);
		return NULL;
	}
	json_int_t nd = json_integer_value(get(dist, "sync")) +
			json_integer_value(get(dist, "vmscan")) + json_integer_value(get(dist, "other"));
	if (nd)
		add_fail(fails, "disturbed: %lld writebacks of the disk not the flusher's (sync %lld, reclaim %lld)",
			 (long long)nd, (long long)json_integer_value(get(dist, "sync")),
			 (long long)json_integer_value(get(dist, "vmscan")));
	row = json_pack("{s:s,s:s,s:s,s:O,s:O,s:O,s:O,s:s,s:o,s:O,s:O,s:o,s:o,s:o,s:o,s:b,s:o}",
			"name", p->name, "fs", p->fs, "workload", p->workload,
			"writeback_ms", p->writeback_ms, "expire_ms", p->expire_ms,
			"duration_s", p->duration_s, "resolution_ms", p->resolution_ms,
			"load_avg", p->load, "lead_s", copy(p->lead_s), "model", M, "real", R,
			"runs", copy(p->runs), "model_sweep", sweep_obj(p->sweep, R, res_ns),
			"emulated_replay", replay_obj(p->replay_start, p->replay_end),
			"rel_err", rel_errs(M, R, res_ns, 1),
			"within", json_array_size(fails) == 0, "fails", fails);
	json_decref(M);
	json_decref(R);
	/* a band widened by the pass-hinged updates says so; rows without
	 * them stay as they were */
	if (row && edge) {
		json_object_set_new(row, "updates_tolerance", json_real(upd_tol));
		json_object_set_new(row, "clean_edge_pairs", json_integer(edge));
		json_object_set_new(row, "clean_edge_window_ms", json_real(window_ms));
	}
	/* traced pairs only: untraced rows stay as they were */
	if (row && dist)
		json_object_set_new(row, "host_writebacks_not_flusher", dist);
	else
		json_decref(dist);
	if (!row)
		return fail(err, errlen, "expected the row of pair %s to be built, saw it fail (out of memory?)", p->name);
	return row;
}

/* a kernel reader's side: its figure, with no update count of its own */
static json_t *kside(json_t *fig)
{
	return side_of(fig, NULL);
}

static int starts(const char *s, const char *p)
{
	return s && !strncmp(s, p, strlen(p));
}

static int ends(const char *s, const char *e)
{
	size_t n = s ? strlen(s) : 0, m = strlen(e);

	return n >= m && !strcmp(s + n - m, e);
}

/* acregmin of a mount, in s: acregmin=N, else 0 with noac, else 3 */
static double mount_acmin(const char *opts)
{
	double acmin = -1;
	int noac = 0;
	char *dup = strdup(opts ? opts : ""), *save = NULL;

	for (char *o = strtok_r(dup, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		if (acmin < 0 && starts(o, "acregmin="))
			acmin = strtod(o + 9, NULL);
		noac |= !strcmp(o, "noac");
	}
	free(dup);
	return acmin >= 0 ? acmin : noac ? 0 : 3;
}

/* "mount vers=3,ac...,nocto" of the options that decide the cache */
static void mount_words(const char *opts, char *b, size_t len)
{
	static const char *const keep[] = { "vers", "ac", "noac", "nocto", "actimeo" };
	char *dup = strdup(opts ? opts : ""), *save = NULL;
	size_t n = (size_t)snprintf(b, len, "mount ");
	int first = 1;

	for (char *o = strtok_r(dup, ",", &save); o && n < len; o = strtok_r(NULL, ",", &save))
		for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
			if (starts(o, keep[i])) {
				n += (size_t)snprintf(b + n, len - n, "%s%s", first ? "" : ",", o);
				first = 0;
				break;
			}
	free(dup);
}

static json_t *kread_row(json_t *k, const char *key, json_t *real, json_t *rp,
			 const char *run, json_t *every_ms, const char *load)
{
	const char *opts = json_string_value(get(k, "mount_options"));
	double res_ns = dbl(every_ms) * 1e6;
	json_t *M = kside(rp), *R = kside(real), *fails = json_array(), *st, *row;
	char name[256], wl[512], ev[64];

	fails_common(fails, M, R, res_ns);
	if (!within(get(M, "max"), get(R, "max"), max2(mount_acmin(opts) * 1e9, res_ns)))
		add_fail(fails, "max");
	if (!within(get(M, "uncovered"), get(R, "uncovered"), tol_unc(get(R, "uncovered"))))
		add_fail(fails, "uncovered");
	st = get(R, "stores");
	if (!num(st) || dbl(st) < 300)
		add_fail(fails, "fewer than 300 stores");
	snprintf(name, sizeof(name), "%s/kread-%s", run, key);
	mount_words(opts, wl, sizeof(wl));
	if (json_is_integer(every_ms))
		snprintf(ev, sizeof(ev), "%lld", (long long)json_integer_value(every_ms));
	else
		snprintf(ev, sizeof(ev), "%g", dbl(every_ms));
	snprintf(wl + strlen(wl), sizeof(wl) - strlen(wl), ", reader %s every %s ms",
		 json_string_value(get(k, "mode")) ? json_string_value(get(k, "mode")) : "null", ev);
	row = json_pack("{s:s,s:s,s:s,s:i,s:i,s:i,s:O,s:s,s:O,s:O,s:o,s:{s:O?,s:O?,s:O?,s:O?,s:O?,s:O?},s:b,s:o}",
			"name", name, "fs", "NFS client guest", "workload", wl,
			"writeback_ms", 1000, "expire_ms", 5000, "duration_s", 40,
			"resolution_ms", every_ms, "load_avg", load, "model", M, "real", R,
			"rel_err", rel_errs(M, R, res_ns, 0), "replay_rpc",
			"revalidations", get(k, "replay_revalidations"),
			"traced", get(k, "replay_traced"),
			"undetermined", get(k, "replay_undetermined"),
			"undetermined_against_rule", get(k, "replay_undetermined_against_rule"),
			"match", get(k, "replay_match"),
			"same_read", get(k, "replay_same_read"),
			"within", json_array_size(fails) == 0, "fails", fails);
	json_decref(M);
	json_decref(R);
	return row;
}

json_t *sw_band_kread(json_t *report, const char *run, json_t *every_ms,
		      const char *load, char *err, size_t errlen)
{
	json_t *kr = get(get(report, "results"), "kread");
	json_t *figs = get(get(report, "results"), "figures"), *rows, *k;
	size_t j;

	if (!num(every_ms))
		return fail(err, errlen, "expected the reader's period in ms as a number");
	if (!json_is_array(kr))
		return fail(err, errlen, "expected results.kread[] in the VM run's report, saw %s",
			    kr ? "another type" : "none");
	rows = json_array();
	json_array_foreach(kr, j, k) {
		char pre[64], rpname[64];
		json_t *f, *g;
		size_t a, b;

		snprintf(pre, sizeof(pre), "kread-%zu ", j);
		snprintf(rpname, sizeof(rpname), "kread-%zu replay", j);
		json_array_foreach(figs, a, f) {
			const char *n = json_string_value(get(f, "name"));

			if (!starts(n, pre) || ends(n, "replay"))
				continue;
			json_array_foreach(figs, b, g) {
				const char *m = json_string_value(get(g, "name"));
				char key[32];

				if (!m || strcmp(m, rpname))
					continue;
				snprintf(key, sizeof(key), "%zu", j);
				json_array_append_new(rows, kread_row(k, key, f, g, run, every_ms, load));
			}
		}
	}
	return rows;
}

json_t *sw_band_failed(const char *name)
{
	return json_pack("{s:s,s:b,s:[s]}", "name", name, "within", 0, "fails", "run failed");
}

size_t sw_band_median_run(json_t *const *reports, size_t n, char *err, size_t errlen)
{
	double *p50 = calloc(n ? n : 1, sizeof(*p50));
	size_t *idx = calloc(n ? n : 1, sizeof(*idx)), pick;

	if (!p50 || !idx || !n) {
		free(p50);
		free(idx);
		fail(err, errlen, "expected at least one report, saw %zu", n);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		json_t *s = sw_band_side(reports[i], err, errlen);

		if (!s) {
			free(p50);
			free(idx);
			return 0;
		}
		p50[i] = num(get(s, "p50")) ? dbl(get(s, "p50")) : INFINITY;
		idx[i] = i;
		json_decref(s);
	}
	/* a stable insertion sort: equal figures keep their run order */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && p50[idx[j - 1]] > p50[idx[j]]; j--) {
			size_t t = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	pick = idx[(n - 1) / 2] + 1;
	free(p50);
	free(idx);
	return pick;
}

static json_t *sides(json_t *const *r, size_t n, char *err, size_t errlen)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++) {
		json_t *s = sw_band_side(r[i], err, errlen);

		if (!s) {
			json_decref(a);
			return NULL;
		}
		json_array_append_new(a, s);
	}
	return a;
}

json_t *sw_band_runs(json_t *const *model, size_t nm, json_t *const *real, size_t nr,
		     const char *cmp_model, const char *cmp_real, char *err, size_t errlen)
{
	json_t *m = sides(model, nm, err, errlen), *r;

	if (!m)
		return NULL;
	if (!(r = sides(real, nr, err, errlen))) {
		json_decref(m);
		return NULL;
	}
	return json_pack("{s:o,s:o,s:{s:s,s:s}}", "model", m, "real", r, "compared",
			 "model", cmp_model, "real", cmp_real);
}

/* the largest of the rows' rel_err.K; null when a row has none */
static json_t *worst(json_t *rows, const char *k)
{
	json_t *r, *v, *best = NULL;
	size_t i;

	json_array_foreach(rows, i, r) {
		v = get(get(r, "rel_err"), k);
		if (!num(v))
			return json_null();
		if (!best || dbl(v) > dbl(best))
			best = v;
	}
	return copy(best);
}

json_t *sw_band_summary(json_t *const *rows, size_t n, const char *run_id,
			const char *load, const char *vm_note)
{
	json_t *pairs = json_array(), *r;
	json_int_t in = 0;
	int failed = 0;
	size_t i;

	for (size_t f = 0; f < n; f++) {
		if (json_is_array(rows[f]))
			json_array_extend(pairs, rows[f]);
		else
			json_array_append(pairs, rows[f]);
	}
	json_array_foreach(pairs, i, r) {
		json_t *fl = get(r, "fails"), *x;
		size_t j;

		in += json_is_true(get(r, "within"));
		json_array_foreach(fl, j, x)
			failed |= json_string_value(x) && !strcmp(json_string_value(x), "run failed");
	}
	return json_pack("{s:s,s:i,s:s,s:s,s:s?,s:b,s:o,s:o,s:o,s:I,s:I}",
			 "schema", "stalewin-validate", "schema_version", 1, "run_id", run_id,
			 "load_avg_end", load, "vm", vm_note, "complete", !vm_note && !failed,
			 "pairs", pairs, "worst_p50_rel_err", worst(pairs, "p50"),
			 "worst_p90_rel_err", worst(pairs, "p90"),
			 "pairs_within_bands", in, "pairs_total", (json_int_t)json_array_size(pairs));
}

int sw_band_verdict(json_t *summary)
{
	json_t *in = get(summary, "pairs_within_bands"), *tot = get(summary, "pairs_total");

	if (!json_is_integer(in) || !json_is_integer(tot) ||
	    json_integer_value(in) != json_integer_value(tot))
		return 1;
	return json_is_string(get(summary, "vm")) ? 3 : 0;
}
