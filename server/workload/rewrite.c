/* SPDX-License-Identifier: MIT */
/* rewrite.c - one page stored again every interval: the seeds'
 * correctness case (each store after the first lands on a dirty page). */
#include <stddef.h>

#include "swtime.h"
#include "workload.h"

struct rewrite_own {
	uint64_t page;       /* --page: the page stored again */
	int64_t interval_ns; /* --interval-ms: the period */
};
SW_WL_OWN_FITS(struct rewrite_own);

static const struct sw_wl_opt rewrite_opts[] = {
	{ .name = "interval-ms", .arg = "N", .help = "the period", .kind = SW_WL_OPT_MS_NS,
	  .off = offsetof(struct rewrite_own, interval_ns), .dflt = "100", .meta = "interval_ms" },
	{ .name = "page", .arg = "N", .help = "the page stored again", .kind = SW_WL_OPT_U64,
	  .off = offsetof(struct rewrite_own, page), .dflt = "0", .meta = "page" },
	{ 0 },
};

static int rewrite_init(struct sw_wl *w, char *err, size_t errlen)
{
	const struct rewrite_own *o = SW_WL_OWN(w, struct rewrite_own);

	if (o->interval_ns <= 0)
		return sw_wl_fail(err, errlen, "expected --interval-ms > 0, saw %lld ms",
				  (long long)(o->interval_ns / SW_NS_PER_MS));
	if (o->page >= w->p.npages)
		return sw_wl_fail(err, errlen,
				  "expected --page below %llu (the mapping's pages), saw %llu",
				  (unsigned long long)w->p.npages,
				  (unsigned long long)o->page);
	w->rate_planned = 1e9 / (double)o->interval_ns;
	return 0;
}

static void rewrite_next(struct sw_wl *w, uint64_t *page, int64_t *t_off_ns)
{
	const struct rewrite_own *o = SW_WL_OWN(w, struct rewrite_own);

	*page = o->page;
	*t_off_ns = (int64_t)w->i * o->interval_ns;
}

const struct sw_workload_ops sw_wl_rewrite = {
	.name = "rewrite",
	.summary = "one page (--page) stored every --interval-ms",
	.init = rewrite_init,
	.next = rewrite_next,
	.opts = rewrite_opts,
	.own_size = sizeof(struct rewrite_own),
};
