/* SPDX-License-Identifier: MIT */
/* eager.c - Linux today: update mtime+ctime at the first store to a
 * clean page (->page_mkwrite -> file_update_time), nothing at flushes. */
#include "policy.h"

static int eager_trap(struct sw_pstate *st)
{
	(void)st;
	return 1;
}

static int eager_flush(struct sw_pstate *st)
{
	(void)st;
	return 0;
}

static int eager_msync_async(struct sw_pstate *st, int *wrprotect)
{
	(void)st;
	*wrprotect = 0; /* stock MS_ASYNC does not touch the ptes */
	return 0;
}

const struct sw_policy_ops sw_policy_eager = {
	.name = "eager",
	.summary = "Linux today: update at the first store to a clean page",
	.emulated = 1,
	.on_trap = eager_trap,
	.on_flush = eager_flush,
	.on_msync_async = eager_msync_async,
	.on_munmap = eager_flush,
};
