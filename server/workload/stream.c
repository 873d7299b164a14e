/* SPDX-License-Identifier: MIT */
/* stream.c - pages 0, 1, 2, ... of the working set in order at --rate
 * stores/s, wrapping around: the cost case (every store to a new page). */
#include "workload.h"

static void stream_next(struct sw_wl *w, uint64_t *page, int64_t *t_off_ns)
{
	*page = w->i % w->p.pages;
	*t_off_ns = sw_wl_rate_offset(w->p.rate, w->i);
}

const struct sw_workload_ops sw_wl_stream = {
	.name = "stream",
	.summary = "pages of the working set in order at --rate stores/s",
	.next = stream_next,
};
