/* SPDX-License-Identifier: MIT */
/* fuzz_runs.h - the run manager every control fuzz target drives: a
 * root and a runs folder under the current directory (test_fuzz.sh runs
 * in a scratch folder), and a writer that cannot start, so nothing runs. */
#ifndef STALEWIN_FUZZ_RUNS_H
#define STALEWIN_FUZZ_RUNS_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "control_runs.h"

static struct ctl_runs *R;
static char root[256], runs[300];

static void fuzz_runs_setup(const char *name)
{
	char err[512], cwd[200];
	if (!getcwd(cwd, sizeof(cwd)))
		abort();
	snprintf(root, sizeof(root), "%s/sw-fuzz-%s-%d", cwd, name, (int)getpid());
	snprintf(runs, sizeof(runs), "%s/runs", root);
	mkdir(root, 0777);
	mkdir(runs, 0777);
	if (ctl_runs_init(&R, root, runs, "/nonexistent/stalewin-writer", err, sizeof(err))) {
		fprintf(stderr, "ctl_runs_init: %s\n", err);
		abort();
	}
}

#endif
