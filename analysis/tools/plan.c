/* SPDX-License-Identifier: MIT */
/* plan.c - study plans: parse (libinih), check, expand into cells. */
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

static const char *const ok_kernel[] = { "stock:6.1", "stock:6.12", "stock:7.2", "patched:6.1",
					 "patched:7.2", NULL };
static const char *const ok_policy[] = { "eager", "deferred", "lang", "lang-mem", NULL };
static const char *const ok_ordering[] = { "off", "on", NULL };
static const char *const ok_fs[] = { "ext4", "ext4-lazytime", "xfs", "btrfs", "tmpfs", NULL };
static const char *const ok_vers[] = { "3", "4.2", NULL };
static const char *const ok_reader[] = { "kept-open", "cto", NULL };
static const char *const ok_workload[] = { "rewrite", "random", "stream", NULL };
static const char *const ok_onoff[] = { "on", "off", NULL };

struct ctx {
	struct sw_plan *p;
	struct sw_plan_group *cur;  /* NULL: before any section */
	int line;                   /* of the line the handler sees */
	char *err;
	int errlen, bad;
	FILE *f;
};

static void list_of(const char *const *ok, char *dst, size_t n)
{
	size_t u = 0;
	dst[0] = 0;
	for (int i = 0; ok[i] && u < n; i++)
		u += (size_t)snprintf(dst + u, n - u, "%s%s", i ? " " : "", ok[i]);
}

static int fail(struct ctx *c, const char *fmt, const char *a, const char *b)
{
	char m[512];
	snprintf(m, sizeof(m), fmt, a, b);
	snprintf(c->err, (size_t)c->errlen, "%s:%d: %s", c->p->path, c->line, m);
	c->bad = 1;
	return 0;
}

/* an axis: space-separated values, each one of ok (NULL: any of the
 * mount profiles) */
static int axis(struct ctx *c, struct sw_plan_axis *a, const char *key, const char *val,
		const char *const *ok)
{
	char buf[1024], want[256];
	snprintf(buf, sizeof(buf), "%s", val);
	a->n = 0;
	for (char *s, *t = strtok_r(buf, " \t,", &s); t; t = strtok_r(NULL, " \t,", &s)) {
		int good = 0;
		if (ok) {
			for (int i = 0; ok[i] && !good; i++)
				good = !strcmp(t, ok[i]);
		} else {
			int v;
			char tail;
			good = !strcmp(t, "default") || !strcmp(t, "noac") ||
			       (sscanf(t, "actimeo=%d%c", &v, &tail) == 1 && v >= 0 && v <= 3600);
		}
		if (!good) {
			if (ok)
				list_of(ok, want, sizeof(want));
			else
				snprintf(want, sizeof(want), "default noac actimeo=N");
			char k[300];
			snprintf(k, sizeof(k), "%.40s: expected one of %.200s", key, want);
			return fail(c, "%s, saw '%s'", k, t);
		}
		if (a->n == SW_PLAN_AX)
			return fail(c, "%s: expected at most 8 values, saw more ('%s')", key, t);
		snprintf(a->v[a->n++], SW_PLAN_VAL, "%s", t);
	}
	if (!a->n)
		return fail(c, "%s: expected at least one value, saw '%s'", key, val);
	return 1;
}

/* query_rate: GETATTRs a second, 1..1000, or wire (vm run --query-rate) */
static int query_axis(struct ctx *c, struct sw_plan_axis *a, const char *val)
{
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s", val);
	a->n = 0;
	for (char *s, *t = strtok_r(buf, " \t,", &s); t; t = strtok_r(NULL, " \t,", &s)) {
		int v;
		char tail;
		if (strcmp(t, "wire") && (sscanf(t, "%d%c", &v, &tail) != 1 || v < 1 || v > 1000))
			return fail(c, "query_rate: expected GETATTRs a second from 1 to 1000 or wire, saw '%s'%s",
				    t, "");
		if (a->n == SW_PLAN_AX)
			return fail(c, "query_rate: expected at most 8 values, saw more ('%s')%s", t, "");
		snprintf(a->v[a->n++], SW_PLAN_VAL, "%s", t);
	}
	if (!a->n)
		return fail(c, "query_rate: expected at least one value, saw '%s'%s", val, "");
	return 1;
}

/* fault: none, or vm run's --fault KIND@S[:D] (vm/run.sh's list) */
static const char *const fault_down[] = { "knfsd-restart", "partition", "io-error", "memory-pressure",
					  "server-crash", NULL };
static const char *const fault_once[] = { "server-guest-kill", "client-reboot", "enospc", NULL };

static int in_list(const char *const *l, const char *v, size_t n)
{
	for (int i = 0; l[i]; i++)
		if (strlen(l[i]) == n && !strncmp(l[i], v, n))
			return 1;
	return 0;
}

/* one fault spec: 1 when it is one vm run can inject */
static int fault_ok(const char *t)
{
	const char *at = strchr(t, '@');
	double s, d;
	char sign, tail;
	if (!at)
		return 0;
	size_t k = (size_t)(at - t);
	if (in_list(fault_once, t, k))
		return sscanf(at + 1, "%lf%c", &s, &tail) == 1 && s >= 0;
	if (in_list(fault_down, t, k))
		return (sscanf(at + 1, "%lf%c", &s, &tail) == 1 ||
			(sscanf(at + 1, "%lf:%lf%c", &s, &d, &tail) == 2 && d >= 0)) && s >= 0 &&
		       !strchr(at + 1, '-');
	if ((k == 10 && !strncmp(t, "clock-step", k)) || (k == 17 && !strncmp(t, "client-clock-step", k)))
		return sscanf(at + 1, "%lf:%c%lf%c", &s, &sign, &d, &tail) == 3 && s >= 0 &&
		       (sign == '+' || sign == '-') && d > 0;
	return 0;
}

static int fault_axis(struct ctx *c, struct sw_plan_axis *a, const char *val)
{
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s", val);
	a->n = 0;
	for (char *s, *t = strtok_r(buf, " \t,", &s); t; t = strtok_r(NULL, " \t,", &s)) {
		if (strcmp(t, "none") && !fault_ok(t))
			return fail(c, "fault: expected none or a vm run fault: knfsd-restart|partition|io-error|"
				    "memory-pressure|server-crash@S[:D], server-guest-kill|client-reboot|enospc@S or "
				    "clock-step|client-clock-step@S:+D|-D (S, D seconds >= 0), saw '%s'%s", t, "");
		if (a->n == SW_PLAN_AX)
			return fail(c, "fault: expected at most 8 values, saw more ('%s')%s", t, "");
		snprintf(a->v[a->n++], SW_PLAN_VAL, "%s", t);
	}
	if (!a->n)
		return fail(c, "fault: expected at least one value, saw '%s'%s", val, "");
	return 1;
}

/* S of a fault spec, in seconds */
static double fault_at(const char *f)
{
	const char *at = strchr(f, '@');
	return at ? atof(at + 1) : 0;
}

/* 1: the fault leaves the boot unfit for another experiment (vm run
 * allows it with one only) */
static int fault_is_once(const char *f)
{
	const char *at = strchr(f, '@');
	return at && (in_list(fault_once, f, (size_t)(at - f)) || !strncmp(f, "io-error@", 9) ||
		      !strncmp(f, "server-crash@", 13));
}

static int number(struct ctx *c, int *dst, const char *key, const char *val, int lo, int hi)
{
	char *end;
	long v = strtol(val, &end, 10);
	if (!*val || *end || v < lo || v > hi) {
		char k[120];
		snprintf(k, sizeof(k), "%.40s: expected a whole number %d..%d", key, lo, hi);
		return fail(c, "%s, saw '%s'", k, val);
	}
	*dst = (int)v;
	return 1;
}

/* one value, on or off */
static int on_off(struct ctx *c, int *dst, const char *key, const char *val)
{
	struct sw_plan_axis a;
	if (!axis(c, &a, key, val, ok_onoff))
		return 0;
	if (a.n != 1)
		return fail(c, "%s: expected one value, on or off, saw '%s'", key, val);
	*dst = !strcmp(a.v[0], "on");
	return 1;
}

static int handler(void *user, const char *section, const char *key, const char *val)
{
	struct ctx *c = user;
	if (c->bad)
		return 0;
	if (!key) /* sections are opened by reader() */
		return 1;
	if (!c->cur)
		return fail(c, "expected a [section] before '%s = %s', saw the key first", key, val);
	(void)section;
	struct sw_plan_group *g = c->cur;
	if (!strcmp(key, "kernel"))
		return axis(c, &g->kernel, key, val, ok_kernel);
	if (!strcmp(key, "policy"))
		return axis(c, &g->policy, key, val, ok_policy);
	if (!strcmp(key, "fs"))
		return axis(c, &g->fs, key, val, ok_fs);
	if (!strcmp(key, "vers"))
		return axis(c, &g->vers, key, val, ok_vers);
	if (!strcmp(key, "mount"))
		return axis(c, &g->mount, key, val, NULL);
	if (!strcmp(key, "reader"))
		return axis(c, &g->reader, key, val, ok_reader);
	if (!strcmp(key, "workload"))
		return axis(c, &g->workload, key, val, ok_workload);
	if (!strcmp(key, "ordering"))
		return axis(c, &g->ordering, key, val, ok_ordering);
	if (!strcmp(key, "query_rate"))
		return query_axis(c, &g->query_rate, val);
	if (!strcmp(key, "fault"))
		return fault_axis(c, &g->fault, val);
	if (!strcmp(key, "repeats"))
		return number(c, &g->repeats, key, val, 1, 1000);
	if (!strcmp(key, "duration_s"))
		return number(c, &g->duration_s, key, val, 5, 86400);
	if (!strcmp(key, "reader_every_ms"))
		return number(c, &g->reader_every_ms, key, val, 10, 60000);
	if (!strcmp(key, "rate"))
		return number(c, &g->rate, key, val, 0, 10000);
	if (!strcmp(key, "size_mib"))
		return number(c, &g->size_mib, key, val, 0, 4096);
	if (!strcmp(key, "writer_stat"))
		return on_off(c, &g->writer_stat, key, val);
	if (!strcmp(key, "populate"))
		return on_off(c, &g->populate, key, val);
	if (!strcmp(key, "lead_s")) {
		if (!strcmp(val, "settled")) {
			g->lead_s = -1;
			return 1;
		}
		return number(c, &g->lead_s, key, val, 0, 3600);
	}
	if (!strcmp(key, "writeback")) {
		double w, e;
		char tail;
		if (!strcmp(val, "kernel")) {
			g->wb_ms = g->expire_ms = 0;
			return 1;
		}
		if (sscanf(val, "%lf/%lf%c", &w, &e, &tail) != 2 || w < 0.1 || e < 0.1 || w > 600 || e > 3600)
			return fail(c, "writeback: expected 'kernel' or WB_S/EXPIRE_S (e.g. 1/5), saw '%s'%s",
				    val, "");
		g->wb_ms = (int)(w * 1000 + 0.5);
		g->expire_ms = (int)(e * 1000 + 0.5);
		return 1;
	}
	return fail(c, "unknown key '%s' (expected kernel policy ordering fs vers mount reader "
		    "workload query_rate fault writeback repeats lead_s duration_s reader_every_ms rate size_mib "
		    "writer_stat populate)%s", key, "");
}

/* Lines read so far (the handler's line: inih reads a line, then calls
 * the handler), and the sections as they begin, so that one with no key
 * of its own still makes a group and errors name their lines. */
static char *reader(char *str, int num, void *stream)
{
	struct ctx *c = stream;
	char *r = fgets(str, num, c->f);
	if (!r || c->bad)
		return r;
	c->line++;
	const char *b = r + strspn(r, " \t");
	const char *e = *b == '[' ? strchr(b, ']') : NULL;
	if (!e)
		return r;
	char name[64];
	snprintf(name, sizeof(name), "%.*s", (int)(e - b - 1), b + 1);
	struct sw_plan *p = c->p;
	if (!strcmp(name, "global")) {
		if (p->ngroups)
			fail(c, "expected [global] before every other section, saw it after [%s]%s",
			     p->g[p->ngroups - 1].name, "");
		c->cur = &p->global;
		return r;
	}
	for (int i = 0; i < p->ngroups; i++)
		if (!strcmp(p->g[i].name, name)) {
			fail(c, "expected each section once, saw [%s] again%s", name, "");
			return r;
		}
	if (p->ngroups == SW_PLAN_GROUPS) {
		fail(c, "expected at most 32 sections, saw [%s]%s", name, "");
		return r;
	}
	c->cur = &p->g[p->ngroups++];
	*c->cur = p->global;
	snprintf(c->cur->name, sizeof(c->cur->name), "%s", name);
	c->cur->line = c->line;
	return r;
}

int sw_plan_load(const char *path, struct sw_plan *p, char *err, int errlen)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->path, sizeof(p->path), "%s", path);
	struct sw_plan_group *d = &p->global;
	snprintf(d->name, sizeof(d->name), "global");
	d->repeats = 10;
	d->lead_s = -1;
	d->duration_s = 120;
	d->reader_every_ms = 100;
	d->writer_stat = 1;
	snprintf(d->vers.v[0], SW_PLAN_VAL, "3");
	snprintf(d->vers.v[1], SW_PLAN_VAL, "4.2");
	d->vers.n = 2;
	snprintf(d->mount.v[0], SW_PLAN_VAL, "default");
	d->mount.n = 1;
	snprintf(d->reader.v[0], SW_PLAN_VAL, "kept-open");
	snprintf(d->reader.v[1], SW_PLAN_VAL, "cto");
	d->reader.n = 2;
	snprintf(d->workload.v[0], SW_PLAN_VAL, "rewrite");
	d->workload.n = 1;
	snprintf(d->ordering.v[0], SW_PLAN_VAL, "off");
	d->ordering.n = 1;
	struct ctx c = { .p = p, .err = err, .errlen = errlen };
	c.f = fopen(path, "r");
	if (!c.f) {
		snprintf(err, (size_t)errlen, "%s: cannot open the plan", path);
		return -1;
	}
	int rc = ini_parse_stream(reader, &c, handler, &c);
	fclose(c.f);
	if (c.bad)
		return -1;
	if (rc > 0) {
		snprintf(err, (size_t)errlen, "%s:%d: expected '[section]', 'key = value' or a comment, saw "
			 "something else", path, rc);
		return -1;
	}
	if (rc < 0) {
		snprintf(err, (size_t)errlen, "%s: cannot read the plan", path);
		return -1;
	}
	if (!p->ngroups) {
		snprintf(err, (size_t)errlen, "%s: expected at least one section besides [global], saw none",
			 path);
		return -1;
	}
	for (int i = 0; i < p->ngroups; i++) {
		const struct sw_plan_group *g = &p->g[i];
		const char *miss = !g->kernel.n ? "kernel" : !g->policy.n ? "policy" : !g->fs.n ? "fs" : NULL;
		if (miss) {
			snprintf(err, (size_t)errlen, "%s:%d: [%s]: expected a '%s' (here or in [global]), saw none",
				 path, g->line, g->name, miss);
			return -1;
		}
		for (int f = 0; f < g->fault.n; f++)
			if (strcmp(g->fault.v[f], "none") && fault_at(g->fault.v[f]) >= g->duration_s) {
				snprintf(err, (size_t)errlen, "%s:%d: [%s]: fault %s: expected a time before the "
					 "run's end (S < duration_s %d), saw S = %g", path, g->line, g->name,
					 g->fault.v[f], g->duration_s, fault_at(g->fault.v[f]));
				return -1;
			}
	}
	return 0;
}

/* Why a cell cannot run today, or NULL (ordering: 1 for its +ordering
 * cell). */
static const char *not_runnable(const char *kernel, const char *policy, const char *fs,
				const char *fault, int ordering)
{
	int patched = !strncmp(kernel, "patched:", 8);
	if (!strcmp(fs, "tmpfs") && (!strncmp(fault, "io-error@", 9) || !strncmp(fault, "enospc@", 7) ||
				     !strncmp(fault, "memory-pressure@", 16)))
		return "this fault needs the export on a disk (ext4, xfs or btrfs), not tmpfs";
	if (!strncmp(fault, "server-crash@", 13) && strcmp(fs, "ext4"))
		return "server-crash shuts an ext4 export down (EXT4_IOC_SHUTDOWN): ext4 only";
	if (patched && !strncmp(fault, "memory-pressure@", 16))
		return "memory-pressure squeezes a cgroup's memory.high: the patched kernels have no "
		       "memcg (allnoconfig + the fragment)";
	if (!strcmp(fs, "ext4-lazytime"))
		return "vm run mounts no ext4 with lazytime yet";
	if (!patched && strcmp(policy, "eager"))
		return "a stock kernel has only eager (deferred and lang need the patched kernel; "
		       "emulated rows are no evidence)";
	if (patched && strcmp(policy, "eager") && strcmp(fs, "ext4") && strcmp(fs, "xfs"))
		return "the patched series defers the update on ext4 and xfs only (btrfs is not "
		       "converted yet)";
	if (patched && ordering && !strcmp(fs, "xfs"))
		return "the ordering (vm.mmap_cmtime_ordering, 0008) is ext4's: on xfs it changes "
		       "nothing, the cell would repeat its ordering-off cell";
	if (patched && !strcmp(fs, "tmpfs"))
		return "tmpfs write-protects no page again: no policy of the series applies to it";
	return NULL;
}

static int add(char *dst, size_t n, size_t *u, const char *fmt, const char *a, const char *b)
{
	int w = snprintf(dst + *u, n - *u, fmt, a, b);
	if (w < 0 || (size_t)w >= n - *u)
		return -1;
	*u += (size_t)w;
	return 0;
}

static int group_lead(const struct sw_plan_group *g)
{
	int wb = g->wb_ms ? g->wb_ms : 5000, ex = g->expire_ms ? g->expire_ms : 30000;
	/* settled: 2 expire + 10 writeback + ext4's 5 s commit */
	return g->lead_s >= 0 ? g->lead_s : (2 * ex + 10 * wb + 5000 + 999) / 1000;
}

/* The `vm run` arguments of the cells kernel x pol x fs x wl of group g
 * (vm run makes that cross product in one boot); 0, or -1 when a does
 * not hold them. */
static int run_args(const struct sw_plan_group *g, const char *k, const struct sw_plan_axis *pol,
		    const struct sw_plan_axis *fs, const struct sw_plan_axis *wl, int ordering,
		    const char *query, const char *fault, char *a, size_t n)
{
	size_t u = 0;
	char num[64], num2[64];
	int patched = !strncmp(k, "patched:", 8), bad = 0;
	const char *kv = patched ? (!strcmp(k + 8, "6.1") ? "patched" : "patched:7.2")
			 : (!strcmp(k + 6, "6.1") ? "stock" : k + 6);
	a[0] = 0;
	bad |= add(a, n, &u, "--kernel %s%s", kv, "");
	/* the patched kernel's own policy; a stock kernel's eager is native */
	for (int i = 0; i < pol->n; i++)
		bad |= add(a, n, &u, " --policy %s%s", patched ? pol->v[i] : "native", "");
	for (int i = 0; i < fs->n; i++)
		bad |= add(a, n, &u, " --fs %s%s", fs->v[i], "");
	for (int i = 0; i < wl->n; i++)
		bad |= add(a, n, &u, " --workload %s%s", wl->v[i], "");
	snprintf(num, sizeof(num), "%d", g->duration_s);
	bad |= add(a, n, &u, " --duration %s%s", num, "");
	snprintf(num, sizeof(num), "%d", group_lead(g));
	bad |= add(a, n, &u, " --lead %s%s", num, "");
	snprintf(num, sizeof(num), "%d", g->reader_every_ms);
	bad |= add(a, n, &u, " --reader-every-ms %s%s", num, "");
	if (g->size_mib) {
		snprintf(num, sizeof(num), "%dM", g->size_mib);
		bad |= add(a, n, &u, " --size %s%s", num, "");
	}
	/* the writer's options one word each: the study splits a run's line
	 * on spaces */
	if (g->rate) {
		snprintf(num, sizeof(num), "%d", g->rate);
		bad |= add(a, n, &u, " --writer-args --rate=%s%s", num, "");
	}
	if (g->populate)
		bad |= add(a, n, &u, " --writer-args --populate%s%s", "", "");
	if (!g->writer_stat)
		bad |= add(a, n, &u, " --writer-args --native-poll-only --writer-args --native-poll-ms=%s%s",
			   "3600000", "");
	if (g->wb_ms) {
		snprintf(num, sizeof(num), "%d", g->wb_ms / 10);
		snprintf(num2, sizeof(num2), "%d", g->expire_ms / 10);
		bad |= add(a, n, &u, " --sysctl vm.dirty_writeback_centisecs=%s --sysctl vm.dirty_expire_centisecs=%s",
		    num, num2);
	}
	if (ordering) /* 0008's switch; off is the kernel's default */
		bad |= add(a, n, &u, " --sysctl vm.mmap_cmtime_ordering=1%s%s", "", "");
	if (query[0])
		bad |= add(a, n, &u, " --query-rate %s%s", query, "");
	if (fault[0])
		bad |= add(a, n, &u, " --fault %s%s", fault, "");
	int v3 = 0, v4 = 0;
	for (int i = 0; i < g->vers.n; i++)
		for (int m = 0; m < g->mount.n; m++) {
			const char *vs = g->vers.v[i], *mo = g->mount.v[m];
			int is3 = !strcmp(vs, "3");
			v3 |= is3;
			v4 |= !is3;
			bad |= add(a, n, &u, " --mount-opts vers=%s%s", vs, is3 ? ",nolock" : "");
			if (strcmp(mo, "default"))
				bad |= add(a, n, &u, ",%s%s", mo, "");
		}
	bad |= add(a, n, &u, " --probe-vers %s%s", v3 && v4 ? "3+4" : v4 ? "4" : "3", "");
	for (int r = 0; r < g->reader.n; r++)
		bad |= add(a, n, &u, " --reader-mode %s%s", g->reader.v[r], "");
	return bad ? -1 : 0;
}

static void one(struct sw_plan_axis *ax, const char *v)
{
	ax->n = 1;
	snprintf(ax->v[0], SW_PLAN_VAL, "%s", v);
}

static void cell_args(const struct sw_plan_group *g, struct sw_plan_cell *c)
{
	struct sw_plan_axis pol, fs, wl;
	one(&pol, c->policy);
	one(&fs, c->fs);
	one(&wl, c->workload);
	run_args(g, c->kernel, &pol, &fs, &wl, c->ordering, c->query, c->fault, c->args,
		 sizeof(c->args));
}

/* Whether policy po of g runs with ordering value o (0 off, 1 on): eager
 * once, with it off (nothing is deferred, so nothing to order); every
 * other policy once per value the plan's ordering axis has. */
static int policy_ordering(const struct sw_plan_group *g, const char *policy, int o)
{
	if (!strcmp(policy, "eager"))
		return !o;
	for (int i = 0; i < g->ordering.n; i++)
		if (!strcmp(g->ordering.v[i], o ? "on" : "off"))
			return 1;
	return 0;
}

/* "group/kernel-policy[+ordering]-fs-workload[-qN][-fSPEC]", ':' as '_' */
static void cell_id(char *id, size_t n, const struct sw_plan_group *g, const char *k, const char *pol,
		    int ordering, const char *fs, const char *wl, const char *query, const char *fault)
{
	snprintf(id, n, "%s/%s-%s%s-%s-%s%s%s%s%s", g->name, k, pol, ordering ? "+ordering" : "", fs, wl,
		 query[0] ? "-q" : "", query, fault[0] ? "-f" : "", fault);
	for (char *s = id; *s; s++)
		if (*s == ':')
			*s = '_';
}

/* the fault value i of g ("" none) */
static const char *group_fault(const struct sw_plan_group *g, int i)
{
	return g->fault.n && strcmp(g->fault.v[i], "none") ? g->fault.v[i] : "";
}

int sw_plan_cells(const struct sw_plan *p, int (*fn)(const struct sw_plan_cell *c, void *ctx),
		  void *ctx)
{
	struct sw_plan_cell c;
	for (int gi = 0; gi < p->ngroups; gi++) {
		const struct sw_plan_group *g = &p->g[gi];
		int nq = g->query_rate.n ? g->query_rate.n : 1, nf = g->fault.n ? g->fault.n : 1;
		for (int k = 0; k < g->kernel.n; k++)
			for (int po = 0; po < g->policy.n; po++)
				for (int o = 0; o < 2; o++)
					for (int q = 0; q < nq; q++)
					for (int fa = 0; fa < nf; fa++)
					for (int f = 0; f < g->fs.n; f++)
						for (int w = 0; w < g->workload.n; w++) {
							if (!policy_ordering(g, g->policy.v[po], o))
								continue;
							memset(&c, 0, sizeof(c));
							c.g = g;
							c.ordering = o;
							snprintf(c.query, sizeof(c.query), "%s",
								 g->query_rate.n ? g->query_rate.v[q] : "");
							snprintf(c.fault, sizeof(c.fault), "%s", group_fault(g, fa));
							snprintf(c.kernel, sizeof(c.kernel), "%s", g->kernel.v[k]);
							snprintf(c.policy, sizeof(c.policy), "%s", g->policy.v[po]);
							snprintf(c.fs, sizeof(c.fs), "%s", g->fs.v[f]);
							snprintf(c.workload, sizeof(c.workload), "%s", g->workload.v[w]);
							cell_id(c.id, sizeof(c.id), g, c.kernel, c.policy, o, c.fs, c.workload,
								c.query, c.fault);
							c.lead_s = group_lead(g);
							/* boot and clock ~40 s, the lead, the run, the report ~20 s */
							c.est_s = 40 + c.lead_s + g->duration_s + 20;
							const char *why = not_runnable(c.kernel, c.policy, c.fs, c.fault, o);
							c.runnable = !why;
							if (why)
								snprintf(c.why, sizeof(c.why), "%s", why);
							else
								cell_args(g, &c);
							int rc = fn(&c, ctx);
							if (rc)
								return rc;
						}
	}
	return 0;
}

static int axis_has(const struct sw_plan_axis *a, const char *v)
{
	for (int i = 0; i < a->n; i++)
		if (!strcmp(a->v[i], v))
			return 1;
	return 0;
}

/* The runnable policies of g on kernel k and filesystem f with ordering
 * value o, in plan order. */
static void runnable_policies(const struct sw_plan_group *g, const char *k, const char *f, int o,
			      const char *fault, struct sw_plan_axis *pol)
{
	pol->n = 0;
	for (int po = 0; po < g->policy.n; po++)
		if (!not_runnable(k, g->policy.v[po], f, fault, o) && policy_ordering(g, g->policy.v[po], o))
			snprintf(pol->v[pol->n++], SW_PLAN_VAL, "%s", g->policy.v[po]);
}

static int emit_batch(const struct sw_plan_group *g, const char *k, const struct sw_plan_axis *pol,
		      const struct sw_plan_axis *fs, const struct sw_plan_axis *wl, int o,
		      const char *query, const char *fault,
		      int (*fn)(const struct sw_plan_batch *b, void *ctx), void *ctx)
{
	struct sw_plan_batch b;
	memset(&b, 0, sizeof(b));
	b.g = g;
	b.ordering = o;
	b.once = fault_is_once(fault);
	snprintf(b.query, sizeof(b.query), "%s", query);
	snprintf(b.fault, sizeof(b.fault), "%s", fault);
	b.est_s = 20 + group_lead(g) + g->duration_s;
	if (run_args(g, k, pol, fs, wl, o, query, fault, b.args, sizeof(b.args)))
		return -1;
	/* vm run's order: policy, then fs, then workload */
	for (int po = 0; po < pol->n; po++)
		for (int f = 0; f < fs->n; f++)
			for (int w = 0; w < wl->n; w++)
				cell_id(b.ids[b.n++], sizeof(b.ids[0]), g, k, pol->v[po], o, fs->v[f],
					wl->v[w], query, fault);
	return fn(&b, ctx);
}

/* a fault that allows one experiment a boot: each runnable cell alone */
static int once_batches(const struct sw_plan_group *g, const char *kn, int o, const char *query,
			const char *fault, int (*fn)(const struct sw_plan_batch *b, void *ctx), void *ctx)
{
	struct sw_plan_axis pol, one_pol, one_fs, one_wl;
	int rc;
	for (int f = 0; f < g->fs.n; f++) {
		runnable_policies(g, kn, g->fs.v[f], o, fault, &pol);
		for (int po = 0; po < pol.n; po++)
			for (int w = 0; w < g->workload.n; w++) {
				one(&one_pol, pol.v[po]);
				one(&one_fs, g->fs.v[f]);
				one(&one_wl, g->workload.v[w]);
				if ((rc = emit_batch(g, kn, &one_pol, &one_fs, &one_wl, o, query, fault, fn, ctx)))
					return rc;
			}
	}
	return 0;
}

/* The boots of kernel kn's cells of g with ordering value o: one when
 * the runnable cells are a cross product policy x fs (x workload), else
 * one per filesystem. */
static int kernel_batches(const struct sw_plan_group *g, const char *kn, int o, const char *query,
			  const char *fault, int (*fn)(const struct sw_plan_batch *b, void *ctx), void *ctx)
{
	struct sw_plan_axis pol, fs = { 0 }, first = { 0 };
	int cross = 1, rc;
	if (fault_is_once(fault))
		return once_batches(g, kn, o, query, fault, fn, ctx);
	for (int f = 0; f < g->fs.n; f++) {
		runnable_policies(g, kn, g->fs.v[f], o, fault, &pol);
		if (!pol.n)
			continue;
		if (!fs.n)
			first = pol;
		else if (pol.n != first.n)
			cross = 0;
		else
			for (int i = 0; i < pol.n; i++)
				cross &= axis_has(&first, pol.v[i]);
		snprintf(fs.v[fs.n++], SW_PLAN_VAL, "%s", g->fs.v[f]);
	}
	if (!fs.n)
		return 0;
	if (cross && fs.n * first.n * g->workload.n <= SW_PLAN_BATCH)
		return emit_batch(g, kn, &first, &fs, &g->workload, o, query, fault, fn, ctx);
	for (int f = 0; f < fs.n; f++) {
		struct sw_plan_axis one_fs;
		one(&one_fs, fs.v[f]);
		runnable_policies(g, kn, fs.v[f], o, fault, &pol);
		if ((rc = emit_batch(g, kn, &pol, &one_fs, &g->workload, o, query, fault, fn, ctx)))
			return rc;
	}
	return 0;
}

int sw_plan_batches(const struct sw_plan *p, int (*fn)(const struct sw_plan_batch *b, void *ctx),
		    void *ctx)
{
	for (int gi = 0; gi < p->ngroups; gi++) {
		const struct sw_plan_group *g = &p->g[gi];
		int nq = g->query_rate.n ? g->query_rate.n : 1, nf = g->fault.n ? g->fault.n : 1;
		for (int k = 0; k < g->kernel.n; k++)
			for (int o = 0; o < 2; o++) /* the ordering sysctl is the boot's */
				for (int q = 0; q < nq; q++) /* and the probe's rate */
					for (int fa = 0; fa < nf; fa++) { /* and the fault */
						int rc = kernel_batches(g, g->kernel.v[k], o,
									g->query_rate.n ? g->query_rate.v[q] : "",
									group_fault(g, fa), fn, ctx);
						if (rc)
							return rc;
					}
	}
	return 0;
}
