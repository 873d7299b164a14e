/* SPDX-License-Identifier: MIT */
/* figstats.c - a figure's statistics, computed in the pass's room so every
 * sink and compare/archive read the same numbers (figstats.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "figstats.h"

/* Quantile over all n stores of a figure, unresolved ones counted as
 * infinite: -1 when the quantile falls among them. */
int64_t sw_fig_quantile(const struct sw_fig *f, double q)
{
	uint64_t res = f->n - f->unresolved;
	if (!f->n)
		return -2;
	double rank = q * (double)f->n;
	if (rank > (double)res || !res)
		return -1;
	double q2 = rank / (double)res;
	return sw_hist_quantile(&f->h, q2 > 1 ? 1 : q2);
}
/* Share of all stores with a window > v (unresolved count as longer). */
double sw_fig_share_above(const struct sw_fig *f, int64_t v)
{
	uint64_t res = f->n - f->unresolved;
	if (!f->n)
		return 0;
	double above = res ? sw_hist_share_above(&f->h, v) * (double)res : 0;
	return (above + (double)f->unresolved) / (double)f->n;
}
/* Share of all stores with a window <= v. */
double sw_fig_cdf(const struct sw_fig *f, int64_t v)
{
	return f->n ? 1.0 - sw_fig_share_above(f, v) : 0;
}
const double sw_fig_q[SW_FIG_NQ] = { 0.5, 0.9, 0.99, 1.0 };
const char *const sw_fig_q_name[SW_FIG_NQ] = { "p50", "p90", "p99", "max" };
const int64_t sw_fig_th_ns[SW_FIG_NTH] = { 1000000000ll, 5000000000ll, 30000000000ll };
const char *const sw_fig_th_name[SW_FIG_NTH] = { "1s", "5s", "30s" };

void sw_figstats(const struct sw_fig *f, struct sw_figstats *st)
{
	st->n = f->n;
	st->unresolved = f->unresolved;
	for (int k = 0; k < SW_FIG_NQ; k++)
		st->q[k] = sw_fig_quantile(f, sw_fig_q[k]);
	for (int k = 0; k < SW_FIG_NTH; k++)
		st->gt[k] = sw_fig_share_above(f, sw_fig_th_ns[k]);
}
const struct sw_fig *sw_fig_at(const struct sw_summary *S, int i,
			       enum sw_fig_kind *kind)
{
	/* rows in table order: truth, observers, replays, kread pairs */
	if (i == 0) {
		*kind = SW_FIG_TRUTH;
		return &S->truth;
	}
	i--;
	int nobs = sw_fig_nobs(S);
	if (i < nobs) {
		*kind = SW_FIG_OBSERVED;
		return &S->obs[i].fig;
	}
	i -= nobs;
	if (i < S->nprof) {
		*kind = SW_FIG_REPLAY;
		return &S->replay[i];
	}
	i -= S->nprof;
	if (i < 2 * S->nkread) {
		*kind = SW_FIG_KREAD;
		return i % 2 == 0 ? &S->kr[i / 2].fig : &S->kr[i / 2].replay;
	}
	return NULL;
}

int sw_fig_nobs(const struct sw_summary *S)
{
	return S->nobs < SW_ROWS_OBS ? S->nobs : SW_ROWS_OBS;
}

double sw_obs_achieved_hz(const struct sw_observer *O)
{
	if (O->replies < 2 || O->t_last_ns <= O->t_first_ns)
		return -1;
	return (double)(O->replies - 1) * 1e9 / (double)(O->t_last_ns - O->t_first_ns);
}

/* a quantile's order: "> run end" (-1) after every time */
static int64_t q_key(int64_t q)
{
	return q == -1 ? INT64_MAX : q;
}
static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}
static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}
/* min, median (the lower middle one), max of v[0..n) sorted in place */
static void spread3(int64_t *v, int n, int64_t out[3])
{
	qsort(v, (size_t)n, sizeof(*v), cmp_i64);
	out[0] = v[0];
	out[1] = v[(n - 1) / 2];
	out[2] = v[n - 1];
	for (int k = 0; k < 3; k++)
		if (out[k] == INT64_MAX)
			out[k] = -1;
}

int sw_obs_spread(const struct sw_summary *S, struct sw_obs_spread *sp)
{
	int n = S->nobs;
	int64_t *p50 = n ? malloc((size_t)n * sizeof(*p50)) : NULL;
	int64_t *p99 = n ? malloc((size_t)n * sizeof(*p99)) : NULL;
	double *hz = n ? malloc((size_t)n * sizeof(*hz)) : NULL;
	int nj = 0, nh = 0, rc = 0;

	*sp = (struct sw_obs_spread){ .nobs = n, .in_rows = sw_fig_nobs(S), .worst = -1,
				      .p50 = { -2, -2, -2 }, .p99 = { -2, -2, -2 },
				      .hz = { -1, -1, -1 } };
	if (n && (!p50 || !p99 || !hz)) {
		rc = -1;
		goto out;
	}
	int64_t worst[4] = { 0 }; /* p99, max, unresolved per million, p50 */
	for (int i = 0; i < n; i++) {
		const struct sw_observer *O = &S->obs[i];
		sp->checked += O->checked;
		sp->consistent += O->consistent;
		sp->low += O->low;
		sp->high += O->high;
		for (int e = 0; e < SW_EXC_N; e++)
			sp->exc[e] += O->exc[e];
		double h = sw_obs_achieved_hz(O);
		if (h >= 0)
			hz[nh++] = h;
		if (!O->fig.n) /* judged no store */
			continue;
		p50[nj] = q_key(sw_fig_quantile(&O->fig, 0.5));
		p99[nj] = q_key(sw_fig_quantile(&O->fig, 0.99));
		/* the worst: the longest p99, then max, then the most stores
		 * it never saw revealed, then the longest p50 */
		int64_t key[4] = { p99[nj], q_key(sw_fig_quantile(&O->fig, 1.0)),
				   (int64_t)(O->fig.unresolved * 1000000 / O->fig.n), p50[nj] };
		int k = 0;
		while (k < 4 && key[k] == worst[k])
			k++;
		if (sp->worst < 0 || (k < 4 && key[k] > worst[k])) {
			sp->worst = i;
			memcpy(worst, key, sizeof(worst));
		}
		nj++;
	}
	sp->judged = nj;
	if (nj) {
		spread3(p50, nj, sp->p50);
		spread3(p99, nj, sp->p99);
	}
	if (nh) {
		qsort(hz, (size_t)nh, sizeof(*hz), cmp_dbl);
		sp->hz[0] = hz[0];
		sp->hz[1] = hz[(nh - 1) / 2];
		sp->hz[2] = hz[nh - 1];
	}
out:
	free(p50);
	free(p99);
	free(hz);
	return rc;
}
