/* SPDX-License-Identifier: MIT */
/*
 * policy.h - an mtime/ctime policy (docs/semantics.md, "The
 * policies") as a table of decisions.  Each policy is one
 * `static const struct sw_policy_ops` in its own file (policy/<name>.c),
 * listed in policies.c.  The hooks are pure: they read and write only the
 * per-inode policy state below and return whether the file's times must be
 * updated now.  They are called from the trap path (a SIGSEGV handler or the
 * userfaultfd thread), so they must stay async-signal-safe: no allocation,
 * no locks, no I/O.
 */
#ifndef STALEWIN_POLICY_H
#define STALEWIN_POLICY_H

#include <stddef.h>

/* Per-inode state a policy keeps (owner: the model, model.c). */
struct sw_pstate {
	int pending; /* AS_CMTIME: an update is owed at the next flush (0/1) */
};

struct sw_policy_ops {
	const char *name;    /* CLI name: --policy NAME */
	const char *summary; /* one line for --help and the README */
	int emulated;        /* 1: trapped on tmpfs by the writer; 0: native */
	/* First store to a clean (write-protected) page. Returns 1: update now,
	 * before the store's data lands. */
	int (*on_trap)(struct sw_pstate *st);
	/* A cleaning pass: kupdate / background writeback, msync(MS_SYNC),
	 * fsync.  Pages are write-protected again by the model whatever the
	 * policy; returns 1: update now. */
	int (*on_flush)(struct sw_pstate *st);
	/* msync(MS_ASYNC).  *wrprotect = 1 asks the model to write-protect the
	 * dirty pages (deferred patch 4/5) without cleaning the inode. */
	int (*on_msync_async)(struct sw_pstate *st, int *wrprotect);
	/* munmap or exit with the mapping in place. */
	int (*on_munmap)(struct sw_pstate *st);
};

extern const struct sw_policy_ops sw_policy_eager;
extern const struct sw_policy_ops sw_policy_deferred;
extern const struct sw_policy_ops sw_policy_lang;
extern const struct sw_policy_ops sw_policy_none;
extern const struct sw_policy_ops sw_policy_native;

/* NULL-terminated list, in the order --help prints them. */
extern const struct sw_policy_ops *const sw_policies[];

/* NULL if unknown. */
const struct sw_policy_ops *sw_policy_find(const char *name);
/* "eager|deferred|lang|none|native" */
const char *sw_policy_names(void);

#endif
