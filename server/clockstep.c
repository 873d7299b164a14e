/* SPDX-License-Identifier: MIT */
/*
 * clockstep.c - `stalewin-writer clock-step ±SEC`: step this host's
 * CLOCK_REALTIME by SEC seconds (clock_settime), as `date -s` or an NTP
 * step would, for vm run's --fault clock-step in the server guest (never
 * on the host: vm/guest/faults.sh).  CLOCK_MONOTONIC does not move.
 * Prints one line of stalewin-runfolder fault options (what happened,
 * measured): the realtime before the step, the step asked and the one
 * made, measured as realtime - monotonic after minus before.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "parse.h"
#include "writer.h"

static int64_t ns_of(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* "+S" or "-S" (a decimal number of seconds, a sign required: a step
 * without one is refused, as its direction would be a guess), |S| in
 * (0, 1e6]: 0 and *ns set, else 2 and err. */
int sw_clock_step_parse(const char *s, int64_t *ns, char *err, size_t errlen)
{
	double v;

	if (!s || (s[0] != '+' && s[0] != '-') ||
	    sw_parse_double(s + 1, 0, 1e6, &v) || v == 0) {
		snprintf(err, errlen, "expected a signed step in seconds, +S or -S with 0 < S <= 1000000, saw '%s'",
			 s ? s : "nothing");
		return 2;
	}
	*ns = (int64_t)(v * 1e9 + 0.5) * (s[0] == '-' ? -1 : 1);
	return 0;
}

int sw_clock_step_main(int argc, char **argv)
{
	char err[160];
	int64_t step, r0, m0, r1, m1;
	struct timespec t;

	if (argc != 2 || sw_clock_step_parse(argv[1], &step, err, sizeof(err))) {
		fprintf(stderr, "stalewin-writer clock-step: %s\n",
			argc != 2 ? "expected one argument, the step: +S or -S seconds" : err);
		return 2;
	}
	m0 = ns_of(CLOCK_MONOTONIC);
	r0 = ns_of(CLOCK_REALTIME);
	t.tv_sec = (time_t)((r0 + step) / 1000000000);
	t.tv_nsec = (long)((r0 + step) % 1000000000);
	if (t.tv_nsec < 0) {
		t.tv_nsec += 1000000000;
		t.tv_sec--;
	}
	if (clock_settime(CLOCK_REALTIME, &t)) {
		fprintf(stderr, "stalewin-writer clock-step: clock_settime(CLOCK_REALTIME) by %+.3f s: %s\n",
			step / 1e9, strerror(errno));
		return 1;
	}
	r1 = ns_of(CLOCK_REALTIME);
	m1 = ns_of(CLOCK_MONOTONIC);
	printf("--int t_start_real_ns=%lld --int step_asked_ns=%lld --int step_ns=%lld\n",
	       (long long)r0, (long long)step, (long long)((r1 - m1) - (r0 - m0)));
	return 0;
}
