/* SPDX-License-Identifier: MIT */
/* swtime.h - the two clocks every stalewin event carries. */
#ifndef STALEWIN_SWTIME_H
#define STALEWIN_SWTIME_H

#include <stdint.h>
#include <time.h>

#define SW_NS_PER_S 1000000000ll
#define SW_NS_PER_MS 1000000ll
#define SW_NS_PER_US 1000ll

static inline int64_t sw_ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * SW_NS_PER_S + ts->tv_nsec;
}

static inline int64_t sw_clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return sw_ts_ns(&ts);
}

static inline int64_t sw_real_ns(void) { return sw_clock_ns(CLOCK_REALTIME); }
static inline int64_t sw_mono_ns(void) { return sw_clock_ns(CLOCK_MONOTONIC); }

/* How long after a change (its creation) a file stops setting the
 * writeback's phase and state at a first store: its inode and metadata
 * blocks written back, each at its expiry (2 expire), the wb's writeout
 * share aged out (10 flusher periods) and their commit made.  Stores to a
 * file changed longer ago see a settled file (server/README.md,
 * sw_model_start_at; the report's "settled"). */
static inline int64_t sw_settle_ns(int64_t expire_ns, int64_t writeback_ns, int64_t commit_ns)
{
	return 2 * expire_ns + 10 * writeback_ns + commit_ns;
}

static inline struct timespec sw_ns_ts(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / SW_NS_PER_S,
			       .tv_nsec = ns % SW_NS_PER_S };
	if (ts.tv_nsec < 0) {
		ts.tv_nsec += SW_NS_PER_S;
		ts.tv_sec--;
	}
	return ts;
}

#endif
