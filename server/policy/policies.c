/* SPDX-License-Identifier: MIT */
/* policies.c - the explicit list of policies. */
#include <string.h>

#include "parse.h"
#include "policy.h"

extern const struct sw_policy_ops sw_policy_eager, sw_policy_deferred, sw_policy_lang,
	sw_policy_none, sw_policy_native;

const struct sw_policy_ops *const sw_policies[] = {
	&sw_policy_eager,
	&sw_policy_deferred,
	&sw_policy_lang,
	&sw_policy_none,
	&sw_policy_native,
	NULL,
};

/* sw_policy_find, sw_policy_names */
SW_PARSE_LIST_FNS(struct sw_policy_ops, sw_policies, sw_policy_find, sw_policy_names)
