/* SPDX-License-Identifier: MIT */
/* matrix.c - the findings of `stalewin vm matrix` (computed from the
 * cells, each printed only when its figure is outside the resolution of
 * the measurement that makes it) and the quick test's checks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"

#define ADD(...)                                                            \
	do {                                                                \
		if (sw_matrix_addstr(&M->findings, &M->nfindings, __VA_ARGS__)) \
			return -1;                                          \
	} while (0)

const struct sw_mx_cell *sw_matrix_cell(const struct sw_matrix *M, const char *kname,
					const char *fs, const char *wl, int vers)
{
	const struct sw_mx_cell *r = NULL; /* the last one loaded wins */
	for (int i = 0; i < M->ncells; i++) {
		const struct sw_mx_cell *c = &M->cells[i];
		if (c->vers == vers && !strcmp(c->kernel_name, kname) && !strcmp(c->fs, fs) &&
		    !strcmp(c->workload, wl))
			r = c;
	}
	return r;
}

static int cmp_cell(const void *a, const void *b)
{
	const struct sw_mx_cell *x = *(const struct sw_mx_cell *const *)a;
	const struct sw_mx_cell *y = *(const struct sw_mx_cell *const *)b;
	int d = strcmp(x->kernel_name, y->kernel_name);
	if (!d)
		d = strcmp(x->fs, y->fs);
	if (!d)
		d = strcmp(x->workload, y->workload);
	return d ? d : x->vers - y->vers;
}

/* one cell per (kernel name, fs, workload, vers), sorted by that key */
static const struct sw_mx_cell **sorted_cells(const struct sw_matrix *M, int *n)
{
	const struct sw_mx_cell **v = malloc(sizeof(*v) * (size_t)(M->ncells + 1));
	*n = 0;
	if (!v)
		return NULL;
	for (int i = 0; i < M->ncells; i++) {
		const struct sw_mx_cell *c = &M->cells[i];
		if (sw_matrix_cell(M, c->kernel_name, c->fs, c->workload, c->vers) == c)
			v[(*n)++] = c;
	}
	qsort(v, (size_t)*n, sizeof(*v), cmp_cell);
	return v;
}

static int64_t sum_matching(json_t *o, const char *has, const char *lacks)
{
	const char *k;
	json_t *v;
	int64_t s = 0;
	json_object_foreach(o, k, v) {
		if ((!has || strstr(k, has)) && (!lacks || !strstr(k, lacks)))
			s += json_integer_value(v);
	}
	return s;
}

/* explained by a known cause (race, gap, ...): not "unexplained", not "clock" */
int64_t sw_mx_explained_known(const struct sw_mx_cell *c)
{
	const char *k;
	json_t *v;
	int64_t s = 0;
	json_object_foreach(c->explained, k, v) {
		if (strcmp(k, "unexplained") && strcmp(k, "clock"))
			s += json_integer_value(v);
	}
	return s;
}

static int64_t nz(int64_t x)
{
	return x == SW_MX_NONE ? 0 : x;
}

/* updates counted from the per-1000 rate and the stores */
static double nupd(const struct sw_mx_cell *c)
{
	return c->updates_per_1k * (double)nz(c->stores) / 1000.0;
}

/* a difference of two counts beyond their noise: 3 sqrt(n1 + n2), >= 1 */
static int counts_differ(double n1, double n2)
{
	return fabs(n1 - n2) > fmax(1.0, 3 * sqrt(n1 + n2));
}

/* "7.2.13+deb14-amd64" >= 6.13 (multigrain timestamps); -1: not a version */
static int release_mg(const char *rel, int cut_plus)
{
	char b[96];
	snprintf(b, sizeof(b), "%.*s", (int)strcspn(rel, cut_plus ? "-+" : "-"), rel);
	long v[2] = { 0, 0 };
	int n = 0;
	for (char *s = b, *t; n < 2 && (t = strsep(&s, "."));) {
		if (!*t || strspn(t, "0123456789") != strlen(t))
			return -1;
		v[n++] = strtol(t, NULL, 10);
	}
	if (n == 1)
		return v[0] > 6;
	return v[0] > 6 || (v[0] == 6 && v[1] >= 13);
}

static int cell_findings(struct sw_matrix *M, const struct sw_mx_cell *c)
{
	const char *K = c->kernel, *fs = c->fs, *wl = c->workload;
	double res = isnan(c->resolution_s) ? 0 : c->resolution_s;
	if (c->vers == 3 && !isnan(c->first_store_truth_s) && c->first_store_truth_s > res)
		ADD("%s %s %s: the first store's timestamp update came %.3f s after it (not eager: "
		    "resolution %.3f s)", K, fs, wl, c->first_store_truth_s, res);
	if (c->vers == 4) {
		int64_t alone = sum_matching(c->revealed_by, "change", "ctime");
		int64_t tot = sum_matching(c->revealed_by, NULL, NULL);
		int64_t torn = c->change_only_torn == SW_MX_NONE ? 0 : c->change_only_torn;
		char tail[80] = "";
		if (torn)
			snprintf(tail, sizeof(tail), " (%lld more by replies torn by a racing fault)",
				 (long long)torn);
		if (alone > torn)
			ADD("%s %s %s, v4: the change attribute alone (ctime unchanged) revealed %lld "
			    "of %lld revealed stores%s", K, fs, wl, (long long)(alone - torn),
			    (long long)tot, tail);
		int64_t nochange = sum_matching(c->revealed_by, NULL, "change");
		if (nochange)
			ADD("%s %s %s, v4: %lld stores revealed without the change attribute moving "
			    "(ctime/mtime only)", K, fs, wl, (long long)nochange);
		const struct sw_mx_cell *c3 = sw_matrix_cell(M, c->kernel_name, fs, wl, 3);
		/* (one store at the log's end may be seen by one target only) */
		if (c3 && c3->observed_unseen != SW_MX_NONE && c->observed_unseen != SW_MX_NONE &&
		    llabs(c->observed_unseen - c3->observed_unseen) > 1)
			ADD("%s %s %s: stores never seen changed: v3 (ctime) %lld, v4 (change) %lld of %lld",
			    K, fs, wl, (long long)c3->observed_unseen, (long long)c->observed_unseen,
			    (long long)c->stores);
		/* the client's 3 s attribute-cache timeout, in whatever phase it
		 * meets the stores, spreads a short run's p50 by up to ~1 s (seen
		 * between repeated identical runs): only more counts */
		if (c3 && !isnan(c->kclient_p50_s) && !isnan(c3->kclient_p50_s) &&
		    fabs(c->kclient_p50_s - c3->kclient_p50_s) > 1.0)
			ADD("%s %s %s: kernel client p50 vers=3 %.2f s, vers=4.2 %.2f s", K, fs, wl,
			    c3->kclient_p50_s, c->kclient_p50_s);
	}
	int64_t bad = nz(c->checked) - nz(c->consistent) - sw_mx_explained_known(c);
	if (bad > 0)
		ADD("%s %s %s, v%d probe: %lld of %lld checked stores outside resolution of the "
		    "writer's truth, unexplained", K, fs, wl, c->vers, (long long)bad,
		    (long long)c->checked);
	if (c->vers == 3 && nz(c->equal_stamps))
		ADD("%s %s %s: %lld updates left ctime and mtime equal to the previous update's "
		    "(invisible to a v3 client)", K, fs, wl, (long long)c->equal_stamps);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* delegations, one line per kernel release (nfsd's state list sampled
 * ~1 s apart in the server guest; the traced grants and recalls follow) */
static int deleg_findings(struct sw_matrix *M, const struct sw_mx_cell **v, int n)
{
	const char *ks[SW_MX_MAX * 4];
	int nk = 0;
	for (int i = 0; i < n; i++) { /* the releases, sorted */
		int seen = 0;
		for (int j = 0; j < nk; j++)
			seen |= !strcmp(ks[j], v[i]->kernel);
		if (!seen && nk < (int)(sizeof(ks) / sizeof(ks[0])))
			ks[nk++] = v[i]->kernel;
	}
	qsort(ks, (size_t)nk, sizeof(ks[0]), cmp_str);
	for (int i = 0; i < nk; i++) {
		const char *K = ks[i];
		int nruns = 0, nbroke = 0;
		double worst = -INFINITY;
		char list[1024] = "";
		size_t used = 0;
		for (int j = 0; j < n; j++) {
			const struct sw_mx_cell *c = v[j];
			if (strcmp(c->kernel, K) || c->vers != 4)
				continue;
			nruns++;
			const struct sw_mx_deleg *d = &c->deleg;
			if (!c->has_deleg || !d->with_delegation)
				continue;
			if (!isnan(d->next_sample_without_s) && d->with_delegation < d->samples) {
				nbroke++;
				worst = fmax(worst, d->next_sample_without_s - d->first_uptime_s);
				if (used < sizeof(list))
					used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s %s",
								 used ? ", " : "", c->fs, c->workload);
			}
		}
		if (nbroke)
			ADD("%s: the v4.2 client held a read delegation on the file when the writer "
			    "started in %d of %d runs (%s); it was gone by the next sample, <= %.1f s "
			    "later (the writer's open for write breaks it)", K, nbroke, nruns, list, worst);
		for (int j = 0; j < n; j++) {
			const struct sw_mx_cell *c = v[j];
			const struct sw_mx_deleg *d = &c->deleg;
			if (strcmp(c->kernel, K) || c->vers != 4 || !c->has_deleg || !d->with_delegation ||
			    (!isnan(d->next_sample_without_s) && d->with_delegation < d->samples))
				continue;
			ADD("%s %s %s: the v4.2 client held a read delegation in %d of %d samples while "
			    "the local mmap writer ran", K, c->fs, c->workload, d->with_delegation,
			    d->samples);
		}
	}
	return 0;
}

/* per kernel + workload: each fs's update rate against ext4's */
static int fs_rate_findings(struct sw_matrix *M, const struct sw_mx_cell **v, int n)
{
	for (int i = 0; i < n; i++) {
		const struct sw_mx_cell *c = v[i];
		const struct sw_mx_cell *e = sw_matrix_cell(M, c->kernel_name, "ext4", c->workload, 3);
		if (c->vers != 3 || !strcmp(c->fs, "ext4") || !e || isnan(c->updates_per_1k) ||
		    isnan(e->updates_per_1k))
			continue;
		if (counts_differ(nupd(c), nupd(e)))
			ADD("%s %s: %s %.1f timestamp updates per 1000 stores, ext4 %.1f", c->kernel,
			    c->workload, c->fs, c->updates_per_1k, e->updates_per_1k);
	}
	return 0;
}

/* per fs + workload: each kernel's update rate against the first kernel's.
 * The writer stats the file right after every store (native mode): that
 * is a query, so from 6.13 on (multigrain) every faulting store gets a
 * stamp of its own, where 6.1/6.12 give the stores of one 4 ms jiffy the
 * same (coarse) stamp: an update no NFSv3 client can see. */
static int kernel_rate_findings(struct sw_matrix *M)
{
	for (int f = 0; f < M->nf; f++)
		for (int w = 0; w < M->nw; w++) {
			const struct sw_mx_cell *base =
				sw_matrix_cell(M, M->kernels[0], M->fs[f], M->workloads[w], 3);
			if (!base || isnan(base->updates_per_1k))
				continue;
			for (int k = 1; k < M->nk; k++) {
				const struct sw_mx_cell *c =
					sw_matrix_cell(M, M->kernels[k], M->fs[f], M->workloads[w], 3);
				if (!c || isnan(c->updates_per_1k))
					continue;
				double n1 = nupd(c), n2 = nupd(base);
				if (!counts_differ(n1, n2))
					continue;
				int mg = release_mg(c->kernel, 1), mg0 = release_mg(base->kernel, 0);
				char why[256] = "";
				if (mg > 0 && mg0 == 0 && n1 > n2)
					snprintf(why, sizeof(why),
						 " (multigrain: the writer stats after every store, a query, so "
						 "each faulting store gets a stamp of its own; %s gives one 4 ms "
						 "jiffy's stores one stamp)", base->kernel);
				ADD("%s %s: %s %.1f timestamp updates per 1000 stores, %s %.1f%s", M->fs[f],
				    M->workloads[w], c->kernel, c->updates_per_1k, base->kernel,
				    base->updates_per_1k, why);
			}
		}
	return 0;
}

/* The quiet runs (no NFS client, before knfsd serves anyone): faulting
 * stores whose fault left ctime as it was, once with the writer's stat
 * after every store (a query) and once with no query at all. */
static void quiet_count(struct sw_mx_quiet *q)
{
	q->equal_stamps = SW_MX_NONE;
	q->how = "not measured";
	if (!strcmp(q->mode, "query")) {
		q->equal_stamps = q->faulting_stores - q->stat_updates;
		q->how = "faulting stores whose own fstat saw no ctime change";
	} else if (q->trace.ts_traced) {
		int64_t d = q->faulting_stores - q->trace.ctime_sets;
		q->equal_stamps = d > 0 ? d : 0;
		q->how = "faulting stores minus the ctime changes the kernel traced "
			 "(timestamp:ctime_ns_xchg, inode_set_ctime_to_ts)";
	} else
		q->how = "no timestamp tracepoints in this kernel (before 6.13): without a stat "
			 "nothing counts the stamps; a query does not change a coarse stamp there, so "
			 "the query run's count holds";
}

static const struct sw_mx_quiet *quiet_of(const struct sw_matrix *M, const char *k,
					  const char *fs, const char *mode)
{
	for (int i = 0; i < M->nquiet; i++)
		if (!strcmp(M->quiet[i].kernel_name, k) && !strcmp(M->quiet[i].fs, fs) &&
		    !strcmp(M->quiet[i].mode, mode))
			return &M->quiet[i];
	return NULL;
}

static int quiet_findings(struct sw_matrix *M)
{
	for (int i = 0; i < M->nquiet; i++)
		quiet_count(&M->quiet[i]);
	for (int k = 0; k < M->nk; k++)
		for (int f = 0; f < M->nf; f++) {
			const struct sw_mx_quiet *a = quiet_of(M, M->kernels[k], M->fs[f], "query");
			const struct sw_mx_quiet *b = quiet_of(M, M->kernels[k], M->fs[f], "noquery");
			if (!a || a->equal_stamps == SW_MX_NONE || !a->faulting_stores)
				continue;
			/* b's count scaled to a's faulting stores */
			if (b && b->equal_stamps != SW_MX_NONE && b->faulting_stores &&
			    counts_differ((double)a->equal_stamps,
					  (double)b->equal_stamps * (double)a->faulting_stores /
						  (double)b->faulting_stores))
				ADD("%s %s: %lld of %lld faulting stores left ctime equal to the previous "
				    "stamp with no query at all (traced), %lld of %lld with a stat after "
				    "every store: a change an NFSv3 client cannot see unless someone "
				    "queried", a->kernel, M->fs[f], (long long)b->equal_stamps,
				    (long long)b->faulting_stores, (long long)a->equal_stamps,
				    (long long)a->faulting_stores);
			else if (a->equal_stamps > 1)
				ADD("%s %s: %lld of %lld faulting stores left ctime equal to the previous "
				    "stamp although the writer stat the file after every store (coarse "
				    "timestamps: one stamp per jiffy)", a->kernel, M->fs[f],
				    (long long)a->equal_stamps, (long long)a->faulting_stores);
		}
	return 0;
}

/* delegations as nfsd traced them: grants and recalls per kernel */
static int deleg_trace_findings(struct sw_matrix *M, const struct sw_mx_cell **v, int n)
{
	for (int k = 0; k < M->nk; k++) {
		int runs = 0, granted = 0, recalled = 0;
		const char *K = NULL, *ev = "";
		for (int i = 0; i < n; i++) {
			const struct sw_mx_cell *c = v[i];
			if (c->vers != 4 || strcmp(c->kernel_name, M->kernels[k]) || !c->trace.nfsd_traced)
				continue;
			K = c->kernel;
			runs++;
			granted += c->trace.deleg_granted > 0;
			recalled += c->trace.deleg_recalls > 0;
			if (c->trace.nfsd_events[0])
				ev = c->trace.nfsd_events;
		}
		if (K && granted)
			ADD("%s: nfsd traced a read delegation granted to the v4.2 client in %d of %d "
			    "runs and a recall in %d (events %s)", K, granted, runs, recalled, ev);
	}
	return 0;
}

int sw_matrix_findings(struct sw_matrix *M)
{
	int n;
	const struct sw_mx_cell **v = sorted_cells(M, &n);
	if (!v)
		return -1;
	int rc = 0;
	for (int i = 0; !rc && i < n; i++)
		rc = cell_findings(M, v[i]);
	if (!rc)
		rc = deleg_findings(M, v, n);
	if (!rc)
		rc = fs_rate_findings(M, v, n);
	if (!rc)
		rc = kernel_rate_findings(M);
	if (!rc)
		rc = quiet_findings(M);
	if (!rc)
		rc = deleg_trace_findings(M, v, n);
	free(v);
	return rc;
}
