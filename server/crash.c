/* SPDX-License-Identifier: MIT */
/*
 * crash.c - vm run's --fault server-crash, in the server guest:
 *
 *   stalewin-writer crash FILE DIR [IFACE]
 *       commit the running journal transaction (fsync of a marker file
 *       DIR/.sw-crash-commit: a journal timer's commit never falls
 *       between the writeback and the shutdown), then
 *       write FILE's dirty pages back and wait for them
 *       (sync_file_range WAIT_BEFORE|WRITE|WAIT_AFTER: data only, no
 *       inode sync; the deferred policy applies its pending update in
 *       that writeback), then shut DIR's ext4 down at once
 *       (EXT4_IOC_SHUTDOWN, EXT4_GOING_FLAGS_NOLOGFLUSH): the running
 *       journal transaction is never committed, as in a power cut right
 *       after the writeback; and IFACE down at once, so that no reply
 *       leaves after it (knfsd would still answer from the inode in
 *       memory until the host kills the guest).
 *   stalewin-writer crash-after FILE COPY
 *       after the reboot (the export mounted again: journal recovery),
 *       FILE's times and size as the disk kept them, and a copy of FILE
 *       to COPY (the report reads the stamps of its pages).
 *
 * Each prints one line of stalewin-runfolder fault options (times in
 * CLOCK_REALTIME ns of this guest).  Exit 0, 2 bad input, 1 when the
 * step failed (the message says which).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "writer.h"

#ifndef EXT4_IOC_SHUTDOWN
#define EXT4_IOC_SHUTDOWN _IOR('X', 125, uint32_t)
#endif
#define EXT4_GOING_FLAGS_NOLOGFLUSH 0x2 /* the journal is not flushed */

static int64_t real_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* IFACE down (SIOCSIFFLAGS): nothing this guest sends reaches the
 * client any more, as from a machine that lost its power */
static int link_down(const char *iface)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = -1;

	if (s < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	if (!ioctl(s, SIOCGIFFLAGS, &ifr)) {
		ifr.ifr_flags &= ~IFF_UP;
		rc = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
	return rc;
}

static int crash_now(const char *file, const char *dir, const char *iface)
{
	int fd = open(file, O_RDWR | O_CLOEXEC), dfd;
	uint32_t flags = EXT4_GOING_FLAGS_NOLOGFLUSH;
	int64_t t0, t1, t2;

	if (fd < 0) {
		fprintf(stderr, "stalewin-writer crash: expected the writer's file, cannot open '%s': %s\n",
			file, strerror(errno));
		return 2;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		fprintf(stderr, "stalewin-writer crash: expected the export's directory, cannot open '%s': %s\n",
			dir, strerror(errno));
		close(fd);
		return 2;
	}
	/* the running journal transaction committed first (an fsync of a
	 * file of its own: not FILE's pages, nor a pending update of FILE's,
	 * which is no journal handle yet): the writeback's update then opens
	 * a transaction whose commit is due a commit interval later, and the
	 * shutdown comes first, wherever the journal's timer stood */
	char marker[4096];
	snprintf(marker, sizeof(marker), "%s/.sw-crash-commit", dir);
	int mfd = open(marker, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (mfd < 0 || fsync(mfd)) {
		fprintf(stderr, "stalewin-writer crash: cannot commit the journal through %s: %s\n", marker,
			strerror(errno));
		if (mfd >= 0)
			close(mfd);
		close(fd);
		close(dfd);
		return 1;
	}
	close(mfd);
	t0 = real_ns();
	if (sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
				      SYNC_FILE_RANGE_WAIT_AFTER)) {
		fprintf(stderr, "stalewin-writer crash: sync_file_range of %s: %s\n", file, strerror(errno));
		close(fd);
		close(dfd);
		return 1;
	}
	t1 = real_ns();
	if (ioctl(dfd, EXT4_IOC_SHUTDOWN, &flags)) {
		fprintf(stderr, "stalewin-writer crash: EXT4_IOC_SHUTDOWN(NOLOGFLUSH) on %s: %s (expected an ext4 export)\n",
			dir, strerror(errno));
		close(fd);
		close(dfd);
		return 1;
	}
	t2 = real_ns();
	int down = iface && !link_down(iface), e = errno;
	close(fd);
	close(dfd);
	printf("--int t_writeback_real_ns=%lld --int writeback_us=%lld --int t_start_real_ns=%lld --str how=sync_file_range+EXT4_IOC_SHUTDOWN(NOLOGFLUSH) --bool link_down=%s\n",
	       (long long)t0, (long long)((t1 - t0) / 1000), (long long)t2, down ? "true" : "false");
	if (iface && !down) {
		fprintf(stderr, "stalewin-writer crash: cannot take %s down: %s\n", iface, strerror(e));
		return 1;
	}
	return 0;
}

static int crash_after(const char *file, const char *copy)
{
	char buf[65536];
	struct stat st;
	int in = open(file, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	if (in < 0 || fstat(in, &st)) {
		fprintf(stderr, "stalewin-writer crash-after: expected the writer's file after the reboot, cannot read '%s': %s\n",
			file, strerror(errno));
		if (in >= 0)
			close(in);
		return 1;
	}
	out = open(copy, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		fprintf(stderr, "stalewin-writer crash-after: cannot create '%s': %s\n", copy, strerror(errno));
		close(in);
		return 2;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	if (n < 0 || close(out)) {
		fprintf(stderr, "stalewin-writer crash-after: copying %s to %s: %s\n", file, copy,
			strerror(errno ? errno : EIO));
		close(in);
		return 1;
	}
	close(in);
	printf("--int mtime_after_ns=%lld --int ctime_after_ns=%lld --int size_after=%lld\n",
	       (long long)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec,
	       (long long)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec, (long long)st.st_size);
	return 0;
}

int sw_crash_main(int argc, char **argv)
{
	int after = !strcmp(argv[0], "crash-after");

	if (argc != 3 && (after || argc != 4)) {
		fprintf(stderr, "stalewin-writer %s: expected %s, saw %d arguments\n", argv[0],
			after ? "two arguments, the file and the path of its copy" :
				"the writer's file, the export's directory and, optionally, the interface to take down",
			argc - 1);
		return 2;
	}
	return after ? crash_after(argv[1], argv[2]) : crash_now(argv[1], argv[2], argc == 4 ? argv[3] : NULL);
}
