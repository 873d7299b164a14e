/* SPDX-License-Identifier: MIT */
/* check.h - the one assertion the C tests share: print where and what,
 * count, go on (a test reports every failed check, then exits 1). */
#ifndef STALEWIN_TESTS_CHECK_H
#define STALEWIN_TESTS_CHECK_H

#include <stdio.h>
#include <stdlib.h>

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

/* End of a test that made a temporary folder: remove it, print the count
 * of failures or pass_msg, return the exit code. */
static inline int check_finish(const char *tmpdir, const char *pass_msg)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (tmpdir && system(cmd))
		fprintf(stderr, "warning: could not remove %s\n", tmpdir);
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	else
		printf("%s\n", pass_msg);
	return failures ? 1 : 0;
}

#endif
