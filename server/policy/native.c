/* SPDX-License-Identifier: MIT */
/* native.c - no emulation: plain stores, whatever the running kernel
 * and filesystem do.  The writer only observes (fstat after each store and
 * sync, minor-fault counts around each store); no model decision is ever
 * asked of these hooks, and they decide nothing if they are. */
#include "policy.h"

static int native_nothing(struct sw_pstate *st)
{
	(void)st;
	return 0;
}

static int native_msync_async(struct sw_pstate *st, int *wrprotect)
{
	(void)st;
	*wrprotect = 0;
	return 0;
}

const struct sw_policy_ops sw_policy_native = {
	.name = "native",
	.summary = "no emulation: the kernel's own behaviour, observed",
	.emulated = 0,
	.on_trap = native_nothing,
	.on_flush = native_nothing,
	.on_msync_async = native_msync_async,
	.on_munmap = native_nothing,
};
