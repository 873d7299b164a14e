/* SPDX-License-Identifier: MIT */
/*
 * uffd_sigbus.c - userfaultfd MINOR mode on shmem with
 * UFFD_FEATURE_SIGBUS: the faulting thread handles its own trap.
 *
 * As in uffd.c the mapping is PROT_READ|PROT_WRITE with no pte
 * installed and every page in the shmem page cache (the writer fallocates
 * and populates the file), so the first access is a minor fault on a
 * registered page.  With UFFD_FEATURE_SIGBUS, handle_userfault() does not
 * queue a message and block: it returns VM_FAULT_SIGBUS for every mode,
 * MINOR included, and the storing thread gets a synchronous SIGBUS
 * (si_code BUS_ADRERR, si_addr the faulting address).  Our handler, in that
 * same thread:
 *   1. UFFDIO_CONTINUE on the page.  This installs the pte (the kernel does
 *      not stamp: no write-fault path runs) and is also the proof that the
 *      signal was ours: it fails with EEXIST if a pte is present and with
 *      EFAULT/ENOENT if the page is not a registered, cached shmem page.
 *      Done first so that a foreign SIGBUS never reaches the model or
 *      futimens; the order is safe because the interrupted store is only
 *      retried when the handler returns, so the update below still
 *      precedes the store's data, as the kernel's page_mkwrite stamp does.
 *   2. the policy step (sw_trap_act: model decision, futimens when it
 *      says so), for a write fault only (x86-64: the page-fault error code
 *      in the signal context; elsewhere every fault is taken for a write).
 *   3. returns; the store is retried and lands without another fault.
 * No handler thread, no cross-CPU wake-up.  Cleaning is MADV_DONTNEED
 * (zaps the pte, keeps the page), exactly as uffd.c.  No VMA split.
 * A SIGBUS that is not a kernel BUS_ADRERR fault inside the mapping, or
 * whose UFFDIO_CONTINUE fails, is re-raised with the default action (the
 * process dies of SIGBUS as it would have without us): never swallowed.
 * Everything in the handler is async-signal-safe (clock_gettime, ioctl,
 * futimens, sigaction, raise); errno is preserved.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "swtime.h"
#include "trap.h"
#include "trap_uffd_common.h"

#define SB_FEATURES (UFFD_FEATURE_MINOR_SHMEM | UFFD_FEATURE_SIGBUS)

static struct sw_mapping *volatile g_mp; /* the one trapped mapping */
static struct sigaction g_old_bus;       /* restored at teardown */

/* 1: the fault that raised the signal was a write (x86-64 error code bit
 * 1); elsewhere we cannot tell and take it for a write (the writer never
 * reads its mapping). */
static int fault_was_write(const void *ucv)
{
#if defined(__x86_64__) && defined(REG_ERR)
	const ucontext_t *uc = ucv;
	return !!(uc->uc_mcontext.gregs[REG_ERR] & 2);
#else
	(void)ucv;
	return 1;
#endif
}

/* Not ours: the default action, now (pending until the handler returns,
 * then the process dies of SIGBUS with a core, as without us). */
static void reraise_default(void)
{
	struct sigaction dfl;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGBUS, &dfl, NULL);
	raise(SIGBUS);
}

static void bus_handler(int sig, siginfo_t *si, void *ucv)
{
	int saved_errno = errno;
	struct sw_mapping *mp = g_mp;
	uint8_t *a = si->si_addr;
	int64_t t_enter = sw_mono_ns();

	if (!mp || sig != SIGBUS || si->si_code != BUS_ADRERR || !mp->base ||
	    a < mp->base || a >= mp->base + mp->len) {
		reraise_default();
		errno = saved_errno;
		return;
	}
	uint64_t page = (uint64_t)(a - mp->base) / mp->page_size;
	struct uffdio_continue c = {
		.range = { .start = (uint64_t)(uintptr_t)(mp->base + page * mp->page_size),
			   .len = mp->page_size },
	};
	if (ioctl(mp->uffd, UFFDIO_CONTINUE, &c) != 0) {
		/* EEXIST: a pte is there, so this SIGBUS was no minor fault;
		 * EFAULT/ENOENT: not a registered cached page.  Not ours. */
		reraise_default();
		errno = saved_errno;
		return;
	}
	if (fault_was_write(ucv)) {
		sw_trap_act(mp, page);
		mp->slot.t_enter_mono_ns = t_enter; /* handler entry, not step */
		mp->slot.t_exit_mono_ns = sw_mono_ns(); /* the store retries now */
		sw_trap_done(mp);
	}
	errno = saved_errno;
}

static int open_uffd(char *err, size_t errlen)
{
	return sw_uffd_open(SB_FEATURES,
			    "UFFD_FEATURE_MINOR_SHMEM|UFFD_FEATURE_SIGBUS", err, errlen);
}

int sw_trap_uffd_sigbus_probe(char *why, size_t whylen)
{
	long ps = sysconf(_SC_PAGESIZE);
	int uffd = open_uffd(why, whylen), rc;
	if (uffd < 0)
		return uffd;
	int mfd = (int)syscall(SYS_memfd_create, "stalewin-probe", 1u /* CLOEXEC */);
	if (mfd < 0) {
		rc = -errno;
		snprintf(why, whylen, "memfd_create: %s", strerror(-rc));
		close(uffd);
		return rc;
	}
	void *p = MAP_FAILED;
	if (ftruncate(mfd, ps) != 0) {
		rc = -errno;
		snprintf(why, whylen, "ftruncate of a memfd: %s", strerror(-rc));
	} else if ((p = mmap(NULL, (size_t)ps, PROT_READ | PROT_WRITE, MAP_SHARED,
			     mfd, 0)) == MAP_FAILED) {
		rc = -errno;
		snprintf(why, whylen, "mmap of a memfd: %s", strerror(-rc));
	} else {
		rc = sw_uffd_register_minor(uffd, p, (size_t)ps, why, whylen);
	}
	if (p != MAP_FAILED)
		munmap(p, (size_t)ps);
	close(mfd);
	close(uffd);
	if (!rc)
		snprintf(why, whylen, "userfaultfd MINOR_SHMEM+SIGBUS available");
	return rc;
}

static int sb_setup(struct sw_mapping *mp, char *err, size_t errlen)
{
	struct sigaction sa;
	int e;

	mp->uffd = -1;
	if (g_mp) {
		snprintf(err, errlen, "expected one uffd-sigbus mapping, saw a second");
		return -EBUSY;
	}
	if ((e = sw_uffd_map(mp, err, errlen)))
		return e;
	int fd = open_uffd(err, errlen);
	if (fd < 0)
		return fd;
	mp->uffd = fd;
	if ((e = sw_uffd_register_minor(mp->uffd, mp->base, mp->len, err, errlen)))
		return e;
	/* no pte may exist yet */
	madvise(mp->base, mp->len, MADV_DONTNEED);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = bus_handler;
	sa.sa_flags = SA_SIGINFO;
	sigfillset(&sa.sa_mask); /* no other handler runs inside a trap */
	g_mp = mp;
	if (sigaction(SIGBUS, &sa, &g_old_bus) != 0) {
		e = errno;
		g_mp = NULL;
		snprintf(err, errlen, "sigaction(SIGBUS): %s", strerror(e));
		return -e;
	}
	mp->use_lock = 0; /* the handler runs in the storing (main) thread */
	return 0;
}

static void sb_teardown(struct sw_mapping *mp)
{
	if (g_mp == mp) {
		sigaction(SIGBUS, &g_old_bus, NULL);
		g_mp = NULL;
	}
	sw_uffd_release(mp);
}

const struct sw_trap_ops sw_trap_uffd_sigbus = {
	.name = "uffd-sigbus",
	.setup = sb_setup,
	.rearm = sw_uffd_rearm,
	.teardown = sb_teardown,
};
