/* SPDX-License-Identifier: MIT */
/* random.c - seeded random pages at --rate stores/s: uniform over the
 * working set, or a hot set [0, --hot-pages) receiving --hot-share of the
 * stores and the rest uniform over the other pages. */
#include <stddef.h>

#include "workload.h"

struct random_own {
	uint64_t hot_pages; /* --hot-pages: the hot set [0, hot_pages), 0 = uniform */
	double hot_share;   /* --hot-share: the share of stores into the hot set */
	uint64_t seed;      /* --seed: the PRNG's seed */
};
SW_WL_OWN_FITS(struct random_own);

static const struct sw_wl_opt random_opts[] = {
	{ .name = "hot-pages", .arg = "N", .help = "the hot set [0, N); 0: uniform",
	  .kind = SW_WL_OPT_U64, .off = offsetof(struct random_own, hot_pages), .dflt = "0",
	  .meta = "hot_pages" },
	{ .name = "hot-share", .arg = "F", .help = "the share of stores into the hot set",
	  .kind = SW_WL_OPT_DOUBLE, .off = offsetof(struct random_own, hot_share), .dflt = "0.9",
	  .meta = "hot_share", .expect = "a number in [0,1]" },
	{ .name = "seed", .arg = "N", .help = "the PRNG's seed", .kind = SW_WL_OPT_U64,
	  .off = offsetof(struct random_own, seed), .dflt = "1", .meta = "seed" },
	{ 0 },
};

static int random_init(struct sw_wl *w, char *err, size_t errlen)
{
	const struct random_own *o = SW_WL_OWN(w, struct random_own);
	int rc = sw_wl_check_pages(w, err, errlen);
	if (rc)
		return rc;
	if (o->hot_pages >= w->p.pages && o->hot_pages)
		return sw_wl_fail(err, errlen,
				  "expected --hot-pages below the working set (%llu pages), saw %llu",
				  (unsigned long long)w->p.pages,
				  (unsigned long long)o->hot_pages);
	if (o->hot_share < 0 || o->hot_share > 1)
		return sw_wl_fail(err, errlen, "expected --hot-share in [0,1], saw %g",
				  o->hot_share);
	sw_wl_seed(w, o->seed);
	return 0;
}

static void random_next(struct sw_wl *w, uint64_t *page, int64_t *t_off_ns)
{
	const struct random_own *o = SW_WL_OWN(w, struct random_own);
	const struct sw_wl_params *p = &w->p;
	if (o->hot_pages == 0)
		*page = sw_wl_rand_below(w, p->pages);
	else if (sw_wl_rand_unit(w) < o->hot_share)
		*page = sw_wl_rand_below(w, o->hot_pages);
	else
		*page = o->hot_pages + sw_wl_rand_below(w, p->pages - o->hot_pages);
	*t_off_ns = sw_wl_rate_offset(p->rate, w->i);
}

const struct sw_workload_ops sw_wl_random = {
	.name = "random",
	.summary = "seeded random pages (uniform or --hot-pages/--hot-share) at --rate",
	.init = random_init,
	.next = random_next,
	.opts = random_opts,
	.own_size = sizeof(struct random_own),
};
