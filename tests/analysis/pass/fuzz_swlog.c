/* SPDX-License-Identifier: MIT */
/*
 * Description: libFuzzer target for the log reader and the analysis pass
 * behind it.  The input is split at its first 0xff 0xfe pair into a writer
 * log and a probe log, written to a fresh run folder and analysed.  A bug
 * shows as a crash or a sanitizer report.  Build: `cmake --build B
 * --target fuzz_swlog` (needs clang); run: B/tests/analysis/pass/fuzz_swlog
 * -max_total_time=60 CORPUS_DIR (seed it with synthetic logs).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"

static char dir[64];

static void put(const char *name, const uint8_t *d, size_t n)
{
	char p[128];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "wb");
	if (!f)
		abort();
	if (n && fwrite(d, 1, n, f) != n)
		abort();
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sw_summary S;
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/sw-fuzz-%d", (int)getpid());
		mkdir(dir, 0777);
	}
	size_t cut = size;
	for (size_t i = 0; i + 1 < size; i++)
		if (data[i] == 0xff && data[i + 1] == 0xfe) {
			cut = i;
			break;
		}
	put("writer.swlog", data, cut);
	put("probe-0.swlog", data + (cut < size ? cut + 2 : size), cut < size ? size - cut - 2 : 0);
	struct sw_analyze_opts o = { 0 };
	sw_summary_free(&S);
	sw_analyze(dir, &o, &S);
	return 0;
}
