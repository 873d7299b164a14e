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

const struct sw_policy_ops *sw_policy_find(const char *name)
{
	return sw_parse_named((const void *const *)sw_policies, name);
}

const char *sw_policy_names(void)
{
	static char names[128];

	return sw_parse_names((const void *const *)sw_policies, "|", names,
			      sizeof(names));
}
