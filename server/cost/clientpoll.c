/* SPDX-License-Identifier: MIT */
/* clientpoll.c - the client guest's polls and the measurer's side of
 * their handshake (clientpoll.h). */
#include "clientpoll.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CHECK_NS 20000000LL /* the control files, every 20 ms */

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int ctl_has(const char *ctl, const char *name)
{
	char p[4200];

	snprintf(p, sizeof(p), "%s/%s", ctl, name);
	return access(p, F_OK) == 0;
}

/* ctl/name with text, whole or not at all (a rename) */
static int ctl_put(const char *ctl, const char *name, const char *text, char *err, size_t errlen)
{
	char p[4200], tmp[4300];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", ctl, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", p);
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) || rename(tmp, p)) {
		snprintf(err, errlen, "cannot write %s: %s", p, strerror(errno));
		return -1;
	}
	return 0;
}

static void sleep_until(int64_t t)
{
	struct timespec ts = { t / 1000000000, t % 1000000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

int sw_cost_client_poll(const char *path, double rate, const char *ctl, double max_s,
			char *err, size_t errlen)
{
	int64_t period = (int64_t)(1e9 / rate), t0 = mono_ns(), next = t0, check = t0;
	int64_t w0 = 0, w1 = 0;
	long long calls = 0, found = 0;
	int ready = 0, started = 0;
	char text[256];

	if (!(rate > 0 && rate <= 100000)) {
		snprintf(err, errlen, "--rate: expected 0 < rate <= 100000 calls/s, saw %g", rate);
		return -1;
	}
	for (;;) {
		struct statx stx;
		int ok = !statx(AT_FDCWD, path, 0, STATX_BASIC_STATS, &stx);
		int64_t now;

		if (started) {
			calls++;
			found += ok;
		}
		if (!ready) {
			if (ctl_put(ctl, "ready", "ready\n", err, errlen))
				return -1;
			ready = 1;
		}
		now = mono_ns();
		if (now >= check) {
			if (!started && ctl_has(ctl, "start")) {
				if (ctl_put(ctl, "counting", "counting\n", err, errlen))
					return -1;
				started = 1;
				w0 = now;
			}
			if (ctl_has(ctl, "stop")) {
				w1 = now;
				break;
			}
			if (now - t0 > (int64_t)(max_s * 1e9)) {
				snprintf(err, errlen, "no %s/stop after %.0f s", ctl, max_s);
				return -1;
			}
			check = now + CHECK_NS;
		}
		next += period;
		if (next < now)
			next = now; /* late: not made up */
		sleep_until(next);
	}
	if (!started)
		w0 = w1;
	snprintf(text, sizeof(text), "%lld %lld %.6f %.3f\n", calls, found,
		 (double)(w1 - w0) / 1e9, rate);
	return ctl_put(ctl, "stats", text, err, errlen);
}

/* wait for ctl/name up to timeout_s: 0, -1 */
static int ctl_wait(const char *ctl, const char *name, double timeout_s)
{
	int64_t end = mono_ns() + (int64_t)(timeout_s * 1e9);

	while (!ctl_has(ctl, name)) {
		if (mono_ns() > end)
			return -1;
		usleep(50000);
	}
	return 0;
}

/* 0 once ctl/name exists (ctl_wait), else -1 with err saying so */
static int ctl_expect(const char *ctl, const char *name, double timeout_s, char *err,
		      size_t errlen)
{
	if (!ctl_wait(ctl, name, timeout_s))
		return 0;
	snprintf(err, errlen, "the client guest's poll: expected %s/%s within %.0f s, saw none",
		 ctl, name, timeout_s);
	return -1;
}

int sw_cost_client_begin(const char *ctl, double timeout_s, char *err, size_t errlen)
{
	if (ctl_expect(ctl, "ready", timeout_s, err, errlen))
		return -1;
	if (ctl_put(ctl, "start", "start\n", err, errlen))
		return -1;
	if (ctl_expect(ctl, "counting", timeout_s, err, errlen))
		return -1;
	return 0;
}

int sw_cost_client_end(const char *ctl, double timeout_s, struct sw_cost_client_stats *st,
		       char *err, size_t errlen)
{
	char p[4200];
	FILE *f;
	int n;

	memset(st, 0, sizeof(*st));
	if (ctl_put(ctl, "stop", "stop\n", err, errlen))
		return -1;
	if (ctl_expect(ctl, "stats", timeout_s, err, errlen))
		return -1;
	snprintf(p, sizeof(p), "%s/stats", ctl);
	f = fopen(p, "r");
	n = f ? fscanf(f, "%lld %lld %lf %lf", &st->calls, &st->found, &st->seconds, &st->rate)
	      : 0;
	if (f)
		fclose(f);
	if (n != 4 || st->seconds < 0) {
		snprintf(err, errlen, "%s: expected 'calls found seconds rate', saw %d of them", p,
			 n);
		return -1;
	}
	st->polls_per_s = st->seconds > 0 ? (double)st->calls / st->seconds : 0;
	return 0;
}
