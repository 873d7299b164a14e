/* SPDX-License-Identifier: MIT */
/* matrix_fmt.c - `stalewin vm matrix`'s output: one table per workload
 * (rows kernel x fs), the quiet runs (multigrain), the delegations
 * nfsd traced, the findings; or the JSON object (--json, matrix.json). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"

static json_t *jreal(double x)
{
	return isnan(x) ? json_null() : json_real(x);
}

static json_t *jint(int64_t x)
{
	return x == SW_MX_NONE ? json_null() : json_integer((json_int_t)x);
}

static json_t *jstrs(char **v, int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static json_t *trace_json(const struct sw_srvtrace *t)
{
	return json_pack("{s:b,s:I,s:I,s:I,s:b,s:I,s:I,s:I,s:s}", "timestamp_traced", t->ts_traced,
			 "ctime_sets", (json_int_t)t->ctime_sets, "ctime_unchanged_sets",
			 (json_int_t)t->ctime_skip, "queries", (json_int_t)t->queries, "nfsd_traced",
			 t->nfsd_traced, "deleg_granted", (json_int_t)t->deleg_granted, "deleg_recalls",
			 (json_int_t)t->deleg_recalls, "deleg_returns", (json_int_t)t->deleg_returns,
			 "nfsd_events", t->nfsd_events);
}

static json_t *cell_json(const struct sw_mx_cell *c)
{
	json_t *o = json_pack("{s:s,s:s,s:s,s:i,s:s}", "kernel", c->kernel, "kernel_name",
			      c->kernel_name, "fs", c->fs, "vers", c->vers, "workload", c->workload);
	json_object_set_new(o, "stores", jint(c->stores));
	json_object_set_new(o, "truth_p50_s", jreal(c->truth_p50_s));
	json_object_set_new(o, "truth_p99_s", jreal(c->truth_p99_s));
	json_object_set_new(o, "truth_max_s", jreal(c->truth_max_s));
	json_object_set_new(o, "uncovered", jint(c->uncovered));
	json_object_set_new(o, "truth_source", json_string(c->vers == 3 ? "writer stat (ctime/mtime)"
							  : "probe v4 target (change attribute)"));
	json_object_set_new(o, "observed_p50_s", jreal(c->observed_p50_s));
	json_object_set_new(o, "observed_unseen", jint(c->observed_unseen));
	json_object_set_new(o, "resolution_s", jreal(c->resolution_s));
	json_t *cs = json_object();
	json_object_set_new(cs, "checked", jint(c->checked));
	json_object_set_new(cs, "consistent", jint(c->consistent));
	json_object_set_new(cs, "early", jint(c->early));
	json_object_set_new(cs, "late", jint(c->late));
	json_object_set_new(o, "consistency", cs);
	json_object_set(o, "explained", c->explained);
	json_object_set(o, "revealed_by", c->revealed_by);
	json_object_set_new(o, "updates_per_1k", jreal(c->updates_per_1k));
	json_object_set_new(o, "equal_stamps", jint(c->equal_stamps));
	json_object_set_new(o, "first_store_truth_s", jreal(c->first_store_truth_s));
	json_object_set_new(o, "kclient_p50_s", jreal(c->kclient_p50_s));
	json_object_set_new(o, "kclient_unresolved", jint(c->kclient_unresolved));
	json_t *d = json_null();
	if (c->has_deleg)
		d = json_pack("{s:i,s:i,s:o,s:o,s:o}", "samples", c->deleg.samples, "with_delegation",
			      c->deleg.with_delegation, "first_uptime_s", jreal(c->deleg.first_uptime_s),
			      "last_uptime_s", jreal(c->deleg.last_uptime_s), "next_sample_without_s",
			      jreal(c->deleg.next_sample_without_s));
	json_object_set_new(o, "delegations_seen", d);
	json_object_set_new(o, "run", json_string(c->run));
	json_object_set_new(o, "complete", json_boolean(c->complete));
	json_object_set_new(o, "faulting_stores", jint(c->faulting_stores));
	json_object_set_new(o, "trace", trace_json(&c->trace));
	return o;
}

static json_t *quiet_json(const struct sw_mx_quiet *q)
{
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:I,s:I,s:I,s:o,s:s,s:o,s:s}", "kernel", q->kernel,
			 "kernel_name", q->kernel_name, "fs", q->fs, "mode", q->mode, "workload",
			 q->workload, "stores", (json_int_t)q->stores, "faulting_stores",
			 (json_int_t)q->faulting_stores, "stat_updates", (json_int_t)q->stat_updates,
			 "equal_stamps", jint(q->equal_stamps), "equal_stamps_counted_as",
			 q->how ? q->how : "", "trace", trace_json(&q->trace), "run", q->run);
}

json_t *sw_matrix_json(const struct sw_matrix *M)
{
	json_t *o = json_object(), *a;
	json_object_set_new(o, "tool", json_string("stalewin vm matrix"));
	a = json_array();
	for (int i = 0; i < M->nk; i++)
		json_array_append_new(a, json_string(M->kernels[i]));
	json_object_set_new(o, "kernels", a);
	a = json_array();
	for (int i = 0; i < M->nf; i++)
		json_array_append_new(a, json_string(M->fs[i]));
	json_object_set_new(o, "fs", a);
	a = json_array();
	for (int i = 0; i < M->nw; i++)
		json_array_append_new(a, json_string(M->workloads[i]));
	json_object_set_new(o, "workloads", a);
	a = json_array();
	char sy[sizeof(M->sysctls)];
	snprintf(sy, sizeof(sy), "%s", M->sysctls);
	for (char *s = sy, *t; (t = strsep(&s, " \t\n"));)
		if (*t)
			json_array_append_new(a, json_string(t));
	json_object_set_new(o, "sysctls_guests", a);
	json_object_set_new(o, "writer_args", json_string(M->writer_args));
	json_object_set_new(o, "duration_s", M->duration[0] ? json_integer(atoll(M->duration)) : json_null());
	json_object_set_new(o, "wall_s", M->wall[0] ? json_real(strtod(M->wall, NULL)) : json_null());
	a = json_array();
	for (int i = 0; i < M->ncells; i++)
		json_array_append_new(a, cell_json(&M->cells[i]));
	json_object_set_new(o, "cells", a);
	json_object_set_new(o, "findings", jstrs(M->findings, M->nfindings));
	json_object_set_new(o, "missing", jstrs(M->missing, M->nmissing));
	json_object_set_new(o, "problems", jstrs(M->problems, M->nproblems));
	a = json_array();
	for (int i = 0; i < M->nquiet; i++)
		json_array_append_new(a, quiet_json(&M->quiet[i]));
	json_object_set_new(o, "quiet", a);
	return o;
}

/* ------------------------------------------------------------ text */

static const char *f3(char *b, size_t n, double x)
{
	if (isnan(x))
		return "-";
	snprintf(b, n, x < 10 ? "%.3f" : "%.1f", x);
	return b;
}

/* a window: ">end" when absent because stores stayed uncovered */
static const char *fp(char *b, size_t n, double x, int64_t unc)
{
	if (isnan(x) && unc != SW_MX_NONE && unc)
		return ">end";
	return f3(b, n, x);
}

static const char *fi(char *b, size_t n, int64_t x)
{
	if (x == SW_MX_NONE)
		return "-";
	snprintf(b, n, "%lld", (long long)x);
	return b;
}

static const struct sw_mx_cell *find(const struct sw_matrix *M, int k, int f, const char *wl, int v)
{
	return sw_matrix_cell(M, M->kernels[k], M->fs[f], wl, v);
}

static void workload_table(FILE *f, const struct sw_matrix *M, const char *wl)
{
	static const char *fmt = "%-20s %-5s %6s %7s %7s %7s %4s %7s %7s %7s %4s %6s %3s %6s %6s  %s\n";
	fprintf(f, "\nworkload %s\n", wl);
	fprintf(f, fmt, "kernel", "fs", "stores", "v3 p50", "p99", "max", "unc", "v4 p50", "p99",
		"max", "unc", "upd/1k", "eq", "kcl v3", "kcl v4", "run");
	for (int k = 0; k < M->nk; k++)
		for (int i = 0; i < M->nf; i++) {
			const struct sw_mx_cell *c3 = find(M, k, i, wl, 3), *c4 = find(M, k, i, wl, 4);
			if (!c3 || !c4) {
				fprintf(f, "%-20s %-5s (no cell: the run failed or was cut short)\n",
					M->kernels[k], M->fs[i]);
				continue;
			}
			char b[14][32], kern[21];
			snprintf(kern, sizeof(kern), "%.20s", c3->kernel);
			fprintf(f, fmt, kern, M->fs[i], fi(b[0], 32, c3->stores),
				fp(b[1], 32, c3->truth_p50_s, c3->uncovered),
				fp(b[2], 32, c3->truth_p99_s, c3->uncovered),
				fp(b[3], 32, c3->truth_max_s, c3->uncovered), fi(b[4], 32, c3->uncovered),
				fp(b[5], 32, c4->truth_p50_s, c4->uncovered),
				fp(b[6], 32, c4->truth_p99_s, c4->uncovered),
				fp(b[7], 32, c4->truth_max_s, c4->uncovered), fi(b[8], 32, c4->uncovered),
				f3(b[9], 32, c3->updates_per_1k), fi(b[10], 32, c3->equal_stamps),
				fp(b[11], 32, c3->kclient_p50_s, c3->kclient_unresolved),
				fp(b[12], 32, c4->kclient_p50_s, c4->kclient_unresolved), c3->run);
		}
}

/* the quiet runs: no NFS client; q = the writer stats after every store,
 * n = no query at all (counted from the kernel's tracepoints) */
static void quiet_table(FILE *f, const struct sw_matrix *M)
{
	static const char *fmt = "%-20s %-5s %8s %8s %8s %8s %9s %8s %8s  %s\n";
	if (!M->nquiet)
		return;
	fprintf(f, "\nmultigrain: faulting stores that left ctime equal to the previous stamp "
		"(burst; q, n: no NFS client,\nq = the writer stats after every store, n = no query "
		"at all, counted from the kernel's\ntimestamp tracepoints; p = the matrix's burst run, "
		"the probe querying between stores,\ntraced; - = not traced (no tracepoints before "
		"6.13) or no burst run)\n");
	fprintf(f, fmt, "kernel", "fs", "faults q", "equal q", "faults n", "equal n", "queries n",
		"faults p", "equal p", "run");
	for (int k = 0; k < M->nk; k++)
		for (int i = 0; i < M->nf; i++) {
			const struct sw_mx_quiet *q = NULL, *n = NULL;
			for (int j = 0; j < M->nquiet; j++)
				if (!strcmp(M->quiet[j].kernel_name, M->kernels[k]) &&
				    !strcmp(M->quiet[j].fs, M->fs[i]))
					*(strcmp(M->quiet[j].mode, "query") ? &n : &q) = &M->quiet[j];
			if (!q && !n)
				continue;
			const struct sw_mx_quiet *a = q ? q : n;
			char b[5][32], kern[21], run[300];
			snprintf(kern, sizeof(kern), "%.20s", a->kernel);
			snprintf(run, sizeof(run), "%s/quiet/%s-*", M->kernels[k], M->fs[i]);
			const struct sw_mx_cell *p = find(M, k, i, "burst", 3);
			int pt = p && p->trace.ts_traced && p->faulting_stores != SW_MX_NONE;
			int64_t peq = pt ? p->faulting_stores - p->trace.ctime_sets : 0;
			char pb[2][32];
			fprintf(f, fmt, kern, M->fs[i], q ? fi(b[0], 32, q->faulting_stores) : "-",
				q ? fi(b[1], 32, q->equal_stamps) : "-",
				n ? fi(b[2], 32, n->faulting_stores) : "-",
				n ? fi(b[3], 32, n->equal_stamps) : "-",
				n && n->trace.ts_traced ? fi(b[4], 32, n->trace.queries) : "-",
				pt ? fi(pb[0], 32, p->faulting_stores) : "-",
				pt ? fi(pb[1], 32, peq > 0 ? peq : 0) : "-", run);
		}
}

/* "g1 r1 R0": delegations granted, recalled, returned (nfsd tracepoints) */
static const char *deleg_str(char *b, size_t n, const struct sw_mx_cell *c)
{
	if (!c || !c->trace.nfsd_traced)
		return "-";
	snprintf(b, n, "g%lld r%lld R%lld", (long long)c->trace.deleg_granted,
		 (long long)c->trace.deleg_recalls, (long long)c->trace.deleg_returns);
	return b;
}

static void deleg_table(FILE *f, const struct sw_matrix *M)
{
	int any = 0;
	for (int i = 0; i < M->ncells; i++)
		any |= M->cells[i].vers == 4 && M->cells[i].trace.nfsd_traced;
	if (!any)
		return;
	fprintf(f, "\nv4.2 read delegations on the writer's file, nfsd tracepoints in the server "
		"guest\n(g granted, r recalled, R returned; - = not traced)\n%-20s %-5s", "kernel", "fs");
	for (int w = 0; w < M->nw; w++)
		fprintf(f, " %-12s", M->workloads[w]);
	fputc('\n', f);
	for (int k = 0; k < M->nk; k++)
		for (int i = 0; i < M->nf; i++) {
			char kern[21] = "";
			for (int w = 0; w < M->nw && !kern[0]; w++) {
				const struct sw_mx_cell *c = find(M, k, i, M->workloads[w], 4);
				if (c)
					snprintf(kern, sizeof(kern), "%.20s", c->kernel);
			}
			if (!kern[0])
				continue;
			fprintf(f, "%-20s %-5s", kern, M->fs[i]);
			for (int w = 0; w < M->nw; w++) {
				char b[64];
				fprintf(f, " %-12s", deleg_str(b, sizeof(b), find(M, k, i, M->workloads[w], 4)));
			}
			fputc('\n', f);
		}
}

void sw_matrix_text(FILE *f, const struct sw_matrix *M)
{
	fprintf(f, "stalewin vm matrix: native policy (writer %s), guests' writeback pinned (%s), "
		"%s s per run, wall %s s\n", M->writer_args[0] ? M->writer_args : "-", M->sysctls,
		M->duration, M->wall);
	fprintf(f, "v3 truth = the writer's stat on the server (ctime); v4 truth = the probe's v4 "
		"target (change attribute); seconds; kcl = the kernel client's p50 (kept-open reader, "
		"vers=3 / 4.2)\n");
	for (int w = 0; w < M->nw; w++)
		workload_table(f, M, M->workloads[w]);
	quiet_table(f, M);
	deleg_table(f, M);
	fputs(M->nfindings ? "\nfindings:\n" : "\nfindings: none outside resolution\n", f);
	for (int i = 0; i < M->nfindings; i++)
		fprintf(f, "- %s\n", M->findings[i]);
	for (int i = 0; i < M->nproblems; i++)
		fprintf(f, "problem: %s\n", M->problems[i]);
	if (M->nmissing) {
		fputs("missing cells: ", f);
		for (int i = 0; i < M->nmissing; i++)
			fprintf(f, "%s%s", i ? "; " : "", M->missing[i]);
		fputc('\n', f);
	}
}
