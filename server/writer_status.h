/* SPDX-License-Identifier: MIT */
/* writer_status.h - the --status-file (server/README.md):
 * {"state":"starting|running|done|error","run_id":"hex","stores":N,
 *  "traps":N,"updates":N,"elapsed_s":F,"error":"..."} plus policy, trap,
 * pid, rate_planned, rate_achieved (stores/s), warning, rss_anon_kib,
 * cpu_main_s, nivcsw_main, cpu_process_s. */
#ifndef STALEWIN_WRITER_STATUS_H
#define STALEWIN_WRITER_STATUS_H

#include <stdint.h>

struct sw_status {
	const char *state;   /* starting | running | done | error */
	uint64_t run_id;
	uint64_t stores, traps, updates;
	double elapsed_s;    /* since the run's start */
	const char *policy;
	const char *trap;
	double rate_planned; /* stores/s, 0: flat out / not applicable */
	double rate_achieved;/* stores/s so far */
	char warning[256];   /* "" or e.g. the rate that was not met */
	long long rss_anon_kib; /* writer's anonymous RSS, -1 unknown */
	double cpu_main_s;   /* storing (main) thread's CPU time since the run
	                      * start, s; < 0 before it (omitted) */
	long nivcsw_main;    /* its involuntary context switches since then */
	double cpu_process_s;/* all threads' CPU time since the run start, s */
	char error[512];     /* state == error */
};

/* Returns 0 or -errno. No-op when path is NULL. */
int sw_status_write(const char *path, const struct sw_status *s);

#endif
