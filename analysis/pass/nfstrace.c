/* SPDX-License-Identifier: MIT */
/* nfstrace.c - the client guest's NFS events for the file, per reader. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfstrace.h"

static const struct {
	const char *name; /* ": NAME: " in an ftrace line */
	int kind;
} events[] = {
	{ "nfs_revalidate_inode_enter", SW_NFSEV_GA_SEND },
	{ "nfs_refresh_inode_enter", SW_NFSEV_REFRESH },
	{ "nfs_initiate_read", SW_NFSEV_RD_SEND },
	{ "nfs_readpage_done", SW_NFSEV_RD_DONE },
};

/* kprobe events (trace.sh): the tracepoint kind each one precedes */
static const struct {
	const char *name;
	int kind;
} kprobes[] = {
	{ "jif_check", SW_NFSEV_CHECK },
	{ "jif_getattr", SW_NFSEV_GA_SEND },
	{ "jif_refresh", SW_NFSEV_REFRESH },
	{ "jif_read", SW_NFSEV_RD_SEND },
	{ "jif_open", SW_NFSEV_OPEN },
	{ "jif_fhget", SW_NFSEV_FHGET },
	/* kretprobes: a GETATTR returned, its reply applied next */
	{ "jif_ga3", SW_NFSEV_REFRESH },
	{ "jif_ga4", SW_NFSEV_REFRESH },
	/* after the refresh's tracepoint: nfs_update_inode's own jiffy */
	{ "jif_update", SW_NFSEV_UPDATE },
	/* after the GETATTR's tracepoint: where its fattr is set up */
	{ "jif_gai3", SW_NFSEV_GA_INIT },
	{ "jif_gai4", SW_NFSEV_GA_INIT },
	/* nfs_fattr_init: the fattr's time_start, exactly */
	{ "jif_fattr", SW_NFSEV_GA_INIT },
};

/* A kprobe and the tracepoint it precedes are a few instructions apart in
 * one task, nothing of that task traced between them; the time between is
 * that task's preemption there.  Traced on TCG guests: most under 100 µs,
 * and 0.2-3.2 ms in 1-3 % of pairs (need-resched set, the task
 * preempted), where a 200 µs bound left a v3 READ's send on the grid's
 * jiffy, one after the kernel's: the replay revalidated a read late
 * every cycle from there (p50 2.72 s against the client's 3.32 s).  The
 * bound only guards against a lost line. */
#define KPROBE_GAP_NS 50000000

static int push(struct sw_nfstrace *t, int j, struct sw_nfsev e)
{
	if (t->r[j].n == t->r[j].cap) {
		size_t nc = t->r[j].cap ? t->r[j].cap * 2 : 1024;
		struct sw_nfsev *v = realloc(t->r[j].ev, nc * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->r[j].ev = v;
		t->r[j].cap = nc;
	}
	t->r[j].ev[t->r[j].n++] = e;
	return 0;
}

/* "SECONDS.MICROS" just before p (the field before ": event:"), as ns */
static int stamp_before(const char *line, const char *p, int64_t *ns)
{
	const char *e = p, *b;
	while (e > line && e[-1] == ' ')
		e--;
	b = e;
	while (b > line && b[-1] != ' ')
		b--;
	long long s = 0, frac = 0;
	int nd = 0;
	const char *c = b;
	if (c == e || *c < '0' || *c > '9')
		return -1;
	while (c < e && *c >= '0' && *c <= '9')
		s = s * 10 + (*c++ - '0');
	if (c < e && *c == '.')
		for (c++; c < e && *c >= '0' && *c <= '9' && nd < 9; nd++)
			frac = frac * 10 + (*c++ - '0');
	if (c != e || nd == 0)
		return -1;
	while (nd++ < 9)
		frac *= 10;
	*ns = (int64_t)s * 1000000000 + frac;
	return 0;
}

static int header(struct sw_nfstrace *t, const char *line, uint64_t ln,
		  char *err, int errlen)
{
	char clk[32];
	int j;
	unsigned ma, mi;
	if (sscanf(line, "# trace_clock: %31s", clk) == 1) {
		if (strcmp(clk, "mono") != 0) {
			snprintf(err, errlen,
				 "line %" PRIu64 ": expected trace_clock mono (the readers' CLOCK_MONOTONIC), saw '%s'",
				 ln, clk);
			return -EINVAL;
		}
	} else if (!strncmp(line, "# enabled: nfs:", 15)) {
		t->enabled++;
	} else if (!strncmp(line, "# pid:", 6)) {
		int pid;
		if (sscanf(line, "# pid: %d %d", &j, &pid) != 2 || j < 0 ||
		    j >= SW_NFSTRACE_READERS || pid <= 0) {
			snprintf(err, errlen,
				 "line %" PRIu64 ": expected '# pid: J PID' with 0 <= J < %d, saw '%.60s'",
				 ln, SW_NFSTRACE_READERS, line);
			return -EINVAL;
		}
		t->r[j].pid = pid;
	} else if (!strncmp(line, "# dev:", 6)) {
		if (sscanf(line, "# dev: %d %u:%u", &j, &ma, &mi) != 3 || j < 0 ||
		    j >= SW_NFSTRACE_READERS) {
			snprintf(err, errlen,
				 "line %" PRIu64 ": expected '# dev: J MAJOR:MINOR' with 0 <= J < %d, saw '%.60s'",
				 ln, SW_NFSTRACE_READERS, line);
			return -EINVAL;
		}
		t->r[j].known = 1;
		t->r[j].major = ma;
		t->r[j].minor = mi;
	}
	return 0;
}

/* "comm-PID [cpu]": the task's pid, 0 if the line has none */
static int line_pid(const char *line)
{
	const char *b = strstr(line, " [");
	if (!b)
		return 0;
	while (b > line && b[-1] == ' ') /* ftrace pads the task field */
		b--;
	const char *d = b;
	while (d > line && d[-1] >= '0' && d[-1] <= '9')
		d--;
	return d > line && d[-1] == '-' ? atoi(d) : 0;
}

static int reader_of_pid(const struct sw_nfstrace *t, int pid)
{
	for (int j = 0; pid > 0 && j < SW_NFSTRACE_READERS; j++)
		if (t->r[j].pid == pid)
			return j;
	return -1;
}

/* a kprobe line: remember it for its task's next tracepoint; a check is
 * an event of the reader whose process it ran in */
static int kprobe_line(struct sw_nfstrace *t, const char *line, uint64_t ln,
		       char *err, int errlen)
{
	for (size_t k = 0; k < sizeof(kprobes) / sizeof(kprobes[0]); k++) {
		char pat[64];
		snprintf(pat, sizeof(pat), ": %s: ", kprobes[k].name);
		const char *p = strstr(line, pat), *jf;
		if (!p)
			continue;
		struct sw_nfsev e = { .kind = kprobes[k].kind, .offset = -1 };
		long long jv;
		if (stamp_before(line, p, &e.t_mono_ns) || !(jf = strstr(p, " j=")) ||
		    sscanf(jf, " j=%lld", &jv) != 1) {
			snprintf(err, errlen,
				 "line %" PRIu64 ": expected 'SECONDS.MICROS: %s: (...) j=JIFFIES', saw '%.80s'",
				 ln, kprobes[k].name, line);
			return -EINVAL;
		}
		e.j = jv;
		t->jlines++;
		int pid = line_pid(line), slot = pid % 64;
		if (pid <= 0)
			return 0;
		if (e.kind == SW_NFSEV_UPDATE) {
			/* "now" of the refresh its task just traced */
			if (t->pushed[slot].pid == pid && t->pushed[slot].kind == SW_NFSEV_REFRESH &&
			    e.t_mono_ns >= t->pushed[slot].t &&
			    e.t_mono_ns - t->pushed[slot].t <= KPROBE_GAP_NS)
				t->r[t->pushed[slot].r].ev[t->pushed[slot].i].j = e.j;
			if (t->pushed[slot].kind == SW_NFSEV_REFRESH)
				t->pushed[slot].pid = 0;
			return 0;
		}
		if (e.kind == SW_NFSEV_GA_INIT) {
			/* the jiffy the GETATTR its task just traced set its
			 * fattr up in: nfs_fattr_init's time_start becomes
			 * read_cache_jiffies (nfs_update_inode).  The last
			 * such line before the reply's refresh wins:
			 * __nfs_revalidate_inode's allocation inits the fattr
			 * first, _nfs4_proc_getattr again, each retry again.
			 * Traced: a tick between nfs4_proc_getattr's entry and
			 * the init; a v4.2 kept-open reader kept its cache one
			 * read longer than the entry's jiffy allows, and the
			 * replay ran a read ahead of the kernel for the rest
			 * of the run. */
			if (t->pushed[slot].pid == pid &&
			    (t->pushed[slot].kind == SW_NFSEV_GA_SEND ||
			     t->pushed[slot].kind == SW_NFSEV_OPEN) &&
			    e.t_mono_ns >= t->pushed[slot].t)
				t->r[t->pushed[slot].r].ev[t->pushed[slot].i].j = e.j;
			else {
				/* none pending: perhaps a READ's, set up
				 * (nfs_pgio_rpcsetup) right before its
				 * nfs_initiate_read (below) */
				t->fattr[slot].pid = pid;
				t->fattr[slot].t = e.t_mono_ns;
				t->fattr[slot].j = e.j;
			}
			return 0;
		}
		/* A READ's fattr time_start, which a v3 READ's post-op
		 * attributes make read_cache_jiffies
		 * (nfs_check_inode_attributes), is the jiffy of the
		 * nfs_fattr_init just before its nfs_initiate_read, not
		 * nfs_initiate_read's own: traced, a tick between the two
		 * (..532, then ..533); the replay on the later jiffy kept a
		 * v3 kept-open reader's cache one read longer than the
		 * client, which revalidated exactly acregmin after ..532, and
		 * the two stayed apart for the run (3 of 24 revalidations). */
		if (e.kind == SW_NFSEV_RD_SEND && t->fattr[slot].pid == pid &&
		    e.t_mono_ns >= t->fattr[slot].t && e.t_mono_ns - t->fattr[slot].t <= KPROBE_GAP_NS)
			e.j = t->fattr[slot].j;
		if (t->fattr[slot].pid == pid)
			t->fattr[slot].pid = 0; /* only the kprobe right after it */
		if (t->pushed[slot].pid == pid && t->pushed[slot].kind == SW_NFSEV_REFRESH)
			t->pushed[slot].pid = 0; /* that refresh updated nothing */
		t->last[slot].pid = pid;
		t->last[slot].kind = e.kind;
		t->last[slot].t = e.t_mono_ns;
		t->last[slot].j = e.j;
		if (t->pushed[slot].pid == pid && t->pushed[slot].kind == SW_NFSEV_OPEN)
			t->pushed[slot].pid = 0; /* the OPEN's reply: its fattr is set */
		int r = e.kind == SW_NFSEV_CHECK || e.kind == SW_NFSEV_OPEN || e.kind == SW_NFSEV_FHGET
				? reader_of_pid(t, pid) : -1;
		if (r >= 0 && e.kind == SW_NFSEV_OPEN) {
			/* nfs4_opendata_alloc -> nfs4_init_opendata_res ->
			 * nfs_fattr_init: the OPEN's time_start, which
			 * nfs_fhget makes a new inode's read_cache_jiffies,
			 * is the jif_fattr after this (traced: the OPEN at
			 * jiffy ..4130, its fattr at ..4131, 0.4 ms later;
			 * the replay on the OPEN's jiffy revalidated a v4.2
			 * kept-open reader one read before the kernel for
			 * the whole run, 0 of 11 revalidations traced) */
			t->pushed[slot].pid = pid;
			t->pushed[slot].kind = SW_NFSEV_OPEN;
			t->pushed[slot].r = r;
			t->pushed[slot].i = t->r[r].n;
			t->pushed[slot].t = e.t_mono_ns;
		}
		return r >= 0 ? push(t, r, e) : 0;
	}
	return 1; /* not a kprobe line */
}

static int event_line(struct sw_nfstrace *t, const char *line, uint64_t ln,
		      char *err, int errlen)
{
	int kp = kprobe_line(t, line, ln, err, errlen);
	if (kp <= 0)
		return kp;
	for (size_t k = 0; k < sizeof(events) / sizeof(events[0]); k++) {
		char pat[64];
		snprintf(pat, sizeof(pat), ": %s: ", events[k].name);
		const char *p = strstr(line, pat);
		if (!p)
			continue;
		struct sw_nfsev e = { .kind = events[k].kind, .offset = -1, .j = SW_NFSEV_NOJ };
		unsigned ma, mi;
		unsigned long long fid;
		const char *f = strstr(p, "fileid=");
		if (stamp_before(line, p, &e.t_mono_ns) || !f ||
		    sscanf(f, "fileid=%x:%x:%llu", &ma, &mi, &fid) != 3) {
			snprintf(err, errlen,
				 "line %" PRIu64 ": expected 'SECONDS.MICROS: %s: ... fileid=MAJ:MIN:ID', saw '%.80s'",
				 ln, events[k].name, line);
			return -EINVAL;
		}
		const char *o = strstr(p, " offset=");
		long long off;
		if (o && sscanf(o, " offset=%lld", &off) == 1)
			e.offset = off;
		t->lines++;
		if (e.t_mono_ns > t->t_last_mono_ns)
			t->t_last_mono_ns = e.t_mono_ns;
		/* the jiffies its task's kprobe read right before it */
		int pid = line_pid(line), slot = pid > 0 ? pid % 64 : 0;
		if (pid > 0 && t->last[slot].pid == pid && t->last[slot].kind == e.kind &&
		    e.t_mono_ns - t->last[slot].t <= KPROBE_GAP_NS && e.t_mono_ns >= t->last[slot].t) {
			e.j = t->last[slot].j;
			t->last[slot].pid = 0; /* used */
		}
		for (int j = 0; j < SW_NFSTRACE_READERS; j++)
			if (t->r[j].known && t->r[j].major == ma && t->r[j].minor == mi) {
				if (pid > 0 && (e.kind == SW_NFSEV_REFRESH ||
						e.kind == SW_NFSEV_GA_SEND)) {
					t->pushed[slot].pid = pid;
					t->pushed[slot].kind = e.kind;
					t->pushed[slot].r = j;
					t->pushed[slot].i = t->r[j].n;
					t->pushed[slot].t = e.t_mono_ns;
				}
				return push(t, j, e);
			}
		return 0; /* no reader's mount (the dev lines come first) */
	}
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct sw_nfsev *x = a, *y = b;
	return (x->t_mono_ns > y->t_mono_ns) - (x->t_mono_ns < y->t_mono_ns);
}

int sw_nfstrace_load(const char *path, struct sw_nfstrace *t, char *err, int errlen)
{
	memset(t, 0, sizeof(*t));
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return errno == ENOENT ? -ENOENT : -EINVAL;
	}
	char line[1024];
	uint64_t ln = 0;
	int rc = 0;
	while (!rc && fgets(line, sizeof(line), f)) {
		ln++;
		if (!strchr(line, '\n') && !feof(f)) { /* a longer line: skip */
			int c;
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
		}
		rc = line[0] == '#' ? header(t, line, ln, err, errlen)
				    : event_line(t, line, ln, err, errlen);
	}
	fclose(f);
	if (rc)
		return rc;
	/* one CPU writes them in order; several interleave: sort */
	for (int j = 0; j < SW_NFSTRACE_READERS; j++)
		if (t->r[j].n)
			qsort(t->r[j].ev, t->r[j].n, sizeof(*t->r[j].ev), by_time);
	return 0;
}

void sw_nfstrace_free(struct sw_nfstrace *t)
{
	for (int j = 0; j < SW_NFSTRACE_READERS; j++)
		free(t->r[j].ev);
	memset(t, 0, sizeof(*t));
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int64_t grid_count(int64_t t, int64_t tick, int64_t phase)
{
	int64_t d = t - phase, q = d / tick;
	return (d % tick != 0 && d < 0) ? q - 1 : q;
}

uint64_t sw_nfstrace_set_grid(struct sw_nfstrace *t, int64_t tick_ns, int64_t phase_ns)
{
	size_t n = 0, k = 0;
	t->tick_ns = 0;
	if (tick_ns <= 0)
		return 0;
	for (int j = 0; j < SW_NFSTRACE_READERS; j++)
		for (size_t i = 0; i < t->r[j].n; i++)
			n += t->r[j].ev[i].j != SW_NFSEV_NOJ;
	int64_t *d = n ? malloc(n * sizeof(*d)) : NULL;
	if (!d)
		return 0;
	for (int j = 0; j < SW_NFSTRACE_READERS; j++)
		for (size_t i = 0; i < t->r[j].n; i++)
			if (t->r[j].ev[i].j != SW_NFSEV_NOJ)
				d[k++] = t->r[j].ev[i].j - grid_count(t->r[j].ev[i].t_mono_ns, tick_ns, phase_ns);
	qsort(d, n, sizeof(*d), cmp_i64);
	/* the most common offset: jiffies advance on the grid, a sample a
	 * few µs after a grid point may still read the old count */
	size_t best = 0, run = 0;
	int64_t mode = d[0];
	for (size_t i = 0; i < n; i++) {
		run = i && d[i] == d[i - 1] ? run + 1 : 1;
		if (run > best) {
			best = run;
			mode = d[i];
		}
	}
	t->tick_ns = tick_ns;
	t->phase_ns = ((phase_ns % tick_ns) + tick_ns) % tick_ns;
	t->j_off = mode;
	/* How late this guest handles a tick: a sample just after a grid
	 * point may still read the old count (TCG: 0.1-0.2 ms).  Over the
	 * samples in the first half of their jiffy, the distance from the
	 * grid point that best splits those still behind (-1) from those
	 * that are not: events with no jiffies of their own take the old
	 * count when closer to their grid point than that. */
	k = 0;
	for (int j = 0; j < SW_NFSTRACE_READERS; j++)
		for (size_t i = 0; i < t->r[j].n; i++) {
			const struct sw_nfsev *e = &t->r[j].ev[i];
			if (e->j == SW_NFSEV_NOJ)
				continue;
			int64_t g = grid_count(e->t_mono_ns, tick_ns, phase_ns);
			int64_t dist = e->t_mono_ns - (t->phase_ns + g * tick_ns);
			if (dist < tick_ns / 2 && (e->j == g + mode || e->j == g + mode - 1))
				/* sign: behind; magnitude: distance + 1 (never 0) */
				d[k++] = e->j == g + mode - 1 ? -(dist + 1) : dist + 1;
		}
	int64_t *a = d;
	size_t na = k;
	/* sort by distance, then sweep: errors = behind at or past the
	 * threshold + caught up before it */
	for (size_t i = 0; i < na; i++)
		a[i] = a[i] < 0 ? -a[i] * 2 + 1 : a[i] * 2; /* distance*2 + behind */
	qsort(a, na, sizeof(*a), cmp_i64);
	size_t behind_total = 0, err, best_err, caught = 0, behind = 0;
	for (size_t i = 0; i < na; i++)
		behind_total += a[i] & 1;
	best_err = behind_total; /* threshold 0: every sample caught up */
	t->lag_ns = 0;
	for (size_t i = 0; i < na; i++) {
		behind += a[i] & 1;
		caught += !(a[i] & 1);
		err = caught + (behind_total - behind);
		if (err < best_err && (i + 1 == na || (a[i + 1] >> 1) != (a[i] >> 1))) {
			best_err = err;
			t->lag_ns = a[i] >> 1; /* its distance + 1: up to it, behind */
		}
	}
	free(d);
	return (uint64_t)(n - best);
}

/* an event's time as the replay wants it: the middle of the jiffy its
 * kprobe read (on the grid), else its own time */
static int64_t when(const struct sw_nfstrace *t, const struct sw_nfsev *e)
{
	if (!t->tick_ns)
		return e->t_mono_ns;
	if (e->j == SW_NFSEV_NOJ) {
		/* no kprobe of its own (nfs_refresh_inode's calls inside
		 * inode.c are inlined: a GETATTR's reply): its grid jiffy,
		 * the one before while this guest is still behind */
		int64_t g = grid_count(e->t_mono_ns, t->tick_ns, t->phase_ns);
		if (e->t_mono_ns - (t->phase_ns + g * t->tick_ns) < t->lag_ns)
			g--;
		return t->phase_ns + g * t->tick_ns + t->tick_ns / 2;
	}
	return t->phase_ns + (e->j - t->j_off) * t->tick_ns + t->tick_ns / 2;
}

/* ftrace prints µs, the reader's clock_gettime ns: an event inside the
 * read can print up to 1 µs before its start */
#define SLACK_NS 1000

int sw_nfstrace_attach(const struct sw_nfstrace *t, int j, struct sw_read_time *q)
{
	q->ga_send_mono_ns = q->ga_reply_mono_ns = 0;
	q->rd_send_mono_ns = q->rd_reply_mono_ns = 0;
	q->chk_mono_ns = q->op_send_mono_ns = q->op_reply_mono_ns = 0;
	q->ga_in_open = 0;
	q->ac_reply_mono_ns = q->op_refresh_mono_ns = 0;
	q->ga_send_ev_mono_ns = q->ga_reply_ev_mono_ns = q->rd_send_ev_mono_ns = 0;
	q->rd_done_ev_mono_ns = q->op_send_ev_mono_ns = q->op_reply_ev_mono_ns = 0;
	if (!t || j < 0 || j >= SW_NFSTRACE_READERS || !t->r[j].n || q->tb_mono_ns <= 0)
		return 0;
	const struct sw_nfsev *v = t->r[j].ev;
	size_t lo = 0, hi = t->r[j].n;
	int64_t a = q->tb_mono_ns - SLACK_NS, b = q->ta_mono_ns + SLACK_NS;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].t_mono_ns < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t ga_reply_i = SIZE_MAX, chk_i = SIZE_MAX, ga_i = SIZE_MAX;
	for (size_t i = lo; i < t->r[j].n && v[i].t_mono_ns <= b; i++) {
		const struct sw_nfsev *e = &v[i];
		if (e->kind == SW_NFSEV_RD_DONE && q->rd_send_ev_mono_ns && !q->rd_done_ev_mono_ns)
			q->rd_done_ev_mono_ns = e->t_mono_ns; /* the first READ's reply */
		if (e->kind == SW_NFSEV_OPEN) {
			/* an OPEN before the read's check: the open's */
			if (!q->chk_mono_ns && t->tick_ns) {
				q->op_send_mono_ns = when(t, e);
				q->op_send_ev_mono_ns = e->t_mono_ns;
			}
		} else if (q->op_send_mono_ns && !q->chk_mono_ns &&
			   (e->kind == SW_NFSEV_FHGET || e->kind == SW_NFSEV_REFRESH)) {
			/* after the open's OPEN: nfs_fhget of a new inode
			 * stamps attrtimeo_timestamp with its own jiffy; an
			 * inode that existed is refreshed instead
			 * (nfs_update_inode: a close-to-open v4 reader's
			 * revalidation at every open) */
			q->op_reply_mono_ns = e->kind == SW_NFSEV_FHGET ? when(t, e) : 0;
			q->op_refresh_mono_ns = e->kind == SW_NFSEV_REFRESH ? when(t, e) : 0;
			q->op_reply_ev_mono_ns = e->t_mono_ns;
		} else if (e->kind == SW_NFSEV_CHECK) {
			/* the read's attribute check: its jiffy, if read */
			if (!q->chk_mono_ns && e->j != SW_NFSEV_NOJ && t->tick_ns) {
				q->chk_mono_ns = when(t, e);
				chk_i = i;
			}
		} else if (e->kind == SW_NFSEV_GA_SEND && !q->ga_send_mono_ns) {
			q->ga_send_mono_ns = when(t, e); /* the read's first */
			q->ga_send_ev_mono_ns = e->t_mono_ns;
			ga_i = i;
			/* before the read's check: the open's permission
			 * check revalidated (nfs_access_get_cached) */
			q->ga_in_open = chk_i == SIZE_MAX;
		} else if (e->kind == SW_NFSEV_REFRESH && q->ga_send_mono_ns &&
			   !q->ga_reply_mono_ns && !q->rd_send_mono_ns) {
			q->ga_reply_mono_ns = when(t, e);
			q->ga_reply_ev_mono_ns = e->t_mono_ns;
			ga_reply_i = i;
		} else if (e->kind == SW_NFSEV_REFRESH && chk_i == SIZE_MAX &&
			   !q->ga_send_mono_ns && !q->op_send_mono_ns &&
			   !q->ac_reply_mono_ns) {
			/* a refresh in the open with no RPC traced before
			 * it: v3's ACCESS (nfs3_proc_access ->
			 * nfs_refresh_inode; its fattr comes from
			 * nfs_alloc_fattr, whose nfs_fattr_init is inlined
			 * and not probed) */
			q->ac_reply_mono_ns = when(t, e);
		} else if (e->kind == SW_NFSEV_RD_SEND && !q->rd_send_mono_ns) {
			q->rd_send_mono_ns = when(t, e);
			q->rd_send_ev_mono_ns = e->t_mono_ns;
		} else if (e->kind == SW_NFSEV_RD_DONE && i > lo && i - 1 != ga_reply_i &&
			   v[i - 1].kind == SW_NFSEV_REFRESH) {
			/* nfs_readpage_done(): ->read_done (v3: nfs3_read_done
			 * -> nfs_refresh_inode, the post-op attributes) runs
			 * before the event, so a READ's refresh is the event
			 * right before its done; the last one applied wins,
			 * with the send of that READ (same offset) */
			q->rd_reply_mono_ns = when(t, &v[i - 1]);
			for (size_t k = i; k-- > lo;)
				if (v[k].kind == SW_NFSEV_RD_SEND && v[k].offset == e->offset) {
					q->rd_send_mono_ns = when(t, &v[k]);
					break;
				}
		}
	}
	/* The check's kprobe fires at nfs_revalidate_mapping()'s entry, the
	 * comparison (nfs_attribute_cache_expired: jiffies against
	 * read_cache_jiffies + attrtimeo) a little later, and the GETATTR's
	 * kprobe (__nfs_revalidate_inode) right after it when the cache had
	 * expired.  A tick between the two kprobes came before the
	 * comparison if the kernel then revalidated: the comparison's jiffy
	 * is the GETATTR's (traced: check at jiffy ..5503, GETATTR at ..5504,
	 * 256 us apart, exactly acregmin after read_cache_jiffies ..4754; the
	 * replay on the check's jiffy kept the cache and revalidated every
	 * read after that 100 ms late, p50 4.09 s against the client's 3.31 s) */
	if (chk_i != SIZE_MAX && ga_i != SIZE_MAX && ga_i > chk_i &&
	    q->ga_send_mono_ns > q->chk_mono_ns)
		q->chk_mono_ns = q->ga_send_mono_ns;
	return q->ga_send_mono_ns || q->rd_send_mono_ns || q->chk_mono_ns;
}
