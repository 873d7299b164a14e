/*
 * cmtime_check - in-guest semantics check and cost measurement of
 * vm.mmap_cmtime_policy (vm/kernel/patches) on one filesystem.
 *
 * Description: stores through a MAP_SHARED mapping of a file in DIR and
 * watches mtime/ctime with statx (ns resolution) around each event.
 * Expected, per policy (Y = the times move, N = they do not):
 *
 *   event                          eager  deferred  lang  lang-mem
 *   first store to a clean page      Y       N       Y      Y
 *   second store, page still dirty   N       N       N      N
 *   msync(MS_ASYNC) / msync(MS_SYNC)
 *   / munmap / flusher writeback     N       Y       Y      N
 *   the same flush again, no store   N       N       N      N
 *
 * lang and lang-mem differ at the flush: lang stamps again (two changes
 * per dirty cycle), lang-mem persists the fault's times (one change).
 *
 * A kernel that still updates in ->page_mkwrite under deferred, that
 * never applies the deferred update, that applies it twice, or that
 * accepts an unknown policy name shows up as a FAIL line.
 *
 *   cmtime_check --policy eager|deferred|lang|lang-mem|stock --dir DIR
 *                [--measure PAGES]
 *
 * "stock" expects eager and that /proc/sys/vm/mmap_cmtime_policy is
 * missing.  Output, one record per line, machine-readable:
 *   RESULT policy=P check=NAME expect=0|1 seen=0|1 ok=0|1
 *   MEASURE policy=P key=value ...
 *   SUMMARY policy=P pass=N fail=M
 * Exit 0 all passed, 1 a check failed or a runtime error, 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CMTIME_PROG "cmtime_check"
#include "cmtime_lib.h"

#define SYSCTL_PATH "/proc/sys/vm/mmap_cmtime_policy"
#define NPAGES 8           /* pages of the check file */
#define SETTLE_NS 20000000 /* 20 ms: > 1 jiffy (HZ=1000; coarse clock) */

static int64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static void settle(void)
{
	sleep_ns(SETTLE_NS);
}

static int stamp_moved(const struct stamp *a, const struct stamp *b)
{
	return a->t_mtime_real_ns != b->t_mtime_real_ns ||
	       a->t_ctime_real_ns != b->t_ctime_real_ns;
}

static void result(const char *check, int expect, int seen)
{
	int ok = (expect == seen);

	printf("RESULT policy=%s check=%s expect=%d seen=%d ok=%d\n",
	       g_policy, check, expect, seen, ok);
	tally(ok);
}

/* The policy's expectation: does the fault update, does a flush update? */
static void expectations(int *at_fault, int *at_flush)
{
	*at_fault = strcmp(g_policy, "deferred") != 0;
	*at_flush = strcmp(g_policy, "deferred") == 0 ||
		    strcmp(g_policy, "lang") == 0;
}

enum flush_kind { FL_ASYNC, FL_SYNC, FL_MUNMAP, FL_WRITEBACK };
static const char *const flush_names[] = { "msync_async", "msync_sync",
					   "munmap", "writeback" };

static int write_sysctl_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

#define EXPIRE_PATH "/proc/sys/vm/dirty_expire_centisecs"
#define WB_PATH "/proc/sys/vm/dirty_writeback_centisecs"

/* Wait (up to 10 s) for the flusher to move the times; 1 if it did. */
static int wait_writeback(int fd, const struct stamp *before, int *err)
{
	int64_t t_end_mono_ns = mono_ns() + 10000000000LL;
	struct stamp now;

	while (mono_ns() < t_end_mono_ns) {
		if (get_stamp(fd, &now)) {
			*err = 1;
			return 0;
		}
		if (stamp_moved(before, &now))
			return 1;
		settle();
	}
	return 0;
}

/* One round: clean page, first store, second store, flush, flush again. */
static int round_check(const char *path, enum flush_kind kind, int page)
{
	int at_fault, at_flush, err = 0;
	char name[64];
	struct stamp s0, s1;
	volatile char *map;
	int fd;

	expectations(&at_fault, &at_flush);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "cmtime_check: open %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	map = mmap(NULL, NPAGES * g_page, PROT_READ | PROT_WRITE, MAP_SHARED,
		   fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "cmtime_check: mmap: %s\n", strerror(errno));
		close(fd);
		return -1;
	}
	/* Clean start: written back, ptes read-only, nothing pending. */
	if (fsync(fd) || msync((void *)map, NPAGES * g_page, MS_SYNC))
		goto fail;
	(void)map[page * g_page];
	settle();

	if (get_stamp(fd, &s0))
		goto fail;
	map[page * g_page] = (char)(map[page * g_page] + 1);
	if (get_stamp(fd, &s1))
		goto fail;
	snprintf(name, sizeof(name), "%s.first_store", flush_names[kind]);
	result(name, at_fault, stamp_moved(&s0, &s1));

	settle();
	s0 = s1;
	map[page * g_page + 8] = (char)(map[page * g_page + 8] + 1);
	if (get_stamp(fd, &s1))
		goto fail;
	snprintf(name, sizeof(name), "%s.second_store", flush_names[kind]);
	result(name, 0, stamp_moved(&s0, &s1));

	settle();
	s0 = s1;
	switch (kind) {
	case FL_ASYNC:
		err = msync((void *)map, NPAGES * g_page, MS_ASYNC);
		break;
	case FL_SYNC:
		err = msync((void *)map, NPAGES * g_page, MS_SYNC);
		break;
	case FL_MUNMAP:
		err = munmap((void *)map, NPAGES * g_page);
		map = NULL;
		break;
	case FL_WRITEBACK:
		break;
	}
	if (err) {
		fprintf(stderr, "cmtime_check: %s: %s\n", flush_names[kind],
			strerror(errno));
		goto fail;
	}
	snprintf(name, sizeof(name), "%s.flush", flush_names[kind]);
	if (kind == FL_WRITEBACK) {
		int seen;

		char exp[32], wb[32];

		/*
		 * Let the flusher pick the inode up now (kupdate-style), then
		 * restore the machine's values.
		 */
		read_small(EXPIRE_PATH, exp, sizeof(exp));
		read_small(WB_PATH, wb, sizeof(wb));
		write_sysctl_file(EXPIRE_PATH, "1");
		write_sysctl_file(WB_PATH, "10");
		seen = wait_writeback(fd, &s0, &err);
		if (exp[0])
			write_sysctl_file(EXPIRE_PATH, exp);
		if (wb[0])
			write_sysctl_file(WB_PATH, wb);
		if (err)
			goto fail;
		result(name, at_flush, seen);
		if (get_stamp(fd, &s1))
			goto fail;
	} else {
		if (get_stamp(fd, &s1))
			goto fail;
		result(name, at_flush, stamp_moved(&s0, &s1));
	}

	/* "then once": the same flush with no store in between. */
	settle();
	s0 = s1;
	if (kind == FL_ASYNC)
		err = msync((void *)map, NPAGES * g_page, MS_ASYNC);
	else if (kind == FL_SYNC)
		err = msync((void *)map, NPAGES * g_page, MS_SYNC);
	else if (kind == FL_WRITEBACK)
		err = fsync(fd);
	if (kind != FL_MUNMAP) {
		if (err || get_stamp(fd, &s1))
			goto fail;
		snprintf(name, sizeof(name), "%s.flush_again", flush_names[kind]);
		result(name, 0, stamp_moved(&s0, &s1));
	}
	if (map)
		munmap((void *)map, NPAGES * g_page);
	close(fd);
	return 0;
fail:
	if (map)
		munmap((void *)map, NPAGES * g_page);
	close(fd);
	return -1;
}

/* Sum "N transactions" and the handle totals over /proc/fs/jbd2/\*\/info. */
static void jbd2_read(long *tx, long *handles)
{
	glob_t g;
	size_t i;

	*tx = 0;
	*handles = 0;
	if (glob("/proc/fs/jbd2/*/info", 0, NULL, &g) != 0)
		return;
	for (i = 0; i < g.gl_pathc; i++) {
		FILE *f = fopen(g.gl_pathv[i], "r");
		char line[256];
		long t = 0, h = 0;

		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			if (strstr(line, "transactions ("))
				sscanf(line, "%ld", &t);
			else if (strstr(line, "handles per transaction"))
				sscanf(line, "%ld", &h);
		}
		fclose(f);
		*tx += t;
		*handles += t * h; /* jbd2 prints an integer average */
	}
	globfree(&g);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* First store to PAGES clean pages: fault latency, updates, jbd2 cost. */
static int measure(const char *dir, long pages)
{
	char path[4096];
	long tx0, h0, tx1, h1, updates = 0, i;
	int64_t *lat;
	struct stamp s0, s1;
	volatile char *map;
	int fd;

	snprintf(path, sizeof(path), "%s/cmtime_measure", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, pages * g_page)) {
		fprintf(stderr, "cmtime_check: %s: %s\n", path, strerror(errno));
		return -1;
	}
	map = mmap(NULL, pages * g_page, PROT_READ | PROT_WRITE, MAP_SHARED,
		   fd, 0);
	lat = calloc(pages, sizeof(*lat));
	if (map == MAP_FAILED || !lat) {
		fprintf(stderr, "cmtime_check: mmap/alloc failed\n");
		return -1;
	}
	/* Allocate blocks and write back so every store is a mkwrite. */
	for (i = 0; i < pages; i++)
		map[i * g_page] = 1;
	if (msync((void *)map, pages * g_page, MS_SYNC) || fsync(fd))
		return -1;
	sync();
	settle();
	jbd2_read(&tx0, &h0);
	if (get_stamp(fd, &s0))
		return -1;
	for (i = 0; i < pages; i++) {
		int64_t t0 = mono_ns();

		map[i * g_page] = 2;
		lat[i] = mono_ns() - t0;
		if (get_stamp(fd, &s1))
			return -1;
		if (stamp_moved(&s0, &s1))
			updates++;
		s0 = s1;
	}
	if (msync((void *)map, pages * g_page, MS_SYNC) || fsync(fd))
		return -1;
	if (get_stamp(fd, &s1))
		return -1;
	if (stamp_moved(&s0, &s1))
		updates++;
	jbd2_read(&tx1, &h1);
	qsort(lat, pages, sizeof(*lat), cmp_i64);
	printf("MEASURE policy=%s faults=%ld fault_p50_ns=%lld fault_p90_ns=%lld "
	       "fault_p99_ns=%lld fault_max_ns=%lld updates_seen=%ld "
	       "jbd2_transactions=%ld jbd2_handles_approx=%ld\n",
	       g_policy, pages, (long long)lat[pages / 2],
	       (long long)lat[pages * 9 / 10], (long long)lat[pages * 99 / 100],
	       (long long)lat[pages - 1], updates, tx1 - tx0, h1 - h0);
	fflush(stdout);
	free(lat);
	munmap((void *)map, pages * g_page);
	close(fd);
	unlink(path);
	return 0;
}

static int check_sysctl(void)
{
	char buf[64] = "";
	int fd = open(SYSCTL_PATH, O_RDONLY);
	ssize_t n;
	int err;

	if (strcmp(g_policy, "stock") == 0) {
		result("sysctl_missing_on_stock", 1, fd < 0 && errno == ENOENT);
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (fd < 0) {
		fprintf(stderr, "cmtime_check: %s missing: this kernel is not "
			"the patched one (build it: ./stalewin vm kernel build)\n",
			SYSCTL_PATH);
		return -1;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	result("sysctl_reads_policy", 1, strcmp(buf, g_policy) == 0);
	err = write_sysctl_file(SYSCTL_PATH, "bogus");
	result("sysctl_rejects_bogus_einval", 1, err == -EINVAL);
	err = write_sysctl_file(SYSCTL_PATH, "eagerx");
	result("sysctl_rejects_eagerx_einval", 1, err == -EINVAL);
	err = write_sysctl_file(SYSCTL_PATH, "deferred ");
	result("sysctl_rejects_trailing_space_einval", 1, err == -EINVAL);
	err = write_sysctl_file(SYSCTL_PATH, "Lang");
	result("sysctl_rejects_Lang_einval", 1, err == -EINVAL);
	fd = open(SYSCTL_PATH, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	result("sysctl_unchanged_after_rejects", 1, strcmp(buf, g_policy) == 0);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		CMTIME_OPTIONS,
		{ "measure", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL;
	long measure_pages = 0;
	char path[4096], *end;
	int c, fd, k;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (cmtime_option(c, &dir))
			continue;
		switch (c) {
		case 'm':
			measure_pages = strtol(optarg, &end, 10);
			if (*end || measure_pages < 1) {
				fprintf(stderr, "cmtime_check: --measure: expected "
					"a page count >= 1, saw '%s'\n", optarg);
				return 2;
			}
			break;
		default:
			return 2;
		}
	}
	if (!g_policy || !dir ||
	    (strcmp(g_policy, "eager") && strcmp(g_policy, "deferred") &&
	     strcmp(g_policy, "lang") && strcmp(g_policy, "lang-mem") &&
	     strcmp(g_policy, "stock"))) {
		fprintf(stderr, "usage: cmtime_check --policy eager|deferred|"
			"lang|lang-mem|stock --dir DIR [--measure PAGES]\n");
		return 2;
	}
	g_page = sysconf(_SC_PAGESIZE);
	if (check_sysctl())
		return 1;
	if (strcmp(g_policy, "stock") == 0)
		g_policy = "eager"; /* stock expectations are eager's */

	snprintf(path, sizeof(path), "%s/cmtime_check.dat", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, NPAGES * g_page) || fsync(fd)) {
		fprintf(stderr, "cmtime_check: cannot create %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	close(fd);
	/* Fill the blocks so that no store is also an allocation. */
	fd = open(path, O_RDWR);
	{
		char *buf = calloc(1, NPAGES * g_page);

		if (!buf || pwrite(fd, buf, NPAGES * g_page, 0) !=
				    NPAGES * g_page || fsync(fd)) {
			fprintf(stderr, "cmtime_check: fill %s failed\n", path);
			return 1;
		}
		free(buf);
		close(fd);
	}
	for (k = FL_ASYNC; k <= FL_WRITEBACK; k++) {
		if (round_check(path, k, k % NPAGES))
			return 1;
	}
	unlink(path);
	if (measure_pages && measure(dir, measure_pages))
		return 1;
	printf("SUMMARY policy=%s pass=%d fail=%d\n", g_policy, g_pass, g_fail);
	return g_fail ? 1 : 0;
}
