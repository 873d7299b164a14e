/* SPDX-License-Identifier: MIT */
/* faults.c - the run folder's faults.json (common/runfolder.h): every fault
 * the orchestrator caused and every outage it saw, the stores each one
 * overlapped, and the report's status line built from them. */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "satmath.h"
#include "writer_events.h"

static int64_t int_of(json_t *o, const char *k, int64_t dflt)
{
	json_t *v = json_object_get(o, k);
	return json_is_integer(v) ? (int64_t)json_integer_value(v) : dflt;
}

/* "end_clock": FILE (relative to the run folder), a clock estimate
 * {"offset_ns":N,...} for the fault's end: its end was timed on another
 * clock than its start (the client guest's after a client-reboot: a new
 * boot reads the realtime clock afresh).  The offset to use; dflt, and a
 * problem, when the file says none. */
static int64_t end_offset(struct sw_summary *S, const char *dir, json_t *f, size_t i, int64_t dflt)
{
	json_t *e = json_object_get(f, "end_clock");
	char path[SW_PATHLEN + 64];
	json_error_t je;

	if (!json_is_string(e))
		return dflt;
	snprintf(path, sizeof(path), "%s/%.60s", dir, json_string_value(e));
	json_t *c = json_load_file(path, 0, &je);
	json_t *o = c ? json_object_get(c, "offset_ns") : NULL;
	int64_t v = dflt;
	if (json_is_integer(o))
		v = (int64_t)json_integer_value(o);
	else
		sw_problem(S, path, (int64_t)i, 0,
			   "expected {\"offset_ns\":N} for the end of fault %zu, saw %s: its end is shifted by the run's offset instead",
			   i, c ? "no offset_ns" : je.text);
	json_decref(c);
	return v;
}

/* io-error: what the filesystem did, from the guest's raw counts (kernel
 * lines naming a failed block write, the filesystem's error lines, the mount's
 * state after, whether it took a new file after); "" when the entry has
 * none of them. */
static void io_error_what(struct sw_fault *F, json_t *f)
{
	json_t *ro = json_object_get(f, "read_only_after"), *fs = json_object_get(f, "fs");
	json_t *nf = json_object_get(f, "new_file_after");
	const char *after = json_is_true(ro) ? "remounted read-only" :
			    json_is_false(nf) ? "refusing new files, mounted rw" : "writable after";
	int64_t io = int_of(f, "io_errors", -1), fe = int_of(f, "fs_errors", -1);
	const char *name = json_is_string(fs) ? json_string_value(fs) : "the filesystem";

	if (io < 0 && fe < 0 && !json_is_boolean(ro))
		return;
	if (io == 0 && fe == 0 && !json_is_true(ro) && !json_is_false(nf))
		snprintf(F->what, sizeof(F->what), "%.16s: no write error in the kernel's log", name);
	else
		snprintf(F->what, sizeof(F->what), "%.16s: %lld block I/O errors, %lld error lines, %s",
			 name, (long long)(io < 0 ? 0 : io), (long long)(fe < 0 ? 0 : fe), after);
}

void sw_faults_load(struct sw_summary *S, const char *dir)
{
	char path[SW_PATHLEN + 16];
	json_error_t je;
	json_t *root, *a, *f;
	size_t i;

	snprintf(path, sizeof(path), "%s/faults.json", dir);
	root = json_load_file(path, 0, &je);
	if (!root) {
		FILE *t = fopen(path, "r");
		if (t) { /* there but unreadable: the faults are unknown */
			fclose(t);
			sw_problem(S, path, -1, 1, "expected faults.json as JSON, saw: %s (line %d)",
				   je.text, je.line);
		}
		return;
	}
	a = json_object_get(root, "faults");
	if (!json_is_array(a)) {
		sw_problem(S, path, -1, 1, "expected {\"faults\":[...]}, saw no faults array");
		json_decref(root);
		return;
	}
	json_array_foreach(a, i, f) {
		json_t *k = json_object_get(f, "kind");
		int64_t t0 = int_of(f, "t_start_real_ns", -1), t1 = int_of(f, "t_end_real_ns", -1);
		if (!json_is_string(k) || t0 < 0) {
			sw_problem(S, path, (int64_t)i, 1,
				   "expected a fault with \"kind\" and \"t_start_real_ns\", saw entry %zu without them", i);
			continue;
		}
		if (S->nfaults == SW_MAX_FAULTS) {
			sw_problem(S, path, (int64_t)i, 0, "more than %d faults: the rest are not shown",
				   SW_MAX_FAULTS);
			break;
		}
		struct sw_fault *F = &S->fault[S->nfaults++];
		/* "clock":"writer": timed on the writer's side (a VM server
		 * guest's fault); else the observers' clock, as the probes */
		json_t *c = json_object_get(f, "clock");
		int64_t off = json_is_string(c) && !strcmp(json_string_value(c), "writer") ? 0 :
			      S->offset_ns;
		snprintf(F->kind, sizeof(F->kind), "%s", json_string_value(k));
		F->t_start_ns = sa(t0, off);
		F->t_end_ns = t1 < 0 ? -1 : sa(t1, end_offset(S, dir, f, i, off));
		F->cut_short = json_is_true(json_object_get(f, "cut_short"));
		F->what[0] = 0;
		if (!strcmp(F->kind, "io-error"))
			io_error_what(F, f);
		F->step_ns = int_of(f, "step_ns", 0);
		F->crash_before = F->crash_on_disk = F->crash_on_read_pages = F->crash_never_read = -1;
		F->crash_probe_base = F->crash_probe_never = -1;
		json_t *fa = json_object_get(f, "file_after");
		snprintf(F->file_after, sizeof(F->file_after), "%s", json_is_string(fa) ? json_string_value(fa) : "");
	}
	json_decref(root);
}

void sw_faults_on_store(struct sw_summary *S, int64_t t_s_ns)
{
	for (int i = 0; i < S->nfaults; i++) {
		struct sw_fault *F = &S->fault[i];
		if (t_s_ns >= F->t_start_ns && (F->t_end_ns < 0 || t_s_ns <= F->t_end_ns))
			F->stores++;
	}
}

/* A side whose realtime a fault steps: the writer's (clock-step, its
 * steps from clockstep.c) or the client's (client-clock-step, from
 * obsclock.c, on the client's clock: to_writer_ns converts). */
struct step_side {
	const char *kind, *log, *who, *pre, *keeps, *kept;
	const struct sw_clock_step *st;
	int nall;
	int64_t to_writer_ns;
};

/* Each fault of the side's kind beside the step its log shows (the first
 * unclaimed one within 5 s of it); a step of the log no fault made is
 * said too (an NTP step, a date -s by hand): either way the records are
 * on their monotonic clock (writer_events.c, obsclock.c). */
static void steps_what(struct sw_summary *S, const struct step_side *d)
{
	int n = d->nall < SW_MAX_CLOCK_STEPS ? d->nall : SW_MAX_CLOCK_STEPS;
	int used[SW_MAX_CLOCK_STEPS] = { 0 };

	for (int i = 0; i < S->nfaults; i++) {
		struct sw_fault *F = &S->fault[i];
		int best = -1;
		if (strcmp(F->kind, d->kind))
			continue;
		for (int j = 0; j < n; j++) {
			int64_t dt = ss(sa(d->st[j].t_ns, d->to_writer_ns), F->t_start_ns);
			if (!used[j] && dt > -5000000000ll && dt < 5000000000ll) {
				best = j;
				break;
			}
		}
		if (best < 0) {
			snprintf(F->what, sizeof(F->what), "%srealtime %+.3f s; no step seen in %s", d->pre,
				 F->step_ns / 1e9, d->log);
			sw_problem(S, "faults.json", i, 0,
				   "%s at %.2f s: expected the %s realtime to step by %+.3f s, saw no step in %s (realtime - monotonic moved less than %lld ms)",
				   d->kind, ss(F->t_start_ns, S->t_start_ns) / 1e9, d->who, F->step_ns / 1e9,
				   d->log, SW_CLOCK_STEP_MIN_NS / 1000000);
			continue;
		}
		used[best] = 1;
		snprintf(F->what, sizeof(F->what), "%srealtime %+.3f s, seen in %s at %.2f s: %s", d->pre,
			 d->st[best].step_ns / 1e9, d->log,
			 ss(sa(d->st[best].t_ns, d->to_writer_ns), S->t_start_ns) / 1e9, d->keeps);
	}
	for (int j = 0; j < n; j++)
		if (!used[j])
			sw_problem(S, d->log, -1, 0,
				   "the %s realtime stepped by %+.3f s at %.2f s (no fault of this run): %s%s",
				   d->who, d->st[j].step_ns / 1e9,
				   ss(sa(d->st[j].t_ns, d->to_writer_ns), S->t_start_ns) / 1e9, d->kept,
				   S->clock_after_raw_ns ? ", the clock estimate after the run corrected by the step" : "");
	if (d->nall > SW_MAX_CLOCK_STEPS)
		sw_problem(S, d->log, -1, 0, "%d realtime steps in %s: the first %d are named", d->nall,
			   d->log, SW_MAX_CLOCK_STEPS);
}

void sw_faults_finish(struct sw_summary *S)
{
	const struct step_side writer = {
		"clock-step", "writer.swlog", "writer's", "", "windows on its monotonic clock",
		"its records are kept on its monotonic clock", S->clock_step, S->nclock_steps, 0 };
	const struct step_side client = {
		"client-clock-step", S->obs_step_log[0] ? S->obs_step_log : "the client's observer logs",
		"client's", "client ", "observers on their monotonic clock",
		"the observers' records are kept on their monotonic clock", S->obs_step, S->nobs_steps,
		S->offset_ns };
	steps_what(S, &writer);
	steps_what(S, &client);
	for (int i = 0; i < S->nfaults; i++)
		if (!strcmp(S->fault[i].kind, "client-reboot"))
			/* not partial: the logs end whole (END), the run went on */
			sw_problem(S, "faults.json", i, 0,
				   "client-reboot at %.2f s ended the client guest's probe and kernel readers: stores after it are uncovered by them (the readers and probe after the reboot log to client/reboot/, not analysed here)",
				   ss(S->fault[i].t_start_ns, S->t_start_ns) / 1e9);
	for (int i = 0; i < S->nfaults; i++)
		if (S->fault[i].cut_short)
			sw_problem(S, "faults.json", i, 1,
				   "%s at %.2f s cut the run short (the orchestrator lost its writer or its logs)",
				   S->fault[i].kind, ss(S->fault[i].t_start_ns, S->t_start_ns) / 1e9);
	if (S->complete && S->end_reason != SW_END_DONE)
		sw_problem(S, "writer.swlog", -1, 1,
			   "expected the writer to end at its planned duration (END reason %u), saw END reason %u (%s) at %.2f s: the run was cut short",
			   SW_END_DONE, S->end_reason,
			   S->end_reason == SW_END_SIGNAL ? "stopped by a signal or a stop request" : "stopped by an error",
			   ss(S->t_end_ns, S->t_start_ns) / 1e9);
}

__attribute__((format(printf, 4, 5)))
static size_t put(char *buf, size_t n, size_t used, const char *fmt, ...)
{
	va_list ap;
	if (used >= n)
		return used;
	va_start(ap, fmt);
	int w = vsnprintf(buf + used, n - used, fmt, ap);
	va_end(ap);
	return w < 0 ? used : used + (size_t)w;
}

void sw_status_line(const struct sw_summary *S, char *buf, size_t n)
{
	size_t used = 0;

	if (!S->partial && !S->nfaults) {
		snprintf(buf, n, "complete");
		return;
	}
	used = put(buf, n, 0, "%s", S->partial ? "PARTIAL: " : "complete, with faults: ");
	for (int i = 0; i < S->nfaults; i++) {
		const struct sw_fault *F = &S->fault[i];
		double at = ss(F->t_start_ns, S->t_start_ns) / 1e9;
		if (i)
			used = put(buf, n, used, "; ");
		if (F->t_end_ns < 0)
			used = put(buf, n, used, "%s at %.2f s, to the end (%llu stores", F->kind,
				   at, (unsigned long long)F->stores);
		else
			used = put(buf, n, used, "%s at %.2f s for %.2f s (%llu stores", F->kind, at,
				   ss(F->t_end_ns, F->t_start_ns) / 1e9, (unsigned long long)F->stores);
		used = put(buf, n, used, "%s%s)", F->what[0] ? "; " : "", F->what);
	}
	if (!S->partial)
		return;
	/* each log (or file) that made the report partial, once */
	int named = 0;
	for (int i = 0; i < S->nprob; i++) {
		const struct sw_problem *p = &S->prob[i];
		int seen = 0;
		if (!p->partial)
			continue;
		for (int j = 0; j < i && !seen; j++)
			seen = S->prob[j].partial && !strcmp(S->prob[j].file, p->file);
		if (seen)
			continue;
		const char *base = strrchr(p->file, '/');
		used = put(buf, n, used, "%s", named ? ", " : (S->nfaults ? "; cut short: " : "cut short: "));
		used = put(buf, n, used, "%s", base ? base + 1 : p->file);
		named = 1;
	}
	put(buf, n, used, "%s", named ? " (see Problems)" : "");
}
