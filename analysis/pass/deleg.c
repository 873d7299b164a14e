/* SPDX-License-Identifier: MIT */
/*
 * deleg.c - after the pass: the delegations of a run, from nfsd's
 * tracepoints (server/trace.txt, vm/guest/trace.sh: trace_clock mono, the
 * server's CLOCK_MONOTONIC, 1 us) and the kernel readers' logs
 * (kread-<j>.swlog).  Each grant with its time; each recall with its
 * time, the DELEGRETURN that ended it (the recall's latency) and the
 * client's CB_RECALL reply; when the writer's open had returned and it
 * first stored; and for each reader the first read after the recall that
 * returned new data (the client's cached data invalidated and refetched).
 *
 * nfsd 6.1 traces a recall twice: nfsd_cb_recall in the lease-break
 * callback (nfsd_break_deleg_cb: the task of the open that broke the
 * lease, here the server's writer) and nfsd_deleg_recall (or the older
 * nfsd_deleg_break); one recall is the first of these after the last
 * DELEGRETURN, the later ones of the same recall merge into it.
 */
#include <stdio.h>
#include <string.h>

#include "obsclock.h"
#include "report.h"
#include "satmath.h"
#include "srvtrace.h"
#include "swlog.h"

static int is_grant(const char *ev)
{
	return strstr(ev, "deleg_read") || strstr(ev, "deleg_write") || strstr(ev, "deleg_open");
}

static int is_recall(const char *ev)
{
	return !strcmp(ev, "nfsd_cb_recall") || !strcmp(ev, "nfsd_deleg_recall") ||
	       !strcmp(ev, "nfsd_deleg_break");
}

/* the task of a trace line ("  TASK-PID [CPU] ..."): TASK */
static void line_task(const char *line, char *out, size_t n)
{
	while (*line == ' ')
		line++;
	size_t len = strcspn(line, " [");
	const char *dash = NULL;
	for (size_t i = 0; i < len; i++)
		if (line[i] == '-')
			dash = line + i;
	if (dash)
		len = (size_t)(dash - line);
	snprintf(out, n, "%.*s", (int)len, line);
}

/* server/trace.txt: the grants, recalls, returns with their times */
static int trace_events(struct sw_deleg *D, const char *path)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int open_recall = -1; /* recall[] not yet ended by a DELEGRETURN */
	while (fgets(line, sizeof(line), f)) {
		int64_t ns;
		const char *p;
		char ev[64];
		size_t len = sw_srvtrace_line(line, &ns, &p);
		if (!len)
			continue;
		snprintf(ev, sizeof(ev), "%.*s", (int)len, p);
		if (strncmp(ev, "nfsd_", 5))
			continue;
		if (is_grant(ev)) {
			if (D->ngrant < SW_DELEG_MAX) {
				D->grant[D->ngrant].t_srv_mono_ns = ns;
				snprintf(D->grant[D->ngrant].event, sizeof(D->grant[0].event), "%.31s", ev);
			}
			D->ngrant_all++;
			D->ngrant += D->ngrant < SW_DELEG_MAX;
		} else if (is_recall(ev)) {
			if (open_recall >= 0) {
				struct sw_deleg_recall *R = &D->recall[open_recall];
				if (!strcmp(ev, "nfsd_cb_recall") && !R->task[0])
					line_task(line, R->task, sizeof(R->task));
				continue;
			}
			D->nrecall_all++;
			if (D->nrecall >= SW_DELEG_MAX)
				continue;
			struct sw_deleg_recall *R = &D->recall[D->nrecall];
			memset(R, 0, sizeof(*R));
			R->t_srv_mono_ns = ns;
			R->t_return_srv_mono_ns = R->t_cb_done_srv_mono_ns = -1;
			snprintf(R->event, sizeof(R->event), "%.31s", ev);
			if (!strcmp(ev, "nfsd_cb_recall"))
				line_task(line, R->task, sizeof(R->task));
			open_recall = D->nrecall++;
		} else if (!strcmp(ev, "nfsd_cb_recall_done")) {
			/* the latest recall's, also after its DELEGRETURN: the
			 * client may return the delegation before the callback's
			 * reply is processed (seen on 6.1, 4 of 6 runs) */
			if (D->nrecall && D->recall[D->nrecall - 1].t_cb_done_srv_mono_ns < 0)
				D->recall[D->nrecall - 1].t_cb_done_srv_mono_ns = ns;
		} else if (strstr(ev, "deleg_return")) {
			D->nreturn_all++;
			if (open_recall >= 0) {
				D->recall[open_recall].t_return_srv_mono_ns = ns;
				open_recall = -1;
			}
		}
	}
	fclose(f);
	return 0;
}

/* the writer's log: its SETUP record (after its open returned: the
 * CLOCK_REALTIME - CLOCK_MONOTONIC of the server), its first store */
static void writer_times(struct sw_deleg *D, const char *writer_log)
{
	struct swlog_reader *r;
	struct swlog_rec rec;
	char err[SWLOG_ERRLEN];
	if (!writer_log || swlog_open(&r, writer_log, err))
		return;
	while (swlog_next(r, &rec) == SWLOG_OK) {
		if (rec.type == SW_REC_SETUP && D->t_open_done_srv_mono_ns < 0 &&
		    rec.len >= 2 * sizeof(int64_t)) {
			struct sw_rec_setup u;
			sw_rec_setup_get(&u, rec.payload, rec.len);
			D->t_open_done_srv_mono_ns = u.t_mono_ns;
			D->srv_real_minus_mono_ns = ss(u.t_real_ns, u.t_mono_ns);
			D->have_srv_clock = 1;
			snprintf(D->srv_clock_from, sizeof(D->srv_clock_from), "SETUP");
		} else if (rec.type == SW_REC_STORE && rec.len >= sizeof(struct sw_rec_store)) {
			struct sw_rec_store s;
			memcpy(&s, rec.payload, sizeof(s));
			D->t_first_store_srv_mono_ns = s.t_after_mono_ns;
			if (!D->have_srv_clock) {
				D->srv_real_minus_mono_ns = ss(s.t_after_real_ns, s.t_after_mono_ns);
				D->have_srv_clock = 1;
				snprintf(D->srv_clock_from, sizeof(D->srv_clock_from), "first STORE");
			}
			break;
		}
	}
	swlog_reader_close(r);
}

/* reader j: the first read that began at or after the recall (in the
 * server's CLOCK_REALTIME: the reader's own plus the run's offset) and
 * returned another generation than the last read before it */
static void reader_after(struct sw_deleg *D, const struct sw_summary *S, int j, int64_t t_recall_real)
{
	struct sw_deleg_reader *E = &D->reader[D->nreader];
	struct swlog_reader *r;
	struct swlog_rec rec;
	char err[SWLOG_ERRLEN];
	memset(E, 0, sizeof(*E));
	E->j = j;
	E->after_recall_ns = -1;
	if (swlog_open(&r, S->kr[j].file, err))
		return;
	D->nreader++;
	int have_before = 0;
	struct sw_obs_base base = { 0 };
	while (sw_obs_next(r, &base, &rec) == SWLOG_OK && rec.type != SW_REC_END) {
		struct sw_rec_kread q;
		if (rec.type != SW_REC_KREAD || rec.len < sizeof(q))
			continue;
		memcpy(&q, rec.payload, sizeof(q));
		if (q.err)
			continue;
		int64_t tb = sa(q.t_before_real_ns, S->offset_ns);
		if (tb < t_recall_real) {
			E->gen_before = q.gen;
			have_before = 1;
			continue;
		}
		if (!have_before)
			break; /* no read before the recall: nothing cached to judge */
		if (q.gen == E->gen_before) {
			E->stale_reads++;
			continue;
		}
		E->gen = q.gen;
		E->after_recall_ns = ss(sa(q.t_after_real_ns, S->offset_ns), t_recall_real);
		break;
	}
	E->judged = have_before;
	swlog_reader_close(r);
}

void sw_deleg_finish(struct sw_summary *S, const char *dir, const char *writer_log)
{
	struct sw_deleg *D = &S->deleg;
	char path[SW_PATHLEN + 32];
	struct sw_srvtrace t;
	D->t_open_done_srv_mono_ns = D->t_first_store_srv_mono_ns = -1;
	snprintf(path, sizeof(path), "%.1000s/server/trace.txt", dir);
	if (sw_srvtrace_load(path, 0, 0, &t) || !t.nfsd_traced)
		return;
	D->traced = 1;
	D->granted = t.deleg_granted;
	D->recalls = t.deleg_recalls;
	D->returns = t.deleg_returns;
	if (trace_events(D, path))
		return;
	writer_times(D, writer_log);
	if (!D->nrecall || !D->have_srv_clock)
		return;
	int64_t t_recall_real = sa(D->recall[0].t_srv_mono_ns, D->srv_real_minus_mono_ns);
	for (int j = 0; j < S->nkread && D->nreader < SW_MAX_KREAD; j++)
		reader_after(D, S, j, t_recall_real);
}
