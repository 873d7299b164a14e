/* SPDX-License-Identifier: MIT */
/* rewrite.c - one page stored again every interval: the seeds'
 * correctness case (each store after the first lands on a dirty page). */
#include "swtime.h"
#include "workload.h"

static int rewrite_init(struct sw_wl *w, char *err, size_t errlen)
{
	if (w->p.interval_ns <= 0)
		return sw_wl_fail(err, errlen, "expected --interval-ms > 0, saw %lld ms",
				  (long long)(w->p.interval_ns / SW_NS_PER_MS));
	if (w->p.page >= w->p.npages)
		return sw_wl_fail(err, errlen,
				  "expected --page below %llu (the mapping's pages), saw %llu",
				  (unsigned long long)w->p.npages,
				  (unsigned long long)w->p.page);
	w->rate_planned = 1e9 / (double)w->p.interval_ns;
	return 0;
}

static void rewrite_next(struct sw_wl *w, uint64_t *page, int64_t *t_off_ns)
{
	*page = w->p.page;
	*t_off_ns = (int64_t)w->i * w->p.interval_ns;
}

const struct sw_workload_ops sw_wl_rewrite = {
	.name = "rewrite",
	.summary = "one page (--page) stored every --interval-ms",
	.init = rewrite_init,
	.next = rewrite_next,
};
