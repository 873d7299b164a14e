/* SPDX-License-Identifier: MIT */
/*
 * uffd.c - userfaultfd MINOR mode on shmem.  The mapping is
 * PROT_READ|PROT_WRITE with no pte installed; the page is in the shmem page
 * cache (the writer fallocates the file), so the first access raises a
 * minor fault that blocks the storing thread and wakes our handler thread,
 * which runs the policy step and answers UFFDIO_CONTINUE (installs the pte;
 * the kernel does not stamp).  Cleaning is MADV_DONTNEED: it zaps the pte
 * and keeps the page, so the next store traps again.  No VMA is split.
 * UFFD_USER_MODE_ONLY lets it run unprivileged (vm.unprivileged_userfaultfd
 * = 0); the writer never reads the mapping (a read fault would map the page
 * writable too).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "swtime.h"
#include "trap.h"
#include "trap_uffd_common.h"

static int handle_msg(struct sw_mapping *mp, const struct uffd_msg *msg)
{
	if (msg->event != UFFD_EVENT_PAGEFAULT)
		return 0;
	uint64_t addr = msg->arg.pagefault.address & ~((uint64_t)mp->page_size - 1);
	uint64_t page = (addr - (uint64_t)(uintptr_t)mp->base) / mp->page_size;
	int is_write = !!(msg->arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WRITE);

	pthread_mutex_lock(&mp->lock);
	if (is_write)
		sw_trap_act(mp, page);
	mp->slot.t_exit_mono_ns = sw_mono_ns();
	struct uffdio_continue c = {
		.range = { .start = addr, .len = mp->page_size },
	};
	if (is_write)
		sw_trap_done(mp);
	pthread_mutex_unlock(&mp->lock);
	if (ioctl(mp->uffd, UFFDIO_CONTINUE, &c) != 0 && errno != EEXIST) {
		/* EEXIST: someone mapped it meanwhile; the thread is woken */
		return -errno;
	}
	return 0;
}

static void *uffd_thread(void *arg)
{
	struct sw_mapping *mp = arg;
	struct uffd_msg msg[16];
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		ssize_t n = read(mp->uffd, msg, sizeof(msg));
		if (n > 0) {
			for (size_t i = 0; i < (size_t)n / sizeof(msg[0]); i++) {
				int rc = handle_msg(mp, &msg[i]);
				if (rc) {
					atomic_store(&mp->thr_err, -rc);
					return NULL;
				}
			}
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			atomic_store(&mp->thr_err, errno);
			return NULL;
		}
		/* busy-poll a little (a burst of traps), then sleep */
		int64_t until = sw_mono_ns() + mp->spin_ns;
		int got = 0;
		while (sw_mono_ns() < until) {
			struct pollfd p0 = { .fd = mp->uffd, .events = POLLIN };
			if (poll(&p0, 1, 0) > 0) {
				got = 1;
				break;
			}
		}
		if (got)
			continue;
		struct pollfd p[2] = {
			{ .fd = mp->uffd, .events = POLLIN },
			{ .fd = mp->stop_pipe[0], .events = POLLIN },
		};
		if (poll(p, 2, -1) < 0 && errno != EINTR) {
			atomic_store(&mp->thr_err, errno);
			return NULL;
		}
		if (p[1].revents)
			return NULL;
	}
}

static int uf_setup(struct sw_mapping *mp, char *err, size_t errlen)
{
	int e;

	mp->uffd = -1;
	mp->stop_pipe[0] = mp->stop_pipe[1] = -1;
	if ((e = sw_uffd_map(mp, err, errlen)))
		return e;
	mp->uffd = sw_uffd_open(UFFD_FEATURE_MINOR_SHMEM, "UFFD_FEATURE_MINOR_SHMEM",
				err, errlen);
	if (mp->uffd < 0)
		return mp->uffd;
	if ((e = sw_uffd_register_minor(mp->uffd, mp->base, mp->len, err, errlen)))
		return e;
	/* no pte may exist yet: zap whatever a previous user left */
	madvise(mp->base, mp->len, MADV_DONTNEED);
	if (pipe2(mp->stop_pipe, O_CLOEXEC) != 0) {
		e = errno;
		snprintf(err, errlen, "pipe: %s", strerror(e));
		return -e;
	}
	pthread_mutex_init(&mp->lock, NULL);
	mp->use_lock = 1;
	if (!mp->spin_ns)
		mp->spin_ns = 200 * SW_NS_PER_US;
	e = pthread_create(&mp->thr, NULL, uffd_thread, mp);
	if (e) {
		snprintf(err, errlen, "pthread_create: %s", strerror(e));
		return -e;
	}
	mp->thr_started = 1;
	return 0;
}

static void uf_teardown(struct sw_mapping *mp)
{
	if (mp->thr_started) {
		char c = 1;
		if (write(mp->stop_pipe[1], &c, 1) < 0) { /* thread sees EOF below */ }
		pthread_join(mp->thr, NULL);
		mp->thr_started = 0;
	}
	sw_uffd_release(mp);
	for (int i = 0; i < 2; i++)
		if (mp->stop_pipe[i] >= 0)
			close(mp->stop_pipe[i]);
	mp->stop_pipe[0] = mp->stop_pipe[1] = -1;
}

const struct sw_trap_ops sw_trap_uffd = {
	.name = "uffd",
	.setup = uf_setup,
	.rearm = sw_uffd_rearm,
	.teardown = uf_teardown,
};
