/* SPDX-License-Identifier: MIT */
/*
 * cmtime_cases_race.c - the cmtime_cases that need a store racing the
 * writeback, or no writeback call at all (review 2, N2 and N3).
 *
 * Description:
 *   race-prepare  a writer thread stores CLOCK_REALTIME_COARSE (ns, an
 *                 int64) into the first bytes of page 0 of a mapping, in a
 *                 loop, while the main thread writes the file back
 *                 (sync_file_range WRITE|WAIT_AFTER: ext4_writepages, with
 *                 vm.mmap_cmtime_ordering=1 the walk, the flush and the
 *                 wait for its commit, then the data).  The writer is
 *                 stopped, then EXT4_IOC_SHUTDOWN(NOLOGFLUSH): a crash
 *                 before the next commit.  On a one-CPU guest the writer
 *                 runs whenever the main thread sleeps, so it runs in the
 *                 commit wait: the window is forced by the scheduler, not
 *                 left to timing luck.  A store let into the folio during
 *                 the wait is written with the data while its update is
 *                 journalled after it (by do_writepages()).
 *   race-verify   after the remount: the time the persisted data carries
 *                 must not be newer than the persisted mtime and ctime
 *                 (the coarse clock is the kernel's own current_time(), so
 *                 an update applied after the store is >= it), and the
 *                 writer must have been running during the writeback.
 *   The data=journal crash (N3) is crash-prepare --no-writeback in
 *   cmtime_cases.c: no ->writepages() call, only the journal's commit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cmtime_cases.h"

struct race {
	volatile int64_t *slot;   /* page 0 of the mapping */
	volatile int stop;
	volatile long attempts;   /* stores begun */
	volatile long done;       /* stores completed */
	volatile int64_t stalled_ns; /* race-rate: sum of gaps > 1 ms */
};

static void *race_writer(void *arg)
{
	struct race *r = arg;

	while (!r->stop) {
		r->attempts++;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		*r->slot = coarse_ns(); /* may fault, and wait */
		r->done++;
	}
	return NULL;
}

int case_race_prepare(const char *dir, const char *state)
{
	uint32_t flags = EXT4_GOING_FLAGS_NOLOGFLUSH;
	struct race r = { 0 };
	long done0, att1, done1;
	int64_t t0, t1;
	volatile char *map;
	pthread_t th;
	char text[64];
	int fd, rc = 0;

	if ((fd = case_file(dir, "race.dat", &map, 1)) < 0)
		return -1;
	r.slot = (volatile int64_t *)map;
	if (pthread_create(&th, NULL, race_writer, &r)) {
		fprintf(stderr, "cmtime_cases: pthread_create failed\n");
		return -1;
	}
	while (r.done < 1)
		sleep_ms(1);
	sleep_ms(20);
	done0 = r.done;
	t0 = coarse_ns();
	if (sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE |
			    SYNC_FILE_RANGE_WRITE |
			    SYNC_FILE_RANGE_WAIT_AFTER)) {
		fprintf(stderr, "cmtime_cases: sync_file_range: %s\n",
			strerror(errno));
		rc = -1;
	}
	t1 = coarse_ns();
	att1 = r.attempts;
	done1 = r.done;
	r.stop = 1;
	pthread_join(th, NULL);
	if (rc)
		return rc;
	snprintf(text, sizeof(text), "%ld %ld\n", done0, att1);
	if (state_shutdown(fd, state, text, flags))
		return -1;
	printf("INFO case=race writeback_ms=%.1f stores_before=%ld "
	       "stores_during=%ld attempts_during=%ld\n",
	       (t1 - t0) / 1e6, done0, done1 - done0, att1 - done0);
	munmap((void *)map, NPAGES * g_page);
	close(fd);
	return 0;
}

int case_race_verify(const char *dir, const char *state)
{
	char path[4096];
	long done0, att1;
	int64_t t_data = 0;
	struct stamp s;
	FILE *f = fopen(state, "r");
	int fd;

	if (!f || fscanf(f, "%ld %ld", &done0, &att1) != 2) {
		fprintf(stderr, "cmtime_cases: expected two counts in %s\n",
			state);
		return -1;
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/race.dat", dir);
	fd = open(path, O_RDONLY);
	if (fd < 0 || pread(fd, &t_data, sizeof(t_data), 0) != sizeof(t_data) ||
	    get_stamp(fd, &s)) {
		fprintf(stderr, "cmtime_cases: %s: %s\n", path, strerror(errno));
		return -1;
	}
	printf("INFO case=race data_minus_mtime_ms=%.1f\n",
	       (t_data - s.t_mtime_real_ns) / 1e6);
	/* the window was exercised: a store begun or in flight meanwhile */
	result("writer_ran_during_writeback", 1, att1 > done0, att1 > done0);
	result("data_persisted", 1, t_data > 0, t_data > 0);
	result("mtime_not_older_than_data", t_data, s.t_mtime_real_ns,
	       s.t_mtime_real_ns >= t_data);
	result("ctime_not_older_than_data", t_data, s.t_ctime_real_ns,
	       s.t_ctime_real_ns >= t_data);
	close(fd);
	return 0;
}

/* race-rate's writer: as race_writer, and the time it did not store */
static void *rate_writer(void *arg)
{
	struct race *r = arg;
	int64_t prev = clock_ns(CLOCK_MONOTONIC), now;

	while (!r->stop) {
		*r->slot = coarse_ns();
		r->done++;
		now = clock_ns(CLOCK_MONOTONIC);
		if (now - prev > 1000000)
			r->stalled_ns += now - prev;
		prev = now;
	}
	return NULL;
}

/*
 * race-rate (a measurement, no check): the writer's stores in 1 s alone,
 * then in 1 s while the main thread writes the file back every 50 ms
 * (sync_file_range WRITE|WAIT_AFTER).  The ratio is what the writebacks
 * cost the writer: on one vCPU their own work, plus, under the ordering
 * with patch 0011, the time its faults wait for each pass.  Also the
 * share of each second in which the writer did not store for more than
 * 1 ms at a time (preempted or waiting in a fault).
 */
int case_race_rate(const char *dir)
{
	struct race r = { 0 };
	long n_alone, n_synced, syncs = 0;
	int64_t st_alone, st_synced;
	volatile char *map;
	int64_t t_end;
	pthread_t th;
	int fd;

	if ((fd = case_file(dir, "race_rate.dat", &map, 1)) < 0)
		return -1;
	r.slot = (volatile int64_t *)map;
	if (pthread_create(&th, NULL, rate_writer, &r)) {
		fprintf(stderr, "cmtime_cases: pthread_create failed\n");
		return -1;
	}
	n_alone = r.done;
	st_alone = r.stalled_ns;
	sleep_ms(1000);
	n_alone = r.done - n_alone;
	st_alone = r.stalled_ns - st_alone;
	n_synced = r.done;
	st_synced = r.stalled_ns;
	t_end = coarse_ns() + 1000000000LL;
	while (coarse_ns() < t_end) {
		if (sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE |
				    SYNC_FILE_RANGE_WRITE |
				    SYNC_FILE_RANGE_WAIT_AFTER))
			break;
		syncs++;
		sleep_ms(50);
	}
	n_synced = r.done - n_synced;
	st_synced = r.stalled_ns - st_synced;
	r.stop = 1;
	pthread_join(th, NULL);
	printf("INFO case=race-rate stores_alone=%ld stores_synced=%ld "
	       "syncs=%ld ratio=%.3f stalled_share_alone=%.3f "
	       "stalled_share_synced=%.3f\n", n_alone, n_synced, syncs,
	       n_alone ? (double)n_synced / n_alone : 0.0, st_alone / 1e9,
	       st_synced / 1e9);
	munmap((void *)map, NPAGES * g_page);
	close(fd);
	return 0;
}
