/* SPDX-License-Identifier: MIT */
/* control_http.c - placeholder until the control-API work lands (that
 * engineer owns this file and replaces it). */
#include <stdio.h>

#include "control_http.h"

int sw_control_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "stalewin-writer: control API not built in yet\n");
	return 2;
}
