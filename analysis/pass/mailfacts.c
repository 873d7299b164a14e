/* SPDX-License-Identifier: MIT */
/* mailfacts.c - how a run was made (meta.json, the writer log's header)
 * and the findings a mail states about several runs (mailfacts.h). */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
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
	if (json_is_true(json_object_get(m, "emulated")))
		snprintf(f->realised, sizeof(f->realised), "emulated by the writer");
	else if (kpol[0])
		snprintf(f->realised, sizeof(f->realised),
			 "the patched kernel %.60s (vm.mmap_cmtime_policy=%.16s)",
			 jstr(m, "kernel_release"), kpol);
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
	f->resolution_ns = S->nobs ? S->obs[0].resolution_ns : -1;
	if (S->nobs)
		snprintf(f->nfs, sizeof(f->nfs), "NFSv%d GETATTR probe", S->obs[0].vers);
	for (int j = 0; j < S->nkread; j++) {
		size_t u = strlen(f->mounts);
		snprintf(f->mounts + u, sizeof(f->mounts) - u, "%s%.8s reader: %.200s",
			 u ? "; " : "", S->kr[j].mode, S->kr[j].mount);
	}
	writer_facts(dir, f);
	snprintf(path, sizeof(path), "%.1000s/meta.json", dir);
	json_t *m = json_load_file(path, 0, NULL), *v;
	if (!m)
		return 0;
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
	if (srv && S->nobs)
		snprintf(f->nfs, sizeof(f->nfs), "%.32s server, NFSv%d GETATTR probe",
			 jstr(srv, "kind"), S->obs[0].vers);
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
	return 0;
}

static void add(struct sw_findings *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void add(struct sw_findings *o, const char *fmt, ...)
{
	va_list ap;
	if (o->n >= SW_MAX_FINDINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(o->text[o->n++], sizeof(o->text[0]), fmt, ap);
	va_end(ap);
}

static double s_of(int64_t ns) { return (double)ns / 1e9; }

/* uncovered stores: counted exactly from the writer's log */
static void finding_uncovered(const struct sw_runrow *r, struct sw_findings *o)
{
	if (!r->truth_unresolved)
		return;
	add(o, "%s: %llu of %llu stores (%.1f%%) were never followed by a timestamp "
	    "update before the run ended, so no client could have seen them "
	    "(counted exactly in the writer's log).", r->label,
	    (unsigned long long)r->truth_unresolved, (unsigned long long)r->stores,
	    100.0 * r->uncovered_share);
}

/* deferred: the longest window against expire + writeback interval */
static void finding_bound(const struct sw_runrow *r, const struct sw_runfacts *f,
			  struct sw_findings *o)
{
	if (strcmp(r->policy, "deferred") || f->model_expire_ms < 0 || f->model_wb_ms < 0)
		return;
	double bound = (double)(f->model_expire_ms + f->model_wb_ms) / 1e3;
	if (r->truth_max_ns < 0) {
		add(o, "%s: some stores had no update before the run ended, so the "
		    "bound expire + writeback interval = %.1f s (%.1f s + %.1f s) "
		    "could not be checked.", r->label, bound, f->model_expire_ms / 1e3,
		    f->model_wb_ms / 1e3);
		return;
	}
	double mx = s_of(r->truth_max_ns);
	add(o, "%s: the longest truth window was %.2f s against the bound expire + "
	    "writeback interval = %.1f s (%.1f s + %.1f s); %s (windows are read "
	    "from a histogram with < 0.8%% relative error).", r->label, mx, bound,
	    f->model_expire_ms / 1e3, f->model_wb_ms / 1e3,
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
	add(o, "%s: the probe's median window (%.3f s) differs from the truth's "
	    "(%.3f s) by %.3f s, more than the probe's resolution of %.3f s: see "
	    "the run's report for why.", r->label, s_of(r->observed_p50_ns),
	    s_of(r->truth_p50_ns), s_of(d), s_of(r->resolution_ns));
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
		add(o, "Stores never made visible before the end: %.1f%% under %s, "
		    "%.1f%% under %s (exact counts), %.1f points apart%s.",
		    100.0 * nat->uncovered_share, nat->label, 100.0 * e->uncovered_share,
		    e->label, d < 0 ? -d : d,
		    (d < 0 ? -d : d) > 10 ? "; the emulated eager does not match the "
		    "running kernel here" : "");
	}
}

/* what a reader on the default mount saw, where it differs from the truth */
static void finding_view(const struct sw_runrow *r, struct sw_findings *o)
{
	const struct sw_view *v = &r->view_default;
	if (v->src == SW_VIEW_NONE || v->p50_ns == -2)
		return;
	const char *src = v->src == SW_VIEW_KERNEL ? "the kernel client"
			  : "the replay of the client's rules";
	if (v->p50_ns == -1)
		add(o, "%s: on a default mount (%s, %s) more than half of the stores "
		    "were not visible before the run ended.", r->label, v->name, src);
	else if (r->truth_p50_ns < 0)
		add(o, "%s: on a default mount (%s, %s) a reader saw half of the stores "
		    "within %.2f s, although most stores had no update before the end.",
		    r->label, v->name, src, s_of(v->p50_ns));
	else
		add(o, "%s: on a default mount (%s, %s) a reader saw half of the stores "
		    "within %.2f s (truth median %.2f s).", r->label, v->name, src,
		    s_of(v->p50_ns), s_of(r->truth_p50_ns));
}

void sw_findings_compute(const struct sw_runrow *rows, const struct sw_runfacts *facts,
			 int n, struct sw_findings *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < n; i++) {
		finding_uncovered(&rows[i], out);
		finding_bound(&rows[i], &facts[i], out);
		finding_native(rows, n, i, out);
		finding_observed(&rows[i], out);
		finding_view(&rows[i], out);
	}
}
