/* SPDX-License-Identifier: MIT */
/* eager.c - Linux today: update mtime+ctime at the first store to a
 * clean page (->page_mkwrite -> file_update_time), nothing at flushes. */
#include "policy.h"

const struct sw_policy_ops sw_policy_eager = {
	.name = "eager",
	.summary = "Linux today: update at the first store to a clean page",
	.emulated = 1,
	.trap_updates = 1,
};
