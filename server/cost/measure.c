/* SPDX-License-Identifier: MIT */
/* measure.c - one policy x filesystem x thread count (measure.h). */
#include "measure.h"
#include "clientpoll.h"
#include "pressure.h"
#include "tracefs.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* What each filesystem's journal or transactions are counted by. */
struct fs_events {
	const char *label;  /* cfg->fs */
	unsigned long magic; /* statfs f_type */
	const char *handle, *hstats, *commit; /* group/event, NULL: none */
	int dev_filter;     /* the events carry the fs's dev_t as "dev" */
	const char *why;    /* why a NULL event is not measured */
};

static const struct fs_events fs_table[] = {
	{ "ext4", 0xEF53, "jbd2/jbd2_handle_start", "jbd2/jbd2_handle_stats",
	  "jbd2/jbd2_run_stats", 1, NULL },
	{ "ext4-lazytime", 0xEF53, "jbd2/jbd2_handle_start",
	  "jbd2/jbd2_handle_stats", "jbd2/jbd2_run_stats", 1, NULL },
	/* xfs: its commits are the log's writes: an iclog (in-core log
	 * buffer) written to the log device, xlog_write_iclog(), which a
	 * log force (fsync, msync MS_SYNC) or a full iclog makes */
	{ "xfs", 0x58465342, "xfs/xfs_trans_alloc", NULL, "xfs/xlog_iclog_write", 1,
	  "xfs: transactions (xfs_trans_alloc) and log writes (xlog_iclog_write) "
	  "counted; a transaction's hold time has no event read here" },
	{ "btrfs", 0x9123683E, NULL, NULL, "btrfs/btrfs_transaction_commit", 0,
	  "btrfs: a transaction join has no tracepoint; commits counted" },
	{ "tmpfs", 0x01021994, NULL, NULL, NULL, 0, "tmpfs has no journal" },
};

#define DIRTY_EVENT "writeback/writeback_dirty_inode"
#define TRACE_KIB 16384 /* per CPU: ~150k events, no overrun at 64 x 4096 */

static const struct fs_events *fs_lookup(const char *label)
{
	size_t i;

	for (i = 0; i < sizeof(fs_table) / sizeof(fs_table[0]); i++)
		if (!strcmp(fs_table[i].label, label))
			return &fs_table[i];
	return NULL;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The latency clock: the cycle counter where there is one. */
#if defined(__x86_64__) || defined(__i386__)
#define CLOCK_NAME "tsc"
static inline uint64_t cycles(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}
#else
#define CLOCK_NAME "mono"
static inline uint64_t cycles(void)
{
	return (uint64_t)mono_ns();
}
#endif

struct run;

struct worker {
	struct run *run;
	int index;
	uint64_t *lat_cyc;   /* per store of this round */
	long *minflt;        /* per store: minor faults it took */
	long long updates;   /* statx changes this thread saw */
	pthread_t tid;
};

struct run {
	const struct sw_cost_cfg *cfg;
	volatile char *map;
	long page;
	int64_t tick_ns;
	int fd;
	pthread_barrier_t start;
	pthread_mutex_t lock;   /* the last statx stamp */
	struct timespec last_m, last_c;
	int64_t t_start_mono_ns, t_end_mono_ns;
	char troot[256];        /* this measurement's tracefs instance */
	pid_t leave_out;        /* the pressure writer's thread: not traced */
	struct worker w[SW_COST_MAX_THREADS];
};

static long thread_minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_minflt;
}

/* One statx of the file; counts a change against the last one seen. */
static int statx_seen(struct run *r, long long *updates)
{
	struct statx stx;
	int moved;

	if (statx(r->fd, "", AT_EMPTY_PATH, STATX_MTIME | STATX_CTIME, &stx))
		return -1;
	pthread_mutex_lock(&r->lock);
	moved = stx.stx_mtime.tv_sec != r->last_m.tv_sec ||
		stx.stx_mtime.tv_nsec != (uint32_t)r->last_m.tv_nsec ||
		stx.stx_ctime.tv_sec != r->last_c.tv_sec ||
		stx.stx_ctime.tv_nsec != (uint32_t)r->last_c.tv_nsec;
	r->last_m.tv_sec = stx.stx_mtime.tv_sec;
	r->last_m.tv_nsec = stx.stx_mtime.tv_nsec;
	r->last_c.tv_sec = stx.stx_ctime.tv_sec;
	r->last_c.tv_nsec = stx.stx_ctime.tv_nsec;
	pthread_mutex_unlock(&r->lock);
	*updates += moved;
	return 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct run *r = w->run;
	long m = r->cfg->pages, i;
	volatile char *base = r->map + (size_t)w->index * m * r->page;
	struct timespec gap = { 0, r->tick_ns + r->tick_ns / 2 };

	pthread_barrier_wait(&r->start);
	for (i = 0; i < m; i++) {
		long f0, f1;
		uint64_t c0, c1;

		if (r->cfg->spaced)
			nanosleep(&gap, NULL);
		f0 = thread_minflt();
		c0 = cycles();
		base[i * r->page] = (char)(i + 1);
		c1 = cycles();
		f1 = thread_minflt();
		w->lat_cyc[i] = c1 - c0;
		w->minflt[i] = f1 - f0;
		if (r->cfg->query_statx)
			statx_seen(r, &w->updates);
	}
	return NULL;
}

/* What the rounds pool. */
struct acc {
	uint64_t *lat_cyc;        /* one-fault stores, all rounds */
	long long n_lat;
	long long *hold;          /* handle hold times, ns of the trace clock */
	size_t n_hold, cap_hold;
	long long handles[2], commits[2], dirtied[2], updates[2];
};

#define OPEN_MAX 64 /* tasks holding a handle at once */

/* Events of one round's trace, by phase (0: the stores, 1: the flush). */
struct scan {
	const char *handle, *hstats, *commit; /* bare names, NULL: none */
	struct acc *acc;
	/* each task's handle started and not yet stopped: a task's handles
	 * do not overlap (a nested start takes no new handle, fires no event) */
	struct { long pid; int64_t t_start_ns; } open[OPEN_MAX];
	int n_open;
};

static int hold_push(struct acc *a, long long v)
{
	if (a->n_hold == a->cap_hold) {
		size_t cap = a->cap_hold ? 2 * a->cap_hold : 1024;
		long long *h = realloc(a->hold, cap * sizeof(*h));

		if (!h)
			return 1;
		a->hold = h;
		a->cap_hold = cap;
	}
	a->hold[a->n_hold++] = v;
	return 0;
}

/* A handle started (start) or stopped by l's task: its hold time, from
 * jbd2_handle_start (after any wait to start it) to jbd2_handle_stats. */
static int hold_event(struct scan *s, const struct sw_tfs_line *l, int start)
{
	int64_t t_start_ns;
	int i;

	for (i = 0; i < s->n_open && s->open[i].pid != l->pid; i++)
		;
	if (start) {
		if (i == s->n_open && s->n_open == OPEN_MAX)
			return 0; /* more tasks than slots: this one unpaired */
		s->open[i].pid = l->pid;
		s->open[i].t_start_ns = l->t_ns;
		s->n_open += i == s->n_open;
		return 0;
	}
	if (i == s->n_open)
		return 0; /* started before the trace was on */
	t_start_ns = s->open[i].t_start_ns;
	s->open[i] = s->open[--s->n_open];
	return hold_push(s->acc, l->t_ns - t_start_ns);
}

static const char *bare(const char *event)
{
	const char *s = event ? strchr(event, '/') : NULL;

	return s ? s + 1 : event;
}

static int scan_line(const struct sw_tfs_line *l, void *arg)
{
	struct scan *s = arg;
	struct acc *a = s->acc;
	int p = l->phase >= 2; /* markers: 1 "stores", 2 "flush" */

	if (s->handle && !strcmp(l->event, s->handle)) {
		a->handles[p]++;
		return s->hstats ? hold_event(s, l, 1) : 0;
	}
	if (s->commit && !strcmp(l->event, s->commit))
		a->commits[p]++;
	else if (!strcmp(l->event, bare(DIRTY_EVENT)))
		a->dirtied[p]++;
	else if (s->hstats && !strcmp(l->event, s->hstats))
		return hold_event(s, l, 0);
	return 0;
}

/* The events of fe this kernel has; sets each count's measured/why. */
static void events_known(const char *root, const struct fs_events *fe,
			 struct sw_cost_result *res)
{
	static char why_h[160], why_c[160], why_d[160];
	struct { struct sw_cost_count *c; const char *ev; char *buf; } e[] = {
		{ &res->handles, fe->handle, why_h },
		{ &res->commits, fe->commit, why_c },
		{ &res->dirtied, DIRTY_EVENT, why_d },
	};
	size_t i;

	for (i = 0; i < 3; i++) {
		e[i].c->event = e[i].ev;
		e[i].c->measured = e[i].ev && sw_tfs_has(root, e[i].ev);
		if (!e[i].ev)
			e[i].c->why = fe->why;
		else if (!e[i].c->measured) {
			snprintf(e[i].buf, 160, "no event %s in this kernel's tracefs",
				 e[i].ev);
			e[i].c->why = e[i].buf;
		}
	}
	res->handle_hold_measured = fe->hstats && sw_tfs_has(root, fe->hstats);
	res->hold_why = !fe->hstats ? fe->why : "no event jbd2/jbd2_handle_stats in this kernel";
}

/* Enable (on) or disable the round's events. */
static int trace_events(const char *root, const struct fs_events *fe,
			const struct sw_cost_result *res, dev_t dev, ino_t ino,
			pid_t leave_out, int on, char *err, size_t errlen)
{
	char fdev[96], fino[64];
	unsigned int kdev = (major(dev) << 20) | minor(dev); /* the kernel's dev_t */

	/* the pressure writer's own handles are not the stores' */
	if (leave_out)
		snprintf(fdev, sizeof(fdev), "dev == %u && common_pid != %d", kdev,
			 (int)leave_out);
	else
		snprintf(fdev, sizeof(fdev), "dev == %u", kdev);
	snprintf(fino, sizeof(fino), "ino == %llu", (unsigned long long)ino);
	if (res->handles.measured &&
	    sw_tfs_event(root, fe->handle, on, fe->dev_filter ? fdev : NULL, err, errlen))
		return -1;
	if (res->handle_hold_measured &&
	    sw_tfs_event(root, fe->hstats, on, fe->dev_filter ? fdev : NULL, err, errlen))
		return -1;
	if (res->commits.measured &&
	    sw_tfs_event(root, fe->commit, on, fe->dev_filter ? fdev : NULL, err, errlen))
		return -1;
	if (res->dirtied.measured && sw_tfs_event(root, DIRTY_EVENT, on, fino, err, errlen))
		return -1;
	return 0;
}

/* T threads store to their pages; the wall time into r. */
static int run_stores(struct run *r, char *err, size_t errlen)
{
	int t, n = r->cfg->threads, rc;

	if (pthread_barrier_init(&r->start, NULL, (unsigned)n + 1)) {
		snprintf(err, errlen, "pthread_barrier_init failed");
		return -1;
	}
	for (t = 0; t < n; t++) {
		rc = pthread_create(&r->w[t].tid, NULL, worker_main, &r->w[t]);
		if (rc) {
			snprintf(err, errlen, "pthread_create: %s", strerror(rc));
			/* the barrier never opens: the program ends with it */
			return -1;
		}
	}
	r->t_start_mono_ns = mono_ns();
	pthread_barrier_wait(&r->start);
	for (t = 0; t < n; t++)
		pthread_join(r->w[t].tid, NULL);
	r->t_end_mono_ns = mono_ns();
	pthread_barrier_destroy(&r->start);
	return 0;
}

/* The file: T x M pages written and synced, so no store allocates. */
static int make_file(struct run *r, char *path, size_t len, char *err, size_t errlen)
{
	size_t size = (size_t)r->cfg->threads * r->cfg->pages * r->page;
	char *buf = malloc(size);
	size_t off;
	int fd;

	snprintf(path, len, "%s/stalewin-cost.dat", r->cfg->dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || !buf) {
		snprintf(err, errlen, "create %s: %s", path, strerror(errno));
		free(buf);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	memset(buf, 0x5a, size);
	/* a page a write: the page cache keeps order-0 folios, so each first
	 * store is its own fault (a large folio is mapped whole by one) */
	for (off = 0; off < size; off += (size_t)r->page)
		if (pwrite(fd, buf + off, (size_t)r->page, (off_t)off) != r->page)
			break;
	if (off < size || fsync(fd)) {
		snprintf(err, errlen, "fill %s (%zu bytes): %s", path, size, strerror(errno));
		free(buf);
		close(fd);
		return -1;
	}
	free(buf);
	sync();
	r->fd = fd;
	return 0;
}

/*
 * One round into the pool.  A traced round gives the counts (the kernel's
 * work, the statx updates); an untraced one the latencies, the faults and
 * the throughput, so the events' recording is not in the figures it
 * times.  Without tracing, the one untraced round gives both.
 */
static void pool_round(struct run *r, struct acc *a, struct sw_cost_result *res,
		       int traced)
{
	long long n = (long long)r->cfg->threads * r->cfg->pages;
	int counts = traced || !r->cfg->trace;
	int t;
	long i;

	for (t = 0; t < r->cfg->threads; t++) {
		struct worker *w = &r->w[t];

		for (i = 0; i < r->cfg->pages; i++) {
			if (traced) {
				res->faults_traced += w->minflt[i];
				continue;
			}
			res->faults += w->minflt[i];
			if (w->minflt[i] == 1)
				a->lat_cyc[a->n_lat++] = w->lat_cyc[i];
		}
		if (counts)
			a->updates[0] += w->updates;
		w->updates = 0;
	}
	if (counts)
		res->counted_stores += n;
	if (!traced) {
		res->stores += n;
		res->wall_s += (double)(r->t_end_mono_ns - r->t_start_mono_ns) / 1e9;
	}
}

/* One round: fresh mapping, stores, msync(MS_SYNC), the trace read. */
static int one_round(struct run *r, const struct fs_events *fe, struct acc *a,
		     struct sw_cost_result *res, int tr, char *err, size_t errlen)
{
	size_t size = (size_t)r->cfg->threads * r->cfg->pages * r->page;
	struct scan sc = { .handle = bare(fe->handle), .hstats = bare(fe->hstats),
			   .commit = bare(fe->commit), .acc = a };
	struct stat st;
	long long flush_updates = 0;
	void *m;

	if (fstat(r->fd, &st) ||
	    (m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0)) ==
		    MAP_FAILED) {
		snprintf(err, errlen, "mmap %zu bytes: %s", size, strerror(errno));
		return -1;
	}
	r->map = m;
	if (r->cfg->query_statx && statx_seen(r, &flush_updates))
		goto fail_errno;
	flush_updates = 0; /* the baseline is no update */
	if (tr && (trace_events(r->troot, fe, res, st.st_dev, st.st_ino, r->leave_out, 1,
				err, errlen) ||
		   sw_tfs_clear(r->troot, 0, err, errlen) ||
		   sw_tfs_marker(r->troot, "stalewin-cost stores", err, errlen)))
		goto fail;
	if (run_stores(r, err, errlen))
		goto fail;
	if (tr && sw_tfs_marker(r->troot, "stalewin-cost flush", err, errlen))
		goto fail;
	if (msync(m, size, MS_SYNC))
		goto fail_errno;
	if (r->cfg->query_statx && statx_seen(r, &flush_updates))
		goto fail_errno;
	if (tr || !r->cfg->trace)
		a->updates[1] += flush_updates;
	if (tr && trace_events(r->troot, fe, res, st.st_dev, st.st_ino, 0, 0, err, errlen))
		goto fail;
	if (tr && sw_tfs_overrun(r->troot) != 0) {
		snprintf(err, errlen, "the trace buffer lost events (overrun %ld): "
			 "counts would be short", sw_tfs_overrun(r->troot));
		goto fail;
	}
	if (tr && sw_tfs_scan(r->troot, scan_line, &sc, err, errlen))
		goto fail;
	pool_round(r, a, res, tr);
	munmap(m, size);
	/* clean again, outside the trace: the next round faults anew */
	if (fsync(r->fd)) {
		snprintf(err, errlen, "fsync: %s", strerror(errno));
		return -1;
	}
	return 0;
fail_errno:
	snprintf(err, errlen, "msync/statx: %s", strerror(errno));
fail:
	munmap(m, size);
	return -1;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

static int cmp_ll(const void *x, const void *y)
{
	long long a = *(const long long *)x, b = *(const long long *)y;

	return (a > b) - (a < b);
}

/* nearest rank: the smallest value with at least q of the values at or
 * below it */
static size_t rank(size_t n, double q)
{
	size_t k = (size_t)(q * (double)n + 0.999999);

	return k == 0 ? 0 : (k > n ? n - 1 : k - 1);
}

/* Latency percentiles and the counts' totals from the pool. */
static void finish(struct acc *a, struct sw_cost_result *res, uint64_t dcyc,
		   int64_t dmono_ns)
{
	static const double q[5] = { 0.5, 0.9, 0.99, 0.999, 1.0 };
	struct sw_cost_count *c[4] = { &res->handles, &res->commits, &res->dirtied,
				       &res->updates };
	long long *src[4] = { a->handles, a->commits, a->dirtied, a->updates };
	int i;

	res->clock_khz = dmono_ns > 0 ? (double)dcyc / ((double)dmono_ns / 1e6) : 0;
	qsort(a->lat_cyc, (size_t)a->n_lat, sizeof(*a->lat_cyc), cmp_u64);
	for (i = 0; i < 5 && a->n_lat > 0 && res->clock_khz > 0; i++)
		res->fault_us[i] = (double)a->lat_cyc[rank((size_t)a->n_lat, q[i])] /
				   res->clock_khz * 1000.0;
	res->one_fault = a->n_lat;
	for (i = 0; i < 4; i++) {
		c[i]->stores_phase = src[i][0];
		c[i]->flush_phase = src[i][1];
	}
	if (a->n_hold > 0) {
		qsort(a->hold, a->n_hold, sizeof(*a->hold), cmp_ll);
		res->handle_hold_p99_us = (double)a->hold[rank(a->n_hold, 0.99)] / 1000.0;
	}
	res->pages_per_s = res->wall_s > 0 ? (double)res->stores / res->wall_s : 0;
}

/* cfg checked, the filesystem's type against cfg->fs: its events. */
static const struct fs_events *check_cfg(const struct sw_cost_cfg *cfg, char *err,
					 size_t errlen)
{
	const struct fs_events *fe = fs_lookup(cfg->fs);
	struct statfs sf;

	if (!fe) {
		snprintf(err, errlen, "--fs: expected ext4, ext4-lazytime, xfs, btrfs "
			 "or tmpfs, saw '%s'", cfg->fs);
		return NULL;
	}
	if (cfg->threads < 1 || cfg->threads > SW_COST_MAX_THREADS || cfg->pages < 1 ||
	    cfg->repeats < 1) {
		snprintf(err, errlen, "expected threads 1..%d, pages >= 1, repeats >= 1, "
			 "saw %d, %ld, %d", SW_COST_MAX_THREADS, cfg->threads,
			 cfg->pages, cfg->repeats);
		return NULL;
	}
	if (statfs(cfg->dir, &sf)) {
		snprintf(err, errlen, "statfs %s: %s", cfg->dir, strerror(errno));
		return NULL;
	}
	if ((unsigned long)sf.f_type != fe->magic) {
		snprintf(err, errlen, "%s: expected a %s filesystem (magic 0x%lx), "
			 "saw magic 0x%lx", cfg->dir, cfg->fs, fe->magic,
			 (unsigned long)sf.f_type);
		return NULL;
	}
	return fe;
}

static int alloc_run(struct run *r, struct acc *a, char *err, size_t errlen)
{
	long m = r->cfg->pages;
	int t;

	a->lat_cyc = calloc((size_t)r->cfg->threads * m * r->cfg->repeats,
			    sizeof(*a->lat_cyc));
	for (t = 0; t < r->cfg->threads; t++) {
		r->w[t].run = r;
		r->w[t].index = t;
		r->w[t].lat_cyc = calloc((size_t)m, sizeof(uint64_t));
		r->w[t].minflt = calloc((size_t)m, sizeof(long));
		if (!r->w[t].lat_cyc || !r->w[t].minflt)
			break;
		/* touched now: the stores' own bookkeeping takes no fault */
		memset(r->w[t].lat_cyc, 1, (size_t)m * sizeof(uint64_t));
		memset(r->w[t].minflt, 1, (size_t)m * sizeof(long));
	}
	if (!a->lat_cyc || t < r->cfg->threads) {
		snprintf(err, errlen, "out of memory for %d x %ld samples",
			 r->cfg->threads, m);
		return -1;
	}
	return 0;
}

static void free_run(struct run *r, struct acc *a)
{
	int t;

	for (t = 0; t < SW_COST_MAX_THREADS; t++) {
		free(r->w[t].lat_cyc);
		free(r->w[t].minflt);
	}
	free(a->lat_cyc);
	free(a->hold);
}

int sw_cost_measure(const struct sw_cost_cfg *cfg, struct sw_cost_result *res,
		    char *err, size_t errlen)
{
	static struct run r; /* 64 workers' state: not on the stack */
	static struct sw_cost_pressure pr;
	static struct sw_cost_poller po;
	const struct fs_events *fe = check_cfg(cfg, err, errlen);
	struct acc a = { 0 };
	struct timespec tick;
	struct utsname u;
	char path[4096], terr[256];
	uint64_t c0;
	int64_t t0;
	int i, rc = -1;

	memset(res, 0, sizeof(*res));
	memset(&r, 0, sizeof(r));
	if (!fe)
		return -1;
	r.cfg = cfg;
	r.page = sysconf(_SC_PAGESIZE);
	clock_getres(CLOCK_MONOTONIC_COARSE, &tick); /* one jiffy */
	r.tick_ns = (int64_t)tick.tv_sec * 1000000000 + tick.tv_nsec;
	res->tick_us = (double)r.tick_ns / 1000.0;
	res->clock = CLOCK_NAME;
	uname(&u);
	snprintf(res->kernel_release, sizeof(res->kernel_release), "%s", u.release);
	pthread_mutex_init(&r.lock, NULL);
	if (cfg->trace) {
		char name[64];

		snprintf(name, sizeof(name), "stalewin-cost-%ld", (long)getpid());
		if (sw_tfs_instance(name, r.troot, sizeof(r.troot), err, errlen) ||
		    sw_tfs_clock(r.troot, "mono", err, errlen))
			goto out;
	}
	events_known(r.troot, fe, res);
	res->updates.event = "statx";
	res->updates.measured = cfg->query_statx;
	res->updates.why = cfg->query && !strcmp(cfg->query, "nfs") ?
		"query nfs: the client's GETATTRs are not read as updates here" :
		"no query: a statx of the times marks the ctime queried "
		"(multigrain), which changes what is measured";
	if (!cfg->trace) {
		res->handles.measured = res->commits.measured = 0;
		res->dirtied.measured = res->handle_hold_measured = 0;
		res->handles.why = res->commits.why = res->dirtied.why = "tracing off";
		res->hold_why = "tracing off";
	}
	if (alloc_run(&r, &a, err, errlen) || make_file(&r, path, sizeof(path), err, errlen))
		goto out;
	if (cfg->trace && sw_tfs_clear(r.troot, TRACE_KIB, err, errlen))
		goto out;
	c0 = cycles();
	t0 = mono_ns();
	if (cfg->pressure) {
		if (sw_cost_pressure_start(&pr, cfg->dir, err, errlen))
			goto out;
		r.leave_out = pr.tid;
	}
	if ((cfg->poll && sw_cost_poller_start(&po, cfg->poll, 1000000, err, errlen)) ||
	    (cfg->client_ctl && sw_cost_client_begin(cfg->client_ctl, 180, err, errlen))) {
		if (cfg->pressure)
			sw_cost_pressure_stop(&pr);
		if (cfg->poll)
			sw_cost_poller_stop(&po);
		goto out;
	}
	for (i = 0; i < cfg->repeats; i++)
		if ((cfg->trace && one_round(&r, fe, &a, res, 1, err, errlen)) ||
		    one_round(&r, fe, &a, res, 0, err, errlen))
			break;
	if (cfg->pressure)
		res->pressure_fsyncs_per_s = sw_cost_pressure_stop(&pr);
	if (cfg->poll) {
		res->polls_per_s = sw_cost_poller_stop(&po);
		res->polls_found = po.found;
		res->polls = po.calls;
	}
	if (cfg->client_ctl) {
		struct sw_cost_client_stats cs;
		char cerr[512];

		if (sw_cost_client_end(cfg->client_ctl, 60, &cs, cerr, sizeof(cerr))) {
			if (i == cfg->repeats)
				snprintf(err, errlen, "%s", cerr);
			goto out;
		}
		res->polls_per_s = cs.polls_per_s;
		res->polls_found = cs.found;
		res->polls = cs.calls;
	}
	if (i < cfg->repeats)
		goto out;
	finish(&a, res, cycles() - c0, mono_ns() - t0);
	res->handle_holds = (long long)a.n_hold;
	rc = 0;
out:
	if (r.troot[0]) {
		trace_events(r.troot, fe, res, 0, 0, 0, 0, terr, sizeof(terr));
		sw_tfs_instance_free(r.troot);
	}
	if (r.fd > 0) {
		close(r.fd);
		unlink(path);
	}
	free_run(&r, &a);
	pthread_mutex_destroy(&r.lock);
	return rc;
}
