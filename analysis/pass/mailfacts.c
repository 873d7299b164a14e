/* SPDX-License-Identifier: MIT */
/* mailfacts.c - how a run was made (meta.json, the writer log's header)
 * and the findings a mail states about several runs (mailfacts.h). */
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figstats.h"
#include "mailfacts.h"
#include "swlog.h"

static const char *jstr(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_string(v) ? json_string_value(v) : "";
}

static int64_t jint(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_string(v)) { /* meta.json's sysctls are strings */
		long long x;
		char c;
		if (sscanf(json_string_value(v), "%lld%c", &x, &c) == 1)
			return x;
	}
	return -1;
}

/* the writer log's header: what the writer did and how the policy ran */
static void writer_facts(const char *dir, struct sw_runfacts *f)
{
	char path[SW_PATHLEN + 32], err[SWLOG_ERRLEN];
	struct swlog_reader *r;
	snprintf(path, sizeof(path), "%.1000s/writer.swlog", dir);
	if (swlog_open(&r, path, err))
		return;
	json_t *m = json_loads(swlog_reader_meta(r), 0, NULL);
	swlog_reader_close(r);
	if (!m)
		return;
	json_t *wl = json_object_get(m, "workload"), *wb = json_object_get(m, "writeback_model");
	const char *kpol = jstr(m, "kernel_cmtime_policy");
	f->duration_s = json_number_value(json_object_get(m, "duration_s"));
	f->emulated = json_is_true(json_object_get(m, "emulated"));
	if (f->emulated)
		snprintf(f->realised, sizeof(f->realised), "emulated by the writer");
	else if (kpol[0]) {
		json_t *ord = json_object_get(m, "kernel_cmtime_ordering");
		const char *what = !strcmp(kpol, "eager") ? ""
				   : !json_is_integer(ord) ? ", ordering not recorded"
				   : json_integer_value(ord) ? ": AS_CMTIME + ordering"
				   : ": AS_CMTIME";
		snprintf(f->realised, sizeof(f->realised),
			 "the patched kernel %.60s (vm.mmap_cmtime_policy=%.16s%s)",
			 jstr(m, "kernel_release"), kpol, what);
	}
	else
		snprintf(f->realised, sizeof(f->realised), "the stock kernel %.60s",
			 jstr(m, "kernel_release"));
	int64_t iv = jint(wl, "interval_ms");
	double rate = json_number_value(json_object_get(wl, "rate_per_s"));
	int64_t pages = jint(wl, "pages");
	if (!strcmp(jstr(wl, "name"), "rewrite") && iv > 0)
		snprintf(f->workload, sizeof(f->workload), "rewrite: one store every %lld ms",
			 (long long)iv);
	else if (rate > 0)
		snprintf(f->workload, sizeof(f->workload), "%.32s: %.0f stores/s over %lld pages",
			 jstr(wl, "name"), rate, (long long)pages);
	else
		snprintf(f->workload, sizeof(f->workload), "%.32s", jstr(wl, "name"));
	f->model_wb_ms = jint(wb, "writeback_ms");
	f->model_expire_ms = jint(wb, "expire_ms");
	json_t *vm = json_object_get(m, "vm_sysctls");
	f->host_wb_cs = jint(vm, "dirty_writeback_centisecs");
	f->host_expire_cs = jint(vm, "dirty_expire_centisecs");
	json_decref(m);
}

/* the writeback the run ran under: the writer's model, else the kernel's
 * sysctls (the writer's own, else the orchestrator's) */
static void run_writeback(struct sw_runfacts *f)
{
	if (f->emulated) {
		f->wb_ms = f->model_wb_ms;
		f->expire_ms = f->model_expire_ms;
	} else {
		f->wb_ms = f->host_wb_cs < 0 ? -1 : f->host_wb_cs * 10;
		f->expire_ms = f->host_expire_cs < 0 ? -1 : f->host_expire_cs * 10;
	}
}

static void command_of(json_t *argv, char *dst, size_t n)
{
	size_t used = 0;
	size_t i;
	json_t *a;
	dst[0] = 0;
	json_array_foreach(argv, i, a) {
		const char *s = json_is_string(a) ? json_string_value(a) : "?";
		const char *base = strrchr(s, '/');
		if (i == 0 && base && !strcmp(base, "/stalewin-run"))
			s = "./stalewin run";
		int w = snprintf(dst + used, n - used, "%s%s", i ? " " : "", s);
		if (w < 0 || (size_t)w >= n - used)
			break;
		used += (size_t)w;
	}
}

/* "knfsd server, NFSv3 and NFSv4 GETATTR probe": the probe's versions,
 * each once ("" without a probe) */
static void probe_versions(const struct sw_summary *S, char *dst, size_t n, const char *server)
{
	int seen3 = 0, seen4 = 0;
	for (int i = 0; i < S->nobs; i++) {
		seen3 |= S->obs[i].vers == 3;
		seen4 |= S->obs[i].vers == 4;
	}
	dst[0] = 0;
	if (!S->nobs)
		return;
	snprintf(dst, n, "%s%s%s%s%s GETATTR probe", server, server[0] ? " server, " : "",
		 seen3 ? "NFSv3" : "", seen3 && seen4 ? " and " : "", seen4 ? "NFSv4" : "");
}

/* The kernel readers, "v3 kept-open, v4.2 cto (attribute cache: acregmin
 * 3 s, acregmax 60 s)": version and mode from each reader's mount, the
 * cache from its replay profile; the full option strings are in each
 * run's meta.json. */
static void kread_mounts(const struct sw_summary *S, char *dst, size_t n)
{
	size_t u = 0;
	int same_ac = 1;
	dst[0] = 0;
	for (int j = 0; j < S->nkread && u < n; j++) {
		const struct sw_profile *p = &S->kr[j].prof;
		int w = snprintf(dst + u, n - u, "%sv%s %s%s", u ? ", " : "", p->vers == 4 ? "4.2" : "3",
				 S->kr[j].mode, p->noac ? " noac" : "");
		if (w < 0 || (size_t)w >= n - u)
			return;
		u += (size_t)w;
		same_ac &= !j || (p->noac == S->kr[0].prof.noac && p->acregmin_ns == S->kr[0].prof.acregmin_ns &&
				  p->acregmax_ns == S->kr[0].prof.acregmax_ns);
	}
	if (S->nkread && same_ac && !S->kr[0].prof.noac && u < n)
		snprintf(dst + u, n - u, " (attribute cache: acregmin %g s, acregmax %g s)",
			 (double)S->kr[0].prof.acregmin_ns / 1e9, (double)S->kr[0].prof.acregmax_ns / 1e9);
}

int sw_runfacts_load(const char *dir, const struct sw_summary *S, struct sw_runfacts *f)
{
	char path[SW_PATHLEN + 32];
	memset(f, 0, sizeof(*f));
	f->model_wb_ms = f->model_expire_ms = f->host_wb_cs = f->host_expire_cs = -1;
	snprintf(f->policy, sizeof(f->policy), "%s", S->policy);
	snprintf(f->kernel, sizeof(f->kernel), "%s", S->kernel);
	snprintf(f->fs, sizeof(f->fs), "%s", S->fs);
	snprintf(f->fs_opts, sizeof(f->fs_opts), "%.255s", S->fs_opts);
	snprintf(f->command, sizeof(f->command), "%.1000s", S->cmdline);
	f->clock_err_ns = S->clock_file ? S->err_ns : -1;
	f->settled = S->file_changed_ns < 0 || S->settle_ns < 0 ? -1 : S->file_changed_ns >= S->settle_ns;
	f->validated = S->valid_wb[0] != 0;
	f->plot = 1;
	for (int x = 0; x < SW_CDF_X; x++)
		f->truth_cdf[x] = (float)sw_fig_cdf(&S->truth, (int64_t)(sw_cdf_x_s(x) * 1e9));
	f->wb_ms = f->expire_ms = -1;
	f->resolution_ns = S->nobs ? S->obs[0].resolution_ns : -1;
	probe_versions(S, f->nfs, sizeof(f->nfs), "");
	kread_mounts(S, f->mounts, sizeof(f->mounts));
	writer_facts(dir, f);
	snprintf(path, sizeof(path), "%.1000s/meta.json", dir);
	json_t *m = json_load_file(path, 0, NULL), *v;
	if (!m) {
		run_writeback(f);
		return 0;
	}
	f->tcg = !strcmp(jstr(m, "accel"), "tcg");
	const char *k;
	size_t used = 0;
	json_object_foreach(json_object_get(m, "packages"), k, v) {
		int w = snprintf(f->packages + used, sizeof(f->packages) - used, "%s%s %s",
				 used ? ", " : "", k, json_is_string(v) ? json_string_value(v) : "?");
		if (w < 0 || (size_t)w >= sizeof(f->packages) - used)
			break;
		used += (size_t)w;
	}
	json_t *srv = json_object_get(m, "server");
	if (jstr(srv, "kind")[0])
		snprintf(f->server, sizeof(f->server), "%.15s", jstr(srv, "kind"));
	else if (!strncmp(jstr(srv, "nfs"), "knfsd", 5))
		snprintf(f->server, sizeof(f->server), "knfsd");
	if (f->server[0])
		probe_versions(S, f->nfs, sizeof(f->nfs), f->server);
	/* the run folder's sysctls are the orchestrator's host: the writer's
	 * own (its log's vm_sysctls) win where it logged them, since with
	 * --writer-url or in vm run the orchestrator is another host */
	json_t *sc = json_object_get(m, "sysctls");
	if (sc && f->host_wb_cs < 0 && f->host_expire_cs < 0) {
		f->host_wb_cs = jint(sc, "vm.dirty_writeback_centisecs");
		f->host_expire_cs = jint(sc, "vm.dirty_expire_centisecs");
	}
	f->sysctl_pinned = json_is_true(json_object_get(json_object_get(m, "sysctl_pin"), "pinned"));
	if (json_is_true(json_object_get(m, "clock_same_host")))
		f->clock_err_ns = -1;
	command_of(json_object_get(m, "argv"), f->command, sizeof(f->command));
	json_decref(m);
	run_writeback(f);
	return 0;
}

void sw_findings_add(struct sw_findings *o, const char *fmt, ...)
{
	va_list ap;
	if (o->n >= SW_MAX_FINDINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(o->text[o->n++], sizeof(o->text[0]), fmt, ap);
	va_end(ap);
}
static double s_of(int64_t ns) { return (double)ns / 1e9; }

/* a duration with its unit, as the table writes it (one word, so a
 * wrapped line never parts number and unit): µs below 1 ms ("us"), ms
 * below 1 s */
static const char *dur(char *b, size_t n, int64_t ns)
{
	if (ns < 1000000)
		snprintf(b, n, "%.0fus", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(b, n, "%.1fms", (double)ns / 1e6);
	else
		snprintf(b, n, "%.2fs", s_of(ns));
	return b;
}

static const char *view_src(const struct sw_view *v)
{
	return v->src == SW_VIEW_KERNEL ? "the kernel client" : "the replay of the client's rules";
}

/* uncovered stores: counted exactly from the writer's log.  A client can
 * still get one: a refetch for an earlier change made after the store
 * carries its data, so what the default mount's view saw is said beside
 * it, never "no client could have seen them" */
static void finding_uncovered(const struct sw_runrow *r, struct sw_findings *o)
{
	if (!r->truth_unresolved)
		return;
	const struct sw_view *v = &r->view_default;
	char seen[320] = "";
	if (v->src != SW_VIEW_NONE && v->n)
		snprintf(seen, sizeof(seen), "; on a default mount (%s, %s) %llu of its %llu stores "
			 "were still unseen at the end", v->name, view_src(v),
			 (unsigned long long)v->unresolved, (unsigned long long)v->n);
	sw_findings_add(o, "%s: %llu of %llu stores (%.1f%%) were never followed by a timestamp "
	    "update before the run ended (counted exactly in the writer's log): a "
	    "client sees such a store only when it refetches the data for an "
	    "earlier change%s.", r->label,
	    (unsigned long long)r->truth_unresolved, (unsigned long long)r->stores,
	    100.0 * r->uncovered_share, seen);
}

/* deferred on a kernel: the longest window against expire + writeback
 * interval.  An emulated row is left out: its model enforces the bound,
 * so the sentence would only restate it. */
static void finding_bound(const struct sw_runrow *r, const struct sw_runfacts *f,
			  struct sw_findings *o)
{
	if (strcmp(r->policy, "deferred") || f->emulated || f->expire_ms < 0 || f->wb_ms < 0)
		return;
	double bound = (double)(f->expire_ms + f->wb_ms) / 1e3;
	if (r->truth_max_ns < 0) {
		sw_findings_add(o, "%s: some stores had no update before the run ended, so the "
		    "bound expire + writeback interval = %.1f s (%.1f s + %.1f s) "
		    "could not be checked.", r->label, bound, f->expire_ms / 1e3,
		    f->wb_ms / 1e3);
		return;
	}
	double mx = s_of(r->truth_max_ns);
	sw_findings_add(o, "%s: the longest truth window was %.2f s against the bound expire + "
	    "writeback interval = %.1f s (%.1f s + %.1f s); %s (windows are read "
	    "from a histogram with < 0.8%% relative error).", r->label, mx, bound,
	    f->expire_ms / 1e3, f->wb_ms / 1e3,
	    mx <= bound * 1.008 ? "within it" : "ABOVE it");
}

/* the probe against the truth: a difference only when outside resolution */
static void finding_observed(const struct sw_runrow *r, struct sw_findings *o)
{
	if (r->observed_p50_ns < 0 || r->truth_p50_ns < 0 || r->resolution_ns <= 0)
		return;
	int64_t d = r->observed_p50_ns - r->truth_p50_ns;
	if (d < 0)
		d = -d;
	if (d <= r->resolution_ns)
		return;
	char a[32], b[32], c[32], e[32];
	sw_findings_add(o, "%s: the probe's median window (%s) differs from the truth's "
	    "(%s) by %s, more than the probe's resolution of %s: see "
	    "the run's report for why.", r->label, dur(a, sizeof(a), r->observed_p50_ns),
	    dur(b, sizeof(b), r->truth_p50_ns), dur(c, sizeof(c), d),
	    dur(e, sizeof(e), r->resolution_ns));
}

/* native against the emulated eager of the same workload: the model is
 * meant to behave as the kernel does */
static void finding_native(const struct sw_runrow *rows, int n, int i,
			   struct sw_findings *o)
{
	const struct sw_runrow *nat = &rows[i];
	if (strncmp(nat->policy, "native", 6))
		return;
	for (int j = 0; j < n; j++) {
		const struct sw_runrow *e = &rows[j];
		if (strcmp(e->policy, "eager") || strcmp(e->workload, nat->workload))
			continue;
		double d = 100.0 * (nat->uncovered_share - e->uncovered_share);
		sw_findings_add(o, "Stores never made visible before the end: %.1f%% under %s, "
		    "%.1f%% under %s (exact counts), %.1f points apart%s.",
		    100.0 * nat->uncovered_share, nat->label, 100.0 * e->uncovered_share,
		    e->label, d < 0 ? -d : d,
		    (d < 0 ? -d : d) > 10 ? "; the emulated eager does not match the "
		    "running kernel here" : "");
	}
}

/* what a reader on the default mount saw: one sentence for every row that
 * has a client view (one fact, one sentence), each row's median beside
 * its truth median */
static void finding_views(const struct sw_runrow *rows, int n, struct sw_findings *o)
{
	char list[900] = "";
	size_t used = 0;
	int k = 0, srcs = 0;
	for (int i = 0; i < n; i++) {
		const struct sw_view *v = &rows[i].view_default;
		if (v->src == SW_VIEW_NONE || v->p50_ns == -2)
			continue;
		srcs |= 1 << v->src;
		char p[48], t[48];
		if (v->p50_ns == -1)
			snprintf(p, sizeof(p), "not before the end");
		else
			dur(p, sizeof(p), v->p50_ns);
		if (rows[i].truth_p50_ns < 0)
			snprintf(t, sizeof(t), ">end");
		else
			dur(t, sizeof(t), rows[i].truth_p50_ns);
		int w = snprintf(list + used, sizeof(list) - used, "%s%s %s (truth %s, %s)",
				 k ? "; " : "", rows[i].label, p, t, v->src == SW_VIEW_KERNEL ? "k" : "r");
		if (w < 0 || (size_t)w >= sizeof(list) - used)
			break;
		used += (size_t)w;
		k++;
	}
	if (!k)
		return;
	sw_findings_add(o, "On a default mount a reader saw half of the stores within: %s (%s).", list,
	    srcs == (1 << SW_VIEW_KERNEL) ? "k: the kernel client"
	    : srcs == (1 << SW_VIEW_REPLAY) ? "r: the replay of the client's rules"
	    : "k: the kernel client, r: the replay of the client's rules");
}

/* Runs of one command (their `same` key) stand for one fact: the run
 * whose truth p50 is the group's median (the lower middle) speaks for
 * them.  Returns 1 when row i is that run, with *runs the group's size. */
static int speaks_for_group(const struct sw_runrow *rows, int n, int i, int *runs)
{
	int idx[SW_REPEAT_MAX], m = 0;
	*runs = 1;
	if (!rows[i].same[0])
		return 1;
	for (int j = 0; j < n && m < SW_REPEAT_MAX; j++)
		if (!strcmp(rows[j].same, rows[i].same))
			idx[m++] = j;
	*runs = m;
	/* insertion sort by truth p50, >end above every figure, ties by index */
	for (int a = 1; a < m; a++)
		for (int b = a; b > 0; b--) {
			int64_t x = rows[idx[b - 1]].truth_p50_ns, y = rows[idx[b]].truth_p50_ns;
			x = x < 0 ? INT64_MAX : x;
			y = y < 0 ? INT64_MAX : y;
			if (x <= y)
				break;
			int t = idx[b];
			idx[b] = idx[b - 1];
			idx[b - 1] = t;
		}
	return idx[(m - 1) / 2] == i;
}

void sw_findings_compute(const struct sw_runrow *rows, const struct sw_runfacts *facts,
			 int n, struct sw_findings *out)
{
	struct sw_runrow *one = malloc((size_t)(n > 0 ? n : 1) * sizeof(*one));
	int m = 0;
	memset(out, 0, sizeof(*out));
	if (!one)
		return;
	for (int i = 0; i < n; i++) {
		int runs;
		if (!speaks_for_group(rows, n, i, &runs))
			continue;
		one[m] = rows[i];
		if (runs > 1) {
			size_t u = strlen(one[m].label);
			snprintf(one[m].label + u, sizeof(one[m].label) - u, " (median of %d runs)", runs);
		}
		finding_uncovered(&one[m], out);
		finding_bound(&one[m], &facts[i], out);
		finding_observed(&one[m], out);
		m++;
	}
	for (int i = 0; i < m; i++)
		finding_native(one, m, i, out);
	finding_views(one, m, out);
	free(one);
}
