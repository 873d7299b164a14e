/* SPDX-License-Identifier: MIT */
/* none.c - baseline: the times are never updated (what tmpfs does for
 * pages already mapped).  Pages are still trapped and cleaned so its trap
 * counts compare with the other policies. */
#include "policy.h"

static int none_never(struct sw_pstate *st)
{
	(void)st;
	return 0;
}

static int none_msync_async(struct sw_pstate *st, int *wrprotect)
{
	(void)st;
	*wrprotect = 0;
	return 0;
}

const struct sw_policy_ops sw_policy_none = {
	.name = "none",
	.summary = "never update (baseline)",
	.emulated = 1,
	.on_trap = none_never,
	.on_flush = none_never,
	.on_msync_async = none_msync_async,
	.on_munmap = none_never,
};
