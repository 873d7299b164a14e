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
