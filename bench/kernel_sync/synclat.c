/*
 * synclat - latency of a data sync after a store through a shared mapping,
 * run in a guest by bench/kernel_sync.sh under each vm.mmap_cmtime_policy.
 *
 *   synclat FILE fsync|sfr [N]
 *
 * N rounds (default 100): store one byte to the next of 16 pages of FILE
 * (mapped MAP_SHARED), then fsync(FILE) or sync_file_range(WAIT_BEFORE |
 * WRITE | WAIT_AFTER) over the whole file, timed with CLOCK_MONOTONIC;
 * 5 ms pause between rounds.  Prints one line:
 *   LAT mode=M n=N p50_us=.. p90_us=.. max_us=..
 * Under deferred and lang the sync applies the pending cmtime update; with
 * the series' 0008 it also waits for the journal commit that carries it.
 * Exit 0, or 1 with a message naming the call that failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define NPAGES 16
#define MAXN 10000

static int64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static int64_t d_ns[MAXN];
	long page = sysconf(_SC_PAGESIZE);
	int n = argc > 3 ? atoi(argv[3]) : 100;
	int fd, i, sfr;
	char *map;

	if (argc < 3 || (strcmp(argv[2], "fsync") && strcmp(argv[2], "sfr")) ||
	    n < 10 || n > MAXN) {
		fprintf(stderr, "usage: synclat FILE fsync|sfr [N: 10..%d]\n", MAXN);
		return 2;
	}
	sfr = !strcmp(argv[2], "sfr");
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, NPAGES * page) || fsync(fd)) {
		fprintf(stderr, "synclat: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	map = mmap(NULL, NPAGES * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "synclat: mmap: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		int64_t t0;
		int rc;

		map[(i % NPAGES) * page] = (char)i;
		t0 = mono_ns();
		rc = sfr ? sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE |
					   SYNC_FILE_RANGE_WRITE |
					   SYNC_FILE_RANGE_WAIT_AFTER)
			 : fsync(fd);
		d_ns[i] = mono_ns() - t0;
		if (rc) {
			fprintf(stderr, "synclat: %s: %s\n", argv[2], strerror(errno));
			return 1;
		}
		usleep(5000);
	}
	qsort(d_ns, n, sizeof(d_ns[0]), cmp64);
	printf("LAT mode=%s n=%d p50_us=%lld p90_us=%lld max_us=%lld\n", argv[2], n,
	       (long long)d_ns[n / 2] / 1000, (long long)d_ns[n * 9 / 10] / 1000,
	       (long long)d_ns[n - 1] / 1000);
	return 0;
}
