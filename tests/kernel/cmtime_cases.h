/* SPDX-License-Identifier: MIT */
/*
 * cmtime_cases.h - what the files of the cmtime_cases guest program
 * share: cmtime_cases.c (the program, its helpers, the ext4 flush cases)
 * defines the helpers and calls the cases of cmtime_cases_paths.c (the
 * unmap paths, NFS, the mappings that did not opt in) and of
 * cmtime_cases_race.c (a writer racing the writeback) and of
 * cmtime_cases_cost.c (the writeback walk's cost) and of
 * cmtime_cases_mount.c (the mount option mmap_cmtime=).  All are built
 * together with cmtime_lib.c (test_cmtime_cases.sh).
 */
#ifndef CMTIME_CASES_H
#define CMTIME_CASES_H

#include <stdint.h>
#include <sys/ioctl.h>

#define CMTIME_PROG "cmtime_cases"
#include "cmtime_lib.h"

#ifndef EXT4_IOC_SHUTDOWN
#define EXT4_IOC_SHUTDOWN _IOR('X', 125, uint32_t)
#endif
#define EXT4_GOING_FLAGS_LOGFLUSH 0x1
#define EXT4_GOING_FLAGS_NOLOGFLUSH 0x2 /* the journal is not flushed */

#define NPAGES 16
#define ATTEMPTS 40 /* tries to fit a sequence into one tick */

extern const char *g_case; /* case name, prefixes the check names */

/* cmtime_cases.c: clocks, RESULT lines, the case files */
int64_t coarse_ns(void);
void sleep_ms(long ms);
void result(const char *check, long long expect, long long seen, int ok);
void result_moved(const char *what, int expect, const struct stamp *a,
		  const struct stamp *b);
int make_file(const char *dir, const char *name, char *path, size_t len);
int state_shutdown(int fd, const char *state, const char *text, uint32_t flags);
volatile char *map_file(int fd);
int clean(int fd, volatile char *map);
int case_file(const char *dir, const char *name, volatile char **map,
	      int clean_start);

/* cmtime_cases_paths.c: the cases (described there) */
int case_exit(const char *dir);
int case_pageout(const char *dir);
int case_migrate(const char *dir);
int case_nfs(const char *dir, const char *nfs);
int case_stockfs(const char *dir);
int case_ext3(const char *dir, const char *state, int eager);

/* cmtime_cases_race.c: a writer storing during the writeback (N2) */
int case_race_prepare(const char *dir, const char *state);
int case_race_verify(const char *dir, const char *state);
int case_race_rate(const char *dir);

/* cmtime_cases_cost.c: the writeback walk's folio count (P1), the
 * store + msync(MS_ASYNC) loop (P3), the journal commits of a sync of
 * N mapped files (P2) and of a writeback on a lazytime mount (P4) */
int case_walk(const char *dir);
int case_msync_loop(const char *dir);
int case_nfile_sync(const char *dir, long n);
int case_lazy_commit(const char *dir);

/* cmtime_cases_mount.c: one dirty cycle per flush on a mount whose
 * mmap_cmtime= value (or the sysctl's equivalent) is --policy */
int case_mount_option(const char *dir);
/* the same, vm.mmap_cmtime_policy flipped between store and flush */
int case_mount_option_flip(const char *dir);

#endif
