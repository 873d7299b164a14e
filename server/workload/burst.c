/* SPDX-License-Identifier: MIT */
/* burst.c - --burst-stores stores to consecutive pages of the working
 * set (at --rate, or flat out), then --silence-ms of nothing, repeated. */
#include "workload.h"

static int burst_init(struct sw_wl *w, char *err, size_t errlen)
{
	int rc = sw_wl_check_pages(w, err, errlen);
	if (rc)
		return rc;
	if (w->p.burst_stores == 0)
		return sw_wl_fail(err, errlen, "expected --burst-stores > 0, saw 0");
	if (w->p.silence_ns < 0)
		return sw_wl_fail(err, errlen, "expected --silence-ms >= 0");
	w->rate_planned = 0; /* flat out or at --rate in bursts: no average */
	return 0;
}

static void burst_next(struct sw_wl *w, uint64_t *page, int64_t *t_off_ns)
{
	uint64_t k = w->i / w->p.burst_stores, j = w->i % w->p.burst_stores;
	int64_t burst_ns = sw_wl_rate_offset(w->p.rate, w->p.burst_stores);

	*page = w->i % w->p.pages;
	*t_off_ns = (int64_t)k * (burst_ns + w->p.silence_ns) +
		    sw_wl_rate_offset(w->p.rate, j);
}

const struct sw_workload_ops sw_wl_burst = {
	.name = "burst",
	.summary = "--burst-stores stores, then --silence-ms silence, repeated",
	.init = burst_init,
	.next = burst_next,
};
