/* SPDX-License-Identifier: MIT */
/*
 * run.c - one writer run: validate the file, map it, self-check
 * the trap, run the workload with the policy and the writeback model, log
 * the ground truth, stop cleanly.  Setup and checks live in
 * setup.c; this file is the run loop and what each event logs.
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "swlog.h"
#include "swtime.h"
#include "writer_run.h"

static volatile sig_atomic_t g_stop; /* SIGINT/SIGTERM seen */

static void stop_handler(int sig)
{
	(void)sig;
	g_stop = 1;
}

int sw_run_install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = stop_handler; /* no SA_RESTART: sleeps return EINTR */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
		return -errno;
	return 0;
}

int sw_run_stopped(void)
{
	return g_stop;
}

/* Remember the first log failure; the loop stops on it. */
static void logged(struct sw_run *R, int rc)
{
	if (rc < 0 && !R->log_err) {
		R->log_err = rc;
		snprintf(R->fatal, sizeof(R->fatal), "writing the log %s failed: %s",
			 R->o->log, swlog_strerror(R->log));
	}
}

void sw_run_note(struct sw_run *R, enum sw_note_level lvl, const char *msg)
{
	logged(R, swlog_note(R->log, lvl, "%s", msg));
}

static void fail(struct sw_run *R, int err, const char *fmt, const char *what)
{
	if (!R->fatal[0]) {
		snprintf(R->fatal, sizeof(R->fatal), fmt, what, strerror(err));
		R->fatal_errno = err;
	}
}

/* futimens(fd, NULL) now, read back with fstat, log UPDATE. */
static void do_update(struct sw_run *R, uint32_t cause, uint64_t page)
{
	struct sw_rec_update u = { .page = page, .cause = cause };
	struct stat st;

	u.t_real_ns = sw_real_ns();
	u.t_mono_ns = sw_mono_ns();
	if (futimens(R->fd, NULL) != 0)
		fail(R, errno, "futimens on %s: %s", R->r.path);
	u.t_done_real_ns = sw_real_ns();
	u.cost_ns = sw_mono_ns() - u.t_mono_ns;
	if (fstat(R->fd, &st) != 0)
		fail(R, errno, "fstat on %s: %s", R->r.path);
	u.mtime_ns = sw_ts_ns(&st.st_mtim);
	u.ctime_ns = sw_ts_ns(&st.st_ctim);
	R->updates++;
	logged(R, swlog_append(R->log, SW_REC_UPDATE, &u, sizeof(u)));
}

/* Log a model decision: CLEAN when pages were write-protected or the inode
 * was flushed, then the update it asks for. */
static void apply(struct sw_run *R, const struct sw_decision *d,
		  int64_t t_real, int64_t t_mono, int64_t dur)
{
	if (d->cleaned || d->flushed) {
		struct sw_rec_clean c = {
			.t_real_ns = t_real,
			.t_mono_ns = t_mono,
			.dur_ns = dur,
			.pages = d->cleaned,
			.cause = d->cause,
		};
		logged(R, swlog_append(R->log, SW_REC_CLEAN, &c, sizeof(c)));
	}
	if (d->update)
		do_update(R, d->cause, SW_NO_PAGE);
}

/* one model event (model.h): the model's step under the mapping's lock,
 * then its decision applied */
typedef void (*model_step)(struct sw_model *m, int64_t t_mono_ns,
			   const struct sw_reprotect *rp, struct sw_decision *d);

static void model_tick(struct sw_model *m, int64_t t_mono_ns,
		       const struct sw_reprotect *rp, struct sw_decision *d)
{
	sw_model_tick(m, t_mono_ns, rp, d);
}

/* the model's step at t_model (its own time for the event: a flusher
 * step's scheduled time, a store's or sync's logged one), its decision
 * applied now */
static void model_event_at(struct sw_run *R, model_step step, int64_t t_model)
{
	struct sw_reprotect rp = sw_map_reprotect(&R->mp);
	struct sw_decision d;
	int64_t t_real = sw_real_ns(), t_mono = sw_mono_ns();

	sw_map_lock(&R->mp);
	step(&R->model, t_model, &rp, &d);
	sw_map_unlock(&R->mp);
	apply(R, &d, t_real, t_mono, sw_mono_ns() - t_mono);
}

/* Now, every model step due by now taken first, each at its own
 * scheduled time: the time of the store, sync or munmap about to be made
 * and logged.  The model's inputs are then the log's times alone, and a
 * replay of the log (stalewin-model-sweep, sweep.c ticks_until()) takes
 * the writer's decisions whatever the writer's lateness: a writer
 * stopped or descheduled between a look at the clock and the event took
 * a step due in between after the event, where the replay put it before
 * (a store then stayed dirty one more pass: 11 updates against the
 * replay's 10, under a kernel build). */
static int64_t model_due(struct sw_run *R)
{
	int64_t t = sw_mono_ns(), tt;

	while (!R->native && (tt = sw_model_next_tick(&R->model)) <= t) {
		model_event_at(R, model_tick, tt);
		t = sw_mono_ns();
	}
	return t;
}

/* Native: fstat; an UPDATE when mtime/ctime moved since the last look.
 * t_real_ns is the earliest the change can have happened (the store's
 * t_before, or the previous look), t_done_real_ns when it was seen. */
static void native_look(struct sw_run *R, int64_t t_from_real,
			int64_t t_from_mono, uint64_t page, int64_t cost)
{
	struct stat st;
	if (fstat(R->fd, &st) != 0) {
		fail(R, errno, "fstat on %s: %s", R->r.path);
		return;
	}
	int64_t now = sw_real_ns();
	int64_t m = sw_ts_ns(&st.st_mtim), c = sw_ts_ns(&st.st_ctim);
	if (m != R->last_mtime_ns || c != R->last_ctime_ns) {
		struct sw_rec_update u = {
			.t_real_ns = t_from_real,
			.t_mono_ns = t_from_mono,
			.t_done_real_ns = now,
			.cost_ns = cost,
			.mtime_ns = m,
			.ctime_ns = c,
			.page = page,
			.cause = SW_CAUSE_NATIVE,
		};
		R->last_mtime_ns = m;
		R->last_ctime_ns = c;
		R->updates++;
		logged(R, swlog_append(R->log, SW_REC_UPDATE, &u, sizeof(u)));
	}
	R->t_last_look_real_ns = now;
	R->t_last_look_mono_ns = sw_mono_ns();
}

/* The calling thread's CPU time (user+sys) in ns and its involuntary
 * context switches (preempted by another runnable task). */
static int64_t ru_cpu_ns(int who, long *nivcsw)
{
	struct rusage ru;
	getrusage(who, &ru);
	if (nivcsw)
		*nivcsw = ru.ru_nivcsw;
	return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * SW_NS_PER_S +
	       ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

static int64_t thread_cpu_ns(long *nivcsw)
{
	return ru_cpu_ns(RUSAGE_THREAD, nivcsw);
}

static long faults_now(void)
{
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_minflt + ru.ru_majflt;
}

/* The stamp's 8-byte words, stored through a volatile pointer so the
 * compiler neither merges nor moves them across the clock reads. */
static void store_stamp(uint8_t *page_addr, const struct sw_stamp *s)
{
	volatile uint64_t *d = (volatile uint64_t *)(void *)page_addr;
	atomic_signal_fence(memory_order_seq_cst);
	d[0] = s->magic;
	d[1] = s->run_id;
	d[2] = s->page;
	d[3] = s->gen;
	d[4] = (uint64_t)s->t_real_ns;
	d[5] = s->check;
	atomic_signal_fence(memory_order_seq_cst);
}

static void do_store(struct sw_run *R, uint64_t page)
{
	struct sw_rec_store s = { .page = page };
	struct sw_stamp st;
	long f0 = 0;
	uint64_t seq0;

	s.gen = ++R->gen[page];
	/* Native: look first, so a change made before this store (the
	 * flusher's, another process's) is logged unattributed, with the
	 * window it really fell in, and never credited to this store. */
	if (R->native && !R->o->native_poll_only)
		native_look(R, R->t_last_look_real_ns, R->t_last_look_mono_ns,
			    SW_NO_PAGE, 0);
	if (R->native)
		f0 = faults_now();
	s.t_before_mono_ns = model_due(R);
	s.t_before_real_ns = sw_real_ns();
	seq0 = atomic_load_explicit(&R->mp.slot.seq, memory_order_acquire);
	/* a trap's model step is at the store's time, not its handler's
	 * entry (trap.c): a stop in between moves no flusher deadline */
	atomic_store_explicit(&R->mp.slot.t_store_mono_ns, s.t_before_mono_ns,
			      memory_order_release);
	st = (struct sw_stamp){
		.magic = SW_STAMP_MAGIC,
		.run_id = R->r.run_id,
		.page = page,
		.gen = s.gen,
		.t_real_ns = s.t_before_real_ns,
	};
	st.check = sw_stamp_check(&st);
	store_stamp(R->mp.base + page * R->r.page_size, &st);
	s.t_after_real_ns = sw_real_ns();
	s.t_after_mono_ns = sw_mono_ns();
	atomic_store_explicit(&R->mp.slot.t_store_mono_ns, 0, memory_order_relaxed);
	R->stores++;

	if (R->native) {
		int faulted = faults_now() != f0;
		int64_t dur = s.t_after_mono_ns - s.t_before_mono_ns;
		uint64_t u0 = R->updates;
		if (faulted) {
			s.flags |= SW_STORE_TRAPPED;
			s.trap_ns = dur;
			R->traps++;
		}
		/* a change seen now fell inside the store; it is the store's
		 * own only if the store faulted (page_mkwrite), otherwise a
		 * concurrent flusher made it */
		if (!R->o->native_poll_only)
			native_look(R, s.t_before_real_ns, s.t_before_mono_ns,
				    faulted ? page : SW_NO_PAGE,
				    faulted ? dur : 0);
		if (faulted && R->updates != u0) {
			s.flags |= SW_STORE_UPDATED;
			s.upd_seq = (uint32_t)R->updates; /* its UPDATE: just logged */
		}
		logged(R, swlog_append(R->log, SW_REC_STORE, &s, sizeof(s)));
		return;
	}

	uint64_t seq1 = atomic_load_explicit(&R->mp.slot.seq, memory_order_acquire);
	const struct sw_trap_slot *t = &R->mp.slot;
	int bg = 0;
	if (seq1 != seq0) {
		s.flags |= SW_STORE_TRAPPED;
		s.trap_ns = s.t_after_mono_ns - s.t_before_mono_ns;
		R->traps++;
		if (t->model_err)
			snprintf(R->fatal, sizeof(R->fatal),
				 "page %llu trapped although the model had it writable (mechanism %s): emulation broken",
				 (unsigned long long)page, R->r.trap);
		if (t->upd_err)
			fail(R, t->upd_err, "futimens on %s: %s", R->r.path);
		if (t->updated) {
			struct sw_rec_update u = {
				.t_real_ns = t->t_upd_real_ns,
				.t_mono_ns = t->t_upd_mono_ns,
				.t_done_real_ns = t->t_upd_done_real_ns,
				.cost_ns = t->upd_cost_ns,
				.page = page,
				.cause = SW_CAUSE_TRAP,
			};
			struct stat fs;
			if (fstat(R->fd, &fs) != 0)
				fail(R, errno, "fstat on %s: %s", R->r.path);
			u.mtime_ns = sw_ts_ns(&fs.st_mtim);
			u.ctime_ns = sw_ts_ns(&fs.st_ctim);
			s.flags |= SW_STORE_UPDATED;
			R->updates++;
			s.upd_seq = (uint32_t)R->updates;
			logged(R, swlog_append(R->log, SW_REC_UPDATE, &u, sizeof(u)));
		}
		bg = t->background_due;
	}
	logged(R, swlog_append(R->log, SW_REC_STORE, &s, sizeof(s)));
	if (bg)
		model_event_at(R, sw_model_background, sw_mono_ns());
}

static void do_sync(struct sw_run *R, uint32_t cause)
{
	struct sw_rec_sync s = { .cause = cause };
	int rc;

	s.t_mono_ns = model_due(R);
	s.t_real_ns = sw_real_ns();
	if (!R->native) /* the model acts as the patched kernel would, inside */
		model_event_at(R, cause == SW_CAUSE_MSYNC_ASYNC ? sw_model_msync_async
				  : cause == SW_CAUSE_MSYNC_SYNC ? sw_model_msync_sync
								  : sw_model_fsync,
			       s.t_mono_ns);
	if (cause == SW_CAUSE_FSYNC)
		rc = fsync(R->fd);
	else
		rc = msync(R->mp.base, R->mp.len,
			   cause == SW_CAUSE_MSYNC_ASYNC ? MS_ASYNC : MS_SYNC);
	s.rc = rc ? -errno : 0;
	s.dur_ns = sw_mono_ns() - s.t_mono_ns;
	logged(R, swlog_append(R->log, SW_REC_SYNC, &s, sizeof(s)));
	if (R->native)
		native_look(R, s.t_real_ns, s.t_mono_ns, SW_NO_PAGE, 0);
}

void sw_run_status(struct sw_run *R, const char *state)
{
	struct sw_status st = {
		.state = state,
		.run_id = R->r.run_id,
		.stores = R->stores,
		.traps = R->traps,
		.updates = R->updates,
		.policy = R->o->policy->name,
		.trap = R->r.trap,
		.rate_planned = R->rate_planned,
		.rss_anon_kib = sw_self_status_kib("RssAnon"),
	};
	if (R->t0_mono_ns) {
		int64_t end = R->t_stop_mono_ns ? R->t_stop_mono_ns : sw_mono_ns();
		st.elapsed_s = (double)(end - R->t0_mono_ns) / 1e9;
	}
	if (st.elapsed_s > 0)
		st.rate_achieved = (double)R->stores / st.elapsed_s;
	if (R->t0_mono_ns) {
		/* called by the main thread only: its own rusage */
		long nv = 0;
		int64_t cpu = R->t_stop_mono_ns ? R->cpu_run_ns
						: thread_cpu_ns(&nv) - R->cpu_t0_ns;
		st.cpu_main_s = (double)cpu / 1e9;
		st.nivcsw_main = R->t_stop_mono_ns ? R->nivcsw_run : nv - R->nivcsw_t0;
		cpu = R->t_stop_mono_ns ? R->cpu_proc_run_ns
					: ru_cpu_ns(RUSAGE_SELF, NULL) - R->cpu_proc_t0_ns;
		st.cpu_process_s = (double)cpu / 1e9;
	} else {
		st.cpu_main_s = -1;
	}
	snprintf(st.warning, sizeof(st.warning), "%s", R->warning);
	snprintf(st.error, sizeof(st.error), "%s", R->fatal);
	sw_status_write(R->o->status_file, &st);
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static void sleep_until(int64_t t_mono)
{
	struct timespec ts = sw_ns_ts(t_mono);
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* The main loop; returns enum sw_end_reason. */
static int loop(struct sw_run *R)
{
	const struct sw_opts *o = R->o;
	const int64_t MSNS = SW_NS_PER_MS;
	int64_t t0 = R->t0_mono_ns, t_end = t0 + (int64_t)(o->duration_s * 1e9);
	int64_t next_msa = o->msync_async_ms ? t0 + o->msync_async_ms * MSNS : INT64_MAX;
	int64_t next_mss = o->msync_sync_ms ? t0 + o->msync_sync_ms * MSNS : INT64_MAX;
	int64_t next_fs = o->fsync_ms ? t0 + o->fsync_ms * MSNS : INT64_MAX;
	int64_t next_status = t0, next_look = INT64_MAX;
	int64_t look_ns = o->native_poll_ms * MSNS;
	uint64_t page;
	int64_t off;
	int warned_lag = 0;

	if (R->native && look_ns > 0)
		next_look = t0 + look_ns;
	sw_wl_next(&R->wl, &page, &off);
	for (;;) {
		if (g_stop)
			return SW_END_SIGNAL;
		if (R->fatal[0])
			return SW_END_ERROR;
		if (atomic_load(&R->mp.thr_err)) {
			snprintf(R->fatal, sizeof(R->fatal),
				 "the userfaultfd handler thread stopped: %s",
				 strerror(atomic_load(&R->mp.thr_err)));
			return SW_END_ERROR;
		}
		int64_t now = sw_mono_ns();
		if (now >= t_end)
			return SW_END_DONE;
		/* every model step due by now before a store: a writer woken
		 * late (a stopped process, a descheduled guest vCPU) with a
		 * flusher run and its next step both due must not trap the
		 * store in between, as the kernel's flusher does not wait
		 * for the writer (sw_model_tick takes one update per call) */
		model_due(R);
		if (now >= next_msa) {
			do_sync(R, SW_CAUSE_MSYNC_ASYNC);
			next_msa += o->msync_async_ms * MSNS;
		}
		if (now >= next_mss) {
			do_sync(R, SW_CAUSE_MSYNC_SYNC);
			next_mss += o->msync_sync_ms * MSNS;
		}
		if (now >= next_fs) {
			do_sync(R, SW_CAUSE_FSYNC);
			next_fs += o->fsync_ms * MSNS;
		}
		if (now >= next_look) {
			native_look(R, R->t_last_look_real_ns,
				    R->t_last_look_mono_ns, SW_NO_PAGE, 0);
			next_look = now + look_ns;
		}
		if (now >= next_status) {
			sw_run_status(R, "running");
			next_status = now + 200 * MSNS;
		}
		if (t0 + off <= now) {
			if (!warned_lag && R->rate_planned > 0 &&
			    now - (t0 + off) > 100 * MSNS) {
				warned_lag = 1;
				char msg[256];
				snprintf(msg, sizeof(msg),
					 "falling behind the workload's schedule: store %llu is %.1f ms late",
					 (unsigned long long)R->stores,
					 (double)(now - t0 - off) / 1e6);
				sw_run_note(R, SW_NOTE_WARN, msg);
			}
			do_store(R, page);
			sw_wl_next(&R->wl, &page, &off);
			continue;
		}
		int64_t wake = min64(t0 + off, t_end);
		wake = min64(wake, next_msa);
		wake = min64(wake, next_mss);
		wake = min64(wake, next_fs);
		wake = min64(wake, next_look);
		wake = min64(wake, next_status);
		if (!R->native)
			wake = min64(wake, sw_model_next_tick(&R->model));
		sleep_until(min64(wake, now + 50 * MSNS));
	}
}

/* Policy's munmap semantics, the munmap itself, the closing records. */
static void finish(struct sw_run *R, int reason)
{
	struct sw_rec_munmap mu = { .dirty_pages = UINT64_MAX };
	struct sw_rec_end e = { .reason = (uint32_t)reason };

	R->t_stop_mono_ns = sw_mono_ns();
	R->cpu_run_ns = thread_cpu_ns(&R->nivcsw_run) - R->cpu_t0_ns;
	R->nivcsw_run -= R->nivcsw_t0;
	R->cpu_proc_run_ns = ru_cpu_ns(RUSAGE_SELF, NULL) - R->cpu_proc_t0_ns;
	if (R->o->no_munmap) {
		sw_run_note(R, SW_NOTE_INFO,
			    "--no-munmap: the policy's munmap semantics were not applied; the mapping is dropped at exit");
	} else if (R->mp.base) {
		struct sw_decision d;
		mu.t_mono_ns = model_due(R);
		mu.t_real_ns = sw_real_ns();
		if (!R->native) {
			sw_map_lock(&R->mp);
			mu.dirty_pages = R->model.ndirty;
			sw_model_munmap(&R->model, mu.t_mono_ns, &d);
			sw_map_unlock(&R->mp);
			if (d.update)
				do_update(R, SW_CAUSE_MUNMAP, SW_NO_PAGE);
		}
		if (munmap(R->mp.base, R->mp.len) != 0)
			fail(R, errno, "munmap of %s: %s", R->r.path);
		R->mp.base = NULL;
		mu.dur_ns = sw_mono_ns() - mu.t_mono_ns;
		logged(R, swlog_append(R->log, SW_REC_MUNMAP, &mu, sizeof(mu)));
		if (R->native)
			native_look(R, mu.t_real_ns, mu.t_mono_ns, SW_NO_PAGE, 0);
	}
	double el = (double)(R->t_stop_mono_ns - R->t0_mono_ns) / 1e9;
	double got = el > 0 ? (double)R->stores / el : 0;
	char msg[512];
	snprintf(msg, sizeof(msg),
		 "achieved %.1f stores/s (%llu stores in %.3f s; planned %.1f/s), %llu traps, %llu updates, writer RssAnon %lld kB",
		 got, (unsigned long long)R->stores, el, R->rate_planned,
		 (unsigned long long)R->traps, (unsigned long long)R->updates,
		 sw_self_status_kib("RssAnon"));
	sw_run_note(R, SW_NOTE_INFO, msg);
	if (R->rate_planned > 0 && reason == SW_END_DONE &&
	    got < 0.95 * R->rate_planned) {
		snprintf(R->warning, sizeof(R->warning),
			 "rate not met: planned %.1f stores/s, achieved %.1f stores/s",
			 R->rate_planned, got);
		sw_run_note(R, SW_NOTE_WARN, R->warning);
		fprintf(stderr, "stalewin-writer: warning: %s\n", R->warning);
	}
	if (R->fatal[0] && reason == SW_END_ERROR && !R->log_err)
		sw_run_note(R, SW_NOTE_ERROR, R->fatal);
	e.t_real_ns = sw_real_ns();
	e.t_mono_ns = sw_mono_ns();
	e.count_a = R->stores;
	e.count_b = R->updates;
	e.count_c = R->traps;
	e.err = reason == SW_END_ERROR ? (R->fatal_errno ? R->fatal_errno : EIO) : 0;
	logged(R, swlog_append(R->log, SW_REC_END, &e, sizeof(e)));
}

/* Where the model's flusher starts.  Without --create-meta-pages: idle
 * with the run.  With it, at the file's creation: its inode has been dirty
 * since then (__mark_inode_dirty at the creation's ftruncate, the flusher
 * armed from then), whether this writer created it or vm/guest/server.sh
 * did seconds before (its ctime at the open; traced in the 6.1 guests, the
 * file's first write-back's dirtied_when is its creation's).  The time
 * from the creation to the first store decides the kernel's and the
 * model's figures (deferred on the patched 6.1 guest: truth p50 ~1.7 s
 * from under 5 s, ~0.9 s from 5-7 s; docs/validation-log.md).  A file
 * changed longer ago than the model needs to settle starts that long ago
 * (sw_model_start_at). */
static int64_t model_start_mono_ns(struct sw_run *R)
{
	char msg[256];
	if (!R->o->create_meta_pages)
		return R->t0_mono_ns;
	int64_t t_c = sw_model_start_at(&R->model.cfg, R->t_create_mono_ns, R->t0_mono_ns);
	if (t_c < 1)
		t_c = 1;
	snprintf(msg, sizeof(msg),
		 "writeback model: the file %s %.3f s before the run's start%s; the flusher is replayed from then",
		 R->created ? "created by the writer" : "created (its ctime at the open)",
		 (double)(R->t0_mono_ns - R->t_create_mono_ns) / 1e9,
		 t_c > R->t_create_mono_ns ? " (longer than the model needs to settle: replayed from the settled state)" : "");
	sw_run_note(R, SW_NOTE_INFO, msg);
	return t_c;
}

int sw_run_main(struct sw_run *R)
{
	struct stat st;
	if (fstat(R->fd, &st) == 0) {
		R->last_mtime_ns = sw_ts_ns(&st.st_mtim);
		R->last_ctime_ns = sw_ts_ns(&st.st_ctim);
	}
	R->rate_planned = R->wl.rate_planned;
	R->cpu_t0_ns = thread_cpu_ns(&R->nivcsw_t0);
	R->cpu_proc_t0_ns = ru_cpu_ns(RUSAGE_SELF, NULL);
	R->t0_mono_ns = sw_mono_ns();
	R->t_last_look_mono_ns = R->t0_mono_ns;
	R->t_last_look_real_ns = sw_real_ns();
	if (!R->native) {
		int64_t t_c = model_start_mono_ns(R);
		sw_model_start(&R->model, t_c);
		sw_model_advance(&R->model, R->t0_mono_ns, NULL);
		atomic_store(&R->mp.policy_active, 1);
	}
	int reason = loop(R);
	finish(R, reason);
	return reason;
}
