/* SPDX-License-Identifier: MIT */
/* random.c - seeded random pages at --rate stores/s: uniform over the
 * working set, or a hot set [0, --hot-pages) receiving --hot-share of the
 * stores and the rest uniform over the other pages. */
#include "workload.h"

static int random_init(struct sw_wl *w, char *err, size_t errlen)
{
	int rc = sw_wl_check_pages(w, err, errlen);
	if (rc)
		return rc;
	if (w->p.hot_pages >= w->p.pages && w->p.hot_pages)
		return sw_wl_fail(err, errlen,
				  "expected --hot-pages below the working set (%llu pages), saw %llu",
				  (unsigned long long)w->p.pages,
				  (unsigned long long)w->p.hot_pages);
	if (w->p.hot_share < 0 || w->p.hot_share > 1)
		return sw_wl_fail(err, errlen, "expected --hot-share in [0,1], saw %g",
				  w->p.hot_share);
	return 0;
}

static void random_next(struct sw_wl *w, uint64_t *page, int64_t *t_off_ns)
{
	const struct sw_wl_params *p = &w->p;
	if (p->hot_pages == 0)
		*page = sw_wl_rand_below(w, p->pages);
	else if (sw_wl_rand_unit(w) < p->hot_share)
		*page = sw_wl_rand_below(w, p->hot_pages);
	else
		*page = p->hot_pages + sw_wl_rand_below(w, p->pages - p->hot_pages);
	*t_off_ns = sw_wl_rate_offset(p->rate, w->i);
}

const struct sw_workload_ops sw_wl_random = {
	.name = "random",
	.summary = "seeded random pages (uniform or --hot-pages/--hot-share) at --rate",
	.init = random_init,
	.next = random_next,
};
