/* SPDX-License-Identifier: MIT */
/*
 * mprotect.c - PROT_READ mapping + SIGSEGV.  Pages are mapped in
 * advance by MADV_POPULATE_READ so a store never installs a pte through
 * the kernel's shared-write-fault path (which stamps tmpfs): the store hits
 * a present read-only pte in a read-only VMA and gets SIGSEGV; the handler
 * runs the policy step and mprotects the page PROT_READ|PROT_WRITE, which
 * upgrades the pte in place (shmem does no write-notify), so the retried
 * store lands without a fault and without a stamp.  Everything in the
 * handler is async-signal-safe (clock_gettime, futimens, mprotect).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "swtime.h"
#include "trap.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

static struct sw_mapping *volatile g_mp; /* the one trapped mapping */
static struct sigaction g_old_segv;

static void segv_handler(int sig, siginfo_t *si, void *uc)
{
	struct sw_mapping *mp = g_mp;
	uint8_t *a = si->si_addr;
	(void)uc;

	if (!mp || sig != SIGSEGV || a < mp->base || a >= mp->base + mp->len ||
	    si->si_code != SEGV_ACCERR) {
		/* not ours: die as the program would have without us */
		sigaction(SIGSEGV, &g_old_segv, NULL);
		return;
	}
	uint64_t page = (uint64_t)(a - mp->base) / mp->page_size;
	sw_trap_act(mp, page);
	mp->slot.t_exit_mono_ns = sw_mono_ns();
	if (mprotect(mp->base + page * mp->page_size, mp->page_size,
		     PROT_READ | PROT_WRITE) != 0) {
		sigaction(SIGSEGV, &g_old_segv, NULL);
		return;
	}
	sw_trap_done(mp);
}

static int mp_setup(struct sw_mapping *mp, char *err, size_t errlen)
{
	struct sigaction sa;

	if (g_mp) {
		snprintf(err, errlen, "expected one mprotect-trapped mapping, saw a second");
		return -EBUSY;
	}
	mp->base = mmap(NULL, mp->len, PROT_READ, MAP_SHARED, mp->fd, 0);
	if (mp->base == MAP_FAILED) {
		int e = errno;
		mp->base = NULL;
		snprintf(err, errlen, "mmap of %zu bytes: %s", mp->len, strerror(e));
		return -e;
	}
	if (madvise(mp->base, mp->len, MADV_POPULATE_READ) != 0) {
		int e = errno;
		snprintf(err, errlen,
			 "madvise(MADV_POPULATE_READ) over %zu bytes: %s (needs Linux >= 5.14)",
			 mp->len, strerror(e));
		return -e;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = segv_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	g_mp = mp;
	if (sigaction(SIGSEGV, &sa, &g_old_segv) != 0) {
		int e = errno;
		g_mp = NULL;
		snprintf(err, errlen, "sigaction(SIGSEGV): %s", strerror(e));
		return -e;
	}
	return 0;
}

static int mp_rearm(struct sw_mapping *mp, uint8_t *addr, size_t len)
{
	(void)mp;
	return mprotect(addr, len, PROT_READ) ? -errno : 0;
}

static void mp_teardown(struct sw_mapping *mp)
{
	if (mp->base)
		munmap(mp->base, mp->len);
	mp->base = NULL;
	if (g_mp == mp) {
		sigaction(SIGSEGV, &g_old_segv, NULL);
		g_mp = NULL;
	}
}

const struct sw_trap_ops sw_trap_mprotect = {
	.name = "mprotect",
	.setup = mp_setup,
	.rearm = mp_rearm,
	.teardown = mp_teardown,
};
