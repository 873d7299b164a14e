/* SPDX-License-Identifier: MIT */
/*
 * cmtime_cases_cost.c - the cost of the writeback's dirty-pte walk
 * (review 2, P1): with vm.mmap_cmtime_ordering=1, ext4_writepages() first
 * write-protects the dirty ptes of what it is about to write
 * (mapping_mkclean_flush_cmtime(), patch 0007).  Background writeback
 * calls ->writepages() once per chunk; a walk over every dirty folio of
 * the file on each call costs about D^2/2C folio_mkclean() calls for D
 * dirty folios written in chunks of C pages, where the data walk itself
 * costs D.
 *
 * Description:
 *   walk  a file of WALK_PAGES pages, mapped shared, one store in every
 *         page, then the mapping kept while the flusher cleans it (the
 *         guest script sets dirty_bytes, dirty_background_bytes and a
 *         short expire, so writeback runs in chunks during and after the
 *         stores).  The tracepoint mmap_cmtime:mmap_cmtime_mkclean gives,
 *         per walk, the folios it write-protected; ext4:ext4_writepages
 *         the ->writepages() calls; writeback:writeback_dirty_folio the
 *         folios the stores dirtied (on 7.2 ext4 caches large folios, so
 *         fewer than the pages), each written back once.  Under eager the
 *         walk must not run (no event); under deferred and lang the pages
 *         of the folios walked over the whole clean-up must be at most
 *         WALK_MAX_RATIO_PCT % of the pages stored (one walk per folio
 *         written, plus folios under writeback that a pass skips but
 *         still write-protects), with at least WALK_MIN_CALLS calls
 *         (the writeback did run in chunks: a single call could not tell
 *         a bounded walk from a whole-file one).  Pages, not folios: with
 *         large folios (7.2) a whole-file walk's excess is in the large
 *         folios the early calls pass again, few but big (seen: 119
 *         folios walked per 100 dirtied, where the pages were).  The
 *         folios walked per 100 dirtied are printed.  The data walk's own
 *         folio_mkclean(), one per page written, is the same under every
 *         policy and not counted.
 *   msync-loop  (a measurement, review 2's P3) MSYNC_LOOP_N times a store
 *         to page 0 of a mapped file and msync(MS_ASYNC) of it: the
 *         iterations' write faults (ru_minflt), and the loop's time in
 *         ticks of the coarse clock (clock_getres(CLOCK_REALTIME_COARSE)),
 *         so that a loop bound by 6.1's tick wait shows about one tick per
 *         iteration whatever the machine's speed; the test script prints
 *         the ratio to eager's.  One RESULT: the loop completed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmtime_cases.h"
#include "tracefs.h" /* server/cost/tracefs.c, linked in */

#define WALK_PAGES 32768L        /* 128 MiB of 4 KiB pages */
#define WALK_MAX_RATIO_PCT 150   /* pages walked per 100 pages stored */
#define WALK_MIN_CALLS 4         /* ->writepages() calls: chunked */
#define WALK_CLEAN_MS 90000      /* the flusher's time to clean it */
#define MSYNC_LOOP_N 1000

struct walk_sum {
	unsigned long long ino;
	long calls, applied, writepages, dirtied;
	long long walked, walked_max, pages;
};

static int walk_line(const struct sw_tfs_line *l, void *arg)
{
	struct walk_sum *w = arg;
	long long ino, v;

	if (sw_tfs_field(l->fields, "ino", &ino) ||
	    (unsigned long long)ino != w->ino)
		return 0;
	if (!strcmp(l->event, "ext4_writepages")) {
		w->writepages++;
		return 0;
	}
	if (!strcmp(l->event, "writeback_dirty_folio")) {
		w->dirtied++;
		return 0;
	}
	if (strcmp(l->event, "mmap_cmtime_mkclean"))
		return 0;
	w->calls++;
	if (!sw_tfs_field(l->fields, "walked", &v)) {
		w->walked += v;
		if (v > w->walked_max)
			w->walked_max = v;
	}
	if (!sw_tfs_field(l->fields, "pages", &v))
		w->pages += v;
	if (!sw_tfs_field(l->fields, "applied", &v) && v)
		w->applied++;
	return 0;
}

/* Dirty plus Writeback of /proc/meminfo, kB; -1 if unreadable. */
static long dirty_kb(void)
{
	char line[128];
	long sum = 0, v;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Dirty: %ld", &v) == 1 ||
		    sscanf(line, "Writeback: %ld", &v) == 1)
			sum += v;
	fclose(f);
	return sum;
}

static int walk_trace(int on, const char *filter)
{
	static const char *const ev[] = { "mmap_cmtime/mmap_cmtime_mkclean",
					  "ext4/ext4_writepages",
					  "writeback/writeback_dirty_folio" };
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		if (on && !sw_tfs_has(SW_TFS_ROOT, ev[i])) {
			fprintf(stderr, "cmtime_cases: no trace event %s in this "
				"kernel (patch 0007 adds mmap_cmtime_mkclean)\n", ev[i]);
			return -1;
		}
		if (sw_tfs_event(SW_TFS_ROOT, ev[i], on, on ? filter : NULL, err,
				 sizeof(err))) {
			fprintf(stderr, "cmtime_cases: %s\n", err);
			return -1;
		}
	}
	if (on && sw_tfs_clear(SW_TFS_ROOT, 8192, err, sizeof(err))) {
		fprintf(stderr, "cmtime_cases: %s\n", err);
		return -1;
	}
	return 0;
}

int case_walk(const char *dir)
{
	int eager = strcmp(g_policy, "eager") == 0;
	struct walk_sum w = { 0 };
	size_t len = WALK_PAGES * g_page;
	char path[512], filter[64], err[256];
	volatile char *map;
	struct stat st;
	long i, waited = 0, kb = -1, lost;
	int fd;

	snprintf(path, sizeof(path), "%s/walk.dat", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, len) || fsync(fd) || fstat(fd, &st)) {
		fprintf(stderr, "cmtime_cases: cannot create %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "cmtime_cases: mmap %s: %s\n", path, strerror(errno));
		return -1;
	}
	w.ino = st.st_ino;
	snprintf(filter, sizeof(filter), "ino == %llu", w.ino);
	if (walk_trace(1, filter))
		return -1;
	for (i = 0; i < WALK_PAGES; i++)
		map[i * g_page] = 1;
	/* keep the mapping (writably mapped) while the flusher cleans it */
	while (waited < WALK_CLEAN_MS && (kb = dirty_kb()) > 256) {
		sleep_ms(100);
		waited += 100;
	}
	lost = sw_tfs_overrun(SW_TFS_ROOT);
	if (sw_tfs_scan(SW_TFS_ROOT, walk_line, &w, err, sizeof(err)))
		fprintf(stderr, "cmtime_cases: %s\n", err);
	walk_trace(0, NULL);
	munmap((void *)map, len);
	close(fd);
	unlink(path);
	printf("INFO case=walk policy=%s pages=%ld folios_dirtied=%ld "
	       "writepages_calls=%ld walks=%ld walks_applied=%ld "
	       "folios_walked=%lld walked_per_100_dirtied=%lld max_walk=%lld "
	       "pages_walked=%lld pages_walked_per_100=%lld "
	       "clean_after_ms=%ld dirty_kb_left=%ld trace_lost=%ld\n",
	       g_policy, WALK_PAGES, w.dirtied, w.writepages, w.calls,
	       w.applied, w.walked,
	       w.dirtied ? w.walked * 100 / w.dirtied : -1, w.walked_max,
	       w.pages, w.pages * 100 / WALK_PAGES, waited, kb, lost);
	result("cleaned_by_the_flusher", 1, kb >= 0 && kb <= 256,
	       kb >= 0 && kb <= 256);
	result("trace_complete", 0, lost, lost == 0);
	result("writepages_calls_ge_min", WALK_MIN_CALLS, w.writepages,
	       w.writepages >= WALK_MIN_CALLS);
	result("folios_dirtied", 1, w.dirtied > 0, w.dirtied > 0);
	if (eager) {
		result("no_walk_under_eager", 0, w.calls, w.calls == 0);
		return 0;
	}
	result("pages_walked_ge_half", WALK_PAGES / 2, w.pages,
	       w.pages >= WALK_PAGES / 2);
	result("pages_walked_per_100_le_max", WALK_MAX_RATIO_PCT,
	       w.pages * 100 / WALK_PAGES,
	       w.pages * 100 <= (long long)WALK_MAX_RATIO_PCT * WALK_PAGES);
	return 0;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int case_msync_loop(const char *dir)
{
	struct timespec res;
	struct rusage r0, r1;
	volatile char *map;
	int64_t t0, t1, tick;
	long i, done = 0;
	int fd;

	if (clock_getres(CLOCK_REALTIME_COARSE, &res))
		return -1;
	tick = res.tv_sec * 1000000000LL + res.tv_nsec;
	if ((fd = case_file(dir, "msync-loop.dat", &map, 1)) < 0)
		return -1;
	getrusage(RUSAGE_SELF, &r0);
	t0 = mono_ns();
	for (i = 0; i < MSYNC_LOOP_N; i++) {
		map[0]++;
		if (msync((void *)map, g_page, MS_ASYNC))
			break;
		done++;
	}
	t1 = mono_ns();
	getrusage(RUSAGE_SELF, &r1);
	printf("INFO case=msync-loop policy=%s iterations=%ld faults=%ld "
	       "tick_ns=%lld ticks=%lld ticks_per_1000=%lld loop_ns=%lld\n",
	       g_policy, done, r1.ru_minflt - r0.ru_minflt, (long long)tick,
	       (long long)((t1 - t0) / tick),
	       (long long)((t1 - t0) * 1000 / tick / (done ? done : 1)),
	       (long long)(t1 - t0));
	result("completed", MSYNC_LOOP_N, done, done == MSYNC_LOOP_N);
	munmap((void *)map, NPAGES * g_page);
	close(fd);
	return 0;
}
