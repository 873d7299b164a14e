/* SPDX-License-Identifier: MIT */
/* clockest.c - minimum-round-trip clock-offset estimate (clockest.h). */
#include "clockest.h"

void sw_clockest_init(struct sw_clockest *e)
{
	e->rtt_min_ns = INT64_MAX;
	e->offset_ns = 0;
	e->mid_real_ns = 0;
	e->samples = 0;
}

int sw_clockest_add(struct sw_clockest *e, int64_t t1, int64_t t2, int64_t t3,
		    int64_t t4, int64_t rtt_ns)
{
	e->samples++;
	if (rtt_ns >= e->rtt_min_ns)
		return 0;
	e->rtt_min_ns = rtt_ns;
	e->offset_ns = ((t2 - t1) + (t3 - t4)) / 2;
	e->mid_real_ns = t1 + (t4 - t1) / 2;
	return 1;
}
