/* SPDX-License-Identifier: MIT */
/* runrow.c - a finished pass reduced to the summary's row (runrow.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figstats.h"
#include "runrow.h"

static void view_of_fig(struct sw_view *v, int src, const struct sw_fig *f)
{
	v->src = src;
	snprintf(v->name, sizeof(v->name), "%s", f->name);
	v->p50_ns = sw_fig_quantile(f, 0.5);
	v->n = f->n;
	v->unresolved = f->unresolved;
}

/* The real kernel client where a reader of that mode ran, else the replay
 * profile of the same NFS version (default: vN-default; cto: a profile
 * with cto of that version, else any with cto). */
static void pick_views(const struct sw_summary *S, int vers, struct sw_runrow *r)
{
	r->view_default.p50_ns = r->view_cto.p50_ns = -2;
	for (int j = 0; j < S->nkread; j++) {
		const struct sw_kread *k = &S->kr[j];
		int cto = !strcmp(k->mode, "cto");
		struct sw_view *v = cto ? &r->view_cto : &r->view_default;
		if (v->src == SW_VIEW_NONE && k->fig.n)
			view_of_fig(v, SW_VIEW_KERNEL, &k->fig);
	}
	char want[24];
	snprintf(want, sizeof(want), "v%d-default", vers ? vers : 3);
	for (int i = 0; i < S->nprof; i++)
		if (r->view_default.src == SW_VIEW_NONE && !strcmp(S->prof[i].name, want))
			view_of_fig(&r->view_default, SW_VIEW_REPLAY, &S->replay[i]);
	for (int pass = 0; pass < 2 && r->view_cto.src == SW_VIEW_NONE; pass++)
		for (int i = 0; i < S->nprof; i++) {
			const struct sw_profile *p = &S->prof[i];
			if (!p->cto || p->noac || (pass == 0 && p->vers != (vers ? vers : 3)))
				continue;
			view_of_fig(&r->view_cto, SW_VIEW_REPLAY, &S->replay[i]);
			break;
		}
}

void sw_runrow_fill(const struct sw_summary *S, struct sw_runrow *r)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "%s", S->run_dir);
	snprintf(r->policy, sizeof(r->policy), "%s", S->policy[0] ? S->policy : "?");
	snprintf(r->workload, sizeof(r->workload), "%s", S->workload[0] ? S->workload : "?");
	snprintf(r->fs, sizeof(r->fs), "%s", S->fs[0] ? S->fs : "?");
	snprintf(r->kernel, sizeof(r->kernel), "%s", S->kernel[0] ? S->kernel : "?");
	snprintf(r->model_profile, sizeof(r->model_profile), "%s", S->model_profile_name);
	r->partial = S->partial;
	r->stores = S->stores;
	r->updates = S->updates;
	r->truth_p50_ns = sw_fig_quantile(&S->truth, 0.5);
	r->truth_p99_ns = sw_fig_quantile(&S->truth, 0.99);
	r->truth_max_ns = sw_fig_quantile(&S->truth, 1.0);
	r->truth_unresolved = S->truth.unresolved;
	r->uncovered_share = S->truth.n ? (double)S->truth.unresolved / (double)S->truth.n : 0;
	r->observed_p50_ns = S->nobs ? sw_fig_quantile(&S->obs[0].fig, 0.5) : -2;
	r->vers = S->nobs ? S->obs[0].vers : 0;
	r->resolution_ns = S->nobs ? S->obs[0].resolution_ns : -1;
	const struct sw_reveal *A = &S->attrs;
	r->change_only = A->obs >= 0 ? (int64_t)A->change_only : -1;
	r->change_only_torn = A->obs >= 0 ? (int64_t)A->change_only_torn : -1;
	r->ctime_only = A->obs >= 0 ? (int64_t)A->ctime_only : -1;
	r->both = A->obs >= 0 ? (int64_t)A->both : -1;
	r->equal_ctime = A->equal_ctime;
	r->query_hz = A->query_hz;
	r->multigrain = A->multigrain;
	if (A->query_hz >= 0)
		snprintf(r->query, sizeof(r->query), "q=%.1f/s", A->query_hz);
	else if (A->query_hz == -2)
		snprintf(r->query, sizeof(r->query), "q=wire");
	pick_views(S, r->vers, r);
	r->updates_per_1k = S->stores ? 1000.0 * (double)S->updates / (double)S->stores : 0;
	r->trap_p50_ns = S->emulated && S->traps ? sw_hist_quantile(&S->trap_ns, 0.5) : -2;
	/* what the row shows first: a command that does not say its
	 * policy (stalewin-synth's) must not make two policies one */
	int w = snprintf(r->same, sizeof(r->same), "%s|%s|%s|%s|", r->policy, r->workload,
			 r->fs, r->kernel);
	if (w > 0 && (size_t)w < sizeof(r->same))
		sw_runrow_command_key(S->cmdline, r->same + w, sizeof(r->same) - (size_t)w);
}

/* cmd without the options that name where a run went or its seed, and
 * their values ("--out DIR" and "--out=DIR" alike) */
void sw_runrow_command_key(const char *cmd, char *dst, size_t len)
{
	static const char *const drop[] = { "--out", "--log", "--seed" };
	size_t used = 0;
	int skip_next = 0;
	dst[0] = 0;
	for (const char *p = cmd; *p;) {
		while (*p == ' ')
			p++;
		size_t w = strcspn(p, " ");
		if (!w)
			break;
		int dropped = skip_next;
		skip_next = 0;
		for (size_t k = 0; !dropped && k < sizeof(drop) / sizeof(drop[0]); k++) {
			size_t dl = strlen(drop[k]);
			if (w == dl && !strncmp(p, drop[k], dl))
				dropped = skip_next = 1;
			else if (w > dl && !strncmp(p, drop[k], dl) && p[dl] == '=')
				dropped = 1;
		}
		if (!dropped && used + w + 2 < len) {
			if (used)
				dst[used++] = ' ';
			memcpy(dst + used, p, w);
			used += w;
			dst[used] = 0;
		}
		p += w;
	}
}

static int cmp_win(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	x = x < 0 ? INT64_MAX : x; /* > run end: above every figure */
	y = y < 0 ? INT64_MAX : y;
	return (x > y) - (x < y);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int sw_runrow_repeats(const struct sw_runrow *rows, int n, struct sw_repeat *g, int cap)
{
	int ng = 0;
	for (int i = 0; i < n && ng < cap; i++) {
		int seen = 0, m = 0;
		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(rows[j].same, rows[i].same);
		if (seen || !rows[i].same[0])
			continue;
		int64_t p50[SW_REPEAT_MAX], res = 0;
		double upd[SW_REPEAT_MAX];
		for (int j = i; j < n && m < SW_REPEAT_MAX; j++)
			if (!strcmp(rows[j].same, rows[i].same)) {
				p50[m] = rows[j].truth_p50_ns;
				upd[m++] = rows[j].updates_per_1k;
				if (rows[j].resolution_ns > res)
					res = rows[j].resolution_ns;
			}
		if (m < 2)
			continue;
		struct sw_repeat *r = &g[ng++];
		sw_repstats(p50, m, 0.95, res, &r->p50);
		sw_repstats_f(upd, m, 0.95, &r->upd);
		qsort(p50, (size_t)m, sizeof(p50[0]), cmp_win);
		qsort(upd, (size_t)m, sizeof(upd[0]), cmp_dbl);
		r->first = i;
		r->n = m;
		r->p50_min_ns = p50[0];
		r->p50_med_ns = p50[(m - 1) / 2];
		r->p50_max_ns = p50[m - 1];
		r->upd_min = upd[0];
		r->upd_med = upd[(m - 1) / 2];
		r->upd_max = upd[m - 1];
	}
	return ng;
}

const char *sw_runrow_dim_name(int dim)
{
	static const char *const n[SW_DIM_N] = { "policy", "workload", "fs", "kernel",
						  "query rate" };
	return dim >= 0 && dim < SW_DIM_N ? n[dim] : "?";
}

static const char *dim_value(const struct sw_runrow *r, int dim)
{
	switch (dim) {
	case SW_DIM_POLICY: return r->policy;
	case SW_DIM_WORKLOAD: return r->workload;
	case SW_DIM_FS: return r->fs;
	case SW_DIM_QUERY: return r->query;
	default: return r->kernel;
	}
}

unsigned sw_runrow_label(struct sw_runrow *rows, int n)
{
	unsigned mask = 0;
	for (int d = 0; d < SW_DIM_N; d++)
		for (int i = 1; i < n; i++)
			if (strcmp(dim_value(&rows[0], d), dim_value(&rows[i], d)))
				mask |= 1u << d;
	if (!mask)
		mask = 1u << SW_DIM_POLICY;
	for (int i = 0; i < n; i++) {
		size_t used = 0;
		rows[i].label[0] = 0;
		for (int d = 0; d < SW_DIM_N; d++) {
			if (!(mask & (1u << d)))
				continue;
			int w = snprintf(rows[i].label + used, sizeof(rows[i].label) - used,
					 "%s%s", used ? " " : "", dim_value(&rows[i], d));
			if (w < 0 || (size_t)w >= sizeof(rows[i].label) - used)
				break;
			used += (size_t)w;
		}
	}
	return mask;
}
