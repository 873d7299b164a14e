/* SPDX-License-Identifier: MIT */
/*
 * cmtime_cases_paths.c - the cmtime_cases (cmtime_cases.c) whose store
 * reaches its update by another path than the ext4 flush of an opted-in
 * mapping: the unmaps that must carry a pte's dirty bit to the folio
 * (exit, reclaim, migration), a reader on another machine (NFS), and the
 * mappings that never opted in (another filesystem, another mount type).
 *
 * Description: each case prints RESULT lines; a broken kernel shows:
 *   exit         a child stores and exits without munmap: deferred/lang
 *                must have moved mtime/ctime by the time wait() returns.
 *   pageout      deferred: store, MADV_PAGEOUT (reclaim unmaps the pte:
 *                try_to_unmap_one must transfer the dirty bit), fsync:
 *                mtime/ctime must move (a lost transfer leaves them).
 *   migrate      deferred: store, move_pages() of the page to the other
 *                NUMA node (guest booted with numa=fake=2): migration
 *                unmaps the dirty pte (try_to_migrate_one must transfer
 *                the dirty bit), fsync: mtime/ctime must move.
 *   nfs          a client of knfsd (NFSv4.2 mount of DIR at --nfs) cached
 *                the file; a local store through the mapping: eager and
 *                lang must let the client see it at its next open (the
 *                change attribute moved at the fault), deferred must not
 *                (stale until the flush); after msync(MS_ASYNC) every
 *                policy must.  A kernel whose lang does not bump the
 *                change at the fault, or whose deferred flush does not,
 *                fails.
 *   stockfs      a filesystem that does not opt in (xfs, tmpfs): the first
 *                store through a fresh mapping moves mtime/ctime at once
 *                (stock) whatever the sysctl says.
 *   ext3         a mount of the ext4 driver under another type (ext3):
 *                store through a fresh mapping, munmap, fsync, sync.
 *                With --eager (the mount's mappings cannot opt in: 7.2
 *                gives only the ext4 type multigrain timestamps) the times
 *                must move at the store whatever the sysctl says;
 *                without, as the policy says on an opted-in mount.  Either
 *                way they must have moved after munmap, fsync and sync.  A
 *                kernel whose fault follows the global policy while the
 *                mapping never opted in leaves them unmoved for good under
 *                deferred (review 2, N1).  Leaves durable.dat and the state
 *                file for durability-verify after a remount.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmtime_cases.h"

/* A child stores and exits without munmap; then the times moved? */
int case_exit(const char *dir)
{
	struct stamp s0, s1;
	volatile char *map;
	int fd, st;
	pid_t pid;

	if ((fd = case_file(dir, "exit.dat", &map, 1)) < 0)
		return -1;
	munmap((void *)map, NPAGES * g_page);
	if (get_stamp(fd, &s0))
		return -1;
	pid = fork();
	if (pid == 0) {
		map = map_file(fd);
		if (map)
			map[0]++;
		_exit(map ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || st != 0)
		return -1;
	if (get_stamp(fd, &s1))
		return -1;
	result_moved("after_exit", 1, &s0, &s1);
	close(fd);
	return 0;
}

/* store, MADV_PAGEOUT, fsync: reclaim's unmap must record the store. */
int case_pageout(const char *dir)
{
	struct stamp s0, s1;
	volatile char *map;
	int fd;

	if ((fd = case_file(dir, "pageout.dat", &map, 1)) < 0)
		return -1;
	map[0]++;
	if (get_stamp(fd, &s0))
		return -1;
	if (madvise((void *)map, NPAGES * g_page, MADV_PAGEOUT)) {
		fprintf(stderr, "cmtime_cases: MADV_PAGEOUT: %s\n",
			strerror(errno));
		return -1;
	}
	sleep_ms(20);
	if (fsync(fd) || get_stamp(fd, &s1))
		return -1;
	result_moved("fsync_after_pageout", 1, &s0, &s1);
	munmap((void *)map, NPAGES * g_page);
	close(fd);
	return 0;
}

#define MPOL_MF_MOVE_FLAG (1 << 1)

/* The NUMA node of the page at addr (move_pages query), or -errno. */
static int page_node(volatile char *addr)
{
	void *pages[1] = { (void *)addr };
	int status[1] = { -1 };

	if (syscall(SYS_move_pages, 0, 1UL, pages, NULL, status, 0))
		return -errno;
	return status[0];
}

/* store, move_pages to the other node, fsync: migration records it. */
int case_migrate(const char *dir)
{
	struct stamp s0, s1;
	void *pages[1];
	int node, target, status[1] = { -1 };
	volatile char *map;
	int fd;

	if ((fd = case_file(dir, "migrate.dat", &map, 1)) < 0)
		return -1;
	map[0]++;
	if (get_stamp(fd, &s0))
		return -1;
	node = page_node(map);
	if (node < 0) {
		fprintf(stderr, "cmtime_cases: move_pages query: %s\n",
			strerror(-node));
		return -1;
	}
	target = node == 0 ? 1 : 0;
	pages[0] = (void *)map;
	if (syscall(SYS_move_pages, 0, 1UL, pages, &target, status,
		    MPOL_MF_MOVE_FLAG)) {
		fprintf(stderr, "cmtime_cases: move_pages to node %d: %s "
			"(boot the guest with numa=fake=2)\n", target,
			strerror(errno));
		return -1;
	}
	result("page_migrated_to_node", target, status[0],
	       status[0] == target);
	sleep_ms(20);
	if (fsync(fd) || get_stamp(fd, &s1))
		return -1;
	result_moved("fsync_after_migration", 1, &s0, &s1);
	munmap((void *)map, NPAGES * g_page);
	close(fd);
	return 0;
}

/* Byte 0 of path as a client opening it now sees it (close-to-open). */
static int nfs_byte(const char *path)
{
	unsigned char b;
	int fd = open(path, O_RDONLY);
	int ok = fd >= 0 && pread(fd, &b, 1, 0) == 1;

	if (fd >= 0)
		close(fd);
	return ok ? b : -1;
}

/* When does an NFS client that cached the file see a local mmap store? */
int case_nfs(const char *dir, const char *nfs)
{
	char npath[4096];
	int at_fault = strcmp(g_policy, "deferred") != 0;
	volatile char *map;
	int fd, seen;

	if ((fd = case_file(dir, "nfs.dat", &map, 1)) < 0)
		return -1;
	snprintf(npath, sizeof(npath), "%s/nfs.dat", nfs);
	if (nfs_byte(npath) != 0) { /* the client caches the zero page */
		fprintf(stderr, "cmtime_cases: %s: expected byte 0 over NFS\n",
			npath);
		return -1;
	}
	sleep_ms(20);
	map[0] = 0x33;
	seen = nfs_byte(npath);
	result("client_sees_store_before_flush", at_fault ? 0x33 : 0, seen,
	       seen == (at_fault ? 0x33 : 0));
	if (msync((void *)map, NPAGES * g_page, MS_ASYNC))
		return -1;
	seen = nfs_byte(npath);
	result("client_sees_store_after_ms_async", 0x33, seen, seen == 0x33);
	munmap((void *)map, NPAGES * g_page);
	close(fd);
	return 0;
}

/* Not opted in: a fresh mapping's first store moves the times at once. */
int case_stockfs(const char *dir)
{
	char path[4096];
	struct stamp s0, s1;
	volatile char *map;
	int fd;

	fd = make_file(dir, "stockfs.dat", path, sizeof(path));
	if (fd < 0)
		return -1;
	sleep_ms(20);
	if (get_stamp(fd, &s0) || !(map = map_file(fd)))
		return -1;
	/*
	 * A pure store: a load first would map a tmpfs page writable at the
	 * read fault (no write notification), and stock tmpfs never updates
	 * the times for stores to pages mapped that way.
	 */
	map[0] = 1;
	if (get_stamp(fd, &s1))
		return -1;
	result_moved("first_store", 1, &s0, &s1);
	munmap((void *)map, NPAGES * g_page);
	close(fd);
	return 0;
}

/*
 * ext3: a store through a fresh mapping on a mount whose mappings may not
 * have opted in, then munmap, fsync, sync.  eager: the mapping must be
 * plain eager (the times move at the store); else the policy decides.
 * The times must have moved once all three have run.  Leaves durable.dat
 * (byte 0x5a) and the state file (the coarse time before the store) for
 * durability-verify.
 */
int case_ext3(const char *dir, const char *state, int eager)
{
	int at_store = eager || strcmp(g_policy, "deferred") != 0;
	int64_t t_store_coarse_ns;
	struct stamp s0, s1, s2;
	char path[4096];
	volatile char *map;
	FILE *f;
	int fd;

	fd = make_file(dir, "durable.dat", path, sizeof(path));
	if (fd < 0 || !(map = map_file(fd)) || clean(fd, map) ||
	    get_stamp(fd, &s0))
		return -1;
	t_store_coarse_ns = coarse_ns();
	map[0] = 0x5a; /* a pure store: the write fault of a clean page */
	if (get_stamp(fd, &s1))
		return -1;
	result_moved("first_store", at_store, &s0, &s1);
	if (munmap((void *)map, NPAGES * g_page) || fsync(fd))
		return -1;
	sync();
	if (get_stamp(fd, &s2))
		return -1;
	printf("INFO case=ext3 eager=%d s0_ctime_ns=%lld store_ctime_ns=%lld "
	       "flushed_ctime_ns=%lld\n", eager, (long long)s0.t_ctime_real_ns,
	       (long long)s1.t_ctime_real_ns, (long long)s2.t_ctime_real_ns);
	result_moved("after_munmap_fsync_sync", 1, &s0, &s2);
	f = fopen(state, "w");
	if (!f || fprintf(f, "%lld\n", (long long)t_store_coarse_ns) < 0 ||
	    fclose(f)) {
		fprintf(stderr, "cmtime_cases: cannot write %s\n", state);
		return -1;
	}
	close(fd);
	return 0;
}
