/* SPDX-License-Identifier: MIT */
/* deferred.c - the 2013 AS_CMTIME series (seeds 002-006): a trapping
 * store only marks the mapping; the update happens at the next writeback,
 * msync (MS_ASYNC write-protects dirty ptes first) or munmap. */
#include "policy.h"

static int deferred_trap(struct sw_pstate *st)
{
	st->pending = 1;
	return 0;
}

static int deferred_flush(struct sw_pstate *st)
{
	if (!st->pending)
		return 0;
	st->pending = 0;
	return 1;
}

static int deferred_msync_async(struct sw_pstate *st, int *wrprotect)
{
	*wrprotect = 1;
	return deferred_flush(st);
}

const struct sw_policy_ops sw_policy_deferred = {
	.name = "deferred",
	.summary = "AS_CMTIME: update at writeback / msync / munmap if a page was written",
	.emulated = 1,
	.on_trap = deferred_trap,
	.on_flush = deferred_flush,
	.on_msync_async = deferred_msync_async,
	.on_munmap = deferred_flush,
};
