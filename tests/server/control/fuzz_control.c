/* SPDX-License-Identifier: MIT */
/*
 * Description: libFuzzer target for the control API's request handling
 * below HTTP (server/control/runs.c, the functions http.c's routes call):
 * the first input byte picks one, the rest is its request.
 *   0  ctl_resolve_under_root(root, PATH): on success the path must lie
 *      under root (prefix + '/'), never outside it;
 *   1  ctl_runs_start(JSON body) with a writer that cannot start (nothing
 *      runs), then ctl_runs_status and ctl_runs_stop;
 *   2  ctl_runs_prepare(JSON body), sizes clamped to 64 KiB;
 *   3  ctl_runs_status(RUN_ID) and ctl_runs_file(RUN_ID, log|stderr) as
 *      the route GET /runs/ID/WHAT calls them (split at the first '/'):
 *      a file path must lie under the runs folder.
 * A crash, a sanitizer report or a path outside its folder (abort) is a
 * bug.  Build: `cmake --build B --target fuzz_control` (clang); run:
 * tests/analysis/pass/test_fuzz.sh fuzz_control (corpus
 * tests/server/control/corpus/control).
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "control.h"
#include "control_runs.h"
#include "fuzz_runs.h"

static int under(const char *dir, const char *p)
{
	size_t n = strlen(dir);
	return !strncmp(p, dir, n) && (p[n] == '/' || p[n] == 0) && !strstr(p + n, "/../") &&
	       (strlen(p + n) < 3 || strcmp(p + strlen(p) - 3, "/.."));
}

static void clamp_sizes(json_t *j)
{
	const char *k;
	json_t *v;
	if (!json_is_object(j))
		return;
	json_object_foreach(j, k, v)
		if (json_is_integer(v) && json_integer_value(v) > 65536)
			json_integer_set(v, 65536);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[2048], out[4096], err[512];
	json_t *resp = NULL, *j;

	if (!size)
		return 0;
	if (!R)
		fuzz_runs_setup("control");
	size_t n = size - 1 < sizeof(s) - 1 ? size - 1 : sizeof(s) - 1;
	memcpy(s, data + 1, n);
	s[n] = 0;
	switch (data[0] & 3) {
	case 0:
		if (!ctl_resolve_under_root(root, s, out, sizeof(out), err, sizeof(err)) &&
		    !under(root, out)) {
			fprintf(stderr, "resolved '%s' to '%s', outside %s\n", s, out, root);
			abort();
		}
		break;
	case 1:
		j = json_loads(s, JSON_DECODE_ANY, NULL);
		ctl_runs_start(R, j, &resp);
		json_decref(resp);
		resp = NULL;
		ctl_runs_status(R, NULL, &resp);
		json_decref(resp);
		resp = NULL;
		ctl_runs_stop(R, &resp);
		json_decref(j);
		break;
	case 2:
		j = json_loads(s, JSON_DECODE_ANY, NULL);
		clamp_sizes(j);
		ctl_runs_prepare(R, j, &resp);
		json_decref(j);
		break;
	case 3: {
		char *name = strchr(s, '/');
		if (name)
			*name++ = 0;
		ctl_runs_status(R, s, &resp);
		json_decref(resp);
		resp = NULL;
		/* the route names the file: log or stderr (http.c), never the client */
		const char *f = name && !strcmp(name, "log") ? SW_CTL_RUN_LOG : SW_CTL_RUN_STDERR;
		if (ctl_runs_file(R, s, f, out, sizeof(out), &resp) == 200 &&
		    !under(runs, out)) {
			fprintf(stderr, "run file '%s' resolved to '%s', outside %s\n", s, out, runs);
			abort();
		}
		break;
	}
	}
	json_decref(resp);
	return 0;
}
