/* SPDX-License-Identifier: MIT */
/* fmt_common.c - helpers the formats share. */
#include <stdio.h>
#include <string.h>

#include "fmt.h"

void sw_fmt_dur(char *buf, int len, int64_t ns)
{
	double v = (double)ns;
	if (ns < 0)
		snprintf(buf, len, "-");
	else if (ns == 0)
		snprintf(buf, len, "0");
	else if (ns < 1000)
		snprintf(buf, len, "%lldns", (long long)ns);
	else if (v < 1e4)
		snprintf(buf, len, "%.2fus", v / 1e3);
	else if (v < 1e5)
		snprintf(buf, len, "%.1fus", v / 1e3);
	else if (v < 1e6)
		snprintf(buf, len, "%.0fus", v / 1e3);
	else if (v < 1e7)
		snprintf(buf, len, "%.2fms", v / 1e6);
	else if (v < 1e8)
		snprintf(buf, len, "%.1fms", v / 1e6);
	else if (v < 1e9)
		snprintf(buf, len, "%.0fms", v / 1e6);
	else if (v < 1e10)
		snprintf(buf, len, "%.2fs", v / 1e9);
	else if (v < 1e11)
		snprintf(buf, len, "%.1fs", v / 1e9);
	else
		snprintf(buf, len, "%.0fs", v / 1e9);
}

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

void sw_fmt_q(char *buf, int len, const struct sw_fig *f, double q)
{
	int64_t v = sw_fig_quantile(f, q);
	if (v == -2)
		snprintf(buf, len, "-");
	else if (v == -1)
		snprintf(buf, len, ">end");
	else
		sw_fmt_dur(buf, len, v);
}

const struct sw_fig *sw_fig_at(const struct sw_summary *S, int i, int *kind)
{
	/* rows in table order: truth, observers, replays, kread pairs */
	if (i == 0) {
		*kind = 0;
		return &S->truth;
	}
	i--;
	if (i < S->nobs) {
		*kind = 1;
		return &S->obs[i].fig;
	}
	i -= S->nobs;
	if (i < S->nprof) {
		*kind = 2;
		return &S->replay[i];
	}
	i -= S->nprof;
	if (i < 2 * S->nkread) {
		*kind = 3;
		return i % 2 == 0 ? &S->kr[i / 2].fig : &S->kr[i / 2].replay;
	}
	return NULL;
}

void sw_mask_name(char *buf, int len, uint32_t m)
{
	snprintf(buf, len, "%s%s%s%s", m & SW_ATTR_SIZE ? "+size" : "",
		 m & SW_ATTR_MTIME ? "+mtime" : "", m & SW_ATTR_CTIME ? "+ctime" : "",
		 m & SW_ATTR_CHANGE ? "+change" : "");
	if (buf[0] == '+')
		memmove(buf, buf + 1, strlen(buf));
}
