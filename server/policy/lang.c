/* SPDX-License-Identifier: MIT */
/* lang.c - David Lang's proposal: update the in-memory times at the
 * first fault (no journal transaction, like lazytime) and also flush like
 * deferred, so a lone first-fault store costs a second, spurious update. */
#include "policy.h"

const struct sw_policy_ops sw_policy_lang = {
	.name = "lang",
	.summary = "update at the first fault and again at the deferred flush",
	.emulated = 1,
	.trap_updates = 1,
	.trap_lazy = 1,
	.flush_owed = 1,
};
