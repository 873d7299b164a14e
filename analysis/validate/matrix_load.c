/* SPDX-License-Identifier: MIT */
/* matrix_load.c - read a `stalewin vm matrix` output folder into cells
 * (matrix.h): each run folder's report.json (stalewin-report's figures),
 * the first row of report.csv (the first store's truth window),
 * server/nfsd-states.txt (delegations sampled), server/trace.txt (the
 * guest's tracepoints), and the quiet runs' writer logs and traces. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "matrix.h"
#include "records.h"
#include "swlog.h"

int sw_matrix_addstr(char ***v, int *n, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	va_start(ap, fmt);
	int rc = vasprintf(&s, fmt, ap);
	va_end(ap);
	char **nv = rc < 0 ? NULL : realloc(*v, sizeof(char *) * (size_t)(*n + 1));
	if (!nv) {
		free(rc < 0 ? NULL : s);
		return -1;
	}
	nv[(*n)++] = s;
	*v = nv;
	return 0;
}

static int split_list(const char *s, char *dst, size_t w, int *n, const char *what,
		      char *err, size_t errn)
{
	*n = 0;
	for (const char *p = s; *p;) {
		size_t len = strcspn(p, ",");
		if (*n >= SW_MX_MAX || len == 0 || len >= w) {
			snprintf(err, errn, "--%s: expected at most %d comma-separated names of "
				 "1..%zu characters, saw '%s'", what, SW_MX_MAX, w - 1, s);
			return -1;
		}
		snprintf(dst + (size_t)*n * w, w, "%.*s", (int)len, p);
		(*n)++;
		p += len + (p[len] == ',');
	}
	if (!*n) {
		snprintf(err, errn, "--%s: expected a comma-separated list, saw nothing", what);
		return -1;
	}
	return 0;
}

int sw_matrix_init(struct sw_matrix *M, const char *out, const char *kernels,
		   const char *fs, const char *workloads, char *err, size_t n)
{
	memset(M, 0, sizeof(*M));
	snprintf(M->out, sizeof(M->out), "%s", out);
	if (split_list(kernels, &M->kernels[0][0], sizeof(M->kernels[0]), &M->nk, "kernels", err, n) ||
	    split_list(fs, &M->fs[0][0], sizeof(M->fs[0]), &M->nf, "fs", err, n) ||
	    split_list(workloads, &M->workloads[0][0], sizeof(M->workloads[0]), &M->nw,
		       "workloads", err, n))
		return -1;
	return 0;
}

static void free_strs(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void sw_matrix_free(struct sw_matrix *M)
{
	for (int i = 0; i < M->ncells; i++) {
		json_decref(M->cells[i].explained);
		json_decref(M->cells[i].revealed_by);
	}
	free(M->cells);
	free(M->quiet);
	free_strs(M->findings, M->nfindings);
	free_strs(M->missing, M->nmissing);
	free_strs(M->problems, M->nproblems);
}

/* ------------------------------------------------------------ small readers */

static int64_t jint(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_integer(v) ? (int64_t)json_integer_value(v) : SW_MX_NONE;
}

static const char *sval(json_t *v, const char *dflt)
{
	const char *s = json_string_value(v);
	return s ? s : dflt;
}

/* Where a cell's figure comes from in report.json. */
enum cf_src {
	CF_TRUTH,    /* the truth figure (v3) or the observer's own (v4) */
	CF_OBS,      /* the observer's figure */
	CF_OBSERVER, /* the observer's object */
	CF_CONS,     /* its consistency object */
	CF_N
};

static double jsec(json_t *o, const char *k);

/* The figures a cell copies from report.json: key, object, field, and
 * whether the value is ns turned into seconds (a double) or a count. */
static const struct {
	enum cf_src src;
	const char *key;
	size_t off;
	int sec;
} cell_fields[] = {
	{ CF_TRUTH, "stores", offsetof(struct sw_mx_cell, stores), 0 },
	{ CF_TRUTH, "p50_ns", offsetof(struct sw_mx_cell, truth_p50_s), 1 },
	{ CF_TRUTH, "p99_ns", offsetof(struct sw_mx_cell, truth_p99_s), 1 },
	{ CF_TRUTH, "max_ns", offsetof(struct sw_mx_cell, truth_max_s), 1 },
	{ CF_TRUTH, "unresolved", offsetof(struct sw_mx_cell, uncovered), 0 },
	{ CF_OBS, "p50_ns", offsetof(struct sw_mx_cell, observed_p50_s), 1 },
	{ CF_OBS, "unresolved", offsetof(struct sw_mx_cell, observed_unseen), 0 },
	{ CF_OBSERVER, "resolution_ns", offsetof(struct sw_mx_cell, resolution_s), 1 },
	{ CF_CONS, "checked", offsetof(struct sw_mx_cell, checked), 0 },
	{ CF_CONS, "consistent", offsetof(struct sw_mx_cell, consistent), 0 },
	{ CF_CONS, "early", offsetof(struct sw_mx_cell, early), 0 },
	{ CF_CONS, "late", offsetof(struct sw_mx_cell, late), 0 },
};

static void cell_fields_load(struct sw_mx_cell *c, json_t *const src[CF_N])
{
	for (size_t i = 0; i < sizeof(cell_fields) / sizeof(cell_fields[0]); i++) {
		char *dst = (char *)c + cell_fields[i].off;
		json_t *o = src[cell_fields[i].src];
		if (cell_fields[i].sec) {
			double v = jsec(o, cell_fields[i].key);
			memcpy(dst, &v, sizeof(v));
		} else {
			int64_t v = jint(o, cell_fields[i].key);
			memcpy(dst, &v, sizeof(v));
		}
	}
}

static double jsec(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) / 1e9 : NAN;
}

/* "server=R client=R2": R, or "" */
static void read_release(const char *kdir, char *rel, size_t n)
{
	char p[4608], line[256];
	rel[0] = 0;
	snprintf(p, sizeof(p), "%s/vm/kernel-release.txt", kdir);
	FILE *f = fopen(p, "r");
	if (!f)
		return;
	if (fgets(line, sizeof(line), f)) {
		line[strcspn(line, " \t\r\n")] = 0;
		char *eq = strchr(line, '=');
		if (eq)
			snprintf(rel, n, "%s", eq + 1);
	}
	fclose(f);
}

/* report.csv's first row, column w_truth_ns: ns, or NAN (empty/absent) */
static double first_truth_s(const char *dir)
{
	char p[4608], hdr[8192], row[8192];
	snprintf(p, sizeof(p), "%s/report.csv", dir);
	FILE *f = fopen(p, "r");
	double v = NAN;
	if (!f)
		return NAN;
	if (fgets(hdr, sizeof(hdr), f) && fgets(row, sizeof(row), f)) {
		int col = -1, i = 0;
		for (char *s = hdr, *t; (t = strsep(&s, ",\r\n")); i++)
			if (!strcmp(t, "w_truth_ns")) {
				col = i;
				break;
			}
		i = 0;
		for (char *s = row, *t; col >= 0 && (t = strsep(&s, ",\r\n")); i++)
			if (i == col) {
				char *e;
				long long x = strtoll(t, &e, 10);
				if (*t && e != t && !*e)
					v = (double)x / 1e9;
				break;
			}
	}
	fclose(f);
	return v;
}

/* server/nfsd-states.txt: "UPTIME STATEID: { type: deleg, ... filename:
 * "/f-N" ... }" lines, sampled ~1 s apart during the writer run */
static int read_deleg(const char *dir, int experiment, struct sw_mx_deleg *d)
{
	char p[4608], line[1024], fname[32], prev[40] = "", prevd[40] = "";
	snprintf(p, sizeof(p), "%s/server/nfsd-states.txt", dir);
	FILE *f = fopen(p, "r");
	if (!f)
		return -1;
	snprintf(fname, sizeof(fname), "\"/f-%d\"", experiment);
	*d = (struct sw_mx_deleg){ 0, 0, NAN, NAN, NAN };
	char **samples = NULL;
	int ns = 0, bad = 0;
	while (fgets(line, sizeof(line), f)) {
		char t[40];
		snprintf(t, sizeof(t), "%.*s", (int)strcspn(line, " \n"), line);
		char *e;
		double up = strtod(t, &e);
		if (!*t || *e)
			bad = 1;
		if (!ns || strcmp(prev, t)) {
			if (sw_matrix_addstr(&samples, &ns, "%s", t)) {
				bad = 1;
				break;
			}
			snprintf(prev, sizeof(prev), "%s", t);
		}
		if (strstr(line, "type: deleg") && strstr(line, fname) &&
		    (!d->with_delegation || strcmp(prevd, t))) {
			if (!d->with_delegation)
				d->first_uptime_s = up;
			d->last_uptime_s = up;
			d->with_delegation++;
			snprintf(prevd, sizeof(prevd), "%s", t);
		}
	}
	fclose(f);
	d->samples = ns;
	for (int i = 0; d->with_delegation && i < ns; i++) {
		double x = strtod(samples[i], NULL);
		if (x > d->last_uptime_s) {
			d->next_sample_without_s = x;
			break;
		}
	}
	free_strs(samples, ns);
	return bad ? -1 : 0;
}

/* ------------------------------------------------------------ one run */

static struct sw_mx_cell *new_cell(struct sw_matrix *M)
{
	if (M->ncells == M->capcells) {
		int cap = M->capcells ? 2 * M->capcells : 32;
		struct sw_mx_cell *c = realloc(M->cells, sizeof(*c) * (size_t)cap);
		if (!c)
			return NULL;
		M->cells = c;
		M->capcells = cap;
	}
	struct sw_mx_cell *c = &M->cells[M->ncells++];
	memset(c, 0, sizeof(*c));
	return c;
}

static json_t *figure(json_t *figs, const char *name)
{
	size_t i;
	json_t *f;
	json_array_foreach(figs, i, f) {
		if (!strcmp(sval(json_object_get(f, "name"), ""), name))
			return f;
	}
	return NULL;
}

static int partial_problem(struct sw_matrix *M, const char *dir, json_t *end)
{
	char msg[1024] = "";
	size_t i, used = 0;
	json_t *p;
	json_array_foreach(json_object_get(end, "problems"), i, p) {
		if (i >= 2)
			break;
		const char *m = json_is_object(p) ? json_string_value(json_object_get(p, "message"))
						  : json_string_value(p);
		char *dump = m ? NULL : json_dumps(p, JSON_COMPACT | JSON_ENCODE_ANY);
		used += (size_t)snprintf(msg + used, sizeof(msg) - used, "%s%s", i ? "; " : "",
					 m ? m : dump ? dump : "?");
		free(dump);
		if (used >= sizeof(msg))
			break;
	}
	return sw_matrix_addstr(&M->problems, &M->nproblems, "%s: report partial (%s)", dir, msg);
}

struct runinfo {
	const char *kname, *rel, *fs, *wl, *dir, *rel_run;
	int experiment;
};

/* the v3 and v4 cells of one run folder from its report.json */
static int load_run(struct sw_matrix *M, const struct runinfo *ri, json_t *r)
{
	json_t *res = json_object_get(r, "results"), *end = json_object_get(r, "end");
	json_t *figs = json_object_get(res, "figures"), *cost = json_object_get(res, "cost");
	json_t *truth = figure(figs, "truth");
	int complete = json_is_true(json_object_get(end, "complete"));
	if (!complete && partial_problem(M, ri->dir, end))
		return -1;
	int64_t tstores = jint(truth, "stores");
	int64_t upd = jint(cost, "updates");
	double first = first_truth_s(ri->dir);
	char p[4608];
	struct sw_mx_deleg dg = { 0, 0, NAN, NAN, NAN };
	int has_dg = read_deleg(ri->dir, ri->experiment, &dg) == 0;
	struct sw_srvtrace tr;
	snprintf(p, sizeof(p), "%s/server/trace.txt", ri->dir);
	if (sw_srvtrace_load(p, 0, 0, &tr))
		memset(&tr, 0, sizeof(tr));
	json_t *kr[5] = { 0 }; /* kernel reader figure by NFS version */
	size_t i;
	json_t *k, *ob;
	json_array_foreach(json_object_get(res, "kread"), i, k) {
		const char *mo = sval(json_object_get(k, "mount_options"), "");
		const char *mode = sval(json_object_get(k, "mode"), "");
		char name[64];
		snprintf(name, sizeof(name), "kread-%zu %s", i,
			 !strcmp(mode, "kept-open") ? "kept" : "cto");
		json_t *f = figure(figs, name);
		if (f)
			kr[strstr(mo, "vers=4") ? 4 : 3] = f;
	}
	json_array_foreach(json_object_get(res, "observers"), i, ob) {
		int v = (int)json_integer_value(json_object_get(ob, "vers"));
		json_t *of = figure(figs, sval(json_object_get(ob, "name"), ""));
		json_t *tf = v == 3 ? truth : of;
		json_t *cs = json_object_get(ob, "consistency");
		struct sw_mx_cell *c = new_cell(M);
		if (!c)
			return -1;
		snprintf(c->kernel, sizeof(c->kernel), "%s", ri->rel[0] ? ri->rel : ri->kname);
		snprintf(c->kernel_name, sizeof(c->kernel_name), "%s", ri->kname);
		snprintf(c->fs, sizeof(c->fs), "%s", ri->fs);
		snprintf(c->workload, sizeof(c->workload), "%s", ri->wl);
		snprintf(c->run, sizeof(c->run), "%s", ri->rel_run);
		c->vers = v;
		json_t *src[CF_N] = { [CF_TRUTH] = tf, [CF_OBS] = of, [CF_OBSERVER] = ob,
				      [CF_CONS] = cs };
		cell_fields_load(c, src);
		json_t *ex = json_object_get(cs, "explained"), *rb = json_object_get(ob, "revealed_by");
		c->explained = ex ? json_deep_copy(ex) : json_object();
		c->revealed_by = rb ? json_deep_copy(rb) : json_object();
		c->change_only_torn = jint(ob, "revealed_change_only_torn");
		c->updates_per_1k = NAN;
		if (tstores != SW_MX_NONE && tstores > 0) {
			char b[64];
			snprintf(b, sizeof(b), "%.1f",
				 (double)(upd == SW_MX_NONE ? 0 : upd) * 1000.0 / (double)tstores);
			c->updates_per_1k = strtod(b, NULL);
		}
		c->equal_stamps = jint(cost, "equal_timestamp_pairs");
		c->faulting_stores = jint(cost, "traps");
		c->first_store_truth_s = first;
		c->kclient_p50_s = jsec(kr[v == 4 ? 4 : 3], "p50_ns");
		c->kclient_unresolved = jint(kr[v == 4 ? 4 : 3], "unresolved");
		c->has_deleg = v == 4 && has_dg;
		c->deleg = dg;
		c->trace = tr;
		c->complete = complete;
	}
	return 0;
}

/* ------------------------------------------------------------ one kernel */

struct found {
	char dir[4480], fs[16], wl[16];
	int experiment;
};

static int add_found(const char *dir, struct found **v, int *n)
{
	char p[4608];
	snprintf(p, sizeof(p), "%s/meta.json", dir);
	json_t *m = json_load_file(p, 0, NULL);
	const char *fs = json_string_value(json_object_get(m, "fs"));
	if (fs) {
		struct found *nv = realloc(*v, sizeof(**v) * (size_t)(*n + 1));
		if (!nv) {
			json_decref(m);
			return -1;
		}
		*v = nv;
		struct found *f = &nv[(*n)++];
		snprintf(f->dir, sizeof(f->dir), "%s", dir);
		snprintf(f->fs, sizeof(f->fs), "%s", fs);
		snprintf(f->wl, sizeof(f->wl), "%s",
			 sval(json_object_get(m, "workload"), ""));
		f->experiment = (int)json_integer_value(json_object_get(m, "experiment"));
	}
	json_decref(m);
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the run folders of OUT/<kernel>: its subfolders and itself (one run) */
static int find_runs(const char *kdir, struct found **v, int *n)
{
	DIR *d = opendir(kdir);
	char **names = NULL;
	int nn = 0, rc = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && sw_matrix_addstr(&names, &nn, "%s", e->d_name))
			rc = -1;
	if (d)
		closedir(d);
	if (nn)
		qsort(names, (size_t)nn, sizeof(char *), cmp_name);
	for (int i = 0; !rc && i < nn; i++) {
		char p[4480];
		snprintf(p, sizeof(p), "%s/%s", kdir, names[i]);
		rc = add_found(p, v, n);
	}
	free_strs(names, nn);
	return rc ? rc : add_found(kdir, v, n);
}

static int load_kernel(struct sw_matrix *M, const char *kname)
{
	char kdir[4200], rel[96];
	struct found *runs = NULL;
	int nr = 0, rc = 0;
	snprintf(kdir, sizeof(kdir), "%s/%s", M->out, kname);
	read_release(kdir, rel, sizeof(rel));
	if (find_runs(kdir, &runs, &nr))
		rc = -1;
	for (int f = 0; !rc && f < M->nf; f++)
		for (int w = 0; !rc && w < M->nw; w++) {
			const struct found *r = NULL;
			for (int i = 0; i < nr; i++) /* the last one found wins */
				if (!strcmp(runs[i].fs, M->fs[f]) && !strcmp(runs[i].wl, M->workloads[w]))
					r = &runs[i];
			if (!r) {
				rc = sw_matrix_addstr(&M->missing, &M->nmissing, "%s %s %s", kname,
						      M->fs[f], M->workloads[w]);
				continue;
			}
			char p[4608];
			snprintf(p, sizeof(p), "%s/report.json", r->dir);
			json_t *rep = json_load_file(p, 0, NULL);
			if (!json_is_object(rep)) {
				json_decref(rep);
				rc = sw_matrix_addstr(&M->missing, &M->nmissing,
						      "%s %s %s (no report.json in %s)", kname,
						      M->fs[f], M->workloads[w], r->dir);
				continue;
			}
			const char *rr = r->dir + strlen(M->out);
			rr += *rr == '/';
			struct runinfo ri = { kname, rel, M->fs[f], M->workloads[w], r->dir, rr,
					      r->experiment };
			rc = load_run(M, &ri, rep);
			json_decref(rep);
		}
	free(runs);
	return rc;
}

/* ------------------------------------------------------------ quiet runs */

/* writer.swlog: stores, faulting stores, stores whose own fstat saw ctime
 * move, and the stores' span on CLOCK_MONOTONIC (lo, hi) */
static int count_stores(const char *path, struct sw_mx_quiet *q, int64_t *lo, int64_t *hi)
{
	char err[SWLOG_ERRLEN];
	struct swlog_reader *r;
	struct swlog_rec rec;
	int64_t *stores = &q->stores, *faults = &q->faulting_stores, *upd = &q->stat_updates;
	*stores = *faults = *upd = *lo = *hi = 0;
	if (swlog_open(&r, path, err))
		return -1;
	while (swlog_next(r, &rec) == SWLOG_OK) {
		if (rec.type != SW_REC_STORE || rec.len < sizeof(struct sw_rec_store))
			continue;
		struct sw_rec_store s;
		memcpy(&s, rec.payload, sizeof(s));
		if (!(*stores)++)
			*lo = s.t_before_mono_ns;
		*hi = s.t_after_mono_ns;
		*faults += !!(s.flags & SW_STORE_TRAPPED);
		*upd += (s.flags & SW_STORE_TRAPPED) && (s.flags & SW_STORE_UPDATED);
	}
	swlog_reader_close(r);
	return 0;
}

static void load_quiet(struct sw_matrix *M, const char *kname)
{
	static const char *modes[] = { "query", "noquery" };
	char rel[96], kdir[4200];
	snprintf(kdir, sizeof(kdir), "%s/%s", M->out, kname);
	read_release(kdir, rel, sizeof(rel));
	for (int f = 0; f < M->nf; f++)
		for (int m = 0; m < 2; m++) {
			char d[4300], p[4400];
			snprintf(d, sizeof(d), "%s/quiet/%s-%s", kdir, M->fs[f], modes[m]);
			snprintf(p, sizeof(p), "%s/writer.swlog", d);
			struct sw_mx_quiet q;
			memset(&q, 0, sizeof(q));
			int64_t lo, hi;
			if (count_stores(p, &q, &lo, &hi))
				continue;
			/* from the first store on (the writer's own setup stat is no
			 * query between stores), to the last store's end */
			snprintf(p, sizeof(p), "%s/trace.txt", d);
			sw_srvtrace_load(p, lo, hi ? hi : 1, &q.trace);
			snprintf(q.kernel, sizeof(q.kernel), "%s", rel[0] ? rel : kname);
			snprintf(q.kernel_name, sizeof(q.kernel_name), "%s", kname);
			snprintf(q.fs, sizeof(q.fs), "%s", M->fs[f]);
			snprintf(q.mode, sizeof(q.mode), "%s", modes[m]);
			snprintf(q.workload, sizeof(q.workload), "burst");
			snprintf(q.run, sizeof(q.run), "%s/quiet/%s-%s", kname, M->fs[f], modes[m]);
			if (M->nquiet == M->capquiet) {
				int cap = M->capquiet ? 2 * M->capquiet : 16;
				struct sw_mx_quiet *nq = realloc(M->quiet, sizeof(*nq) * (size_t)cap);
				if (!nq)
					return;
				M->quiet = nq;
				M->capquiet = cap;
			}
			M->quiet[M->nquiet++] = q;
		}
}

int sw_matrix_load(struct sw_matrix *M, char *err, size_t n)
{
	for (int k = 0; k < M->nk; k++) {
		if (load_kernel(M, M->kernels[k])) {
			snprintf(err, n, "reading %s/%s: out of memory", M->out, M->kernels[k]);
			return -1;
		}
		load_quiet(M, M->kernels[k]);
	}
	return 0;
}
