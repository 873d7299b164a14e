/* SPDX-License-Identifier: MIT */
/* parse.h - numbers from the command line, one set of rules for every
 * program: the whole string must be the number (no trailing text), no
 * overflow, within [lo, hi].  Each returns 0, or -1 and leaves *out alone;
 * the caller names the option in its message. */
#ifndef STALEWIN_PARSE_H
#define STALEWIN_PARSE_H
#include <stddef.h>
#include <stdint.h>

/* sw_parse_u64 flags */
#define SW_PARSE_SUFFIX 1u /* K/M/G/T binary multiplier, then optional "i", "B" */

/* Unsigned integer in base (0: C prefixes 0x, 0); a leading '-' is refused. */
int sw_parse_u64(const char *s, int base, unsigned flags, uint64_t lo,
		 uint64_t hi, uint64_t *out);
/* Signed decimal integer. */
int sw_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out);
/* Floating-point number; NaN is never within [lo, hi]. */
int sw_parse_double(const char *s, double lo, double hi, double *out);
/* The variant a command line names: list is a NULL-terminated array of
 * pointers to ops structs whose first member is `const char *name`
 * (policies, traps, workloads).  NULL if none is called name. */
const void *sw_parse_named(const void *const *list, const char *name);
/* The names of a NULL-ended list of structs whose first member is their
 * name, joined by sep into buf ("eager|deferred|..."); cut to fit. */
const char *sw_parse_names(const void *const *list, const char *sep, char *buf,
			   size_t len);
/* FIND(name) and NAMES() ("a|b|c") of the NULL-ended list LIST of TYPE
 * (policies, traps, workloads): defines the two functions. */
#define SW_PARSE_LIST_FNS(TYPE, LIST, FIND, NAMES)                             \
	const TYPE *FIND(const char *name)                                     \
	{                                                                     \
		return sw_parse_named((const void *const *)LIST, name);       \
	}                                                                     \
	const char *NAMES(void)                                               \
	{                                                                     \
		static char names[128];                                       \
		return sw_parse_names((const void *const *)LIST, "|", names,  \
				      sizeof(names));                         \
	}
/* "A-B": two numbers >= 0 (sw_parse_double rules), A <= B. */
int sw_parse_range(const char *s, double *from, double *to);

/* Rows of a getopt_long table (getopt.h): an option with a value, one
 * without, the end. */
#define SW_OPT_ARG(name, key) { (name), required_argument, NULL, (key) }
#define SW_OPT_FLAG(name, key) { (name), no_argument, NULL, (key) }
#define SW_OPT_END { NULL, 0, NULL, 0 }
#endif
