/* SPDX-License-Identifier: MIT */
/*
 * clientpoll.h - a client on another machine (the client guest, `--query
 * nfs`) polling the file under test at a fixed rate through its NFS mount
 * (noac, lookupcache=none: each statx a GETATTR to the server), in step
 * with the measurer through files of a folder both see (the guests' 9p
 * share):
 *
 *   client: stalewin-cost poll          measurer: stalewin-cost measure
 *   polls; writes CTL/ready
 *                                       makes the file, waits for ready,
 *                                       writes CTL/start
 *   counts the polls from start on,
 *   writes CTL/counting
 *                                       runs its rounds
 *                                       writes CTL/stop, waits for stats
 *   stops, writes CTL/stats
 *                                       reads the count and rate
 *
 * The client looks at the control files every 20 ms: its count covers the
 * rounds whole, and up to about 20 ms and a 9p round trip either side of
 * them (the measurer waiting); the window's length is the client's own
 * (CLOCK_MONOTONIC between seeing start and seeing stop).
 */
#ifndef STALEWIN_COST_CLIENTPOLL_H
#define STALEWIN_COST_CLIENTPOLL_H

#include <stddef.h>

struct sw_cost_client_stats {
	long long calls, found; /* statx calls in the window, those that found the file */
	double seconds;         /* the window */
	double rate;            /* the rate asked, calls per second */
	double polls_per_s;     /* calls / seconds */
};

/* The client: statx path at rate calls per second (each at its deadline;
 * one that comes late is not made up), ctl/ready after the first, then
 * counting from ctl/start to ctl/stop, then ctl/stats.  Gives up after
 * max_s without a stop.  0, or -1 with err. */
int sw_cost_client_poll(const char *path, double rate, const char *ctl, double max_s,
			char *err, size_t errlen);

/* The measurer: wait up to timeout_s for ctl/ready, then ctl/start, then
 * up to timeout_s for ctl/counting.  0, or -1 with err. */
int sw_cost_client_begin(const char *ctl, double timeout_s, char *err, size_t errlen);

/* The measurer: ctl/stop, then up to timeout_s for ctl/stats, read into
 * st.  0, or -1 with err. */
int sw_cost_client_end(const char *ctl, double timeout_s, struct sw_cost_client_stats *st,
		       char *err, size_t errlen);

#endif
