/* SPDX-License-Identifier: MIT */
/* policies.c - the explicit list of policies. */
#include <string.h>

#include "policy.h"

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
	for (size_t i = 0; sw_policies[i]; i++)
		if (strcmp(sw_policies[i]->name, name) == 0)
			return sw_policies[i];
	return NULL;
}

const char *sw_policy_names(void)
{
	return "eager|deferred|lang|none|native";
}
