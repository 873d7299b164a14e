/* SPDX-License-Identifier: MIT */
/*
 * Description: one analysis pass opens the run's writer.swlog once:
 * runload.c checks its header and keeps the reader, and every cursor over
 * it (the pass, the truth lookahead, the READ race scan) is that reader or
 * a clone of it (swlog_reader_clone), on a run that exercises each
 * consumer (probe READs, a kernel-mount reader, the replays, --format
 * all's per-store table).  open(2) is wrapped at link time
 * (-Wl,--wrap=open; common/swlog.c calls open): a cursor that opens the
 * log again shows as a count above 1, a wrap that no longer sees the
 * opens (open64, openat) as 0.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report.h"
#include "synth.h"

#include "check.h"

static int writer_opens;

static void count(const char *path)
{
	size_t n = strlen(path), k = strlen("/writer.swlog");
	if (n >= k && !strcmp(path + n - k, "/writer.swlog"))
		writer_opens++;
}

int __real_open(const char *path, int flags, ...);

int __wrap_open(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = flags & O_CREAT ? va_arg(ap, mode_t) : 0;
	va_end(ap);
	count(path);
	return __real_open(path, flags, mode);
}

int main(void)
{
	static struct sw_summary S;
	struct sw_synth_cfg c;
	char base[] = "/tmp/sw-test-one-open-XXXXXX", dir[300], err[512];

	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s/run", base);
	sw_synth_defaults(&c);
	c.read_every = 20;
	c.clock_json = 1;
	c.kread_ns = 500 * 1000000ll;
	c.kread_mount_options = "rw,vers=3,actimeo=5";
	if (mkdir(dir, 0777) || sw_synth_run(&c, dir, err, sizeof(err)) < 0) {
		fprintf(stderr, "FAIL: synth %s: %s\n", dir, err);
		return 1;
	}
	struct sw_analyze_opts o = { .keep_rows = UINT64_MAX, .keep_updates = 100 };
	writer_opens = 0;
	int rc = sw_analyze(dir, &o, &S);
	CHECK(rc == 0, "expected a complete report, saw exit %d", rc);
	CHECK(S.nobs == 1 && S.obs[0].reads > 0 && S.nkread == 1 && S.nprof > 0,
	      "expected a probe with READs, a kernel reader and replays, saw %d/%llu/%d/%d",
	      S.nobs, S.nobs ? (unsigned long long)S.obs[0].reads : 0ull, S.nkread, S.nprof);
	CHECK(sw_rows_n(S.rows) == S.stores, "expected a row per store (%llu), saw %llu",
	      (unsigned long long)S.stores, (unsigned long long)sw_rows_n(S.rows));
	CHECK(writer_opens == 1, "expected writer.swlog opened once in the pass, saw %d opens",
	      writer_opens);
	sw_summary_free(&S);
	return check_finish(base, "one open: the pass opened writer.swlog once");
}
