/* SPDX-License-Identifier: MIT */
/* deferred.c - the 2013 AS_CMTIME series (seeds 002-006): a trapping
 * store only marks the mapping; the update happens at the next writeback,
 * msync (MS_ASYNC write-protects dirty ptes first) or munmap. */
#include "policy.h"

const struct sw_policy_ops sw_policy_deferred = {
	.name = "deferred",
	.summary = "AS_CMTIME: update at writeback / msync / munmap if a page was written",
	.emulated = 1,
	.flush_owed = 1,
};
