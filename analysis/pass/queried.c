/* SPDX-License-Identifier: MIT */
/* queried.c - the observer effect fault by fault: each faulting store of
 * a native writer on a multigrain kernel (6.13+), split by whether the
 * file's ctime was queried since it last changed, and whether the fault
 * changed it.
 *
 * fs/inode.c, 6.13+: a getattr of a multigrain inode marks its ctime
 * queried (fill_mg_cmtime sets I_CTIME_QUERIED); the next stamp then
 * takes a fine-grained time when the coarse clock has not moved past
 * the ctime (current_time(), inode_set_ctime_current()), so a fault
 * after a query always changes ctime.  With no query since the last
 * change, a fault in the same coarse tick leaves ctime as it was
 * (inode_needs_update_time() finds nothing to update): an equal ctime.
 * A run's share of equal ctimes therefore depends on how the queries
 * fall between the stores, which the host's load moves (the probe's
 * replies come in clusters on the server guest's one vCPU); the split
 * here does not: "queried" faults should change ctime every time,
 * whatever the rate.
 *
 * Inputs, both on the server's CLOCK_MONOTONIC: the writer log's
 * faulting stores (SW_STORE_TRAPPED: t_before..t_after, the fault in
 * between) and server/trace.txt's timestamp events (vm/guest/trace.sh,
 * filtered to the file's inode): ctime_ns_xchg / inode_set_ctime_to_ts
 * a ctime change, fill_mg_cmtime a query.  fill_mg_cmtime is traced
 * only when asked for (vm run with SW_VM_TRACE_EVENTS=
 * timestamp:fill_mg_cmtime): every getattr fires it.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queried.h"
#include "srvtrace.h"
#include "writer_events.h"

/* events in trace order: when, and the ctime's nanoseconds it set (a
 * change, "new=") or found (a query, "ctime=S.NS"); -1 not printed */
struct ev {
	int64_t t, ns;
};

struct times {
	struct ev *e;
	size_t n, cap;
};

static int push(struct times *v, int64_t t, const char *line, const char *key)
{
	const char *k = strstr(line, key);
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 1024;
		struct ev *p = realloc(v->e, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		v->e = p;
		v->cap = cap;
	}
	v->e[v->n++] = (struct ev){ t, k ? strtoll(k + strlen(key), NULL, 10) : -1 };
	return 0;
}

/* trace.txt's ctime changes and queries, in its (time) order; what was
 * enabled in *ts_sets and *ts_queries.  0, -1 no file, -ENOMEM. */
static int load_trace(const char *path, struct times *sets, struct times *qs,
		      int *ts_sets, int *ts_queries)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	int rc = 0;

	if (!f)
		return -1;
	while (!rc && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "# enabled: ", 11)) {
			*ts_sets |= !!strstr(line, "timestamp:ctime_ns_xchg");
			*ts_queries |= !!strstr(line, "timestamp:fill_mg_cmtime");
			continue;
		}
		int64_t ns;
		const char *p;
		size_t len = sw_srvtrace_line(line, &ns, &p);
		if ((len == 13 && !strncmp(p, "ctime_ns_xchg", len)) ||
		    (len == 21 && !strncmp(p, "inode_set_ctime_to_ts", len)))
			rc = push(sets, ns, p, " new=");
		else if (len == 14 && !strncmp(p, "fill_mg_cmtime", len)) {
			const char *c = strstr(p, " ctime=");
			c = c ? strchr(c, '.') : NULL;
			rc = push(qs, ns, c ? c : "", ".");
		}
	}
	fclose(f);
	return rc;
}

/* the first index of v at or after position *i whose time is > t */
static size_t after(const struct times *v, size_t i, int64_t t)
{
	while (i < v->n && v->e[i].t <= t)
		i++;
	return i;
}

static void classify(const struct times *sets, const struct times *qs,
		     int64_t b, int64_t a, size_t *si, size_t *qi, struct sw_queried *Q)
{
	/* the last change at or before the store, then a query of the
	 * ctime it set, between it and the store: the queried flag the
	 * fault finds.  A getattr that read the ctime before the change
	 * may fire its tracepoint after it (traced: fill_mg_cmtime 0.2 ms
	 * after a ctime_ns_xchg, with the old value): its flag went with
	 * the old ctime, so a query counts only with the value it saw. */
	size_t s0 = after(sets, *si, b), q0 = after(qs, *qi, b);
	const struct ev *last = s0 ? &sets->e[s0 - 1] : NULL;
	int queried = 0;
	for (size_t j = q0; j > 0 && !queried && (!last || qs->e[j - 1].t > last->t); j--)
		queried = !last || last->ns < 0 || qs->e[j - 1].ns < 0 ||
			  qs->e[j - 1].ns == last->ns;
	size_t s1 = after(sets, s0, a), q1 = after(qs, q0, a);
	int changed = s1 > s0, during = q1 > q0;

	*si = s0;
	*qi = q0;
	if (during) {
		Q->during++;
		Q->during_changed += changed;
	} else if (queried) {
		Q->queried++;
		Q->queried_changed += changed;
	} else {
		Q->unqueried++;
		Q->unqueried_changed += changed;
	}
}

int sw_queried_count(const char *writer_log, const char *trace_path, struct sw_queried *Q)
{
	struct times sets = { 0 }, qs = { 0 };
	struct sw_wev_reader w;
	struct sw_wev ev;
	char err[SWLOG_ERRLEN];
	int ts_sets = 0, ts_queries = 0, rc;
	size_t si = 0, qi = 0;
	int64_t first_b = 0;

	memset(Q, 0, sizeof(*Q));
	rc = load_trace(trace_path, &sets, &qs, &ts_sets, &ts_queries);
	if (rc == -1) {
		snprintf(Q->how, sizeof(Q->how), "no server/trace.txt");
		return 0;
	}
	if (rc)
		goto nomem;
	if (!ts_sets || !ts_queries) {
		snprintf(Q->how, sizeof(Q->how), "%s",
			 !ts_sets ? "no timestamp tracepoints (before 6.13)"
				  : "timestamp:fill_mg_cmtime not traced (vm run: SW_VM_TRACE_EVENTS=timestamp:fill_mg_cmtime)");
		goto out;
	}
	if (sw_wev_open(&w, writer_log, err)) {
		snprintf(Q->how, sizeof(Q->how), "writer log: %.180s", err);
		goto out;
	}
	while (sw_wev_next(&w, &ev) == SWLOG_OK) {
		if (ev.skip || ev.rec.type != SW_REC_STORE || !(ev.store.flags & SW_STORE_TRAPPED))
			continue;
		if (!first_b)
			first_b = ev.store.t_before_mono_ns;
		classify(&sets, &qs, ev.store.t_before_mono_ns, ev.store.t_after_mono_ns,
			 &si, &qi, Q);
	}
	sw_wev_close(&w);
	/* the ring buffer overwrites its oldest events when full: a trace
	 * that starts after the first fault lost the changes and queries
	 * the split rests on */
	int64_t t0 = INT64_MAX;
	if (sets.n)
		t0 = sets.e[0].t;
	if (qs.n && qs.e[0].t < t0)
		t0 = qs.e[0].t;
	if (first_b && t0 > first_b) {
		snprintf(Q->how, sizeof(Q->how),
			 "the trace starts %.3f s after the first fault: its buffer lost events",
			 (double)(t0 - first_b) / 1e9);
		goto out;
	}
	Q->known = first_b != 0;
	snprintf(Q->how, sizeof(Q->how), Q->known
		 ? "timestamp:fill_mg_cmtime of the ctime last set, before the fault (server/trace.txt)"
		 : "no faulting store");
	goto out;
nomem:
	snprintf(Q->how, sizeof(Q->how), "out of memory for the trace's events");
out:
	free(sets.e);
	free(qs.e);
	return 0;
}

void sw_queried_add(struct sw_queried *sum, const struct sw_queried *Q)
{
	sum->queried += Q->queried;
	sum->queried_changed += Q->queried_changed;
	sum->unqueried += Q->unqueried;
	sum->unqueried_changed += Q->unqueried_changed;
	sum->during += Q->during;
	sum->during_changed += Q->during_changed;
}

json_t *sw_queried_json(const struct sw_queried *Q)
{
	return json_pack("{s:{s:I,s:I},s:{s:I,s:I},s:{s:I,s:I}}",
			 "queried", "faults", (json_int_t)Q->queried, "changed", (json_int_t)Q->queried_changed,
			 "unqueried", "faults", (json_int_t)Q->unqueried, "changed", (json_int_t)Q->unqueried_changed,
			 "query_during", "faults", (json_int_t)Q->during, "changed", (json_int_t)Q->during_changed);
}
