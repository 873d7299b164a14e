/* SPDX-License-Identifier: MIT */
/*
 * trap.h - trapping the first store to each clean page of a tmpfs/shmem
 * mapping without the kernel stamping the file (server/README.md).  Each
 * mechanism is one ops struct in its own file:
 *   mprotect.c  PROT_READ mapping, pages pre-populated with
 *                    MADV_POPULATE_READ, SIGSEGV handler mprotects the page
 *                    writable; cleaning mprotects PROT_READ again.  Splits
 *                    VMAs: needs up to one VMA per page (vm.max_map_count).
 *   uffd.c      userfaultfd MINOR mode on shmem; a handler thread
 *                    answers with UFFDIO_CONTINUE; cleaning is
 *                    MADV_DONTNEED (re-arms the page).  No VMA split.
 *   uffd_sigbus.c  the same registration with UFFD_FEATURE_SIGBUS: the
 *                    storing thread gets SIGBUS and its handler answers
 *                    UFFDIO_CONTINUE itself (no thread, no wake-up);
 *                    cleaning as uffd.c.
 * NOT uffd write-protect mode: the kernel's write-fault path stamps the
 * file when the trapped store is retried.
 *
 * The trap path (signal handler / uffd thread) asks the model for the
 * policy's decision, applies an update with futimens(fd, NULL) before the
 * page becomes writable (so the update precedes the data, as in the
 * kernel), and fills the slot below.  It never logs or allocates: the main
 * loop reads the slot after the store and logs.
 */
#ifndef STALEWIN_TRAP_H
#define STALEWIN_TRAP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* Result of the last trap, written by the trap path, read by the main loop
 * once seq has moved. */
struct sw_trap_slot {
	_Atomic uint64_t seq;       /* traps taken so far */
	uint64_t page;              /* page of the last trap */
	int64_t t_enter_mono_ns;    /* trap handler entered */
	_Atomic int64_t t_store_mono_ns; /* the writer's store under way (its
	                             * t_before, set before it): the model's
	                             * time for the trap; 0: handler entry */
	int64_t t_exit_mono_ns;     /* page made writable (just before; for
	                             * uffd-sigbus: handler returns, the store
	                             * retries) */
	int updated;                /* 1: the policy updated the times */
	int background_due;         /* model: over the background limit */
	int model_err;              /* -errno from the model, 0 */
	int upd_err;                /* errno of a failed futimens, 0 */
	int64_t t_upd_real_ns;      /* just before futimens */
	int64_t t_upd_mono_ns;
	int64_t t_upd_done_real_ns; /* after futimens returned */
	int64_t upd_cost_ns;        /* futimens duration, mono */
};

struct sw_trap_ops;

struct sw_mapping {
	int fd;                     /* the file (owner: writer) */
	uint8_t *base;              /* mapping */
	size_t len;                 /* bytes, multiple of page_size */
	uint32_t page_size;         /* bytes */
	uint64_t npages;
	const struct sw_trap_ops *trap; /* NULL: native, plain mapping */
	struct sw_model *model;     /* policy decisions */
	_Atomic int policy_active;  /* 0: self-check, trap without policy */
	struct sw_trap_slot slot;
	/* uffd mechanisms (uffd.c, uffd_sigbus.c) */
	int uffd;                   /* -1 when unused */
	int stop_pipe[2];           /* wakes the handler thread to exit */
	pthread_t thr;
	int thr_started;
	pthread_mutex_t lock;       /* model lock: uffd thread vs main loop */
	int use_lock;               /* 1 with uffd; never in a signal handler */
	int64_t spin_ns;            /* uffd thread busy-polls this long */
	_Atomic int thr_err;        /* errno that stopped the uffd thread */
};

struct sw_trap_ops {
	const char *name; /* --trap NAME */
	/* Maps fd [0, len) and arms every page. Returns 0 or -errno + err. */
	int (*setup)(struct sw_mapping *mp, char *err, size_t errlen);
	/* Write-protect (re-arm) the pages of [addr, addr + len) again
	 * (sw_trap_rearm_page, sw_trap_rearm_all). Returns 0 or -errno. */
	int (*rearm)(struct sw_mapping *mp, uint8_t *addr, size_t len);
	/* Unmaps and releases; safe after a failed setup. */
	void (*teardown)(struct sw_mapping *mp);
};

extern const struct sw_trap_ops sw_trap_mprotect;
extern const struct sw_trap_ops sw_trap_uffd;
extern const struct sw_trap_ops sw_trap_uffd_sigbus;
extern const struct sw_trap_ops *const sw_traps[];
const struct sw_trap_ops *sw_trap_find(const char *name);
/* "uffd-sigbus|mprotect|uffd": the list's names, for messages. */
const char *sw_trap_names(void);
/* Re-arm one page / the whole mapping through mp->trap->rearm. */
int sw_trap_rearm_page(struct sw_mapping *mp, uint64_t page);
int sw_trap_rearm_all(struct sw_mapping *mp);

/* Called by a mechanism on a trap on `page`: the policy's decision and
 * update.  Async-signal-safe. */
void sw_trap_act(struct sw_mapping *mp, uint64_t page);
/* Called by a mechanism once the page is writable again. */
static inline void sw_trap_done(struct sw_mapping *mp)
{
	atomic_fetch_add_explicit(&mp->slot.seq, 1, memory_order_release);
}

/* Model lock around the main loop's model calls (a no-op for mprotect). */
void sw_map_lock(struct sw_mapping *mp);
void sw_map_unlock(struct sw_mapping *mp);
/* The model's struct sw_reprotect bound to this mapping's mechanism. */
struct sw_reprotect sw_map_reprotect(struct sw_mapping *mp);

/* Pages for which a mechanism may need one VMA each, vs the VMAs the
 * process may still create: 1 if mprotect is safe for npages. */
/* 0 if this kernel offers uffd-sigbus (userfaultfd MINOR on shmem with
 * UFFD_FEATURE_SIGBUS, UFFDIO_CONTINUE; tried on a one-page memfd), else
 * -errno; why says which, one line. */
int sw_trap_uffd_sigbus_probe(char *why, size_t whylen);

int sw_trap_mprotect_fits(uint64_t npages, long *max_map_count,
			  long *maps_in_use);

#endif
