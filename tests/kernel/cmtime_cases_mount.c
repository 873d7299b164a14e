/* SPDX-License-Identifier: MIT */
/*
 * cmtime_cases_mount.c - the cmtime_cases case of the ext4 mount option
 * mmap_cmtime= (patch 0013): what one dirty cycle does to mtime and ctime
 * on a mount, named by the mount's value, whatever vm.mmap_cmtime_policy
 * says.  test_cmtime_cases.sh mounts with each value under two sysctl
 * values, checks /proc/mounts and the remounts, and runs this.
 *
 * Description: mount-option, --policy fault|writeback|lazy|lazy-mem (the
 * value the mount was given, or the one its sysctl stands for), for each
 * flush (msync(MS_ASYNC), fsync, munmap), a fresh file from a clean start:
 *   first_store   the store's write fault moved the times: fault, lazy,
 *                 lazy-mem yes; writeback no;
 *   before_flush  30 ms later, no flush yet: nothing moved since the store
 *                 (a writeback mount keeps them until the flush);
 *   flush         the flush moved them again: writeback and lazy yes (the
 *                 deferred update, lazy's second stamp); fault (nothing
 *                 pending) and lazy-mem (the fault's times persisted as
 *                 they are) no;
 *   cycle         from before the store to after the flush they moved,
 *                 under every value.
 * A kernel whose fault or flush follows the sysctl instead of the mount
 * fails first_store or flush.
 *
 * mount-option-flip: the same cycles, with vm.mmap_cmtime_policy flipped
 * between the store and the flush (eager to deferred, anything else to
 * eager) and set back after it: a mount that was given a value keeps it
 * for the update already pending, so the expectations are the mount's.
 * A kernel that read the sysctl at the flush would drop a writeback
 * mount's pending update when the flip says eager (flush not moved).
 * On a mount without the option the sysctl is the policy, and a flip to
 * eager drops the pending update (vm.rst says so); the script runs that
 * too and prints what the flush did, not asserted.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cmtime_cases.h"

enum flush_how { FLUSH_MS_ASYNC, FLUSH_FSYNC, FLUSH_MUNMAP };

static const char *const flush_names[] = { "msync_async", "fsync", "munmap" };

#define POLICY_SYSCTL "/proc/sys/vm/mmap_cmtime_policy"

/* mount-option-flip: the sysctl flipped between store and flush */
static int g_flip;

/* Write @val into the policy sysctl; its value before into @old. */
static int flip_sysctl(const char *val, char *old, size_t oldlen)
{
	FILE *f = fopen(POLICY_SYSCTL, "r+");
	int rc = -1;

	if (!f) {
		perror("cmtime_cases: " POLICY_SYSCTL);
		return -1;
	}
	if (old && (!fgets(old, (int)oldlen, f) || fseek(f, 0, SEEK_SET)))
		goto out;
	if (old)
		old[strcspn(old, "\n")] = 0;
	if (fputs(val, f) == EOF || fflush(f))
		goto out;
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "cmtime_cases: cannot flip " POLICY_SYSCTL
			" to %s\n", val);
	fclose(f);
	return rc;
}

/* One dirty cycle on a fresh file, flushed by @how; RESULT lines. */
static int mount_cycle(const char *dir, enum flush_how how, int at_store,
		       int at_flush)
{
	struct stamp s0, s1, s2, s3;
	char name[64], was[32] = "";
	volatile char *map;
	int fd, rc = 0;

	fd = case_file(dir, "mount_option.dat", &map, 1);
	if (fd < 0 || get_stamp(fd, &s0))
		return -1;
	map[0]++; /* a pure store: the write fault of a clean page */
	if (get_stamp(fd, &s1))
		return -1;
	if (g_flip) {
		if (flip_sysctl("eager", was, sizeof(was)))
			return -1;
		if (!strcmp(was, "eager") && flip_sysctl("deferred", NULL, 0))
			return -1;
		printf("INFO case=%s flush=%s sysctl %s -> %s after the store\n",
		       g_case, flush_names[how], was,
		       strcmp(was, "eager") ? "eager" : "deferred");
	}
	sleep_ms(30);
	if (get_stamp(fd, &s2))
		return -1;
	switch (how) {
	case FLUSH_MS_ASYNC:
		rc = msync((void *)map, NPAGES * g_page, MS_ASYNC);
		break;
	case FLUSH_FSYNC:
		rc = fsync(fd);
		break;
	case FLUSH_MUNMAP:
		rc = munmap((void *)map, NPAGES * g_page);
		map = NULL;
		break;
	}
	if (g_flip && flip_sysctl(was, NULL, 0))
		return -1;
	if (rc || get_stamp(fd, &s3))
		return -1;
	snprintf(name, sizeof(name), "%s.first_store", flush_names[how]);
	result_moved(name, at_store, &s0, &s1);
	snprintf(name, sizeof(name), "%s.before_flush", flush_names[how]);
	result_moved(name, 0, &s1, &s2);
	snprintf(name, sizeof(name), "%s.flush", flush_names[how]);
	result_moved(name, at_flush, &s2, &s3);
	snprintf(name, sizeof(name), "%s.cycle", flush_names[how]);
	result_moved(name, 1, &s0, &s3);
	if (map)
		munmap((void *)map, NPAGES * g_page);
	close(fd);
	return 0;
}

int case_mount_option(const char *dir)
{
	int at_store, at_flush, how;

	if (!strcmp(g_policy, "fault")) {
		at_store = 1;
		at_flush = 0;
	} else if (!strcmp(g_policy, "writeback")) {
		at_store = 0;
		at_flush = 1;
	} else if (!strcmp(g_policy, "lazy")) {
		at_store = 1;
		at_flush = 1;
	} else if (!strcmp(g_policy, "lazy-mem")) {
		at_store = 1;
		at_flush = 0;
	} else {
		fprintf(stderr, "cmtime_cases: mount-option: --policy must be "
			"fault, writeback, lazy or lazy-mem, saw '%s'\n",
			g_policy);
		return 2;
	}
	for (how = FLUSH_MS_ASYNC; how <= FLUSH_MUNMAP; how++)
		if (mount_cycle(dir, how, at_store, at_flush))
			return -1;
	return 0;
}

int case_mount_option_flip(const char *dir)
{
	g_flip = 1;
	return case_mount_option(dir);
}
