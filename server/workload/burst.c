/* SPDX-License-Identifier: MIT */
/* burst.c - --burst-stores stores to consecutive pages of the working
 * set (at --rate, or flat out), then --silence-ms of nothing, repeated. */
#include <stddef.h>

#include "workload.h"

struct burst_own {
	uint64_t burst_stores; /* --burst-stores: stores per burst */
	int64_t silence_ns;    /* --silence-ms: the silence after each burst */
};
SW_WL_OWN_FITS(struct burst_own);

static const struct sw_wl_opt burst_opts[] = {
	{ .name = "burst-stores", .arg = "N", .help = "stores a burst", .kind = SW_WL_OPT_U64,
	  .off = offsetof(struct burst_own, burst_stores), .dflt = "100", .meta = "burst_stores" },
	{ .name = "silence-ms", .arg = "N", .help = "the silence after each",
	  .kind = SW_WL_OPT_MS_NS, .off = offsetof(struct burst_own, silence_ns), .dflt = "1000",
	  .meta = "silence_ms" },
	{ 0 },
};

static int burst_init(struct sw_wl *w, char *err, size_t errlen)
{
	const struct burst_own *o = SW_WL_OWN(w, struct burst_own);
	int rc = sw_wl_check_pages(w, err, errlen);
	if (rc)
		return rc;
	if (o->burst_stores == 0)
		return sw_wl_fail(err, errlen, "expected --burst-stores > 0, saw 0");
	if (o->silence_ns < 0)
		return sw_wl_fail(err, errlen, "expected --silence-ms >= 0");
	w->rate_planned = 0; /* flat out or at --rate in bursts: no average */
	return 0;
}

static void burst_next(struct sw_wl *w, uint64_t *page, int64_t *t_off_ns)
{
	const struct burst_own *o = SW_WL_OWN(w, struct burst_own);
	uint64_t k = w->i / o->burst_stores, j = w->i % o->burst_stores;
	int64_t burst_ns = sw_wl_rate_offset(w->p.rate, o->burst_stores);

	*page = w->i % w->p.pages;
	*t_off_ns = (int64_t)k * (burst_ns + o->silence_ns) +
		    sw_wl_rate_offset(w->p.rate, j);
}

const struct sw_workload_ops sw_wl_burst = {
	.name = "burst",
	.summary = "--burst-stores stores, then --silence-ms silence, repeated",
	.init = burst_init,
	.next = burst_next,
	.opts = burst_opts,
	.own_size = sizeof(struct burst_own),
};
