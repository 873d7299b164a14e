/* SPDX-License-Identifier: MIT */
/*
 * fill.c - `stalewin-writer fill DIR`: fill the filesystem holding DIR
 * (the export of --fault enospc, on the host's loop-mounted scratch
 * filesystem and in vm run's server guest), as root with its reserve
 * included: filler files .sw-enospc-filler-N allocated with fallocate(2)
 * to what statvfs says is free, a few rounds (the filesystem's metadata
 * takes its share of what looked free; an allocation refused whole is
 * asked again at half), then a new 4 KiB file written and fsync'ed to
 * see that the filesystem is really full (it fails with ENOSPC), and
 * removed.  The fillers stay: the fault lasts to the end of the run.
 * Prints one line of stalewin-runfolder fault options (what happened,
 * measured): free_before_bytes, free_after_bytes, fillers and
 * new_write_refused (with the errno's name when it was).
 * Exit 0, 2 bad input, 1 when DIR cannot be read or written at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "writer.h"

#define FILL_ROUNDS 8

/* the free bytes of the filesystem holding dir, root's reserve included
 * (f_bfree, not f_bavail: the writer runs as root) */
static int free_bytes(const char *dir, uint64_t *b)
{
	struct statvfs s;
	if (statvfs(dir, &s))
		return -1;
	*b = (uint64_t)s.f_bfree * s.f_frsize;
	return 0;
}

/* One filler of len bytes (at half on a refusal, down to a block);
 * 0 when something was allocated. */
static int fill_one(int fd, uint64_t len, uint64_t block)
{
	while (len >= block) {
		if (!fallocate(fd, 0, 0, (off_t)len))
			return 0;
		if (errno != ENOSPC && errno != EFBIG)
			return -1;
		len /= 2;
	}
	return -1;
}

/* 0 when a new 4 KiB file could be written and fsync'ed in dir, else
 * the errno that refused it */
static int new_write(const char *dir)
{
	char path[4096], page[4096];
	int fd, e = 0;

	snprintf(path, sizeof(path), "%s/.sw-enospc-check", dir);
	memset(page, 0, sizeof(page));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno;
	if (write(fd, page, sizeof(page)) != (ssize_t)sizeof(page))
		e = errno ? errno : ENOSPC;
	else if (fsync(fd))
		e = errno;
	close(fd);
	unlink(path);
	return e;
}

int sw_fill_main(int argc, char **argv)
{
	uint64_t before, left, block;
	struct statvfs s;
	char path[4096];
	int n = 0, refused;

	if (argc != 2) {
		fprintf(stderr, "stalewin-writer fill: expected one argument, the directory whose filesystem to fill, saw %d\n",
			argc - 1);
		return 2;
	}
	if (statvfs(argv[1], &s) || free_bytes(argv[1], &before)) {
		fprintf(stderr, "stalewin-writer fill: expected a directory, saw '%s': %s\n", argv[1],
			strerror(errno));
		return 2;
	}
	block = s.f_frsize ? s.f_frsize : 4096;
	for (; n < FILL_ROUNDS && !free_bytes(argv[1], &left) && left >= block; n++) {
		snprintf(path, sizeof(path), "%s/.sw-enospc-filler-%d", argv[1], n);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0) {
			if (errno == ENOSPC)
				break; /* no inode or block left for the file itself */
			fprintf(stderr, "stalewin-writer fill: cannot create %s: %s\n", path, strerror(errno));
			return 1;
		}
		int r = fill_one(fd, left, block);
		close(fd);
		if (r)
			break;
	}
	refused = new_write(argv[1]);
	if (free_bytes(argv[1], &left))
		left = 0;
	printf("--int free_before_bytes=%llu --int free_after_bytes=%llu --int fillers=%d --bool new_write_refused=%s%s%s\n",
	       (unsigned long long)before, (unsigned long long)left, n, refused ? "true" : "false",
	       refused ? " --str new_write_errno=" : "", refused ? strerrorname_np(refused) : "");
	return 0;
}
