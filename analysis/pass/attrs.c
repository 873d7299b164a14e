/* SPDX-License-Identifier: MIT */
/* attrs.c - after the pass: which attribute revealed each store (the
 * change attribute, ctime, both), how many faults left ctime as it was
 * (equal ctimes), and what queried the file while the run lasted (the
 * planned query rate and whether the server's filesystem is multigrain,
 * from meta.json: vm/query.sh writes them).  On a multigrain kernel
 * (6.13+) a query of ctime makes the next stamp fine-grained, so the
 * equal ctimes depend on the queries: the report gives both. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "srvtrace.h"

/* The first observer whose replies carry the change attribute: the v4
 * target.  Its first differing reply for each store says which of the
 * two moved; one reply carries both, so no clock or poll phase stands
 * between them. */
static void split(struct sw_summary *S)
{
	struct sw_reveal *A = &S->attrs;
	A->obs = -1;
	for (int i = 0; i < S->nobs && A->obs < 0; i++)
		if (S->obs[i].vers == 4)
			A->obs = i;
	if (A->obs < 0)
		return;
	const struct sw_observer *O = &S->obs[A->obs];
	for (unsigned m = 1; m < 16; m++) {
		uint64_t n = O->revealed[m];
		int ch = !!(m & SW_ATTR_CHANGE), ct = !!(m & SW_ATTR_CTIME);
		A->revealed += n;
		*(ch && ct ? &A->both : ch ? &A->change_only : ct ? &A->ctime_only : &A->other) += n;
	}
	A->change_only_torn = O->torn;
}

/* Equal ctimes: emulated, the updates that left the stamps equal (the
 * writer's futimens collapsed them); native, the faulting stores minus
 * the ctime changes the kernel traced between the first and last store
 * (6.13+), else minus those the writer's own fstat saw. */
static void equal_ctime(struct sw_summary *S, const char *dir, int client_writer)
{
	struct sw_reveal *A = &S->attrs;
	char path[SW_PATHLEN + 32];
	struct sw_srvtrace t;

	A->equal_ctime = -1;
	A->faults = -1;
	if (S->emulated) {
		A->equal_ctime = (int64_t)S->collisions;
		snprintf(A->equal_how, sizeof(A->equal_how),
			 "updates that left mtime and ctime equal to the previous update's");
		return;
	}
	A->faults = (int64_t)S->traps;
	snprintf(path, sizeof(path), "%.1000s/server/trace.txt", dir);
	/* client-writer: the server's ctime changes are its client's
	 * flushes, traced on another guest's clock than the faults */
	if (!client_writer && S->stores && sw_srvtrace_load(path, S->store_mono_lo_ns,
					  S->store_mono_hi_ns ? S->store_mono_hi_ns : 1, &t) == 0 &&
	    t.ts_traced) {
		int64_t d = (int64_t)S->traps - t.ctime_sets;
		A->equal_ctime = d > 0 ? d : 0;
		snprintf(A->equal_how, sizeof(A->equal_how),
			 "faulting stores minus the ctime changes the kernel traced "
			 "(%lld, timestamp tracepoints, server/trace.txt)", (long long)t.ctime_sets);
	} else if (A->writer_stats == 1) {
		A->equal_ctime = (int64_t)(S->traps - S->traps_updated);
		snprintf(A->equal_how, sizeof(A->equal_how),
			 "faulting stores whose fstat right after saw no time change");
	} else if (client_writer)
		snprintf(A->equal_how, sizeof(A->equal_how),
			 "unknown: the writer ran in the client guest (the server's tracepoints see "
			 "its client's flushes, not its faults) and did not fstat after each store");
	else
		snprintf(A->equal_how, sizeof(A->equal_how),
			 "unknown: no timestamp tracepoints (before 6.13) and no fstat after each store");
}

static double num_or(json_t *o, const char *k, double dflt)
{
	json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : dflt;
}

/* meta.json: query_rate_hz (null: wire speed), query_rate {probe_hz,
 * probe_targets, readers_hz}, multigrain, multigrain_how */
static void queries(struct sw_summary *S, const char *dir)
{
	struct sw_reveal *A = &S->attrs;
	char path[SW_PATHLEN + 32];
	A->query_hz = A->probe_hz = A->readers_hz = A->probe_achieved_hz = -1;
	A->multigrain = -1;
	if (S->nobs) {
		const struct sw_observer *O = &S->obs[0];
		if (O->replies > 1 && O->t_last_ns > O->t_first_ns)
			A->probe_achieved_hz = (double)(O->replies - 1) * 1e9 /
					       (double)(O->t_last_ns - O->t_first_ns);
	}
	snprintf(path, sizeof(path), "%.1000s/meta.json", dir);
	json_t *m = json_load_file(path, 0, NULL);
	if (!m)
		return;
	json_t *q = json_object_get(m, "query_rate"), *v;
	if (json_is_object(q)) {
		A->query_hz = num_or(m, "query_rate_hz", -2); /* null: wire */
		A->probe_hz = num_or(q, "probe_hz", -2);
		A->probe_targets = (int)num_or(q, "probe_targets", 0);
		A->readers_hz = num_or(q, "readers_hz", -1);
	}
	if (json_is_boolean(v = json_object_get(m, "multigrain")))
		A->multigrain = json_is_true(v);
	if (json_is_string(v = json_object_get(m, "multigrain_how")))
		snprintf(A->multigrain_how, sizeof(A->multigrain_how), "%s", json_string_value(v));
	if (json_is_string(v = json_object_get(m, "scenario")))
		snprintf(S->deleg.scenario, sizeof(S->deleg.scenario), "%s", json_string_value(v));
	if (json_is_string(v = json_object_get(m, "scenario_note")))
		snprintf(S->deleg.note, sizeof(S->deleg.note), "%s", json_string_value(v));
	json_decref(m);
}

void sw_attrs_finish(struct sw_summary *S, const char *dir, const char *writer_log)
{
	char path[SW_PATHLEN + 32];

	split(S);
	queries(S, dir);
	int cw = !strcmp(S->deleg.scenario, "client-writer");
	equal_ctime(S, dir, cw);
	snprintf(path, sizeof(path), "%.1000s/server/trace.txt", dir);
	if (!S->emulated && !cw)
		sw_queried_count(writer_log, path, &S->attrs.by_query);
	/* client-writer: the writer's log carries the client guest's clocks,
	 * not the server's: nfsd's times stay the server's own, and no
	 * reader is judged against them (no writer log: no server clock) */
	sw_deleg_finish(S, dir, cw ? NULL : writer_log);
}
