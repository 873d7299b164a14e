/* SPDX-License-Identifier: MIT */
/* runload.c - the run folder: which logs, are they of this run, the clock
 * offset, and the identity fields of the summary (from the logs' meta). */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "obsclock.h"
#include "runload.h"
#include "satmath.h"
#include "swlog.h"
#include "swtime.h"

void sw_problem(struct sw_summary *S, const char *file, int64_t record,
		int partial, const char *fmt, ...)
{
	va_list ap;
	S->nprob_total++;
	if (partial)
		S->partial = 1;
	if (S->nprob == SW_MAX_PROBLEMS)
		return;
	struct sw_problem *p = &S->prob[S->nprob++];
	snprintf(p->file, sizeof(p->file), "%s", file ? file : "");
	p->record = record;
	p->partial = partial;
	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof(p->msg), fmt, ap);
	va_end(ap);
}

static const char *str_or(json_t *v, const char *dflt)
{
	return json_is_string(v) ? json_string_value(v) : dflt;
}

static void str_of(json_t *o, const char *k, char *dst, size_t n)
{
	json_t *v = o ? json_object_get(o, k) : NULL;
	if (json_is_string(v))
		snprintf(dst, n, "%s", json_string_value(v));
}

static void argv_of(json_t *o, char *dst, size_t n)
{
	json_t *a = o ? json_object_get(o, "argv") : NULL, *v;
	size_t i, used = 0;
	if (!json_is_array(a) || !json_array_size(a))
		return;
	dst[0] = 0;
	json_array_foreach(a, i, v) {
		if (!json_is_string(v))
			continue;
		int w = snprintf(dst + used, n - used, "%s%s", used ? " " : "",
				 json_string_value(v));
		if (w < 0 || (size_t)w >= n - used)
			break;
		used += (size_t)w;
	}
}

static void writer_meta(struct sw_summary *S, const char *meta)
{
	json_t *m = json_loads(meta, 0, NULL), *fs, *vm, *wl, *v;
	const char *k;
	size_t used = 0;
	if (!m)
		return;
	str_of(m, "policy", S->policy, sizeof(S->policy));
	/* native on the patched kernel: name the kernel's own policy, so a
	 * compare of emulated and patched runs tells them apart */
	char kpol[16] = "";
	str_of(m, "kernel_cmtime_policy", kpol, sizeof(kpol));
	/* ... and whether writeback ordered the times before the data
	 * (vm.mmap_cmtime_ordering=1, patch 0008): "AS_CMTIME + ordering" is
	 * native(deferred+ordering); eager has no deferred update to order */
	json_t *ord = json_object_get(m, "kernel_cmtime_ordering");
	int ordered = json_is_integer(ord) && json_integer_value(ord) && strcmp(kpol, "eager");
	if (kpol[0] && !strcmp(S->policy, "native"))
		snprintf(S->policy, sizeof(S->policy), "native(%s%s)", kpol,
			 ordered ? "+ordering" : "");
	str_of(m, "kernel_release", S->kernel, sizeof(S->kernel));
	str_of(m, "trap", S->trap, sizeof(S->trap));
	if (!S->cmdline[0])
		argv_of(m, S->cmdline, sizeof(S->cmdline));
	S->synthetic = json_is_true(json_object_get(m, "synthetic"));
	S->emulated = json_is_true(json_object_get(m, "emulated"));
	v = json_object_get(m, "native_fstat_around_store");
	S->attrs.writer_stats = S->emulated || !json_is_boolean(v) ? -1 : json_is_true(v);
	v = json_object_get(m, "native_poll_ms");
	S->writer_look_ms = json_is_integer(v) ? json_integer_value(v) : -1;
	fs = json_object_get(m, "filesystem");
	str_of(fs, "type", S->fs, sizeof(S->fs));
	str_of(fs, "mount_options", S->fs_opts, sizeof(S->fs_opts));
	wl = json_object_get(m, "workload");
	str_of(wl, "name", S->workload, sizeof(S->workload));
	/* the writeback the run's writer had: the model's, or the kernel's
	 * (the sysctls it read; ext4's commit= where the mount says) */
	json_t *wb = json_object_get(m, "writeback_model");
	json_t *wbi = json_object_get(wb, "writeback_ms"), *exi = json_object_get(wb, "expire_ms"),
	       *jci = json_object_get(wb, "journal_commit_ms");
	if (json_is_integer(wbi) && json_is_integer(exi) && json_is_integer(jci)) {
		long long jc_ms = json_integer_value(jci), c_s;
		const char *c = strstr(S->fs_opts, "commit=");
		if (!json_is_true(json_object_get(wb, "modelled")) && c &&
		    (c == S->fs_opts || c[-1] == ',') && sscanf(c, "commit=%lld", &c_s) == 1 && c_s >= 0)
			jc_ms = c_s * 1000;
		S->settle_ns = sw_settle_ns(json_integer_value(exi) * SW_NS_PER_MS,
					    json_integer_value(wbi) * SW_NS_PER_MS, jc_ms * SW_NS_PER_MS);
	}
	json_t *pr = json_object_get(wb, "profile");
	if (S->emulated)
		snprintf(S->model_profile_name, sizeof(S->model_profile_name), "%s",
			 str_or(pr, "none"));
	if (S->emulated && json_is_string(pr))
		snprintf(S->model_profile, sizeof(S->model_profile), "%s (kernel %s): %s",
			 json_string_value(pr),
			 str_or(json_object_get(wb, "profile_kernel"), "?"),
			 str_or(json_object_get(wb, "profile_validated"), "?"));
	else if (S->emulated)
		snprintf(S->model_profile, sizeof(S->model_profile),
			 "none: the writer's defaults, validated against the host's kernel only (stalewin validate), here on %s",
			 S->kernel[0] ? S->kernel : "an unnamed kernel");
	vm = json_object_get(m, "vm_sysctls");
	if (json_is_object(vm))
		json_object_foreach(vm, k, v) {
			if (!json_is_integer(v))
				continue;
			const char *name = strncmp(k, "dirty_", 6) ? k : k + 6;
			int w = snprintf(S->sysctls + used, sizeof(S->sysctls) - used,
					 "%s%s=%lld", used ? " " : "", name,
					 (long long)json_integer_value(v));
			if (w < 0 || (size_t)w >= sizeof(S->sysctls) - used)
				break;
			used += (size_t)w;
		}
	json_decref(m);
}

/* clock.json: offset = server realtime - client realtime. */
static void load_clock(struct sw_summary *S, const char *dir)
{
	char path[SW_PATHLEN + 16];
	json_error_t je;
	snprintf(path, sizeof(path), "%s/clock.json", dir);
	if (access(path, F_OK) != 0)
		return; /* same host: offset 0 exactly */
	S->clock_file = 1;
	json_t *c = json_load_file(path, 0, &je);
	if (!c) {
		sw_problem(S, path, -1, 1,
			   "expected JSON {\"before\":{\"offset_ns\":N,\"err_ns\":N}}, saw a parse error at line %d: %s; using offset 0",
			   je.line, je.text);
		return;
	}
	json_t *b = json_object_get(c, "before"), *a = json_object_get(c, "after");
	int hb = json_is_integer(json_object_get(b, "offset_ns")) &&
		 json_is_integer(json_object_get(b, "err_ns"));
	int ha = json_is_integer(json_object_get(a, "offset_ns")) &&
		 json_is_integer(json_object_get(a, "err_ns"));
	if (!hb && !ha) {
		sw_problem(S, path, -1, 1,
			   "expected integer before.offset_ns and before.err_ns (or after.*), saw neither; using offset 0");
		json_decref(c);
		return;
	}
	int64_t ob = hb ? json_integer_value(json_object_get(b, "offset_ns")) : 0;
	int64_t eb = hb ? json_integer_value(json_object_get(b, "err_ns")) : 0;
	int64_t oa = ha ? json_integer_value(json_object_get(a, "offset_ns")) : ob;
	int64_t ea = ha ? json_integer_value(json_object_get(a, "err_ns")) : eb;
	if (ha && (S->nclock_steps || S->nobs_steps)) {
		/* the writer's or the client's realtime stepped during the run
		 * (clockstep.c, obsclock.c): the estimate after it carries the
		 * step, their records do not (offset = server - client) */
		int64_t sum = 0;
		for (int i = 0; i < S->nclock_steps && i < SW_MAX_CLOCK_STEPS; i++)
			sum = sa(sum, S->clock_step[i].step_ns);
		for (int i = 0; i < S->nobs_steps && i < SW_MAX_CLOCK_STEPS; i++)
			sum = ss(sum, S->obs_step[i].step_ns);
		S->clock_after_raw_ns = oa;
		oa = ss(oa, sum);
	}
	if (!hb) {
		ob = oa;
		eb = ea;
	}
	if (eb < 0 || ea < 0)
		sw_problem(S, path, -1, 1, "expected err_ns >= 0, saw %lld / %lld",
			   (long long)eb, (long long)ea);
	int64_t d = oa > ob ? ss(oa, ob) : ss(ob, oa);
	/* the interval between the two estimates, on the clock that took
	 * them: two free-running clocks (two guests, no NTP) drift apart at
	 * a steady rate, a few ppm here; a movement that rate explains is
	 * drift, and the error below takes half of it in.  A faster one (or
	 * no interval to tell) is a step nobody recorded. */
	int64_t tb = json_integer_value(json_object_get(b, "t_real_ns"));
	int64_t ta = json_integer_value(json_object_get(a, "t_real_ns"));
	S->clock_moved_ns = ss(oa, ob);
	S->clock_interval_ns = hb && ha && tb > 0 && ta > tb ? ss(ta, tb) : 0;
	int drift = S->clock_interval_ns &&
		    (double)d <= (double)S->clock_interval_ns * SW_CLOCK_DRIFT_MAX_PPM / 1e6;
	if (!drift && d > sa(eb < 0 ? ss(0, eb) : eb, ea < 0 ? ss(0, ea) : ea)) {
		char why[96] = "no t_real_ns in both estimates to tell drift from a step";
		if (S->clock_interval_ns)
			snprintf(why, sizeof(why), "%.0f ppm over %.1f s, faster than a free clock drifts (%d ppm)",
				 (double)d * 1e6 / (double)S->clock_interval_ns,
				 S->clock_interval_ns / 1e9, SW_CLOCK_DRIFT_MAX_PPM);
		sw_problem(S, path, -1, 1,
			   "clock offset moved by %lld ns between before (%lld +- %lld) and after (%lld +- %lld): more than the errors allow, %s; windows across hosts are not trustworthy",
			   (long long)d, (long long)ob, (long long)eb, (long long)oa,
			   (long long)ea, why);
	}
	S->offset_ns = sa(ob, ss(oa, ob) / 2);
	S->err_ns = sa(eb > ea ? eb : ea, d / 2);
	json_decref(c);
}

/* keep: where to leave the open reader (the writer log's, for the pass),
 * NULL to close it */
static int check_header(struct sw_summary *S, const char *path,
			enum swlog_kind want, int partial, struct swlog_reader **keep)
{
	struct swlog_reader *r;
	char err[SWLOG_ERRLEN];
	int rc = swlog_open(&r, path, err);
	if (rc) {
		sw_problem(S, path, -1, partial, "%s", err);
		return -1;
	}
	int bad = 0;
	if (swlog_reader_kind(r) != want) {
		sw_problem(S, path, -1, partial, "expected a %s log, saw a %s log",
			   swlog_kind_name(want), swlog_kind_name(swlog_reader_kind(r)));
		bad = 1;
	} else if (want != SWLOG_KIND_WRITER && swlog_reader_run_id(r) &&
		   swlog_reader_run_id(r) != S->run_id) {
		sw_problem(S, path, -1, 1,
			   "logs of two runs mixed: expected run id %016llx (writer.swlog), saw %016llx; log left out",
			   (unsigned long long)S->run_id,
			   (unsigned long long)swlog_reader_run_id(r));
		bad = 1;
	}
	if (!bad && want == SWLOG_KIND_WRITER) {
		S->run_id = swlog_reader_run_id(r);
		writer_meta(S, swlog_reader_meta(r));
	} else if (!bad && want == SWLOG_KIND_PROBE && !S->libnfs[0]) {
		json_t *m = json_loads(swlog_reader_meta(r), 0, NULL);
		str_of(m, "libnfs_version", S->libnfs, sizeof(S->libnfs));
		if (!S->libnfs[0])
			str_of(m, "libnfs", S->libnfs, sizeof(S->libnfs));
		json_decref(m);
	} else if (!bad && want == SWLOG_KIND_READER) {
		json_t *m = json_loads(swlog_reader_meta(r), 0, NULL);
		struct sw_kread *K = &S->kr[S->nkread];
		str_of(m, "mount_options", K->mount, sizeof(K->mount));
		str_of(m, "mode", K->mode, sizeof(K->mode));
		json_t *p = json_object_get(m, "page");
		if (json_is_integer(p))
			K->page = (uint64_t)json_integer_value(p);
		else
			K->page = UINT64_MAX; /* first KREAD record decides */
		json_decref(m);
	}
	if (keep && !bad)
		*keep = r;
	else
		swlog_reader_close(r);
	return bad ? -1 : 0;
}

static void reader_opts(const char *path, struct sw_input *in, int j)
{
	struct swlog_reader *r;
	char err[SWLOG_ERRLEN];
	in->kread_period_ns[j] = 100 * 1000000ll;
	in->kread_cto[j] = 1;
	if (swlog_open(&r, path, err))
		return;
	json_t *m = json_loads(swlog_reader_meta(r), 0, NULL), *v;
	if ((v = json_object_get(m, "every_ms")) && json_is_number(v))
		in->kread_period_ns[j] = (int64_t)(json_number_value(v) * 1e6);
	if ((v = json_object_get(m, "mode")) && json_is_string(v))
		in->kread_cto[j] = !strcmp(json_string_value(v), "cto");
	json_decref(m);
	swlog_reader_close(r);
}

/* vm run: the client guest's jiffies grid (/proc/timer_list), meta
 * client_tick {tick_ns, phase_ns} as decimal strings (runfolder --kv-file) */
static void client_tick(json_t *m, struct sw_summary *S, const char *path,
			struct sw_input *in)
{
	json_t *ct = json_object_get(m, "client_tick");
	const char *tk = json_string_value(json_object_get(ct, "tick_ns"));
	const char *ph = json_string_value(json_object_get(ct, "phase_ns"));
	if (!tk || !ph)
		return;
	char *e1, *e2;
	long long a = strtoll(tk, &e1, 10), b = strtoll(ph, &e2, 10);
	if (*tk && !*e1 && *ph && !*e2 && a > 0 && a <= 100000000 && b >= 0) {
		in->ctick_ns = a;
		in->ctick_phase_ns = b % a;
	} else {
		sw_problem(S, path, -1, 0,
			   "expected client_tick.tick_ns and phase_ns as decimal ns, saw '%s' and '%s'; the replay estimates the jiffies",
			   tk, ph);
	}
}

/* vm run --ns-clients: client/ns-clients.txt, lines "J NETNS ADDRESS"
 * ('#' comments): kread-J is the kernel NFS client of network namespace
 * NETNS, its address ADDRESS.  Two kreads of one namespace or address
 * are not two clients: a problem, the second left unflagged. */
static void ns_clients_load(struct sw_summary *S, const char *dir)
{
	char path[SW_PATHLEN + 32], line[256];
	snprintf(path, sizeof(path), "%s/client/ns-clients.txt", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	for (int64_t no = 1; fgets(line, sizeof(line), f); no++) {
		char ns[32], addr[48], extra[2];
		int j;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%d %31s %47s %1s", &j, ns, addr, extra) != 3 || j < 0 ||
		    j >= S->nkread) {
			line[strcspn(line, "\n")] = 0;
			sw_problem(S, path, no, 0,
				   "expected \"KREAD NETNS ADDRESS\" with KREAD 0..%d (the kread logs), saw '%s'",
				   S->nkread - 1, line);
			continue;
		}
		int dup = -1;
		for (int i = 0; i < S->nkread && dup < 0; i++)
			if (i != j && S->kr[i].netns[0] &&
			    (!strcmp(S->kr[i].netns, ns) || !strcmp(S->kr[i].addr, addr)))
				dup = i;
		if (dup >= 0 || S->kr[j].netns[0]) {
			sw_problem(S, path, no, 0,
				   "expected one namespace and address per kread, saw kread-%d in %s %s as kread-%d is: not a client of its own",
				   j, ns, addr, dup >= 0 ? dup : j);
			continue;
		}
		snprintf(S->kr[j].netns, sizeof(S->kr[j].netns), "%s", ns);
		snprintf(S->kr[j].addr, sizeof(S->kr[j].addr), "%s", addr);
		S->ns_clients++;
	}
	fclose(f);
}

void sw_input_free_scans(struct sw_input *in)
{
	for (int k = 0; k < in->nprobe; k++)
		sw_obs_scan_free(&in->scan[k]);
}

int sw_input_load(const char *dir, struct sw_summary *S, struct sw_input *in)
{
	char path[SW_PATHLEN + 32], err[SWLOG_ERRLEN];

	memset(in, 0, sizeof(*in));
	snprintf(S->run_dir, sizeof(S->run_dir), "%.1000s", dir);
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	if (access(path, F_OK) == 0) {
		json_t *m = json_load_file(path, 0, NULL);
		if (!m)
			sw_problem(S, path, -1, 0, "expected a JSON object, saw a parse error; command line taken from writer.swlog");
		argv_of(m, S->cmdline, sizeof(S->cmdline));
		client_tick(m, S, path, in);
		/* stalewin-run / vm run set this when Ctrl-C stopped the run:
		 * the logs are whole but end before the planned end */
		if (json_is_true(json_object_get(m, "interrupted")))
			sw_problem(S, path, -1, 1,
				   "expected a run to its planned end, saw one interrupted by the user (logs whole, ending early)");
		json_decref(m);
	}
	snprintf(in->writer, sizeof(in->writer), "%.1000s/writer.swlog", dir);
	if (access(in->writer, F_OK) != 0) {
		sw_problem(S, in->writer, -1, 1,
			   "expected the writer's ground-truth log, saw no such file (%s)",
			   strerror(errno));
		return 2;
	}
	if (check_header(S, in->writer, SWLOG_KIND_WRITER, 1, &in->writer_r))
		return 2;
	sw_clock_steps_scan(S, in->writer_r);
	/* the client's clock: its first observer log's steps */
	snprintf(path, sizeof(path), "%s/probe-0.swlog", dir);
	if (access(path, F_OK) == 0)
		sw_obs_steps_scan(S, path, "probe-0.swlog");
	else if (snprintf(path, sizeof(path), "%s/kread-0.swlog", dir) > 0 && access(path, F_OK) == 0)
		sw_obs_steps_scan(S, path, "kread-0.swlog");
	load_clock(S, dir);

	/* probe-0 .. : one past the most a report takes, to say so */
	for (int i = 0; i <= SW_MAX_PROBES; i++) {
		snprintf(path, sizeof(path), "%s/probe-%d.swlog", dir, i);
		if (access(path, F_OK) != 0)
			continue;
		if (in->nprobe == SW_MAX_PROBES) {
			sw_problem(S, path, -1, 1, "more than %d probe logs: left out",
				   SW_MAX_PROBES);
			continue;
		}
		int k = in->nprobe++;
		snprintf(in->probe[k], SW_PATHLEN, "%.1000s", path);
		if (check_header(S, path, SWLOG_KIND_PROBE, 1, NULL))
			continue;
		if (sw_obs_scan_log(path, &in->scan[k], err)) {
			sw_problem(S, path, -1, 1, "%s", err);
			continue;
		}
		struct sw_obs_scan *sc = &in->scan[k];
		in->probe_ok[k] = 1;
		if (sc->status == SWLOG_TORN)
			sw_problem(S, path, sc->bad_record, 1,
				   "torn last record (the probe died mid-write); observations up to record %lld used: %s",
				   (long long)sc->bad_record, sc->bad_text);
		else if (sc->status != SWLOG_EOF)
			sw_problem(S, path, sc->bad_record, 1,
				   "corrupt record %lld; observations before it used: %s",
				   (long long)sc->bad_record, sc->bad_text);
		else if (!sc->has_end)
			sw_problem(S, path, (int64_t)sc->records, 1,
				   "expected an END record as the last of %llu records, saw none (probe killed?)",
				   (unsigned long long)sc->records);
		if (sc->other_run_reads)
			sw_problem(S, path, -1, 1,
				   "logs of two runs mixed: %llu READs returned another run's stamp",
				   (unsigned long long)sc->other_run_reads);
		if (sc->bad_target_record >= 0)
			sw_problem(S, path, sc->bad_target_record, 1,
				   "more than 8 targets in one probe log; target of record %lld left out",
				   (long long)sc->bad_target_record);
		if (!sc->ntargets) {
			sw_problem(S, path, -1, 1, "expected GETATTR replies, saw none");
			in->probe_ok[k] = 0;
		}
	}
	if (!in->nprobe)
		sw_problem(S, dir, -1, 1,
			   "expected probe-0.swlog, saw no probe log: only the truth windows are reported");

	/* kernel-mount readers: kread-0, kread-1, ... (one per mount / mode) */
	for (int j = 0; j < SW_MAX_KREAD; j++) {
		snprintf(path, sizeof(path), "%s/kread-%d.swlog", dir, j);
		if (access(path, F_OK) != 0)
			break;
		if (check_header(S, path, SWLOG_KIND_READER, 1, NULL) != 0)
			continue;
		int n = in->nkread;
		snprintf(in->kread[n], sizeof(in->kread[n]), "%.1000s", path);
		reader_opts(path, in, n);
		in->nkread = ++S->nkread;
	}
	ns_clients_load(S, dir);
	sw_nfsd_load(S, dir);
	/* vm run: the client guest's NFS events for the file (nfstrace.h) */
	if (in->nkread) {
		snprintf(path, sizeof(path), "%s/client/trace.txt", dir);
		int rc = sw_nfstrace_load(path, &in->nt, err, sizeof(err));
		if (rc && rc != -ENOENT)
			sw_problem(S, path, -1, 0, "%s; the replay estimates the client's RPC times", err);
		else if (!rc && in->nt.enabled && in->nt.lines)
			in->nt_ok = S->kread_rpc_trace = 1;
		/* its kprobes' jiffies, on the client's grid */
		if (in->nt_ok && in->ctick_ns)
			sw_nfstrace_set_grid(&in->nt, in->ctick_ns, in->ctick_phase_ns);
	}
	return 0;
}
