/* SPDX-License-Identifier: MIT */
/* names.c - the names every sink prints for the pass's kinds and causes
 * (report.h: enum sw_exc, enum sw_cause of records.h). */
#include "report.h"

const char *sw_exc_name(int e)
{
	static const char *n[SW_EXC_N] = {
		"none", "race", "early-update", "equal-timestamps", "lost-reply",
		"gap", "server-lag", "probe-stall", "slow-reply", "clock",
		"unexplained",
	};
	return e >= 0 && e < SW_EXC_N ? n[e] : "?";
}

const char *sw_cause_name(uint32_t c)
{
	static const char *n[] = { "none", "trap", "kupdate", "background",
				   "msync-async", "msync-sync", "fsync", "munmap",
				   "native" };
	return c < sizeof(n) / sizeof(n[0]) ? n[c] : "?";
}
