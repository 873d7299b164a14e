/* SPDX-License-Identifier: MIT */
/* clockest.h - the clock-offset estimate every clock exchange uses: of
 * several request/reply exchanges with a peer, the one with the least round
 * trip bounds the offset best (NTP's minimum filter); its error is at most
 * half that round trip. */
#ifndef STALEWIN_CLOCKEST_H
#define STALEWIN_CLOCKEST_H
#include <stdint.h>

struct sw_clockest {
	int64_t rtt_min_ns;  /* least round trip seen, ns (INT64_MAX: none yet) */
	int64_t offset_ns;   /* peer's CLOCK_REALTIME - ours, from that exchange */
	int64_t mid_real_ns; /* our CLOCK_REALTIME at the middle of that exchange */
	unsigned samples;    /* exchanges added */
};

void sw_clockest_init(struct sw_clockest *e);
/* One exchange, CLOCK_REALTIME ns: t1 we sent, t2 the peer received, t3 the
 * peer replied, t4 we received (a peer with one timestamp: t2 == t3).
 * rtt_ns: its round trip less the peer's hold time, on whichever clock the
 * caller trusts for intervals.  Returns 1 when it became the best. */
int sw_clockest_add(struct sw_clockest *e, int64_t t1, int64_t t2, int64_t t3,
		    int64_t t4, int64_t rtt_ns);
#endif
