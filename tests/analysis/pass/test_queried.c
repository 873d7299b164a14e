/* SPDX-License-Identifier: MIT */
/* test_queried.c - sw_queried_count (analysis/pass/queried.c) on a writer
 * log and a server trace.txt made here, each case a known answer:
 *   rule        a query of the ctime last set before a fault makes it
 *               "queried"; a fault with none since is "unqueried"; one
 *               inside the fault is "during"; "changed" is a ctime change
 *               inside the fault;
 *   stale-query a getattr that read the old ctime but fired its
 *               tracepoint after the change (seen in a 7.2 guest,
 *               0.2 ms after) does not make the next fault queried;
 *   refusals    a trace without fill_mg_cmtime, and one that starts
 *               after the first fault (its buffer overwrote the start),
 *               are not counted, and say why. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "queried.h"
#include "records.h"
#include "swlog.h"

#define MS 1000000ll
#define T0 (100 * 1000 * MS) /* mono: 100 s */

static char dir[] = "/tmp/sw-queried-XXXXXX", wlog[64], trace[64];

/* a writer log of faulting stores, each [t_ms, t_ms + 1] after T0 */
static void writer_log(const int *t_ms, int n)
{
	struct swlog_writer *w;
	char err[SWLOG_ERRLEN];
	unlink(wlog);
	CHECK(swlog_create(&w, wlog, 1, SWLOG_KIND_WRITER, 1, NULL, 0, err) == 0, "create: %s", err);
	for (int i = 0; i < n; i++) {
		struct sw_rec_store s = {
			.page = (uint64_t)i, .gen = 1,
			.t_before_mono_ns = T0 + t_ms[i] * MS,
			.t_after_mono_ns = T0 + (t_ms[i] + 1) * MS,
			.t_before_real_ns = 1700000000000000000ll + t_ms[i] * MS,
			.t_after_real_ns = 1700000000000000000ll + (t_ms[i] + 1) * MS,
			.flags = SW_STORE_TRAPPED,
		};
		CHECK(swlog_append(w, SW_REC_STORE, &s, sizeof(s)) == 0);
	}
	CHECK(swlog_close(w) == 0);
}

/* trace.txt: the enabled lines, then "set MS NS" / "query MS NS" lines */
static void trace_file(int with_queries, const char *events)
{
	FILE *f = fopen(trace, "w");
	char kind[8];
	int ms;
	long long ns;
	const char *p = events;
	int k;
	fputs("# trace_clock: mono\n# enabled: timestamp:ctime_ns_xchg\n", f);
	if (with_queries)
		fputs("# enabled: timestamp:fill_mg_cmtime\n", f);
	while (sscanf(p, "%7s %d %lld%n", kind, &ms, &ns, &k) == 3) {
		double s = (double)(T0 + ms * MS) / 1e9;
		if (!strcmp(kind, "set"))
			fprintf(f, " stalewin-writer-9 [000] ..... %.6f: ctime_ns_xchg: ino=254:0:12:1 "
				"old=1:Q new=%lld cur=1:Q\n", s, ns);
		else
			fprintf(f, " nfsd-7 [000] ..... %.6f: fill_mg_cmtime: ino=254:0:12:1 "
				"ctime=1700000000.%09lld mtime=1700000000.%09lld\n", s, ns, ns);
		p += k;
	}
	fclose(f);
}

SW_CASE(rule)
{
	struct sw_queried Q;
	/* faults [10,11], [20,21], [30,31], [40,41], [50,51] ms */
	int t[] = { 10, 20, 30, 40, 50 };
	writer_log(t, 5);
	trace_file(1, "set 5 100 "          /* the set-up's change */
		      "set 11 200 "         /* fault 10 changed it: unqueried */
		      "query 25 200 "       /* after fault 20 (none since 11: unqueried, equal) */
		      "set 31 300 "         /* fault 30: queried (of 200), changed */
		      "set 41 400 "         /* fault 40: unqueried (the query was before 31), changed */
		      "query 51 300 ");     /* inside fault 50: during, equal */
	sw_queried_count(wlog, trace, &Q);
	CHECK(Q.known, "not counted: %s", Q.how);
	CHECK(Q.queried == 1 && Q.queried_changed == 1, "queried %lld changed %lld, expected 1 1",
	      (long long)Q.queried, (long long)Q.queried_changed);
	CHECK(Q.unqueried == 3 && Q.unqueried_changed == 2, "unqueried %lld changed %lld, expected 3 2",
	      (long long)Q.unqueried, (long long)Q.unqueried_changed);
	CHECK(Q.during == 1 && Q.during_changed == 0, "during %lld changed %lld, expected 1 0",
	      (long long)Q.during, (long long)Q.during_changed);
}

/* Faults at 10 and 20 ms, the trace `events` (with or without the
 * fill_mg_cmtime tracepoint enabled), counted into *Q */
static void count_two(int with_queries, const char *events, struct sw_queried *Q)
{
	int t[] = { 10, 20 };
	writer_log(t, 2);
	trace_file(with_queries, events);
	sw_queried_count(wlog, trace, Q);
}

SW_CASE(stale_query)
{
	struct sw_queried Q;
	/* the getattr read 100 before fault 10 changed it to 200, and its
	 * tracepoint fired after the change: fault 20 finds no query */
	count_two(1, "set 5 100 set 11 200 query 12 100 ", &Q);
	CHECK(Q.known && Q.queried == 0 && Q.unqueried == 2,
	      "expected 2 unqueried faults (the query read the old ctime), saw queried %lld unqueried %lld",
	      (long long)Q.queried, (long long)Q.unqueried);
}

SW_CASE(refusals)
{
	struct sw_queried Q;
	count_two(0, "set 5 100 set 11 200 ", &Q);
	CHECK(!Q.known && strstr(Q.how, "fill_mg_cmtime not traced"), "no queries traced: known %d '%s'",
	      Q.known, Q.how);
	count_two(1, "set 15 100 query 16 100 ", &Q);
	CHECK(!Q.known && strstr(Q.how, "lost events"), "a trace starting after the first fault: known %d '%s'",
	      Q.known, Q.how);
}

static void setup(void) __attribute__((constructor(101)));
static void setup(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		_exit(1);
	}
	snprintf(wlog, sizeof(wlog), "%s/writer.swlog", dir);
	snprintf(trace, sizeof(trace), "%s/trace.txt", dir);
}

static void teardown(void) __attribute__((destructor));
static void teardown(void)
{
	unlink(wlog);
	unlink(trace);
	rmdir(dir);
}

SW_MAIN()
