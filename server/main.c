/* SPDX-License-Identifier: MIT */
/*
 * main.c - stalewin-writer's entry point.
 *   stalewin-writer serve ...          control API (control/http.c)
 *   stalewin-writer [run] OPTIONS      one writer run (run.c)
 *   stalewin-writer clock-step ±SEC    step CLOCK_REALTIME (clockstep.c;
 *                                      vm run's --fault clock-step, in
 *                                      the server guest only)
 *   stalewin-writer fill DIR           fill DIR's filesystem (fill.c;
 *                                      --fault enospc)
 *   stalewin-writer crash FILE DIR [IF] write FILE back, shut DIR's ext4
 *   stalewin-writer crash-after FILE COPY  down without a journal
 *                                      commit; after the reboot, FILE's
 *                                      times and a copy (crash.c; --fault
 *                                      server-crash)
 *   stalewin-writer --list policies|workloads|traps
 *                                      the names it takes, one a line: the
 *                                      scripts check names against these
 * Exit 0 done (or stopped by SIGINT/SIGTERM), 2 bad input, 1 runtime
 * failure; every error is one line on stderr.
 */
#include <stdio.h>
#include <sys/prctl.h>
#include <string.h>

#include "control_http.h"
#include "parse.h"
#include "policy.h"
#include "trap.h"
#include "workload.h"
#include "writer.h"

/* --list KIND: each name of the list, one a line. */
static int list_names(int argc, char **argv)
{
	static const struct {
		const char *kind;
		const void *const *list;
	} kinds[] = {
		{ "policies", (const void *const *)sw_policies },
		{ "workloads", (const void *const *)sw_workloads },
		{ "traps", (const void *const *)sw_traps },
	};

	for (size_t k = 0; argc == 3 && k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		if (strcmp(argv[2], kinds[k].kind))
			continue;
		for (size_t i = 0; kinds[k].list[i]; i++)
			printf("%s\n", *(const char *const *)kinds[k].list[i]);
		return 0;
	}
	fprintf(stderr, "stalewin-writer: expected --list policies|workloads|traps, saw '%s'\n",
		argc == 3 ? argv[2] : argc < 3 ? "nothing" : "more than one word");
	return 2;
}

int main(int argc, char **argv)
{
	struct sw_opts o;
	char err[SW_ERRLEN] = "";
	int rc;

	if (argc > 1 && strcmp(argv[1], "--list") == 0)
		return list_names(argc, argv);
	if (argc > 1 && strcmp(argv[1], "clock-step") == 0)
		return sw_clock_step_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "fill") == 0)
		return sw_fill_main(argc - 1, argv + 1);
	if (argc > 1 && (!strcmp(argv[1], "crash") || !strcmp(argv[1], "crash-after")))
		return sw_crash_main(argc - 1, argv + 1);
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
