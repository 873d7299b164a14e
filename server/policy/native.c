/* SPDX-License-Identifier: MIT */
/* native.c - no emulation: plain stores, whatever the running kernel
 * and filesystem do.  The writer only observes (fstat after each store and
 * sync, minor-fault counts around each store); no model decision is ever
 * asked of it, and it decides nothing if it is. */
#include "policy.h"

const struct sw_policy_ops sw_policy_native = {
	.name = "native",
	.summary = "no emulation: the kernel's own behaviour, observed",
	.emulated = 0,
};
