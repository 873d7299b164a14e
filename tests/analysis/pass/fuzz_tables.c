/* SPDX-License-Identifier: MIT */
/*
 * Description: libFuzzer target for the analysis's two table parsers: the
 * client-profile table (sw_profiles_load, sw_profile_parse: one profile a
 * line) and the run folder's faults.json (sw_faults_load, then the status
 * line built from it).  The first input byte picks the parser (even:
 * profiles, odd: faults.json), the rest is the file.  A bug shows as a
 * crash or a sanitizer report.  Build: `cmake --build B --target
 * fuzz_tables` (clang); run: tests/analysis/pass/test_fuzz.sh (bounded,
 * corpus tests/analysis/pass/corpus/tables).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay.h"
#include "report.h"

static char dir[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sw_summary S;
	struct sw_profile prof[SW_MAX_PROFILES];
	char path[128], err[512], status[1024];

	if (!size)
		return 0;
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "sw-fuzz-tables-%d", (int)getpid()); /* in the cwd */
		mkdir(dir, 0777);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, data[0] & 1 ? "faults.json" : "profiles.txt");
	FILE *f = fopen(path, "wb");
	if (!f || (size > 1 && fwrite(data + 1, 1, size - 1, f) != size - 1))
		abort();
	fclose(f);
	if (data[0] & 1) {
		memset(&S, 0, sizeof(S));
		S.t_start_ns = 1700000000000000000ll;
		sw_faults_load(&S, dir);
		for (int i = 0; i < 50; i++)
			sw_faults_on_store(&S, S.t_start_ns + i * 100000000ll);
		sw_faults_finish(&S);
		sw_status_line(&S, status, sizeof(status));
		unlink(path);
	} else {
		int n = sw_profiles_load(path, prof, SW_MAX_PROFILES, err, sizeof(err));
		for (int i = 0; i < n; i++)
			sw_profile_describe(&prof[i], status, sizeof(status));
		/* the same bytes as one line */
		char line[600];
		size_t l = size - 1 < sizeof(line) - 1 ? size - 1 : sizeof(line) - 1;
		memcpy(line, data + 1, l);
		line[l] = 0;
		sw_profile_parse(line, &prof[0], err, sizeof(err));
	}
	return 0;
}
