/* SPDX-License-Identifier: MIT */
/*
 * main.c - stalewin-writer's entry point.
 *   stalewin-writer serve ...          control API (control/http.c)
 *   stalewin-writer [run] OPTIONS      one writer run (run.c)
 * Exit 0 done (or stopped by SIGINT/SIGTERM), 2 bad input, 1 runtime
 * failure; every error is one line on stderr.
 */
#include <stdio.h>
#include <sys/prctl.h>
#include <string.h>

#include "control_http.h"
#include "writer.h"

int main(int argc, char **argv)
{
	struct sw_opts o;
	char err[SW_ERRLEN] = "";
	int rc;

	if (argc > 1 && strcmp(argv[1], "serve") == 0)
		return sw_control_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "run") == 0) {
		/* started as /proc/self/exe by serve, comm would be "exe": a
		 * user looks for stalewin-writer in ps/top (15 chars, the max) */
		prctl(PR_SET_NAME, "stalewin-writer", 0, 0, 0);
		argc--;
		argv++;
	}
	rc = sw_opts_parse(&o, argc, argv, err, sizeof(err));
	if (rc == 1)
		return 0;
	if (rc) {
		fprintf(stderr, "stalewin-writer: %s\n", err);
		return 2;
	}
	rc = sw_writer_run(&o, err, sizeof(err));
	if (rc)
		fprintf(stderr, "stalewin-writer: %s\n", err);
	return rc;
}
