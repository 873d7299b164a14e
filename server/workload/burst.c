/* SPDX-License-Identifier: MIT */
/* burst.c - --burst-stores stores to consecutive pages of the working
 * set (at --rate, or flat out), then --silence-ms of nothing, repeated. */
#include <errno.h>
#include <stdio.h>

#include "workload.h"

static int burst_init(struct sw_wl *w, char *err, size_t errlen)
{
	int rc = sw_wl_check_pages(w, err, errlen);
	if (rc)
		return rc;
	if (w->p.burst_stores == 0) {
		snprintf(err, errlen, "expected --burst-stores > 0, saw 0");
		return -EINVAL;
	}
	if (w->p.silence_ns < 0) {
		snprintf(err, errlen, "expected --silence-ms >= 0");
		return -EINVAL;
	}
	return 0;
}

static void burst_next(struct sw_wl *w, uint64_t *page, int64_t *t_off_ns)
{
	uint64_t k = w->i / w->p.burst_stores, j = w->i % w->p.burst_stores;
	int64_t burst_ns = sw_wl_rate_offset(w->p.rate, w->p.burst_stores);

	*page = w->i % w->p.pages;
	*t_off_ns = (int64_t)k * (burst_ns + w->p.silence_ns) +
		    sw_wl_rate_offset(w->p.rate, j);
	w->i++;
}

static double burst_rate(const struct sw_wl *w)
{
	(void)w;
	return 0; /* the bursts are flat out or at --rate; no average check */
}

const struct sw_workload_ops sw_wl_burst = {
	.name = "burst",
	.summary = "--burst-stores stores, then --silence-ms silence, repeated",
	.init = burst_init,
	.next = burst_next,
	.planned_rate = burst_rate,
};
