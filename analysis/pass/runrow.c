/* SPDX-License-Identifier: MIT */
/* runrow.c - a finished pass reduced to the summary's row (runrow.h). */
#include <stdio.h>
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
	pick_views(S, r->vers, r);
	r->updates_per_1k = S->stores ? 1000.0 * (double)S->updates / (double)S->stores : 0;
	r->trap_p50_ns = S->traps ? sw_hist_quantile(&S->trap_ns, 0.5) : -2;
}

const char *sw_runrow_dim_name(int dim)
{
	static const char *const n[SW_DIM_N] = { "policy", "workload", "fs", "kernel" };
	return dim >= 0 && dim < SW_DIM_N ? n[dim] : "?";
}

static const char *dim_value(const struct sw_runrow *r, int dim)
{
	switch (dim) {
	case SW_DIM_POLICY: return r->policy;
	case SW_DIM_WORKLOAD: return r->workload;
	case SW_DIM_FS: return r->fs;
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
