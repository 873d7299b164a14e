/* SPDX-License-Identifier: MIT */
/*
 * cmtime_lib.h - what the two guest programs cmtime_check.c and
 * cmtime_cases (cmtime_cases.c, cmtime_cases_paths.c) share: the statx
 * stamps, the clocks, the RESULT counters.  Each program is built alone
 * (gcc -static, by tests/kernel/lib.sh and test_cmtime_cases.sh), so the
 * shared functions live here, static inline; the globals they use are
 * defined once, in cmtime_lib.c, which every program links, so that a
 * program of several files keeps one set of counters.  Define CMTIME_PROG
 * (the program's name, for messages) before including.
 */
#ifndef CMTIME_LIB_H
#define CMTIME_LIB_H

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct stamp {
	int64_t t_mtime_real_ns; /* statx mtime, CLOCK_REALTIME ns */
	int64_t t_ctime_real_ns; /* statx ctime, CLOCK_REALTIME ns */
};

extern const char *g_policy; /* policy under test, from --policy */
extern int g_pass, g_fail;   /* check counters */
extern long g_page;          /* page size, bytes */

static inline int64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline void sleep_ns(int64_t ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };

	nanosleep(&ts, NULL);
}

static inline int get_stamp(int fd, struct stamp *s)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_MTIME | STATX_CTIME, &stx)) {
		fprintf(stderr, CMTIME_PROG ": statx: %s\n", strerror(errno));
		return -1;
	}
	s->t_mtime_real_ns = (int64_t)stx.stx_mtime.tv_sec * 1000000000 +
			     stx.stx_mtime.tv_nsec;
	s->t_ctime_real_ns = (int64_t)stx.stx_ctime.tv_sec * 1000000000 +
			     stx.stx_ctime.tv_nsec;
	return 0;
}

/* The options both programs take, --policy P and --dir DIR: their
 * getopt_long entries, and their parsing (1: c was one of them). */
#define CMTIME_OPTIONS \
	{ "policy", required_argument, NULL, 'p' }, { "dir", required_argument, NULL, 'd' }

static inline int cmtime_option(int c, const char **dir)
{
	if (c == 'p')
		g_policy = optarg;
	else if (c == 'd')
		*dir = optarg;
	else
		return 0;
	return 1;
}

/* a small file (a sysctl) into buf, "" when it cannot be read */
static inline void read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
}

/* count a RESULT line's verdict */
static inline void tally(int ok)
{
	if (ok)
		g_pass++;
	else
		g_fail++;
	fflush(stdout);
}

#endif
