/* SPDX-License-Identifier: MIT */
/* srvtrace.h - what a server guest's server/trace.txt (vm/guest/trace.sh,
 * trace_clock mono: the server's CLOCK_MONOTONIC, as the writer's
 * t_*_mono_ns) counts for the writer's file. */
#ifndef STALEWIN_SRVTRACE_H
#define STALEWIN_SRVTRACE_H
#include <stddef.h>
#include <stdint.h>

struct sw_srvtrace {
	int ts_traced;      /* timestamp:* events were enabled (6.13+) */
	int nfsd_traced;    /* nfsd delegation/recall events were enabled */
	int64_t ctime_sets; /* ctime_ns_xchg + inode_set_ctime_to_ts */
	int64_t ctime_skip; /* ctime_xchg_skip: the same value again */
	int64_t queries;    /* fill_mg_cmtime: a getattr that marked ctime queried */
	int64_t deleg_granted, deleg_recalls, deleg_returns;
	char nfsd_events[160]; /* the nfsd event names seen, comma-separated */
};

/* One event line of a trace.txt ("TASK-PID [CPU] FLAGS SECONDS: EVENT:
 * fields"): its time (ns, the trace clock, whole us) into *ns and its
 * event name's start into *ev (its length the return value); 0 for a
 * comment or any other line. */
size_t sw_srvtrace_line(const char *line, int64_t *ns, const char **ev);

/* Count the events of PATH within [lo_ns, hi_ns] (server CLOCK_MONOTONIC
 * ns; hi_ns 0: all).  0, or -1: no file. */
int sw_srvtrace_load(const char *path, int64_t lo_ns, int64_t hi_ns, struct sw_srvtrace *t);

#endif
