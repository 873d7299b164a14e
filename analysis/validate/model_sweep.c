/* SPDX-License-Identifier: MIT */
/*
 * model_sweep.c - stalewin-model-sweep: the writeback model on a writer
 * log's own stores, at N flusher phases, as one JSON object (validate;
 * scripts/validate-vm.sh runs it on the patched kernel's run).
 *
 *   stalewin-model-sweep --log WRITER.swlog [--policy deferred|lang|eager]
 *     [--writeback-ms 1000] [--expire-ms 5000] [--jiffy-us N]
 *     [--journal-commit-ms 5000] [--wb-bg-share none|zero|fprop]
 *     [--create-meta-pages N] [--alloc-meta-pages N] [--phases 40]
 *     [--lead-ms 0|log] [--kernel-trace TRACE.txt --bdi MAJ:MIN [--created-s S]]
 *     [--wb-run-commit-us N] [--wb-run-alloc-us N] [--wb-run-pass-us N]
 *     [--wb-run-io-us N] [--wb-run-submit-us N] [--ino N]
 *     [--period-timer traced|wheel|exact] [--atime-read-ms N]
 *     [--store-time start|end] [--jiffies mono]
 *
 * The model options mean what they mean to stalewin-writer.  --policy
 * defaults to the log's kernel_cmtime_policy (a native run on the patched
 * kernel).  Phase k of N starts the model (the file's creation) lead-ms
 * plus k/N of a writeback interval before the log's first record (the
 * writer's start; in the guests the file is created before the writer
 * starts, vm/guest/server.sh); --lead-ms log takes the lead from the log
 * (its SETUP record: the file's ctime at the writer's open, where the
 * writer's own model starts, run.c).  A store dirties its page at its
 * end, or with eager at its start (the stock kernel's ->page_mkwrite);
 * --store-time start|end says which for every policy: an emulating
 * writer's trap handler ran its model between the two (trap/trap.c,
 * t_enter), so its own run is replayed both ways.  Output: {"phases": [{shift_ms, updates, uncovered,
 * p50_ns, p90_ns, max_ns}...], "p50_ns": {min, median, max}, "p90_ns":
 * {...}, "updates": {...}}; a figure of -1 is ">end" (uncovered).
 * With --kernel-trace (the run's writeback tracepoints, mono clock) also
 * "kernel_phase": the model's figures with its flusher runs on the
 * kernel's own (see kernel_phase()), and its update times; --created-s
 * is when the file was created, in seconds of the guest's uptime (its
 * CLOCK_MONOTONIC: the guests never suspend; vm/guest/server.sh writes
 * it to sync-NAME/server.prepared).  --period-timer: when the
 * writeout_period timer that ages the wb's writeout share fires: traced
 * (default), the kernel's own firings from the trace's timer:timer_start
 * lines in the kernel-phase replay (the wheel's elsewhere); wheel, at its
 * timer-wheel bucket (model.h); exact, 3 s after its arming (the old rule).
 * --atime-read-ms N: NFS clients read the file N ms after every update
 * (the guests' runs), each such read a journal handle (model.h
 * atime_read_ns).  --ino N: the file's inode number in the guest
 * (vm/guest/server.sh writes it to sync-NAME/file.ino): the kernel-phase
 * replay then also takes from the trace when the kernel submitted the
 * file's never-written pages (the kprobe on folio_clear_dirty_for_io with
 * that inode number, else ext4:ext4_allocate_blocks of that inode;
 * model.h submit_mono_ns) and how many pages the block device inode's
 * first writeback wrote (writeback:writeback_single_inode of another
 * inode of the bdi, wrote=; model.h first_bdev_pages), and when knfsd's
 * reads journaled atime (writeback:writeback_mark_inode_dirty of that
 * inode by nfsd, flags=I_DIRTY_SYNC; model.h atime_mono_ns: with the
 * event enabled, only those), when the trace has those lines.  Every
 * commit ends when the kernel's did (jbd2:jbd2_end_commit; model.h
 * commit_end_mono_ns), and with the whole timer:timer_start event (most
 * jiffies have a line) the kernel's jiffies are the trace's own, steps
 * and all (model.h jiffy_map), not one origin and length.
 * Exit 0, 1 unreadable log or model error, 2 usage.
 */
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktrace.h"
#include "parse.h"
#include "policy.h"
#include "profile.h"
#include "records.h"
#include "swlog.h"
#include "sweep.h"
#include "swtime.h"

#define MAX_PHASES 1000
/* a traced dirtying of the file at most this long before a store's end
 * is that store's fault */
#define SW_DIRTY_IN_STORE_NS (20 * SW_NS_PER_MS)

static int usage(const char *why)
{
	fprintf(stderr, "stalewin-model-sweep: %s\n"
		"usage: stalewin-model-sweep --log WRITER.swlog [--policy P] [--writeback-ms N] [--expire-ms N]\n"
		"         [--jiffy-us N] [--journal-commit-ms N] [--wb-bg-share none|zero|fprop]\n"
		"         [--create-meta-pages N] [--alloc-meta-pages N] [--phases N] [--lead-ms N|log]\n"
		"         [--kernel-trace TRACE.txt --bdi MAJ:MIN [--created-s S]]\n"
		"         [--wb-run-commit-us N] [--wb-run-alloc-us N] [--wb-run-pass-us N] [--wb-run-io-us N]\n"
		"         [--wb-run-submit-us N] [--ino N]\n"
		"         [--period-timer traced|wheel|exact] [--atime-read-ms N] [--store-time start|end]\n"
		"         [--jiffies mono]\n", why);
	return 2;
}

struct events {
	struct sw_sweep_ev *ev;
	int64_t *t_begin_mono_ns; /* each event's start: a store's t_before */
	size_t n, cap;
	int64_t t_first_mono_ns; /* the log's first record (NOTE), mapped */
	int64_t t_end_mono_ns;   /* END, else the last event */
	int64_t t_changed_mono_ns; /* the file's ctime at the writer's open
				      (SETUP), mapped; 0: no SETUP record */
	int64_t t_first_read_mono_ns; /* its atime then, if newer (a
				      reader's first read), mapped; 0: none */
	char policy[32];         /* the log's kernel_cmtime_policy, or "" */
	int64_t jiffy_origin_mono_ns, jiffy_origin_count; /* the emulating
				    writer's model counted the kernel's own
				    jiffies from here (its meta); 0, 0: mono */
	uint64_t pages;          /* the log's mapping size in pages */
};

static int push(struct events *E, const struct sw_sweep_ev *e, int64_t t_begin)
{
	if (E->n == E->cap) {
		size_t cap = E->cap ? 2 * E->cap : 1024;
		struct sw_sweep_ev *p = realloc(E->ev, cap * sizeof(*p));
		if (!p)
			return -1;
		E->ev = p;
		int64_t *b = realloc(E->t_begin_mono_ns, cap * sizeof(*b));
		if (!b)
			return -1;
		E->t_begin_mono_ns = b;
		E->cap = cap;
	}
	E->t_begin_mono_ns[E->n] = t_begin;
	E->ev[E->n++] = *e;
	return 0;
}

static void events_free(struct events *E)
{
	free(E->ev);
	free(E->t_begin_mono_ns);
	E->ev = NULL;
	E->t_begin_mono_ns = NULL;
}

/* The log's stores, syncs and munmap; its start from its first record
 * (real time, mapped to mono by the first store's pair of clocks).  A
 * store counts from its end (the page is dirty then), or with
 * fault_start from its start: a stock kernel's ->page_mkwrite updates the
 * times first (ext4_page_mkwrite -> file_update_time), which dirties the
 * inode, sets dirtied_when and arms the flusher then (traced in the stock
 * 6.1 guest: I_DIRTY_SYNC 2-10 ms before the store returned, which moved
 * the flusher's next run by a wheel bucket, 32 ms). */
/* The policy to replay: --policy, else the log's kernel_cmtime_policy (a
 * native run on the patched kernel), else deferred; NULL if unknown. */
static const struct sw_policy_ops *sweep_policy(const char *pname, const char *log_policy)
{
	return sw_policy_find(pname ? pname : log_policy[0] ? log_policy : "deferred");
}

/* A time of the set-up's real clock on its mono clock; 0 (none) where a
 * damaged record's times do not fit in 64 bits. */
static int64_t mono_of(const struct sw_rec_setup *u, int64_t t_real_ns)
{
	int64_t age, r;
	if (__builtin_sub_overflow(u->t_real_ns, t_real_ns, &age) ||
	    __builtin_sub_overflow(u->t_mono_ns, age, &r))
		return 0;
	return r;
}

static int load(const char *path, struct events *E, const char *pname, int store_time,
		char *err, size_t errlen)
{
	struct swlog_reader *r;
	struct swlog_rec rec;
	char e2[SWLOG_ERRLEN];
	int64_t t_first_real = 0, off = 0;
	int have_off = 0, st;

	if (swlog_open(&r, path, e2)) {
		snprintf(err, errlen, "%s", e2);
		return -1;
	}
	if (swlog_reader_kind(r) != SWLOG_KIND_WRITER) {
		snprintf(err, errlen, "expected a writer log in %s, saw another kind of log", path);
		swlog_reader_close(r);
		return -1;
	}
	json_t *meta = json_loads(swlog_reader_meta(r), 0, NULL);
	const char *kp = json_string_value(json_object_get(meta, "kernel_cmtime_policy"));
	snprintf(E->policy, sizeof(E->policy), "%s", kp ? kp : "");
	E->pages = (uint64_t)json_integer_value(json_object_get(meta, "pages"));
	json_t *wbm = json_object_get(meta, "writeback_model");
	E->jiffy_origin_mono_ns = json_integer_value(json_object_get(wbm, "jiffy_origin_mono_ns"));
	E->jiffy_origin_count = json_integer_value(json_object_get(wbm, "jiffy_origin_count"));
	json_decref(meta);
	const struct sw_policy_ops *pol = sweep_policy(pname, E->policy);
	/* eager, the stock kernel's policy; or as --store-time says (an
	 * emulating writer's trap handler ran its model between the two) */
	int fault_start = store_time ? store_time > 0 : pol && pol->trap_updates && !pol->flush_owed;
	while ((st = swlog_next(r, &rec)) == SWLOG_OK) {
		struct sw_sweep_ev e = { .page = SW_NO_PAGE };
		int64_t t_begin = -1;
		if (rec.type == SW_REC_NOTE && !t_first_real) {
			t_first_real = ((const struct sw_rec_note *)rec.payload)->t_real_ns;
			continue;
		} else if (rec.type == SW_REC_STORE) {
			const struct sw_rec_store *s = rec.payload;
			if (!have_off) {
				off = s->t_before_real_ns - s->t_before_mono_ns;
				have_off = 1;
			}
			/* the page is dirty once the store is done: on the
			 * kernel a fault on a page under writeback waits for
			 * it in ->page_mkwrite (traced: a 9 ms fault across
			 * a flusher run's page submission, whose data went
			 * out in the run's next pass) */
			e.t_mono_ns = fault_start ? s->t_before_mono_ns : s->t_after_mono_ns;
			e.t_after_mono_ns = s->t_after_mono_ns;
			t_begin = s->t_before_mono_ns;
			e.page = s->page;
		} else if (rec.type == SW_REC_SYNC) {
			const struct sw_rec_sync *s = rec.payload;
			e.t_mono_ns = e.t_after_mono_ns = s->t_mono_ns;
			e.cause = s->cause;
		} else if (rec.type == SW_REC_MUNMAP) {
			const struct sw_rec_munmap *m = rec.payload;
			e.t_mono_ns = e.t_after_mono_ns = m->t_mono_ns;
			e.cause = SW_CAUSE_MUNMAP;
		} else if (rec.type == SW_REC_SETUP) {
			struct sw_rec_setup u;
			sw_rec_setup_get(&u, rec.payload, rec.len);
			E->t_changed_mono_ns = mono_of(&u, u.ctime_before_ns);
			/* a reader read the file since (relatime) */
			if (u.atime_before_ns > u.ctime_before_ns)
				E->t_first_read_mono_ns = mono_of(&u, u.atime_before_ns);
			continue;
		} else if (rec.type == SW_REC_END) {
			E->t_end_mono_ns = ((const struct sw_rec_end *)rec.payload)->t_mono_ns;
			continue;
		} else {
			continue;
		}
		if (push(E, &e, t_begin < 0 ? e.t_mono_ns : t_begin)) {
			snprintf(err, errlen, "out of memory reading %s", path);
			swlog_reader_close(r);
			return -1;
		}
	}
	if (st != SWLOG_EOF) {
		snprintf(err, errlen, "%s: %s (the sweep needs a whole log)", path,
			 swlog_reader_error(r));
		swlog_reader_close(r);
		return -1;
	}
	swlog_reader_close(r);
	if (!have_off) {
		snprintf(err, errlen, "expected STORE records in %s, saw none", path);
		return -1;
	}
	E->t_first_mono_ns = t_first_real ? t_first_real - off : E->ev[0].t_mono_ns;
	if (E->t_first_mono_ns > E->ev[0].t_mono_ns)
		E->t_first_mono_ns = E->ev[0].t_mono_ns;
	if (!E->t_end_mono_ns)
		E->t_end_mono_ns = E->ev[E->n - 1].t_after_mono_ns;
	return 0;
}

/* min/median/max of n figures where -1 (">end") ranks above all */
static json_t *spread(const int64_t *v, int n)
{
	int64_t s[MAX_PHASES];
	for (int i = 0; i < n; i++)
		s[i] = v[i] < 0 ? INT64_MAX : v[i];
	sw_sweep_sort(s, (size_t)n);
	int64_t q[3] = { s[0], s[(n - 1) / 2], s[n - 1] };
	json_t *o = json_object();
	const char *k[3] = { "min", "median", "max" };
	for (int i = 0; i < 3; i++)
		json_object_set_new(o, k[i], json_integer(q[i] == INT64_MAX ? -1 : q[i]));
	return o;
}

static json_t *out_json(const struct sw_sweep_out *o)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "updates", (json_int_t)o->updates,
			 "stores", (json_int_t)o->stores, "uncovered", (json_int_t)o->uncovered,
			 "p50_ns", (json_int_t)o->p50_ns, "p90_ns", (json_int_t)o->p90_ns,
			 "max_ns", (json_int_t)o->max_ns);
}


static json_t *i64_array(const int64_t *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

/* The kernel's jiffies against mono from samples (t, j): jiffy j began at
 * or before t, by a latency >= 0.  The start of each sample's jiffy,
 * counted from the first, drifts (a TCG guest's jiffies lag mono by ~0.1
 * %): a least-squares slope gives the jiffy's mono length, the lowest
 * residual the origin (the sample with the least latency). */
static void fit_jiffies(const struct sw_jiffy_anchor *s, size_t n, int64_t J,
			struct sw_model_cfg *c)
{
	int64_t j0 = s[0].j, t0 = s[0].t_mono_ns;
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	for (size_t i = 0; i < n; i++) {
		double x = (double)(s[i].j - j0), y = (double)(s[i].t_mono_ns - t0);
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
	}
	double den = (double)n * sxx - sx * sx;
	double len = den > 0 ? ((double)n * sxy - sx * sy) / den : (double)J;
	if (len < 0.95 * (double)J || len > 1.05 * (double)J)
		len = (double)J; /* not a jiffy: keep the nominal length */
	double lo = 1e300;
	for (size_t i = 0; i < n; i++) {
		double r = (double)(s[i].t_mono_ns - t0) - len * (double)(s[i].j - j0);
		if (r < lo)
			lo = r;
	}
	c->jiffy_origin_count = j0;
	c->jiffy_origin_ns = t0 + (int64_t)lo;
	c->jiffy_mono_ns = (int64_t)(len + 0.5);
}

/* The samples (t, j), in trace order, to cfg.jiffy_map in place (the
 * samples are spent: fit_jiffies() first): each jiffy's first sample,
 * the latest its jiffy can have begun (the per-tick timers' lines come
 * within tens of microseconds of the tick); a sample of an older jiffy
 * than one already seen is dropped.  Returns the anchors kept. */
static size_t jiffy_anchors(struct sw_jiffy_anchor *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (k == 0 || (s[i].j > s[k - 1].j && s[i].t_mono_ns > s[k - 1].t_mono_ns))
			s[k++] = s[i];
	return k;
}

/* The index of the first of v[0..n) after t, n if none. */
static size_t first_after(const int64_t *v, size_t n, int64_t t)
{
	size_t i = 0;
	while (i < n && v[i] <= t)
		i++;
	return i;
}

/* The model at the kernel's phase of the trace kt (ktrace.h): its
 * jiffies, first run, commits, submissions and atime handles. */
/* A copy of E's events where each store that dirtied the clean inode
 * counts from where its fault armed the flusher, before or after the
 * time the event had, as long as it lies within the store:
 * folio_mark_dirty, before the store returned (traced 0.4-3 ms), armed
 * it then, a wheel bucket earlier when a jiffy began in between (traced
 * in the patched 6.1 guest: armed at jiffy ..693, expiry bucket ..944,
 * the first run 33 ms before the model's from the store's end); under
 * eager the trap's timestamp update does it, 1.4 ms after the store's
 * start in one stock-guest run, where a tick fell in between and the
 * expiry moved from the bucket ending at ..4232 to the one at ..4240
 * (the model's run 32 ms early wrote the file once more, and its
 * background stretch counted a page the kernel's did not:
 * tests/server/data/README.md, eager-stock-6.1-14).  *moved: the stores
 * moved.  NULL: out of memory. */
static struct sw_sweep_ev *events_at_traced_dirtying(const struct events *E,
						     const struct ktrace *kt, size_t *moved)
{
	struct sw_sweep_ev *ev = malloc(E->n * sizeof(*ev));
	if (!ev)
		return NULL;
	memcpy(ev, E->ev, E->n * sizeof(*ev));
	for (size_t i = 0, k = 0; i < E->n && k < kt->dirties; i++) {
		if (ev[i].cause)
			continue;
		int64_t lo = ev[i].t_after_mono_ns - SW_DIRTY_IN_STORE_NS;
		if (E->t_begin_mono_ns[i] < lo)
			lo = E->t_begin_mono_ns[i];
		while (k < kt->dirties && kt->dirty_mono_ns[k] < lo)
			k++;
		if (k < kt->dirties && kt->dirty_mono_ns[k] <= ev[i].t_after_mono_ns) {
			if (kt->dirty_mono_ns[k] != ev[i].t_mono_ns) {
				ev[i].t_mono_ns = kt->dirty_mono_ns[k];
				(*moved)++;
			}
			k++;
		}
	}
	return ev;
}

static json_t *kernel_phase_run(struct ktrace *kt, const struct sw_model_cfg *cfg,
				const struct sw_policy_ops *pol, const struct events *E,
				int64_t t_created, int traced_period, char *err, size_t errlen)
{
	int64_t t_run = kt->t_run_mono_ns;
	struct sw_model_cfg kc = *cfg;
	size_t jsamples = kt->jn;
	if (kt->jn >= 2) {
		struct sw_jiffy_anchor *js = kt->js;
		fit_jiffies(js, kt->jn, cfg->jiffy_ns, &kc);
		size_t na = jiffy_anchors(js, kt->jn);
		/* dense: most jiffies have a line (the whole timer:timer_start
		 * event); a sparse trace keeps the fit, whose origin is its
		 * least-latency line */
		if (na >= 2 && 2 * (js[na - 1].j - js[0].j) <= 3 * (int64_t)na) {
			kc.jiffy_map = js;
			kc.jiffy_anchors = na;
		}
	}
	if (traced_period) {
		kc.period_fire_mono_ns = kt->period_mono_ns;
		kc.period_fires = kt->periods;
		kc.period_fire_expires = kt->period_expires;
	}
	kc.bg_pass_mono_ns = kt->bg_pass_mono_ns;
	kc.bg_passes = kt->bg_passes;
	kc.file_wb_mono_ns = kt->file_wb_mono_ns;
	kc.file_wbs = kt->file_wbs;
	kc.bdev_wb_mono_ns = kt->bdev_wb_mono_ns;
	kc.bdev_wbs = kt->bdev_wbs;
	cfg = &kc;
	/* the file created when the guest says (--created-s: its journal
	 * transaction, so its first commit, starts then), else a writeback
	 * interval before that run; the run itself as traced */
	int64_t best = t_created >= 0 ? t_created : t_run - cfg->writeback_ns;
	/* the file's first write-back says when the creation dirtied it
	 * (its dirtied_when, jiffies): the guest's --created-s is written
	 * after the file's preparation, up to 150 ms later (traced) */
	int64_t t_dw = kt->file_dirtied_when >= 0 ?
			       sw_model_cfg_jiffy_start(&kc, kt->file_dirtied_when) : -1;
	if (t_created >= 0 && t_dw >= 0 && t_dw < best && best - t_dw < SW_NS_PER_S)
		best = t_dw;
	if (best > E->ev[0].t_mono_ns)
		best = E->ev[0].t_mono_ns;
	/* the transaction running at the creation commits when the kernel's
	 * first traced commit after it began (jbd2:jbd2_start_commit) */
	size_t i = first_after(kt->commit_mono_ns, kt->commits, best);
	if (i < kt->commits)
		kc.first_commit_mono_ns = kt->commit_mono_ns[i];
	/* the file's never-written pages submitted when the kernel
	 * cleaned them for I/O (the kprobe on folio_clear_dirty_for_io,
	 * the pte write-protected then), else when it allocated their
	 * blocks (a lower bound: traced 1.6-7.0 ms before), and the block
	 * device's first writeback after the creation writing what the
	 * kernel's wrote */
	if (kt->clears) {
		kc.submit_mono_ns = kt->clear_mono_ns;
		kc.submits = kt->clears;
	} else if (kt->allocs) {
		kc.submit_mono_ns = kt->alloc_mono_ns;
		kc.submits = kt->allocs;
	}
	/* each commit ends when the kernel's did */
	if (kt->commit_ends) {
		kc.commit_end_mono_ns = kt->commit_end_mono_ns;
		kc.commit_ends = kt->commit_ends;
	}
	/* the readers' atime handles when the kernel's came (none traced
	 * with the event on: no reader dirtied the file) */
	if (kt->atime_traced) {
		kc.atime_mono_ns = kt->atime_mono_ns;
		kc.atimes = kt->atimes;
	}
	if ((i = first_after(kt->bdev_wb_mono_ns, kt->bdev_wbs, best)) < kt->bdev_wbs)
		kc.first_bdev_pages = (uint32_t)kt->bdev_wb_pages[i];
	int64_t ut[256], mf[KT_MAX], mc[KT_MAX];
	struct sw_sweep_out o = { .upd_t = ut, .upd_cap = 256, .period_t = mf,
				  .period_cap = KT_MAX, .commit_t = mc,
				  .commit_cap = KT_MAX };
	/* with the creation known, the kernel's first run after it: the
	 * flusher's phase from there on is the model's (traced: a writer
	 * that stored 7 s after the creation, the inode written alone at
	 * the creation's expiry and knfsd's first read arming the run that
	 * wrote the bdev inode, 1.5 s before the first store's run) */
	if (kt->t_run_created_mono_ns >= 0 && kt->t_run_created_mono_ns < t_run)
		t_run = kt->t_run_created_mono_ns;
	size_t moved = 0;
	struct sw_sweep_ev *ev = events_at_traced_dirtying(E, kt, &moved);
	if (!ev) {
		snprintf(err, errlen, "out of memory for %zu events", E->n);
		return NULL;
	}
	int rc = sw_sweep_run_from(cfg, pol, ev, E->n, best, t_run, E->t_end_mono_ns, &o, err,
				   errlen);
	free(ev);
	if (rc)
		return NULL;
	json_t *j = out_json(&o), *ua = json_array();
	for (uint64_t i = 0; i < o.updates && i < 256; i++)
		json_array_append_new(ua, json_integer(ut[i]));
	json_object_set_new(j, "update_mono_ns", ua);
	json_object_set_new(j, "period_timer_lines", json_integer((json_int_t)kt->period_lines));
	json_object_set_new(j, "period_traced_mono_ns", i64_array(kt->period_mono_ns, kt->periods));
	json_object_set_new(j, "period_fire_mono_ns", i64_array(mf, o.period_n));
	json_object_set_new(j, "commit_traced_mono_ns", i64_array(kt->commit_mono_ns, kt->commits));
	json_object_set_new(j, "commit_mono_ns", i64_array(mc, o.commit_n));
	json_object_set_new(j, "submit_traced_mono_ns", i64_array(kc.submit_mono_ns, kc.submits));
	json_object_set_new(j, "submit_traced_from",
			    json_string(kt->clears ? "folio_clear_dirty_for_io" :
					kt->allocs ? "ext4_allocate_blocks" : "none"));
	json_object_set_new(j, "first_bdev_pages_traced", json_integer(kc.first_bdev_pages));
	json_object_set_new(j, "atime_traced_mono_ns",
			    kt->atime_traced ? i64_array(kt->atime_mono_ns, kt->atimes) : json_null());
	json_object_set_new(j, "stores_dirtied_traced", json_integer((json_int_t)moved));
	json_object_set_new(j, "flusher_run_mono_ns", json_integer(t_run));
	json_object_set_new(j, "create_mono_ns", json_integer(best));
	json_object_set_new(j, "periodic_runs_traced", json_integer(kt->runs));
	json_object_set_new(j, "jiffy_samples", json_integer((json_int_t)jsamples));
	json_object_set_new(j, "jiffy_origin_mono_ns", json_integer(cfg->jiffy_origin_ns));
	json_object_set_new(j, "jiffy_origin_count", json_integer(cfg->jiffy_origin_count));
	json_object_set_new(j, "jiffy_mono_ns", json_integer(cfg->jiffy_mono_ns));
	json_object_set_new(j, "jiffy_anchors", json_integer((json_int_t)kc.jiffy_anchors));
	return j;
}

/*
 * The kernel's own flusher phase, from its writeback tracepoints (trace
 * clock mono, vm/guest/trace.sh; read by ktrace.c): the first periodic
 * run of the file's bdi ("writeback_start: bdi MAJ:MIN: ...
 * reason=periodic") after the creation, else after the first store, and
 * the kernel's jiffies (writeback_queue_io's older= and age=,
 * timer_start's expires= and timeout=), whose phase, count and length
 * place the timer wheel's buckets.  The model's first flusher run is that
 * run, its own rules decide every later one: the figures are the model's
 * at the kernel's phase.  With traced_period the writeout_period timer
 * fires when the kernel's did.
 */
static json_t *kernel_phase(const char *path, const char *bdi,
			    const struct sw_model_cfg *cfg,
			    const struct sw_policy_ops *pol, const struct events *E,
			    int64_t t_created, int traced_period, long long ino,
			    char *err, size_t errlen)
{
	struct ktrace *kt = malloc(sizeof(*kt));
	json_t *j = NULL;

	if (!kt) {
		snprintf(err, errlen, "out of memory for the kernel trace %s", path);
		return NULL;
	}
	if (ktrace_read(path, bdi, ino, E->ev[0].t_mono_ns, t_created, cfg->jiffy_ns, kt, err,
			errlen) == 0)
		j = kernel_phase_run(kt, cfg, pol, E, t_created, traced_period, err, errlen);
	ktrace_free(kt);
	free(kt);
	return j;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		SW_OPT_ARG("log", 'l'),
		SW_OPT_ARG("policy", 'p'),
		SW_OPT_ARG("writeback-ms", 'w'),
		SW_OPT_ARG("expire-ms", 'e'),
		SW_OPT_ARG("jiffy-us", 'j'),
		SW_OPT_ARG("journal-commit-ms", 'c'),
		SW_OPT_ARG("wb-bg-share", 'b'),
		SW_OPT_ARG("create-meta-pages", 'C'),
		SW_OPT_ARG("alloc-meta-pages", 'A'),
		SW_OPT_ARG("phases", 'n'),
		SW_OPT_ARG("lead-ms", 'L'),
		SW_OPT_ARG("kernel-trace", 'T'),
		SW_OPT_ARG("wb-run-commit-us", 'R'),
		SW_OPT_ARG("wb-run-alloc-us", 'a'),
		SW_OPT_ARG("wb-run-pass-us", 'P'),
		SW_OPT_ARG("wb-run-io-us", 'I'),
		SW_OPT_ARG("wb-run-submit-us", 'S'),
		SW_OPT_ARG("ino", 'i'),
		SW_OPT_ARG("bdi", 'B'),
		SW_OPT_ARG("created-s", 'K'),
		SW_OPT_ARG("period-timer", 'D'),
		SW_OPT_ARG("atime-read-ms", 'r'),
		SW_OPT_ARG("store-time", 'X'),
		SW_OPT_ARG("jiffies", 'J'),
		SW_OPT_END,
	};
	const char *log = NULL, *pname = NULL, *ktrace = NULL, *bdi = NULL;
	double created_s = -1;
	uint64_t wb_ms = 1000, ex_ms = 5000, jc_ms = 5000, cmeta = 0, ameta = 0, phases = 40, lead_ms = 0;
	uint64_t run_commit_us = 0, run_alloc_us = 0, run_pass_us = 0, atime_ms = 0, run_io_us = 0;
	uint64_t run_submit_us = 0, ino = 0;
	int have_ino = 0, lead_log = 0, store_time = 0;
	uint64_t jiffy_us = (uint64_t)(sw_model_host_jiffy_ns() / 1000);
	int bg = SW_BG_NONE, c, traced_period = 1, period_exact = 0;
	const char *ptimer = "traced";
	char err[512];
	static struct sw_model_profile profile;

	/* --model-profile FILE: the model's options from a profile, in place */
	if (sw_model_profile_expand(argc, argv, &profile, &argc, &argv, err, sizeof(err)))
		return usage(err);
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		uint64_t *u = NULL, hi = 3600000;
		const char *nm = "";
		switch (c) {
		case 'l': log = optarg; continue;
		case 'p': pname = optarg; continue;
		case 'T': ktrace = optarg; continue;
		case 'B': bdi = optarg; continue;
		case 'K':
			if (sw_parse_double(optarg, 0, 1e9, &created_s)) {
				snprintf(err, sizeof(err), "expected --created-s as seconds of the guest's uptime (>= 0), saw '%s'", optarg);
				return usage(err);
			}
			continue;
		case 'X':
			if (strcmp(optarg, "start") && strcmp(optarg, "end")) {
				snprintf(err, sizeof(err), "expected --store-time start|end, saw '%s'", optarg);
				return usage(err);
			}
			store_time = !strcmp(optarg, "start") ? 1 : -1;
			continue;
		case 'J': /* a profile's: a replay's jiffies are the trace's or mono's */
			if (strcmp(optarg, "mono")) {
				snprintf(err, sizeof(err), "expected --jiffies mono (a replay takes the kernel's jiffies from --kernel-trace, never this machine's now), saw '%s'", optarg);
				return usage(err);
			}
			continue;
		case 'D':
			if (strcmp(optarg, "traced") && strcmp(optarg, "wheel") && strcmp(optarg, "exact")) {
				snprintf(err, sizeof(err), "expected --period-timer traced|wheel|exact, saw '%s'", optarg);
				return usage(err);
			}
			ptimer = optarg;
			traced_period = !strcmp(optarg, "traced");
			period_exact = !strcmp(optarg, "exact");
			continue;
		case 'w': u = &wb_ms; nm = "writeback-ms"; break;
		case 'e': u = &ex_ms; nm = "expire-ms"; break;
		case 'j': u = &jiffy_us; nm = "jiffy-us"; hi = 1000000; break;
		case 'c': u = &jc_ms; nm = "journal-commit-ms"; break;
		case 'C': u = &cmeta; nm = "create-meta-pages"; hi = 1024; break;
		case 'r': u = &atime_ms; nm = "atime-read-ms"; hi = 60000; break;
		case 'A': u = &ameta; nm = "alloc-meta-pages"; hi = 1024; break;
		case 'n': u = &phases; nm = "phases"; hi = MAX_PHASES; break;
		case 'L':
			if (!strcmp(optarg, "log")) {
				lead_log = 1;
				continue;
			}
			u = &lead_ms;
			nm = "lead-ms";
			break;
		case 'R': u = &run_commit_us; nm = "wb-run-commit-us"; hi = 10000000; break;
		case 'a': u = &run_alloc_us; nm = "wb-run-alloc-us"; hi = 10000000; break;
		case 'P': u = &run_pass_us; nm = "wb-run-pass-us"; hi = 10000000; break;
		case 'I': u = &run_io_us; nm = "wb-run-io-us"; hi = 10000000; break;
		case 'S': u = &run_submit_us; nm = "wb-run-submit-us"; hi = 10000000; break;
		case 'i': u = &ino; nm = "ino"; hi = UINT32_MAX; have_ino = 1; break;
		case 'b':
			if ((bg = sw_bg_share_parse(optarg)) < 0) {
				snprintf(err, sizeof(err), "expected --wb-bg-share none|zero|fprop, saw '%s'", optarg);
				return usage(err);
			}
			continue;
		default:
			return usage("unknown option");
		}
		if (sw_parse_u64(optarg, 10, 0, c == 'n' ? 1 : 0, hi, u)) {
			snprintf(err, sizeof(err), "expected --%s as an integer from %d to %" PRIu64 ", saw '%s'",
				 nm, c == 'n', hi, optarg);
			return usage(err);
		}
	}
	if (!log || optind != argc)
		return usage(!log ? "expected --log WRITER.swlog" : "unexpected argument");
	if (!ktrace != !bdi)
		return usage("expected --kernel-trace and --bdi together");

	struct events E = { 0 };
	if (load(log, &E, pname, store_time, err, sizeof(err))) {
		fprintf(stderr, "stalewin-model-sweep: %s\n", err);
		return 1;
	}
	const struct sw_policy_ops *pol = sweep_policy(pname, E.policy);
	if (!pol || !pol->emulated) {
		fprintf(stderr, "stalewin-model-sweep: expected --policy eager|deferred|lang, saw '%s'\n",
			pol ? pol->name : pname ? pname : E.policy);
		events_free(&E);
		return 2;
	}
	uint64_t maxpage = 0;
	for (size_t i = 0; i < E.n; i++)
		if (!E.ev[i].cause && E.ev[i].page + 1 > maxpage)
			maxpage = E.ev[i].page + 1;
	struct sw_model_cfg cfg = {
		.npages = E.pages > maxpage ? E.pages : maxpage,
		.page_size = 4096,
		.writeback_ns = (int64_t)wb_ms * SW_NS_PER_MS,
		.expire_ns = (int64_t)ex_ms * SW_NS_PER_MS,
		.jiffy_ns = (int64_t)jiffy_us * 1000,
		.journal_commit_ns = (int64_t)jc_ms * SW_NS_PER_MS,
		.bg_share = bg,
		.create_meta_pages = (uint32_t)cmeta,
		.alloc_meta_pages = (uint32_t)ameta,
		.run_commit_ns = (int64_t)run_commit_us * 1000,
		.run_alloc_ns = (int64_t)run_alloc_us * 1000,
		.run_pass_ns = (int64_t)run_pass_us * 1000,
		.run_io_ns = (int64_t)run_io_us * 1000,
		.run_submit_ns = (int64_t)run_submit_us * 1000,
		.period_exact = period_exact,
		.atime_read_ns = (int64_t)atime_ms * SW_NS_PER_MS,
		.first_read_mono_ns = E.t_first_read_mono_ns,
		/* an emulating writer's own jiffies (a trace's replace them) */
		.jiffy_origin_ns = E.jiffy_origin_mono_ns,
		.jiffy_origin_count = E.jiffy_origin_count,
	};
	int64_t lead_ns = (int64_t)lead_ms * SW_NS_PER_MS;
	if (lead_log) {
		/* the file's creation as the writer saw it (its ctime at the
		 * open), as stalewin-writer's own model starts (run.c) */
		if (!E.t_changed_mono_ns) {
			fprintf(stderr, "stalewin-model-sweep: expected a SETUP record in %s for --lead-ms log, saw none\n", log);
			events_free(&E);
			return 2;
		}
		/* in ns, not whole ms: the writer's model starts at the
		 * exact mapped ctime, and a start up to 1 ms later moved a
		 * flusher tick across a store's jiffy (writer_model_sweep's
		 * existing file: p50 0.801 s against the writer's 0.713 s) */
		lead_ns = E.t_first_mono_ns -
			  sw_model_start_at(&cfg, E.t_changed_mono_ns, E.t_first_mono_ns);
		lead_ms = (uint64_t)(lead_ns / SW_NS_PER_MS);
	}
	int64_t p50[MAX_PHASES], p90[MAX_PHASES], upd[MAX_PHASES];
	json_t *arr = json_array();
	int rc = 0;
	for (int k = 0; k < (int)phases; k++) {
		struct sw_sweep_out o = { 0 }; /* no update, period or commit log */
		int64_t shift = lead_ns + cfg.writeback_ns * k / (int64_t)phases;
		if (sw_sweep_run(&cfg, pol, E.ev, E.n, E.t_first_mono_ns - shift,
				 E.t_end_mono_ns, &o, err, sizeof(err))) {
			fprintf(stderr, "stalewin-model-sweep: phase %d: %s\n", k, err);
			rc = 1;
			break;
		}
		p50[k] = o.p50_ns;
		p90[k] = o.p90_ns;
		upd[k] = (int64_t)o.updates;
		json_array_append_new(arr, json_pack("{s:f, s:I, s:I, s:I, s:I, s:I, s:I}",
			"shift_ms", (double)shift / 1e6, "updates", (json_int_t)o.updates,
			"stores", (json_int_t)o.stores, "uncovered", (json_int_t)o.uncovered,
			"p50_ns", (json_int_t)o.p50_ns, "p90_ns", (json_int_t)o.p90_ns,
			"max_ns", (json_int_t)o.max_ns));
	}
	json_t *kp = NULL;
	if (!rc && ktrace) {
		kp = kernel_phase(ktrace, bdi, &cfg, pol, &E,
				  created_s < 0 ? -1 : (int64_t)(created_s * 1e9), traced_period,
				  have_ino ? (long long)ino : -1, err, sizeof(err));
		if (!kp) {
			fprintf(stderr, "stalewin-model-sweep: %s\n", err);
			rc = 1;
		}
	}
	if (!rc) {
		json_t *out = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
			"schema", "stalewin-model-sweep", "log", log, "policy", pol->name,
			"writeback_ms", (json_int_t)wb_ms, "expire_ms", (json_int_t)ex_ms,
			"jiffy_us", (json_int_t)jiffy_us, "journal_commit_ms", (json_int_t)jc_ms,
			"wb_bg_share", sw_bg_share_name(bg),
			"create_meta_pages", (json_int_t)cmeta, "alloc_meta_pages", (json_int_t)ameta,
			"lead_ms", (json_int_t)lead_ms, "wb_run_commit_us", (json_int_t)run_commit_us,
			"wb_run_alloc_us", (json_int_t)run_alloc_us, "wb_run_pass_us", (json_int_t)run_pass_us,
			"stores", (json_int_t)(json_array_size(arr) ? json_integer_value(json_object_get(json_array_get(arr, 0), "stores")) : 0),
			"run_ms", (json_int_t)((E.t_end_mono_ns - E.t_first_mono_ns) / SW_NS_PER_MS));
		json_object_set_new(out, "period_timer", json_string(ptimer));
		json_object_set_new(out, "lead_from", json_string(lead_log ? "log" : "option"));
		json_object_set_new(out, "store_time", json_string(store_time > 0 ? "start" : store_time < 0 ? "end" : "policy"));
		int64_t rl;
		if (!E.t_first_read_mono_ns ||
		    __builtin_sub_overflow(E.t_first_mono_ns, E.t_first_read_mono_ns, &rl))
			rl = -SW_NS_PER_MS;
		json_object_set_new(out, "first_read_lead_ms", json_integer(rl / SW_NS_PER_MS));
		json_object_set_new(out, "atime_read_ms", json_integer((json_int_t)atime_ms));
		json_object_set_new(out, "wb_run_io_us", json_integer((json_int_t)run_io_us));
		json_object_set_new(out, "wb_run_submit_us", json_integer((json_int_t)run_submit_us));
		json_object_set_new(out, "p50_ns", spread(p50, (int)phases));
		json_object_set_new(out, "p90_ns", spread(p90, (int)phases));
		json_object_set_new(out, "updates", spread(upd, (int)phases));
		json_object_set_new(out, "phases", arr);
		if (kp)
			json_object_set_new(out, "kernel_phase", kp);
		json_dumpf(out, stdout, JSON_COMPACT);
		putchar('\n');
		json_decref(out);
	} else {
		json_decref(arr);
	}
	events_free(&E);
	return rc;
}
