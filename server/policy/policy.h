/* SPDX-License-Identifier: MIT */
/*
 * policy.h - an mtime/ctime policy (docs/semantics.md, "The
 * policies") as a table of decisions.  Each policy is one
 * `const struct sw_policy_ops` in its own file (policy/<name>.c), listed
 * in policies.c: when it updates the times, which model.c applies to the
 * per-inode state below.
 */
#ifndef STALEWIN_POLICY_H
#define STALEWIN_POLICY_H

#include <stddef.h>

/* Per-inode state a policy keeps (owner: the model, model.c). */
struct sw_pstate {
	int pending; /* AS_CMTIME: an update is owed at the next flush (0/1) */
};

/* A policy is data: model.c applies these decisions, so the trap path (a
 * SIGSEGV handler or the userfaultfd thread) stays async-signal-safe. */
struct sw_policy_ops {
	const char *name;    /* CLI name: --policy NAME */
	const char *summary; /* one line for --help and the README */
	int emulated;        /* 1: trapped on tmpfs by the writer; 0: native */
	/* 1: the first store to a clean (write-protected) page updates the
	 * times now, before the store's data lands */
	int trap_updates;
	/* 1: that update is in memory only (the inode I_DIRTY_TIME, as with
	 * lazytime): no journal handle; the flush that pays the owed update
	 * journals it (traced in the patched 6.1 guest, lang: the fault
	 * marks the inode I_DIRTY_TIME, the flusher I_DIRTY_SYNC) */
	int trap_lazy;
	/* 1: that store also owes an update (pending), paid at the next
	 * cleaning pass (kupdate / background writeback, msync(MS_SYNC),
	 * fsync), at msync(MS_ASYNC) (which then write-protects the dirty
	 * pages, deferred patch 4/5, without cleaning the inode) and at
	 * munmap or exit with the mapping in place */
	int flush_owed;
};

/* NULL-terminated list, in the order --help prints them. */
extern const struct sw_policy_ops *const sw_policies[];

/* NULL if unknown. */
const struct sw_policy_ops *sw_policy_find(const char *name);
/* "eager|deferred|lang|none|native" */
const char *sw_policy_names(void);

#endif
