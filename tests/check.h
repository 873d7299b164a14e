/* SPDX-License-Identifier: MIT */
/* check.h - the one assertion the C tests share: print where and what,
 * count, go on (a test reports every failed check, then exits 1). */
#ifndef STALEWIN_TESTS_CHECK_H
#define STALEWIN_TESTS_CHECK_H

#include <stdio.h>

static int failures;
#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);                        \
			fputc('\n', stderr);                                 \
			failures++;                                          \
		}                                                            \
	} while (0)

#endif
