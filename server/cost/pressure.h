/* SPDX-License-Identifier: MIT */
/*
 * pressure.h - threads beside the measured stores: an fsync-heavy writer
 * (journal pressure, the case that makes eager sleep) that
 * rewrites one page of its own file in the same filesystem and fsyncs
 * it, over and over, until stopped (its thread id lets the trace leave
 * its own handles out); and a client that polls the file's attributes
 * through an NFS mount (--query nfs).
 */
#ifndef STALEWIN_COST_PRESSURE_H
#define STALEWIN_COST_PRESSURE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sw_cost_pressure {
	pthread_t thread;
	int fd;
	volatile int stop;
	volatile pid_t tid;        /* the writer's thread id, 0 until it runs */
	long long fsyncs;          /* done so far */
	int64_t t_start_mono_ns, t_stop_mono_ns;
	char path[4200];
};

/* A client beside: statx of path every interval_ns (a file on an NFS
 * mount with noac: each call a GETATTR, the server's ctime and change
 * attribute queried), until stopped. */
struct sw_cost_poller {
	pthread_t thread;
	volatile int stop;
	long long calls, found;    /* statx calls, and those that found it */
	int64_t interval_ns;
	int64_t t_start_mono_ns, t_stop_mono_ns;
	char path[4200];
};

int sw_cost_poller_start(struct sw_cost_poller *p, const char *path, int64_t interval_ns,
			 char *err, size_t errlen);
/* Stop it; its calls per second. */
double sw_cost_poller_stop(struct sw_cost_poller *p);

/* Start the writer in dir: 0, or -1 with err. */
int sw_cost_pressure_start(struct sw_cost_pressure *p, const char *dir, char *err,
			   size_t errlen);
/* Stop it, remove its file; its fsyncs per second (0 when it never ran). */
double sw_cost_pressure_stop(struct sw_cost_pressure *p);

#endif
