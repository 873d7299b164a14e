/* SPDX-License-Identifier: MIT */
/*
 * Description: integration test of stalewin-writer's policies against a
 * real filesystem, watched independently with statx at ns resolution.
 *   test_policy_statx tmpfs [mprotect|uffd|uffd-sigbus]
 *                             mounts a tmpfs in a temp dir; runs eager,
 *                             deferred, lang, none through that trap
 *                             mechanism (rewrite of page 0 every 100 ms,
 *                             kupdate 200 ms / expire 500 ms, msync(MS_ASYNC)
 *                             every 700 ms)
 *   test_policy_statx ext4    loop-mounts a fresh ext4 image; runs native
 *                             with fsync every 500 ms
 *   test_policy_statx ext4-lazytime   the same mounted -o lazytime (the
 *                             stat-visible behaviour must stay eager)
 * While the writer runs, this process polls statx(ctime, mtime) every
 * ~200 us.  It fails when the times change without a matching UPDATE in the
 * writer's log (the kernel stamped behind the emulation), when the set-up's
 * last change before the first store is not the SETUP record's ctime, when an update is
 * logged but the file never showed it, or when the updates do not follow
 * the policy: eager only at trapping stores (a second store to a dirty page
 * changes nothing), deferred nothing until a cleaning pass and then one
 * update, lang at the trap and again at the flush, none never; native ext4
 * only at stores that faulted (like eager), including the first store after
 * each fsync.  Needs root (mount, losetup): exit 77 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "swlog.h"
#include "swtime.h"

#define MAXEV 4096

struct obs { int64_t t_real, ctime, mtime; };
struct ev { int type; int64_t t, t2, ctime; uint32_t cause, flags; };

static char g_dir[256], g_img[300], g_loop[64];
static const char *g_meta_want; /* must appear in the log's meta */
static char g_trap_want[64];    /* "trap":"NAME" (tmpfs), also in meta */
static int g_mounted;

static void cleanup(void)
{
	char cmd[1024];
	if (g_mounted) {
		snprintf(cmd, sizeof(cmd), "umount -l %s 2>/dev/null", g_dir);
		if (system(cmd)) {}
	}
	if (g_loop[0]) {
		snprintf(cmd, sizeof(cmd), "losetup -d %s 2>/dev/null", g_loop);
		if (system(cmd)) {}
	}
	if (g_img[0])
		unlink(g_img);
	if (g_dir[0])
		rmdir(g_dir);
}

static void on_sig(int s)
{
	(void)s;
	cleanup();
	_exit(1);
}

static int run(const char *cmd)
{
	int rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : 1;
}

static int setup_fs(const char *fs)
{
	char cmd[1024];
	snprintf(g_dir, sizeof(g_dir), "/tmp/sw-writer-test-XXXXXX");
	if (!mkdtemp(g_dir)) {
		g_dir[0] = 0;
		printf("mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	if (strcmp(fs, "tmpfs") == 0) {
		snprintf(cmd, sizeof(cmd), "mount -t tmpfs -o size=64m tmpfs %s", g_dir);
		if (run(cmd)) {
			printf("SKIP: cannot mount tmpfs on %s\n", g_dir);
			return 77;
		}
		g_mounted = 1;
		return 0;
	}
	snprintf(g_img, sizeof(g_img), "%s.img", g_dir);
	snprintf(cmd, sizeof(cmd), "truncate -s 64M %s && mkfs.ext4 -q -F %s", g_img, g_img);
	if (run(cmd)) {
		printf("SKIP: mkfs.ext4 failed (e2fsprogs missing?)\n");
		return 77;
	}
	snprintf(cmd, sizeof(cmd), "losetup -f --show %s", g_img);
	FILE *p = popen(cmd, "r");
	if (!p || !fgets(g_loop, sizeof(g_loop), p)) {
		if (p)
			pclose(p);
		g_loop[0] = 0;
		printf("SKIP: no loop device (losetup -f failed)\n");
		return 77;
	}
	pclose(p);
	g_loop[strcspn(g_loop, "\n")] = 0;
	snprintf(cmd, sizeof(cmd), "mount -t ext4 %s %s %s",
		 strcmp(fs, "ext4-lazytime") == 0 ? "-o lazytime" : "", g_loop, g_dir);
	if (run(cmd)) {
		printf("SKIP: cannot mount ext4 from %s\n", g_loop);
		return 77;
	}
	g_mounted = 1;
	return 0;
}

static int64_t stx_ns(const struct statx_timestamp *t)
{
	return t->tv_sec * SW_NS_PER_S + t->tv_nsec;
}

/* Runs the writer, watching the file; fills obs. Returns writer's exit. */
static int watch_run(char *const argv[], const char *file, struct obs *o, int *no)
{
	pid_t pid = fork();
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	int64_t lc = -1, lm = -1;
	int st;
	*no = 0;
	for (;;) {
		struct statx sx;
		if (statx(AT_FDCWD, file, AT_SYMLINK_NOFOLLOW, STATX_CTIME | STATX_MTIME, &sx) == 0) {
			int64_t c = stx_ns(&sx.stx_ctime), m = stx_ns(&sx.stx_mtime);
			if (lc >= 0 && (c != lc || m != lm) && *no < MAXEV)
				o[(*no)++] = (struct obs){ sw_real_ns(), c, m };
			lc = c;
			lm = m;
		}
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		struct timespec ts = { 0, 200000 };
		nanosleep(&ts, NULL);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int read_log(const char *path, struct ev *e, int *ne)
{
	struct swlog_reader *r;
	struct swlog_rec rec;
	char err[SWLOG_ERRLEN];
	int st, end = 0;
	*ne = 0;
	if (swlog_open(&r, path, err)) {
		CHECK(0, "open log: %s", err);
		return 1;
	}
	if (g_meta_want && !strstr(swlog_reader_meta(r), g_meta_want)) {
		CHECK(0, "log %s: meta lacks %s: %s", path, g_meta_want,
		      swlog_reader_meta(r));
		swlog_reader_close(r);
		return 1;
	}
	if (g_trap_want[0] && !strstr(swlog_reader_meta(r), g_trap_want)) {
		CHECK(0, "log %s: the writer did not run through %s: %s",
		      path, g_trap_want, swlog_reader_meta(r));
		swlog_reader_close(r);
		return 1;
	}
	while ((st = swlog_next(r, &rec)) == SWLOG_OK && *ne < MAXEV) {
		struct ev x = { .type = rec.type };
		if (rec.type == SW_REC_UPDATE) {
			const struct sw_rec_update *u = rec.payload;
			x.t = u->t_real_ns; x.t2 = u->t_done_real_ns; x.ctime = u->ctime_ns;
			x.cause = u->cause;
		} else if (rec.type == SW_REC_STORE) {
			const struct sw_rec_store *s = rec.payload;
			x.t = s->t_before_real_ns; x.t2 = s->t_after_real_ns; x.flags = s->flags;
		} else if (rec.type == SW_REC_CLEAN) {
			const struct sw_rec_clean *c = rec.payload;
			x.t = c->t_real_ns; x.cause = c->cause;
		} else if (rec.type == SW_REC_SYNC) {
			const struct sw_rec_sync *c = rec.payload;
			x.t = c->t_real_ns + c->dur_ns; x.cause = c->cause;
		} else if (rec.type == SW_REC_SETUP) {
			const struct sw_rec_setup *u = rec.payload;
			x.t = u->t_real_ns; x.t2 = u->t_done_real_ns; x.ctime = u->ctime_ns;
		} else if (rec.type == SW_REC_END) {
			end = 1;
		} else {
			continue;
		}
		e[(*ne)++] = x;
	}
	swlog_reader_close(r);
	if (st != SWLOG_EOF || !end) {
		CHECK(0, "log %s incomplete (status %d, END %d)", path, st, end);
		return 1;
	}
	return 0;
}

/* native on ext4: like eager, the kernel's own stamping at the first
 * fault after each writeback (fsync here). */
static void check_native(struct obs *o, int no, struct ev *e, int ne, int nupd,
			 int ntrapped, const int *ncause)
{
	int syncs = 0, after_sync_trapped = 0, pending_sync = 0;
	for (int j = 0; j < ne; j++) {
		if (e[j].type == SW_REC_SYNC) {
			syncs++;
			pending_sync = 1;
		} else if (e[j].type == SW_REC_STORE && pending_sync) {
			pending_sync = 0;
			after_sync_trapped += (e[j].flags & SW_STORE_TRAPPED) &&
					      (e[j].flags & SW_STORE_UPDATED);
		}
	}
	CHECK(syncs >= 2 && after_sync_trapped >= syncs - 1,
	      "expected the first store after each fsync to fault and update, saw %d of %d",
	      after_sync_trapped, syncs);
	/* every observed change is the stamp of a faulting store: the ctime
	 * the writer's fstat saw right after a trapped store (its UPDATE is
	 * logged just before the STORE).  Exact values, no clock tolerance:
	 * the kernel's coarse clock lags CLOCK_REALTIME by a tick or more on
	 * a loaded VM, so comparing the stamp with the store's time failed
	 * spuriously; a stamp made by anything else (writeback, a flush)
	 * never equals one of these. */
	for (int i = 0; i < no; i++) {
		int in = 0;
		for (int j = 1; j < ne && !in; j++)
			if (e[j].type == SW_REC_STORE && (e[j].flags & SW_STORE_TRAPPED) &&
			    (e[j].flags & SW_STORE_UPDATED) && e[j - 1].type == SW_REC_UPDATE &&
			    e[j - 1].ctime == o[i].ctime && o[i].t_real >= e[j].t)
				in = 1;
		CHECK(in, "ctime %" PRId64 " changed outside any faulting store", o[i].ctime);
	}
	CHECK(ncause[SW_CAUSE_NATIVE] == nupd, "native logged a non-native update");
	CHECK(ntrapped <= syncs + 3,
	      "expected faults only at the first store and after cleanings (%d fsyncs), saw %d",
	      syncs, ntrapped);
}

/* Checks one policy's run (its FAIL lines, then a line naming the
 * policy); returns 1 when a check failed. */
static int check(const char *policy, struct obs *o, int no, struct ev *e, int ne)
{
	int before = failures, nupd = 0, ntrapped = 0, ncause[16] = { 0 };
	int64_t t_first_store = INT64_MAX;

	/* changes before the first store are the writer's setup (extending
	 * and allocating the file), not policy updates */
	for (int j = 0; j < ne; j++)
		if (e[j].type == SW_REC_STORE) {
			t_first_store = e[j].t;
			break;
		}
	int k0 = 0;
	while (k0 < no && o[k0].t_real < t_first_store)
		k0++;
	/* ... and the log says where they left the file (SETUP, before any
	 * store): the last change seen before the first store is its ctime */
	int js = -1;
	for (int j = 0; j < ne && e[j].type != SW_REC_STORE && js < 0; j++)
		if (e[j].type == SW_REC_SETUP)
			js = j;
	CHECK(js >= 0, "expected a SETUP record before the first store, saw none");
	if (js >= 0) {
		CHECK(e[js].t <= e[js].t2, "SETUP: expected t <= t_done, saw %" PRId64 " > %" PRId64,
		      e[js].t, e[js].t2);
		CHECK(k0 == 0 || o[k0 - 1].ctime == e[js].ctime,
		      "expected the set-up to leave ctime %" PRId64 " (SETUP), saw %" PRId64
		      " at %" PRId64, e[js].ctime, k0 ? o[k0 - 1].ctime : 0,
		      k0 ? o[k0 - 1].t_real : 0);
	}
	o += k0;
	no -= k0;

	/* 1. every change the file showed is one the writer logged, seen no
	 *    earlier than the writer made it: the kernel never stamped */
	for (int i = 0; i < no; i++) {
		int found = 0;
		for (int j = 0; j < ne && !found; j++)
			if (e[j].type == SW_REC_UPDATE && e[j].ctime == o[i].ctime &&
			    o[i].t_real >= e[j].t)
				found = 1;
		CHECK(found, "ctime changed to %" PRId64 " (seen at %" PRId64
		      ") with no matching UPDATE in the log: the kernel stamped the file",
		      o[i].ctime, o[i].t_real);
	}
	/* 2. every logged update the file showed (unless the next update came
	 *    within 5 ms, faster than we look) */
	for (int j = 0; j < ne; j++) {
		if (e[j].type != SW_REC_UPDATE)
			continue;
		nupd++;
		ncause[e[j].cause & 15]++;
		int next_soon = 0;
		for (int k = j + 1; k < ne; k++)
			if (e[k].type == SW_REC_UPDATE) {
				next_soon = e[k].t - e[j].t < 5 * SW_NS_PER_MS;
				break;
			}
		int seen = 0;
		for (int i = 0; i < no; i++)
			seen |= o[i].ctime == e[j].ctime;
		CHECK(seen || next_soon, "UPDATE at %" PRId64 " (ctime %" PRId64
		      ") never showed in statx", e[j].t, e[j].ctime);
	}
	/* 3. the policy's shape */
	int cleans = 0, trap_since_clean = 0, flush_owed = 0, flush_upd = 0;
	for (int j = 0; j < ne; j++) {
		if (e[j].type == SW_REC_STORE && (e[j].flags & SW_STORE_TRAPPED)) {
			ntrapped++;
			trap_since_clean = 1;
		}
		if (e[j].type == SW_REC_CLEAN) {
			cleans++;
			flush_owed += trap_since_clean;
			trap_since_clean = 0;
		}
		if (e[j].type == SW_REC_STORE && !(e[j].flags & SW_STORE_TRAPPED) &&
		    (e[j].flags & SW_STORE_UPDATED))
			CHECK(0, "a store that did not trap updated the times");
	}
	flush_upd = ncause[SW_CAUSE_KUPDATE] + ncause[SW_CAUSE_BACKGROUND] +
		    ncause[SW_CAUSE_FSYNC] + ncause[SW_CAUSE_MSYNC_SYNC] +
		    ncause[SW_CAUSE_MSYNC_ASYNC];
	if (strcmp(policy, "native") != 0)
		CHECK(cleans >= 2 && ntrapped >= 3,
		      "expected at least 2 cleaning passes and 3 trapping stores, saw %d and %d",
		      cleans, ntrapped);
	if (strcmp(policy, "eager") == 0) {
		CHECK(nupd == ntrapped && ncause[SW_CAUSE_TRAP] == nupd,
		      "expected one update per trapping store and nothing else, saw %d updates for %d traps",
		      nupd, ntrapped);
	} else if (strcmp(policy, "deferred") == 0) {
		CHECK(ncause[SW_CAUSE_TRAP] == 0, "deferred updated at a trap");
		CHECK(flush_upd == flush_owed,
		      "expected one update per cleaning pass after a trap (%d), saw %d",
		      flush_owed, flush_upd);
		int64_t first_clean = 0;
		for (int j = 0; j < ne && !first_clean; j++)
			if (e[j].type == SW_REC_CLEAN)
				first_clean = e[j].t;
		CHECK(no > 0 && o[0].t_real >= first_clean,
		      "the file changed before the first cleaning pass");
	} else if (strcmp(policy, "lang") == 0) {
		CHECK(ncause[SW_CAUSE_TRAP] == ntrapped,
		      "expected an update at each of %d traps, saw %d", ntrapped,
		      ncause[SW_CAUSE_TRAP]);
		CHECK(flush_upd == flush_owed,
		      "expected the (spurious) flush update after each trap (%d), saw %d",
		      flush_owed, flush_upd);
	} else if (strcmp(policy, "none") == 0) {
		CHECK(nupd == 0 && no == 0, "expected no update at all, saw %d logged, %d seen",
		      nupd, no);
	} else { /* native ext4: like eager */
		check_native(o, no, e, ne, nupd, ntrapped, ncause);
	}
	int fails = failures > before;
	printf("%s %s: %d stores trapped, %d cleanings, %d updates logged, %d changes seen by statx\n",
	       fails ? "FAIL" : "ok  ", policy, ntrapped, cleans, nupd, no);
	return fails;
}

int main(int argc, char **argv)
{
	static struct obs o[MAXEV];
	static struct ev e[MAXEV];
	const char *fs = argc > 1 ? argv[1] : "tmpfs";
	/* tmpfs: the mechanism to test (mprotect, uffd or uffd-sigbus) */
	const char *trap = argc > 2 ? argv[2] : "mprotect";
	const char *bdir = getenv("SW_BUILD_DIR");
	char writer[1024], file[512], log[512];
	int rc, no, ne;

	if (geteuid() != 0) {
		printf("SKIP: needs root to mount %s\n", fs);
		return 77;
	}
	snprintf(writer, sizeof(writer), "%s/server/stalewin-writer", bdir ? bdir : ".");
	if (access(writer, X_OK)) {
		printf("FAIL: no writer binary at %s (set SW_BUILD_DIR)\n", writer);
		return 1;
	}
	atexit(cleanup);
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);
	if ((rc = setup_fs(fs)))
		return rc;
	/* the writer must record the filesystem it ran on */
	g_meta_want = strcmp(fs, "tmpfs") == 0 ? "\"type\":\"tmpfs\""
		      : strcmp(fs, "ext4") == 0 ? "\"type\":\"ext4\""
						: "lazytime";
	if (strcmp(fs, "tmpfs") == 0)
		snprintf(g_trap_want, sizeof(g_trap_want), "\"trap\":\"%s\"", trap);
	static const char *emulated[] = { "eager", "deferred", "lang", "none", NULL };
	static const char *native[] = { "native", NULL };
	const char **pols = strcmp(fs, "tmpfs") == 0 ? emulated : native;
	for (int i = 0; pols[i]; i++) {
		snprintf(file, sizeof(file), "%s/f-%s", g_dir, pols[i]);
		snprintf(log, sizeof(log), "%s/l-%s", g_dir, pols[i]);
		int nat = strcmp(pols[i], "native") == 0;
		char *av[] = { writer, "--file", file, "--policy", (char *)pols[i],
			       "--workload", "rewrite", "--interval-ms", "100",
			       "--duration", "2", "--log", log, "--size", "64K",
			       "--writeback-ms", "200", "--expire-ms", "500",
			       nat ? "--fsync-ms" : "--msync-async-ms",
			       nat ? "500" : "700",
			       nat ? NULL : "--trap", (char *)trap, NULL };
		/* the file exists with its final size before the watch starts:
		 * the writer then changes nothing before its first store
		 * (native makes no self-check pause to separate setup from run) */
		int fd = open(file, O_CREAT | O_RDWR, 0644);
		if (fd < 0 || ftruncate(fd, 64 * 1024) != 0) {
			printf("FAIL: cannot create %s: %s\n", file, strerror(errno));
			return 1;
		}
		close(fd);
		struct timespec settle = { 0, 20 * 1000 * 1000 };
		nanosleep(&settle, NULL);
		rc = watch_run(av, file, o, &no);
		CHECK(rc == 0, "%s: writer exited %d", pols[i], rc);
		if (rc == 0 && !read_log(log, e, &ne))
			check(pols[i], o, no, e, ne);
	}
	return failures ? 1 : 0;
}
