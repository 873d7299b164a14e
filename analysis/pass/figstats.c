/* SPDX-License-Identifier: MIT */
/* figstats.c - a figure's statistics, computed in the pass's room so every
 * sink and compare/archive read the same numbers (figstats.h). */
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
	if (i < S->nobs) {
		*kind = SW_FIG_OBSERVED;
		return &S->obs[i].fig;
	}
	i -= S->nobs;
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
