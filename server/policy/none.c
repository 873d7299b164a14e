/* SPDX-License-Identifier: MIT */
/* none.c - baseline: the times are never updated (what tmpfs does for
 * pages already mapped).  Pages are still trapped and cleaned so its trap
 * counts compare with the other policies. */
#include "policy.h"

const struct sw_policy_ops sw_policy_none = {
	.name = "none",
	.summary = "never update (baseline)",
	.emulated = 1,
};
