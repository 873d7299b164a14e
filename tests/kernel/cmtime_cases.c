/*
 * cmtime_cases - in-guest checks of vm.mmap_cmtime_policy (vm/kernel) on
 * the cases the review of the series found wrong or untested
 * (vm/kernel/README.md, "The review of the series").
 * mtime and ctime are checked separately, with statx at ns resolution.
 * This file holds the program (options, dispatch), the helpers both of
 * its files use (cmtime_cases.h) and the cases of the ext4 flush itself:
 * its timing, a freeze, durability across a shutdown, its journal cost.
 *
 * Description: each case prints RESULT lines; a broken kernel shows:
 *   same-tick    store, msync(MS_ASYNC), store, msync(MS_ASYNC) with the
 *                second store and flush in the tick of the first flush:
 *                the second flush leaves mtime/ctime as the first left
 *                them (the store is consumed without moving ctime).
 *   query-flush  store, statx, flush (MS_ASYNC; writeback) in the tick of
 *                the ctime seen, statx: times unmoved (7.2 multigrain; on
 *                6.1 the flush waits a tick).
 *   freeze       store (kept mapped), FIFREEZE, FITHAW, wait for the
 *                flusher: mtime/ctime never move (the update tried during
 *                the freeze's sync was dropped, the pages are clean).
 *   durability   store then munmap in one tick, data written back, then
 *                EXT4_IOC_SHUTDOWN(LOGFLUSH); after the remount (verify)
 *                the persisted mtime/ctime are older than the data.
 *   crash        store through a mapping kept open, data written back
 *                (sync_file_range: the pending update is applied there),
 *                then EXT4_IOC_SHUTDOWN(NOLOGFLUSH), a crash before the
 *                next journal commit; after the remount (durability-verify)
 *                new data with old mtime/ctime: the flush journalled the
 *                times after it wrote the data, and the commit never came.
 *   journal      N first stores to clean pages one tick apart: jbd2
 *                handles from the tracepoint jbd2_handle_start; eager must
 *                start >= N/2, deferred and lang at most a few (not one
 *                per store), and one MS_SYNC flush adds only a few.
 *   journal-crash-prepare  crash-prepare without the writeback call: the
 *                store is left for the journal's periodic commit (waited
 *                for on jbd2's commit tracepoints, at most 30 s), the
 *                case for a data=journal mount (review 2, N3).
 *   fsync-crash-prepare  crash-prepare with fsync for the writeback: the
 *                times must be durable when fsync returns (printed on a
 *                lazytime mount: under deferred the update is applied in
 *                fsync's writeback, after vfs_fsync_range() looked for
 *                I_DIRTY_TIME, so nothing journals it).
 *   The cases exit, pageout, migrate, nfs, stockfs and ext3 (a store that
 *   reaches its update by another path) are in cmtime_cases_paths.c, the
 *   concurrent writer during the writeback (race-prepare, race-verify) in
 *   cmtime_cases_race.c, the writeback walk's folio count (walk), the
 *   store + MS_ASYNC loop (msync-loop) and the journal commits of a sync
 *   of N mapped files (nfile-sync) and of a writeback on lazytime
 *   (lazy-commit) in cmtime_cases_cost.c, the mount option mmap_cmtime=
 *   (mount-option, mount-option-flip, --policy fault|writeback|lazy|
 *   lazy-mem) in cmtime_cases_mount.c, and described there.
 *
 *   cmtime_cases CASE --policy eager|deferred|lang --dir DIR
 *                [--state FILE] [--nfs NFSDIR] [--eager] [--files N]
 *
 * Output: RESULT policy=P check=NAME expect=.. seen=.. ok=0|1,
 * SUMMARY policy=P pass=N fail=M.  Exit 0 all passed, 1 a check failed or
 * a runtime error, 2 bad usage, 77 a precondition (one tick) never met.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>

#include "cmtime_cases.h"
#include "tracefs.h" /* server/cost/tracefs.c, linked in */

const char *g_case;

int64_t coarse_ns(void)
{
	return clock_ns(CLOCK_REALTIME_COARSE);
}

void sleep_ms(long ms)
{
	sleep_ns((int64_t)ms * 1000000);
}

void result(const char *check, long long expect, long long seen, int ok)
{
	printf("RESULT policy=%s check=%s.%s expect=%lld seen=%lld ok=%d\n",
	       g_policy, g_case, check, expect, seen, ok);
	tally(ok);
}

/* Separate mtime and ctime verdicts: did each move from a to b? */
void result_moved(const char *what, int expect, const struct stamp *a,
		  const struct stamp *b)
{
	char name[96];
	int m = a->t_mtime_real_ns != b->t_mtime_real_ns;
	int c = a->t_ctime_real_ns != b->t_ctime_real_ns;

	snprintf(name, sizeof(name), "%s.mtime_moved", what);
	result(name, expect, m, m == expect);
	snprintf(name, sizeof(name), "%s.ctime_moved", what);
	result(name, expect, c, c == expect);
}

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -1 : 0;
}

/* A file of NPAGES allocated, written-back pages; returns an fd. */
int make_file(const char *dir, const char *name, char *path, size_t len)
{
	char *buf = calloc(1, NPAGES * g_page);
	int fd;

	snprintf(path, len, "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || !buf ||
	    pwrite(fd, buf, NPAGES * g_page, 0) != NPAGES * g_page ||
	    fsync(fd)) {
		fprintf(stderr, "cmtime_cases: cannot create %s: %s\n", path,
			strerror(errno));
		free(buf);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	free(buf);
	return fd;
}

volatile char *map_file(int fd)
{
	void *m = mmap(NULL, NPAGES * g_page, PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, 0);

	if (m == MAP_FAILED) {
		fprintf(stderr, "cmtime_cases: mmap: %s\n", strerror(errno));
		return NULL;
	}
	return m;
}

/* Clean start: data written back, ptes write-protected, then a tick. */
int clean(int fd, volatile char *map)
{
	if (msync((void *)map, NPAGES * g_page, MS_SYNC) || fsync(fd))
		return -1;
	sleep_ms(20);
	return 0;
}

/* A case's file: NPAGES written-back pages, mapped, and with clean_start
 * clean (clean()).  Returns the fd, -1 on failure. */
int case_file(const char *dir, const char *name, volatile char **map,
	      int clean_start)
{
	char path[4096];
	int fd = make_file(dir, name, path, sizeof(path));

	if (fd < 0 || !(*map = map_file(fd)) || (clean_start && clean(fd, *map)))
		return -1;
	return fd;
}

/* From a clean start, a store and the MS_ASYNC that applies it. */
static int store_and_flush(int fd, volatile char *map)
{
	if (clean(fd, map))
		return -1;
	map[0]++;
	return msync((void *)map, NPAGES * g_page, MS_ASYNC);
}

/*
 * store, MS_ASYNC, store, MS_ASYNC: the second store and flush in the tick
 * the first flush ended in.  The second flush must move both times.
 */
static int case_same_tick(const char *dir)
{
	struct stamp s1, s2;
	volatile char *map;
	int fd, i;

	if ((fd = case_file(dir, "same_tick.dat", &map, 0)) < 0)
		return -1;
	for (i = 0; i < ATTEMPTS; i++) {
		int64_t t_a_coarse_ns, t_b_coarse_ns;

		if (store_and_flush(fd, map))
			return -1;
		t_a_coarse_ns = coarse_ns();
		if (get_stamp(fd, &s1))
			return -1;
		map[8]++;
		t_b_coarse_ns = coarse_ns();
		if (msync((void *)map, NPAGES * g_page, MS_ASYNC) ||
		    get_stamp(fd, &s2))
			return -1;
		if (t_a_coarse_ns != t_b_coarse_ns)
			continue; /* not within one tick: try again */
		printf("INFO case=same-tick attempt=%d first_ctime_ns=%lld "
		       "second_ctime_ns=%lld\n", i + 1,
		       (long long)s1.t_ctime_real_ns,
		       (long long)s2.t_ctime_real_ns);
		result_moved("second_flush", 1, &s1, &s2);
		munmap((void *)map, NPAGES * g_page);
		close(fd);
		return 0;
	}
	fprintf(stderr, "cmtime_cases: same-tick: %d attempts, never a store "
		"and flush within one tick of the previous flush\n", ATTEMPTS);
	return 77;
}

/* Let the flusher write anything dirty now; restore on return. */
struct wb_knobs {
	char expire[32]; /* dirty_expire_centisecs as it was */
	char period[32]; /* dirty_writeback_centisecs as it was */
};

/*
 * query-flush: store, query, flush (how 1: MS_ASYNC, 2: writeback), query,
 * judged when the flush began in the tick of the ctime the query saw, until
 * one also ends in it (then only multigrain can move ctime): times moved.
 */
static int query_flush(int fd, volatile char *map, int how)
{
	const char *what = how == 1 ? "msync_async" : "writeback";
	struct stamp s1 = { 0, 0 }, s2 = { 0, 0 };
	int i, rc, judged = 0, moved = 1, same = 0;

	for (i = 0; i < ATTEMPTS && moved && !same; i++) {
		int64_t t_a_coarse_ns, t_b_coarse_ns;

		if (store_and_flush(fd, map))
			return -1;
		map[8]++;
		if (get_stamp(fd, &s1))
			return -1;
		t_a_coarse_ns = coarse_ns();
		rc = how == 1 ? msync((void *)map, NPAGES * g_page, MS_ASYNC) :
			sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
		t_b_coarse_ns = coarse_ns();
		if (rc || get_stamp(fd, &s2))
			return -1;
		if (s1.t_ctime_real_ns < t_a_coarse_ns)
			continue; /* the flush began after the queried tick */
		judged++;
		same = t_a_coarse_ns == t_b_coarse_ns;
		moved = s1.t_mtime_real_ns != s2.t_mtime_real_ns &&
			s1.t_ctime_real_ns != s2.t_ctime_real_ns;
	}
	if (!judged) {
		fprintf(stderr, "cmtime_cases: query-flush (%s): %d attempts, no "
			"flush began in the tick of the queried ctime\n", what,
			ATTEMPTS);
		return 77;
	}
	printf("INFO case=query-flush flush=%s judged=%d same_tick=%d "
	       "queried_ctime_ns=%lld flush_ctime_ns=%lld\n", what, judged, same,
	       (long long)s1.t_ctime_real_ns, (long long)s2.t_ctime_real_ns);
	result_moved(what, 1, &s1, &s2);
	return 0;
}

static int case_query_flush(const char *dir)
{
	char path[4096];
	volatile char *map;
	int fd, rc;

	fd = make_file(dir, "query_flush.dat", path, sizeof(path));
	if (fd < 0 || !(map = map_file(fd)))
		return -1;
	rc = query_flush(fd, map, 1) ?: query_flush(fd, map, 2);
	munmap((void *)map, NPAGES * g_page);
	close(fd);
	return rc;
}

#define EXPIRE "/proc/sys/vm/dirty_expire_centisecs"
#define PERIOD "/proc/sys/vm/dirty_writeback_centisecs"

static void fast_flusher(struct wb_knobs *k)
{
	read_small(EXPIRE, k->expire, sizeof(k->expire));
	read_small(PERIOD, k->period, sizeof(k->period));
	write_file(EXPIRE, "1");
	write_file(PERIOD, "10");
}

static void restore_flusher(const struct wb_knobs *k)
{
	if (k->expire[0])
		write_file(EXPIRE, k->expire);
	if (k->period[0])
		write_file(PERIOD, k->period);
}

/* Poll up to ms for both times to move from s0; leaves the last in s1. */
static int wait_moved(int fd, const struct stamp *s0, struct stamp *s1,
		      long ms)
{
	for (; ms > 0; ms -= 20) {
		if (get_stamp(fd, s1))
			return -1;
		if (s1->t_mtime_real_ns != s0->t_mtime_real_ns &&
		    s1->t_ctime_real_ns != s0->t_ctime_real_ns)
			return 0;
		sleep_ms(20);
	}
	return 0;
}

/* store, freeze, thaw, flusher: the deferred update must not be lost. */
static int case_freeze(const char *dir)
{
	char path[4096];
	struct wb_knobs k;
	struct stamp s0, s1;
	volatile char *map;
	int fd, dfd;

	fd = make_file(dir, "freeze.dat", path, sizeof(path));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || dfd < 0 || !(map = map_file(fd)) || clean(fd, map))
		return -1;
	if (get_stamp(fd, &s0))
		return -1;
	map[0]++;
	if (ioctl(dfd, FIFREEZE, 0)) {
		fprintf(stderr, "cmtime_cases: FIFREEZE %s: %s\n", dir,
			strerror(errno));
		return -1;
	}
	if (ioctl(dfd, FITHAW, 0)) {
		fprintf(stderr, "cmtime_cases: FITHAW %s: %s\n", dir,
			strerror(errno));
		return -1;
	}
	fast_flusher(&k);
	/* keep it mapped: munmap would apply a pending update itself */
	if (wait_moved(fd, &s0, &s1, 3000)) {
		restore_flusher(&k);
		return -1;
	}
	restore_flusher(&k);
	result_moved("after_thaw", 1, &s0, &s1);
	munmap((void *)map, NPAGES * g_page);
	close(fd);
	close(dfd);
	return 0;
}


/* Write `text` to the state file the verify step reads after the
 * remount, then shut the filesystem down (EXT4_IOC_SHUTDOWN, flags). */
int state_shutdown(int fd, const char *state, const char *text, uint32_t flags)
{
	FILE *f = fopen(state, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		fprintf(stderr, "cmtime_cases: cannot write %s\n", state);
		return -1;
	}
	if (ioctl(fd, EXT4_IOC_SHUTDOWN, &flags)) {
		fprintf(stderr, "cmtime_cases: EXT4_IOC_SHUTDOWN: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

/* journal-crash: the journal's own periodic commit (commit=5 s), which
 * writes data=journal data, must have run before the shutdown.  A commit
 * that started after the store carries the store's handle; wait, up to
 * COMMIT_WAIT_S, for one to end (jbd2_start_commit and jbd2_end_commit
 * in a trace instance of its own), rather than sleep a fixed time a slow
 * kernel (lockdep, a loaded host) outlasts. */
#define COMMIT_WAIT_S 30
struct commit_seen {
	int64_t after_ns;  /* the store's end, CLOCK_MONOTONIC */
	long long tid;     /* the first commit started after it, -1: none */
	int done;
};

static int on_commit(const struct sw_tfs_line *l, void *arg)
{
	struct commit_seen *c = arg;
	long long t;

	if (sw_tfs_field(l->fields, "transaction", &t))
		return 0;
	if (!strcmp(l->event, "jbd2_start_commit") && l->t_ns >= c->after_ns && c->tid < 0)
		c->tid = t;
	else if (!strcmp(l->event, "jbd2_end_commit") && c->tid >= 0 && t >= c->tid)
		c->done = 1;
	return 0;
}

/* on: an instance tracing the commits (its root into root); off: gone */
static int commit_trace(char *root, size_t len, int on)
{
	static const char *const ev[] = { "jbd2/jbd2_start_commit", "jbd2/jbd2_end_commit" };
	char err[256];

	if (!on)
		return sw_tfs_instance_free(root);
	if (sw_tfs_instance("cmtime_jcrash", root, len, err, sizeof(err)) ||
	    sw_tfs_clock(root, "mono", err, sizeof(err)) ||
	    sw_tfs_event(root, ev[0], 1, NULL, err, sizeof(err)) ||
	    sw_tfs_event(root, ev[1], 1, NULL, err, sizeof(err))) {
		fprintf(stderr, "cmtime_cases: journal-crash: %s\n", err);
		return -1;
	}
	return 0;
}

static int wait_commit_after(const char *root, int64_t after_ns)
{
	struct commit_seen c = { .after_ns = after_ns, .tid = -1 };
	char err[256];
	struct timespec ts;
	int i;

	for (i = 0; i < COMMIT_WAIT_S * 10 && !c.done; i++) {
		sleep_ms(100);
		c.tid = -1;
		if (sw_tfs_scan(root, on_commit, &c, err, sizeof(err))) {
			fprintf(stderr, "cmtime_cases: journal-crash: %s\n", err);
			return -1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (!c.done) {
		fprintf(stderr, "cmtime_cases: journal-crash: expected a jbd2 commit started after "
			"the store (at %lld ns, CLOCK_MONOTONIC) to end within %d s, saw %s\n",
			(long long)after_ns, COMMIT_WAIT_S,
			c.tid < 0 ? "none start" : "one start but not end");
		return -1;
	}
	printf("INFO case=journal-crash commit_tid=%lld waited_ms=%lld\n", c.tid,
	       (long long)((ts.tv_sec * 1000000000LL + ts.tv_nsec - after_ns) / 1000000));
	return 0;
}

/*
 * Phase 1: store then munmap in one tick, or (crash) store through a
 * mapping kept open, so the update is still pending; write the data back
 * (no inode sync) and shut the filesystem down, with a log flush, or
 * (crash) without one.  The state file gets the coarse time before the
 * store: no persisted time may be older.
 */
static int case_durability_prepare(const char *dir, const char *state,
				   int crash)
{
	char path[4096];
	int64_t t_store_coarse_ns = 0;
	volatile char *map;
	uint32_t flags = crash ? EXT4_GOING_FLAGS_NOLOGFLUSH
			       : EXT4_GOING_FLAGS_LOGFLUSH;
	char text[64], troot[512] = "";
	int64_t t_after_store_ns = 0;
	struct timespec ts;
	int fd, i;

	fd = make_file(dir, "durable.dat", path, sizeof(path));
	if (fd < 0)
		return -1;
	if (crash == 2 && commit_trace(troot, sizeof(troot), 1))
		return -1;
	for (i = 0; i < ATTEMPTS; i++) {
		if (!(map = map_file(fd)) || clean(fd, map))
			return -1;
		t_store_coarse_ns = coarse_ns();
		map[0] = 0x5a;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		t_after_store_ns = ts.tv_sec * 1000000000LL + ts.tv_nsec;
		if (crash) /* kept mapped until exit, after the shutdown */
			break;
		if (coarse_ns() == t_store_coarse_ns) {
			munmap((void *)map, NPAGES * g_page);
			break;
		}
		munmap((void *)map, NPAGES * g_page);
	}
	if (i == ATTEMPTS) {
		fprintf(stderr, "cmtime_cases: durability: never a store and "
			"munmap within one tick\n");
		return 77;
	}
	sleep_ms(20);
	/* journal-crash: no ->writepages() call, only the journal's own
	 * periodic commit (commit=5 s), which writes data=journal data */
	if (crash == 2) {
		int rc = wait_commit_after(troot, t_after_store_ns);
		commit_trace(troot, sizeof(troot), 0);
		if (rc)
			return -1;
	}
	/* fsync-crash: fsync, which must make the times durable too */
	else if (crash == 3 && fsync(fd)) {
		fprintf(stderr, "cmtime_cases: fsync: %s\n", strerror(errno));
		return -1;
	}
	/* data only: no fsync, which would write the inode itself */
	else if (crash != 3 &&
		 sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE |
				 SYNC_FILE_RANGE_WRITE |
				 SYNC_FILE_RANGE_WAIT_AFTER)) {
		fprintf(stderr, "cmtime_cases: sync_file_range: %s\n",
			strerror(errno));
		return -1;
	}
	snprintf(text, sizeof(text), "%lld\n", (long long)t_store_coarse_ns);
	if (state_shutdown(fd, state, text, flags))
		return -1;
	printf("INFO case=%s attempt=%d t_store_coarse_ns=%lld\n",
	       crash == 3 ? "fsync-crash" : crash == 2 ? "journal-crash" :
	       crash ? "crash" : "durability", i + 1,
	       (long long)t_store_coarse_ns);
	close(fd);
	return 0;
}

/* Phase 2, after the remount: the data and times that persisted. */
static int case_durability_verify(const char *dir, const char *state)
{
	char path[4096];
	long long t_store_coarse_ns;
	struct stamp s;
	char byte = 0;
	FILE *f = fopen(state, "r");
	int fd;

	if (!f || fscanf(f, "%lld", &t_store_coarse_ns) != 1) {
		fprintf(stderr, "cmtime_cases: expected a time in %s\n", state);
		return -1;
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/durable.dat", dir);
	fd = open(path, O_RDONLY);
	if (fd < 0 || pread(fd, &byte, 1, 0) != 1 || get_stamp(fd, &s)) {
		fprintf(stderr, "cmtime_cases: %s: %s\n", path, strerror(errno));
		return -1;
	}
	result("data_persisted", 0x5a, byte, byte == 0x5a);
	result("mtime_not_older_than_data", t_store_coarse_ns,
	       s.t_mtime_real_ns, s.t_mtime_real_ns >= t_store_coarse_ns);
	result("ctime_not_older_than_data", t_store_coarse_ns,
	       s.t_ctime_real_ns, s.t_ctime_real_ns >= t_store_coarse_ns);
	close(fd);
	return 0;
}

/* jbd2_handle_start on and the buffer emptied, or off (tracefs.h) */
static int trace_reset(int on)
{
	char err[256];

	if (sw_tfs_event(SW_TFS_ROOT, "jbd2/jbd2_handle_start", on, NULL, err, sizeof(err)) ||
	    (on && sw_tfs_clear(SW_TFS_ROOT, 0, err, sizeof(err)))) {
		fprintf(stderr, "cmtime_cases: %s\n", err);
		return -1;
	}
	return 0;
}

static long trace_handles(void)
{
	char err[256];

	return sw_tfs_count(SW_TFS_ROOT, "jbd2_handle_start", err, sizeof(err));
}

/* N first stores one tick apart, then one MS_SYNC: count jbd2 handles. */
static int case_journal(const char *dir)
{
	long n = NPAGES, h_stores, h_flush;
	int eager = strcmp(g_policy, "eager") == 0;
	volatile char *map;
	int fd, i;

	if ((fd = case_file(dir, "journal.dat", &map, 1)) < 0)
		return -1;
	if (trace_reset(1)) {
		fprintf(stderr, "cmtime_cases: cannot enable the jbd2 trace "
			"events under %s\n", SW_TFS_ROOT);
		return -1;
	}
	for (i = 0; i < n; i++) {
		map[i * g_page]++;
		sleep_ms(6); /* > 1 tick: eager stamps every store */
	}
	h_stores = trace_handles();
	if (trace_reset(1) || msync((void *)map, n * g_page, MS_SYNC))
		return -1;
	h_flush = trace_handles();
	trace_reset(0);
	printf("INFO case=journal stores=%ld handles_at_stores=%ld "
	       "handles_at_flush=%ld\n", n, h_stores, h_flush);
	if (eager)
		result("handles_at_stores_ge_half_n", n / 2, h_stores,
		       h_stores >= n / 2);
	else
		result("handles_at_stores_le_2", 2, h_stores, h_stores <= 2);
	result("handles_at_flush_le_4", 4, h_flush, h_flush <= 4);
	munmap((void *)map, n * g_page);
	close(fd);
	return 0;
}


int main(int argc, char **argv)
{
	static const struct option opts[] = {
		CMTIME_OPTIONS,
		{ "state", required_argument, NULL, 's' },
		{ "nfs", required_argument, NULL, 'n' },
		{ "eager", no_argument, NULL, 'e' },
		{ "files", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *state = "/tmp/cmtime_cases.state";
	const char *nfs = NULL;
	int c, rc, eager = 0;
	long files = 1000;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (cmtime_option(c, &dir))
			continue;
		if (c == 's')
			state = optarg;
		else if (c == 'n')
			nfs = optarg;
		else if (c == 'e')
			eager = 1;
		else if (c == 'f' && (files = atol(optarg)) > 0)
			continue;
		else
			return 2;
	}
	g_case = optind < argc ? argv[optind] : NULL;
	if (!g_case || !g_policy || !dir) {
		fprintf(stderr, "usage: cmtime_cases same-tick|query-flush|freeze|"
			"durability-prepare|crash-prepare|durability-verify|"
			"journal-crash-prepare|fsync-crash-prepare|race-prepare|"
			"race-verify|race-rate|"
			"walk|msync-loop|nfile-sync|lazy-commit|mount-option|"
			"mount-option-flip|journal|exit|migrate|pageout|stockfs|nfs|"
			"ext3 --policy P --dir DIR [--state FILE] [--nfs NFSDIR] "
			"[--eager] [--files N]\n");
		return 2;
	}
	g_page = sysconf(_SC_PAGESIZE);
	if (!strcmp(g_case, "same-tick"))
		rc = case_same_tick(dir);
	else if (!strcmp(g_case, "query-flush"))
		rc = case_query_flush(dir);
	else if (!strcmp(g_case, "freeze"))
		rc = case_freeze(dir);
	else if (!strcmp(g_case, "durability-prepare"))
		rc = case_durability_prepare(dir, state, 0);
	else if (!strcmp(g_case, "crash-prepare"))
		rc = case_durability_prepare(dir, state, 1);
	else if (!strcmp(g_case, "journal-crash-prepare"))
		rc = case_durability_prepare(dir, state, 2);
	else if (!strcmp(g_case, "fsync-crash-prepare"))
		rc = case_durability_prepare(dir, state, 3);
	else if (!strcmp(g_case, "race-prepare"))
		rc = case_race_prepare(dir, state);
	else if (!strcmp(g_case, "race-verify"))
		rc = case_race_verify(dir, state);
	else if (!strcmp(g_case, "race-rate"))
		rc = case_race_rate(dir);
	else if (!strcmp(g_case, "walk"))
		rc = case_walk(dir);
	else if (!strcmp(g_case, "msync-loop"))
		rc = case_msync_loop(dir);
	else if (!strcmp(g_case, "nfile-sync"))
		rc = case_nfile_sync(dir, files);
	else if (!strcmp(g_case, "lazy-commit"))
		rc = case_lazy_commit(dir);
	else if (!strcmp(g_case, "mount-option"))
		rc = case_mount_option(dir);
	else if (!strcmp(g_case, "mount-option-flip"))
		rc = case_mount_option_flip(dir);
	else if (!strcmp(g_case, "durability-verify"))
		rc = case_durability_verify(dir, state);
	else if (!strcmp(g_case, "journal"))
		rc = case_journal(dir);
	else if (!strcmp(g_case, "exit"))
		rc = case_exit(dir);
	else if (!strcmp(g_case, "nfs") && nfs)
		rc = case_nfs(dir, nfs);
	else if (!strcmp(g_case, "migrate"))
		rc = case_migrate(dir);
	else if (!strcmp(g_case, "pageout"))
		rc = case_pageout(dir);
	else if (!strcmp(g_case, "stockfs"))
		rc = case_stockfs(dir);
	else if (!strcmp(g_case, "ext3"))
		rc = case_ext3(dir, state, eager);
	else {
		fprintf(stderr, "cmtime_cases: unknown case '%s' (expected "
			"same-tick, query-flush, freeze, durability-prepare, "
			"crash-prepare, durability-verify, journal-crash-prepare, "
			"fsync-crash-prepare, "
			"race-prepare, race-verify, race-rate, walk, msync-loop, "
			"nfile-sync, lazy-commit, mount-option, mount-option-flip, "
			"journal, exit, "
			"migrate, "
			"pageout, "
			"stockfs, ext3, nfs with --nfs)\n", g_case);
		return 2;
	}
	if (rc)
		return rc < 0 ? 1 : rc;
	printf("SUMMARY policy=%s case=%s pass=%d fail=%d\n", g_policy, g_case,
	       g_pass, g_fail);
	return g_fail ? 1 : 0;
}
