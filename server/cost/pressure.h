/* SPDX-License-Identifier: MIT */
/*
 * pressure.h - an fsync-heavy writer beside the measured stores (issue
 * #33: journal pressure, the case that makes eager sleep): a thread that
 * rewrites one page of its own file in the same filesystem and fsyncs
 * it, over and over, until stopped.  Its thread id lets the trace leave
 * its own handles out.
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

/* Start the writer in dir: 0, or -1 with err. */
int sw_cost_pressure_start(struct sw_cost_pressure *p, const char *dir, char *err,
			   size_t errlen);
/* Stop it, remove its file; its fsyncs per second (0 when it never ran). */
double sw_cost_pressure_stop(struct sw_cost_pressure *p);

#endif
