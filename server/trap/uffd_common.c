/* SPDX-License-Identifier: MIT */
/* uffd_common.c - see trap_uffd_common.h. */
#include "trap_uffd_common.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif

int sw_uffd_open(uint64_t features, const char *what, char *err, size_t errlen)
{
	int fd = (int)syscall(SYS_userfaultfd,
			      O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "userfaultfd(UFFD_USER_MODE_ONLY): %s",
			 strerror(e));
		return -e;
	}
	struct uffdio_api api = { .api = UFFD_API, .features = features };
	if (ioctl(fd, UFFDIO_API, &api) != 0 ||
	    (api.features & features) != features) {
		int e = errno ? errno : ENOTSUP;
		snprintf(err, errlen, "UFFDIO_API with %s: %s (needs Linux >= 5.14)",
			 what, strerror(e));
		close(fd);
		return -e;
	}
	return fd;
}

int sw_uffd_register_minor(int uffd, void *base, size_t len, char *err,
			   size_t errlen)
{
	struct uffdio_register reg = {
		.range = { .start = (uint64_t)(uintptr_t)base, .len = len },
		.mode = UFFDIO_REGISTER_MODE_MINOR,
	};
	if (ioctl(uffd, UFFDIO_REGISTER, &reg) != 0) {
		int e = errno;
		snprintf(err, errlen,
			 "UFFDIO_REGISTER_MODE_MINOR over %zu bytes: %s (needs a shmem/tmpfs file)",
			 len, strerror(e));
		return -e;
	}
	if (!(reg.ioctls & ((uint64_t)1 << _UFFDIO_CONTINUE))) {
		snprintf(err, errlen,
			 "expected UFFDIO_CONTINUE on the range, kernel does not offer it");
		return -ENOTSUP;
	}
	return 0;
}

int sw_uffd_map(struct sw_mapping *mp, char *err, size_t errlen)
{
	mp->base = mmap(NULL, mp->len, PROT_READ | PROT_WRITE, MAP_SHARED,
			mp->fd, 0);
	if (mp->base == MAP_FAILED) {
		int e = errno;
		mp->base = NULL;
		snprintf(err, errlen, "mmap of %zu bytes: %s", mp->len, strerror(e));
		return -e;
	}
	return 0;
}

int sw_uffd_rearm(struct sw_mapping *mp, uint8_t *addr, size_t len)
{
	(void)mp;
	return madvise(addr, len, MADV_DONTNEED) ? -errno : 0;
}

void sw_uffd_release(struct sw_mapping *mp)
{
	if (mp->base)
		munmap(mp->base, mp->len);
	mp->base = NULL;
	if (mp->uffd >= 0)
		close(mp->uffd);
	mp->uffd = -1;
}
