/* SPDX-License-Identifier: MIT */
/* lang.c - David Lang's proposal: update the in-memory times at the
 * first fault (no journal transaction, like lazytime) and also flush like
 * deferred, so a lone first-fault store costs a second, spurious update. */
#include "policy.h"

static int lang_trap(struct sw_pstate *st)
{
	st->pending = 1;
	return 1;
}

static int lang_flush(struct sw_pstate *st)
{
	if (!st->pending)
		return 0;
	st->pending = 0;
	return 1;
}

static int lang_msync_async(struct sw_pstate *st, int *wrprotect)
{
	*wrprotect = 1;
	return lang_flush(st);
}

const struct sw_policy_ops sw_policy_lang = {
	.name = "lang",
	.summary = "update at the first fault and again at the deferred flush",
	.emulated = 1,
	.on_trap = lang_trap,
	.on_flush = lang_flush,
	.on_msync_async = lang_msync_async,
	.on_munmap = lang_flush,
};
