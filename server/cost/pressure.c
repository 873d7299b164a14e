/* SPDX-License-Identifier: MIT */
/* pressure.c - an fsync-heavy writer and a polling client beside the
 * stores (pressure.h). */
#include "pressure.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int64_t now_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *writer(void *arg)
{
	struct sw_cost_pressure *p = arg;
	char page[4096];
	long k = 0;

	memset(page, 0x33, sizeof(page));
	p->tid = (pid_t)syscall(SYS_gettid);
	while (!p->stop) {
		page[0] = (char)k;
		if (pwrite(p->fd, page, sizeof(page), (off_t)(k % 16) * 4096) < 0 ||
		    fsync(p->fd))
			break;
		p->fsyncs++;
		k++;
	}
	return NULL;
}

int sw_cost_pressure_start(struct sw_cost_pressure *p, const char *dir, char *err,
			   size_t errlen)
{
	int rc;

	memset(p, 0, sizeof(*p));
	snprintf(p->path, sizeof(p->path), "%s/stalewin-cost-pressure.dat", dir);
	p->fd = open(p->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (p->fd < 0) {
		snprintf(err, errlen, "create %s: %s", p->path, strerror(errno));
		return -1;
	}
	p->t_start_mono_ns = now_mono_ns();
	rc = pthread_create(&p->thread, NULL, writer, p);
	if (rc) {
		snprintf(err, errlen, "pthread_create (pressure): %s", strerror(rc));
		close(p->fd);
		unlink(p->path);
		return -1;
	}
	while (!p->tid)
		sched_yield();
	return 0;
}

/* Stop a thread beside (its stop flag, then join); *n of its work per
 * second since t_start_mono_ns. */
static double stop_rate(pthread_t thread, volatile int *stop, int64_t t_start_mono_ns,
			int64_t *t_stop_mono_ns, const long long *n)
{
	double s;

	*stop = 1;
	pthread_join(thread, NULL);
	*t_stop_mono_ns = now_mono_ns();
	s = (double)(*t_stop_mono_ns - t_start_mono_ns) / 1e9;
	return s > 0 ? (double)*n / s : 0;
}

double sw_cost_pressure_stop(struct sw_cost_pressure *p)
{
	double rate = stop_rate(p->thread, &p->stop, p->t_start_mono_ns,
				&p->t_stop_mono_ns, &p->fsyncs);

	close(p->fd);
	unlink(p->path);
	return rate;
}

static void *poller(void *arg)
{
	struct sw_cost_poller *p = arg;
	struct timespec gap = { p->interval_ns / 1000000000, p->interval_ns % 1000000000 };

	while (!p->stop) {
		struct statx stx;

		p->calls++;
		if (!statx(AT_FDCWD, p->path, 0, STATX_BASIC_STATS, &stx))
			p->found++;
		nanosleep(&gap, NULL);
	}
	return NULL;
}

int sw_cost_poller_start(struct sw_cost_poller *p, const char *path, int64_t interval_ns,
			 char *err, size_t errlen)
{
	int rc;

	memset(p, 0, sizeof(*p));
	snprintf(p->path, sizeof(p->path), "%s", path);
	p->interval_ns = interval_ns;
	p->t_start_mono_ns = now_mono_ns();
	rc = pthread_create(&p->thread, NULL, poller, p);
	if (rc) {
		snprintf(err, errlen, "pthread_create (poller): %s", strerror(rc));
		return -1;
	}
	return 0;
}

double sw_cost_poller_stop(struct sw_cost_poller *p)
{
	return stop_rate(p->thread, &p->stop, p->t_start_mono_ns, &p->t_stop_mono_ns,
			 &p->calls);
}
