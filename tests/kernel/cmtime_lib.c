/* SPDX-License-Identifier: MIT */
/*
 * cmtime_lib.c - the one definition of cmtime_lib.h's globals: the policy
 * under test, the RESULT counters and the page size.  Linked into every
 * guest program that includes cmtime_lib.h (cmtime_check, cmtime_cases),
 * so that the files of one program count into the same g_pass and g_fail.
 */
#define _GNU_SOURCE
#define CMTIME_PROG "cmtime_lib"
#include "cmtime_lib.h"

const char *g_policy;
int g_pass, g_fail;
long g_page;
