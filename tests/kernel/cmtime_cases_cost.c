/* SPDX-License-Identifier: MIT */
/*
 * cmtime_cases_cost.c - what the series costs, counted: the writeback's
 * dirty-pte walk (review 2, P1), the MS_ASYNC tick wait (P3), the
 * ordering's commit wait per file (P2) and on lazytime (P4).  P1: with
 * vm.mmap_cmtime_ordering=1, ext4_writepages() first write-protects the
 * dirty ptes of what it is about to write (mapping_mkclean_flush_cmtime(),
 * patch 0007).  Background writeback
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
 *   nfile-sync  (review 2's P2; --files N, default 1000) N one-page files
 *         in DIR/nfile, written and synced, each mapped shared and stored
 *         to once (the mappings kept), then sync(2); then a second store
 *         to each and a flusher pass alone (dirty_expire 10 ms, period
 *         100 ms, until Dirty + Writeback stays under 16 kB; no sync,
 *         fsync or syncfs).  Counts jbd2:jbd2_start_commit of the
 *         journal of DIR's filesystem (a trace instance of its own, the
 *         filter on the kernel's dev_t) during each; the guest mounts
 *         with commit=300, so no periodic commit falls in.  Asserted:
 *         every sync commits at least once (the stores' times reach the
 *         journal); under eager or with the ordering off at most
 *         NFILE_COMMITS_MAX per sync and per flusher pass; under the
 *         other policies with vm.mmap_cmtime_ordering=1 at least N/2 for
 *         each, the defect's signature (one commit per file), which the
 *         async rework must make fail.  Printed: the sync's time, for
 *         ratios within one boot.
 *   lazy-commit  (review 2's P4; run on a lazytime mount) a store through
 *         a mapping, then sync_file_range(WRITE | WAIT_AFTER) or fsync:
 *         the commits during the writeback, from a "clean" start (the
 *         inode's last transaction committed) and a "touched" one
 *         (fchmod() in the running transaction just before the store).
 *         Asserted under every policy and ordering: no commit during
 *         sync_file_range, at most one (fsync's own) during fsync; the
 *         ordering's wait for a transaction that holds nothing of the
 *         update (patch 0016 removes it) adds one to each, touched.
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
#include <sys/sysmacros.h>
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

/*
 * nfile-sync and lazy-commit: jbd2_start_commit events of the journal of
 * the filesystem holding dir, in a trace instance of their own (the
 * filter takes the kernel's dev_t, MAJOR << 20 | MINOR, not st_dev's).
 */
#define COMMIT_TRACE_KIB 2048    /* per CPU: thousands of short lines */
#define NFILE_FLUSH_WAIT_MS 120000
#define NFILE_CLEAN_KB 16        /* Dirty + Writeback left: clean */
#define NFILE_COMMITS_MAX 4      /* eager or ordering off, per sync */

static char g_ctrace[512];       /* the instance's root, "" when off */

static int commit_trace_on(const char *dir)
{
	char err[256], filter[64];
	unsigned long long kdev;
	struct stat st;

	if (stat(dir, &st)) {
		fprintf(stderr, "cmtime_cases: stat %s: %s\n", dir, strerror(errno));
		return -1;
	}
	kdev = (unsigned long long)major(st.st_dev) << 20 | minor(st.st_dev);
	snprintf(filter, sizeof(filter), "dev == %llu", kdev);
	if (sw_tfs_instance("cmtime_commits", g_ctrace, sizeof(g_ctrace), err,
			    sizeof(err)) ||
	    sw_tfs_event(g_ctrace, "jbd2/jbd2_start_commit", 1, filter, err,
			 sizeof(err)) ||
	    sw_tfs_clear(g_ctrace, COMMIT_TRACE_KIB, err, sizeof(err))) {
		fprintf(stderr, "cmtime_cases: commit trace (%s): %s\n", filter, err);
		g_ctrace[0] = 0;
		return -1;
	}
	return 0;
}

static void commit_trace_off(void)
{
	if (g_ctrace[0])
		sw_tfs_instance_free(g_ctrace);
	g_ctrace[0] = 0;
}

/* empty the buffer: counting starts here */
static int commits_reset(void)
{
	char err[256];

	if (sw_tfs_clear(g_ctrace, 0, err, sizeof(err))) {
		fprintf(stderr, "cmtime_cases: %s\n", err);
		return -1;
	}
	return 0;
}

/* commits started since commits_reset(); -1 when the count is not whole */
static long commits_count(void)
{
	char err[256];
	long n = sw_tfs_count(g_ctrace, "jbd2_start_commit", err, sizeof(err));

	if (n < 0)
		fprintf(stderr, "cmtime_cases: %s\n", err);
	if (sw_tfs_overrun(g_ctrace) != 0) {
		fprintf(stderr, "cmtime_cases: commit trace lost events\n");
		return -1;
	}
	return n;
}

static int ordering_now(void)
{
	char b[16];

	read_small("/proc/sys/vm/mmap_cmtime_ordering", b, sizeof(b));
	return b[0] ? atoi(b) : -1;
}

/* Wait (up to ms) for Dirty + Writeback to stay at most NFILE_CLEAN_KB
 * over three polls; returns the ms waited, -1 if it never did. */
static long wait_clean(long ms)
{
	long waited = 0;
	int calm = 0;

	while (waited < ms) {
		long kb = dirty_kb();

		calm = kb >= 0 && kb <= NFILE_CLEAN_KB ? calm + 1 : 0;
		if (calm >= 3)
			return waited;
		sleep_ms(100);
		waited += 100;
	}
	return -1;
}

static void write_knob(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	if (fd >= 0) {
		if (write(fd, v, strlen(v)) < 0)
			fprintf(stderr, "cmtime_cases: %s: %s\n", path, strerror(errno));
		close(fd);
	}
}

#define KNOB_EXPIRE "/proc/sys/vm/dirty_expire_centisecs"
#define KNOB_PERIOD "/proc/sys/vm/dirty_writeback_centisecs"

int case_nfile_sync(const char *dir, long n)
{
	int ord = ordering_now(), waits;
	char path[512], sub[480], expire[32], period[32];
	volatile char **map;
	long i, c_sync, c_flush, waited;
	int64_t t0, t_sync;
	char *page;
	int fd, rc = -1;

	waits = strcmp(g_policy, "eager") && ord == 1;
	map = calloc(n, sizeof(*map));
	page = calloc(1, g_page);
	snprintf(sub, sizeof(sub), "%s/nfile", dir);
	if (!map || !page || (mkdir(sub, 0755) && errno != EEXIST)) {
		fprintf(stderr, "cmtime_cases: nfile-sync: %s: %s\n", sub, strerror(errno));
		goto out;
	}
	/* N one-page files, allocated and written back, then committed */
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/f%05ld", sub, i);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || pwrite(fd, page, g_page, 0) != g_page) {
			fprintf(stderr, "cmtime_cases: %s: %s\n", path, strerror(errno));
			goto out;
		}
		close(fd);
	}
	sync();
	sync();
	for (i = 0; i < n; i++) {
		void *m;

		snprintf(path, sizeof(path), "%s/f%05ld", sub, i);
		fd = open(path, O_RDWR);
		m = fd < 0 ? MAP_FAILED :
			mmap(NULL, g_page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (fd >= 0)
			close(fd);
		if (m == MAP_FAILED) {
			fprintf(stderr, "cmtime_cases: map %s: %s\n", path, strerror(errno));
			goto out;
		}
		map[i] = m;
	}
	if (commit_trace_on(dir))
		goto out;
	/* one store per file, the mappings kept; then sync(2) */
	for (i = 0; i < n; i++)
		map[i][0] = 1;
	if (commits_reset())
		goto out;
	t0 = mono_ns();
	sync();
	t_sync = mono_ns() - t0;
	c_sync = commits_count();
	/* a second dirty cycle; the flusher alone writes it (expire 10 ms,
	 * its period 100 ms), no sync, fsync or syncfs */
	for (i = 0; i < n; i++)
		map[i][0] = 2;
	if (commits_reset())
		goto out;
	read_small(KNOB_EXPIRE, expire, sizeof(expire));
	read_small(KNOB_PERIOD, period, sizeof(period));
	write_knob(KNOB_EXPIRE, "1");
	write_knob(KNOB_PERIOD, "10");
	waited = wait_clean(NFILE_FLUSH_WAIT_MS);
	c_flush = commits_count();
	if (expire[0])
		write_knob(KNOB_EXPIRE, expire);
	if (period[0])
		write_knob(KNOB_PERIOD, period);
	/* sync_us: for ratios between policies of one boot, not a figure */
	printf("INFO case=nfile-sync policy=%s ordering=%d files=%ld commits=%ld "
	       "flusher_commits=%ld flusher_clean=%d sync_us=%lld\n", g_policy,
	       ord, n, c_sync, c_flush, waited >= 0, (long long)(t_sync / 1000));
	/*
	 * What holds on any machine: the stores' times reach the journal
	 * (at the fault under eager, in the sync's writeback otherwise), so
	 * the sync commits at least once; without the ordering's wait (eager,
	 * or the ordering off) it shares one commit among all N files.
	 */
	result("sync_commits_ge_1", 1, c_sync, c_sync >= 1);
	if (!waits) {
		result("sync_commits_le_max", NFILE_COMMITS_MAX, c_sync,
		       c_sync >= 0 && c_sync <= NFILE_COMMITS_MAX);
		result("flusher_commits_le_max", NFILE_COMMITS_MAX, c_flush,
		       c_flush >= 0 && c_flush <= NFILE_COMMITS_MAX);
	} else {
		/*
		 * Review 2's P2, asserted as the defect's signature: with the
		 * ordering on, ext4_writepages() waits for a commit per file
		 * that has a store, so the sync and the flusher pass each
		 * cost about N.  It also proves the count counts (a filter on
		 * the wrong device would pass the bounds above with 0).  The
		 * async rework (start the commit, redirty, wait only for
		 * WB_SYNC_ALL) must make these fail: then turn them into the
		 * bounds above.
		 */
		result("sync_commits_ge_half_n", n / 2, c_sync, c_sync >= n / 2);
		result("flusher_commits_ge_half_n", n / 2, c_flush,
		       c_flush >= n / 2);
	}
	result("flusher_cleaned", 1, waited >= 0, waited >= 0);
	rc = 0;
out:
	commit_trace_off();
	for (i = 0; map && i < n && map[i]; i++)
		munmap((void *)map[i], g_page);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/f%05ld", sub, i);
		unlink(path);
	}
	rmdir(sub);
	free(map);
	free(page);
	return rc;
}

/*
 * lazy-commit (review 2's P4): on a lazytime mount the flush stamps the
 * times in memory only, so with the ordering on ext4_writepages() waits
 * for i_sync_tid, the transaction that last journalled the inode, which
 * holds nothing of the store.  Two starts: "clean" (the file written and
 * fsynced: that transaction committed, the wait returns at once) and
 * "touched" (then fchmod(), journalled in the running transaction, not
 * committed: the wait forces that commit); two writebacks:
 * sync_file_range(WRITE) and fsync.  Applying the update on lazytime
 * journals nothing, so no commit is owed to it: sync_file_range commits
 * none, fsync one (its own, for the times ext4_sync_file() journals).
 */
static int lazy_round(const char *dir, int touched, int how, long *commits)
{
	char path[512];
	volatile char *map;
	int fd;

	snprintf(path, sizeof(path), "%s/lazy-commit.dat", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, g_page) || fsync(fd))
		return -1;
	map = mmap(NULL, g_page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -1;
	map[0] = 1;
	if (msync((void *)map, g_page, MS_SYNC) || fsync(fd))
		return -1;
	sleep_ms(20);
	if (touched && fchmod(fd, 0600))
		return -1;
	map[0] = 2;
	if (commits_reset())
		return -1;
	if (how == 0 ? sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE |
				       SYNC_FILE_RANGE_WAIT_AFTER) : fsync(fd))
		return -1;
	*commits = commits_count();
	munmap((void *)map, g_page);
	close(fd);
	unlink(path);
	return 0;
}

int case_lazy_commit(const char *dir)
{
	static const char *const hows[] = { "sync_file_range", "fsync" };
	int ord = ordering_now(), t, h, rc = 0;
	char name[64];
	long c;

	if (commit_trace_on(dir))
		return -1;
	for (t = 0; t < 2 && !rc; t++) {
		for (h = 0; h < 2 && !rc; h++) {
			if (lazy_round(dir, t, h, &c)) {
				fprintf(stderr, "cmtime_cases: lazy-commit: %s\n",
					strerror(errno));
				rc = -1;
				break;
			}
			printf("INFO case=lazy-commit policy=%s ordering=%d start=%s "
			       "writeback=%s commits=%ld\n", g_policy, ord,
			       t ? "touched" : "clean", hows[h], c);
			snprintf(name, sizeof(name), "%s_%s_commits_le", t ? "touched" : "clean",
				 hows[h]);
			result(name, h, c, c >= 0 && c <= h);
		}
	}
	commit_trace_off();
	result("completed", 0, rc, rc == 0);
	return 0;
}
