/* SPDX-License-Identifier: MIT */
/* synth.c - a scripted writer + probe (+ kernel reader) timeline written as
 * real swlog files.  See synth.h.  The policy and the writeback model are
 * the writer's own (libswmodel, server/model/model.h): what a policy does
 * is written once, and the goldens check it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "swlog.h"
#include "synth.h"

#define RING 1024

struct upd_hist {
	int64_t t;
	int64_t stamp;
	uint64_t change;
};

struct gen_hist {
	int64_t t;
	uint64_t gen;
};

struct synth {
	const struct sw_synth_cfg *c;
	const struct sw_policy_ops *pol;
	struct sw_model m;    /* pages, inode, policy state; mono = real - t0 */
	struct swlog_writer *w, *p, *k;
	uint64_t *gen;        /* per page: last generation stored */
	uint64_t change;      /* v4 change attribute */
	int64_t stamp;        /* current mtime = ctime */
	struct upd_hist uh[RING];
	uint64_t nuh;
	struct gen_hist kh[RING]; /* kread page generations */
	uint64_t nkh;
	struct gen_hist rh[RING]; /* probe READ page generations */
	uint64_t nrh;
	uint64_t stores, updates, traps, recs;
	uint64_t rng;
	int err;
	/* probe and kernel reader: next poll / read (server realtime), the
	 * probe's request number, last good reply, open gap, counts */
	int64_t t_poll, t_kread, last_good, gap_start;
	uint64_t seq, replies, errors, gaps, kreads;
};

void sw_synth_defaults(struct sw_synth_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->run_id = 0x5157a1e5eed0001ull;
	c->t0_real_ns = 1700000000000000000ll;
	c->duration_ns = 10 * 1000000000ll;
	c->policy = "eager";
	c->store_interval_ns = 100 * 1000000ll;
	c->pages = 1;
	c->seed = 1;
	c->trap_ns = 5000;
	c->upd_lead_ns = 2000;
	c->writeback_ns = 5 * 1000000000ll;
	c->expire_ns = 30 * 1000000000ll;
	c->probe = 1;
	c->vers = 3;
	c->poll_ns = 1000000;
	c->rtt_ns = 200000;
}

static void app(struct synth *S, struct swlog_writer *w, uint16_t type,
		const void *p, uint32_t len)
{
	int rc = swlog_append(w, type, p, len);
	if (rc && !S->err)
		S->err = rc;
	S->recs++;
}

static void do_update(struct synth *S, int64_t t, uint32_t cause, uint64_t page)
{
	int64_t g = S->c->stamp_gran_ns > 0 ? S->c->stamp_gran_ns : 1;
	int64_t st = t / g * g;
	struct sw_rec_update u = {
		.t_real_ns = t, .t_mono_ns = t - S->c->t0_real_ns,
		.t_done_real_ns = t + 700, .cost_ns = 700,
		.mtime_ns = st, .ctime_ns = st, .page = page, .cause = cause,
	};
	S->stamp = st;
	S->change++;
	S->uh[S->nuh % RING] = (struct upd_hist){ t, st, S->change };
	S->nuh++;
	S->updates++;
	app(S, S->w, SW_REC_UPDATE, &u, sizeof(u));
}

static void clean(struct synth *S, int64_t t, uint32_t cause, uint64_t pages)
{
	struct sw_rec_clean c = { .t_real_ns = t, .t_mono_ns = t - S->c->t0_real_ns,
				  .dur_ns = 10000, .pages = pages, .cause = cause };
	app(S, S->w, SW_REC_CLEAN, &c, sizeof(c));
}

static void do_store(struct synth *S, int64_t t, uint64_t page)
{
	const struct sw_synth_cfg *c = S->c;
	struct sw_rec_store s = { .page = page, .gen = ++S->gen[page],
				  .t_after_real_ns = t };
	int trapped = !sw_model_writable(&S->m, page);
	struct sw_decision d;

	s.t_before_real_ns = t - 100 - (trapped ? c->trap_ns : 0);
	s.t_before_mono_ns = s.t_before_real_ns - c->t0_real_ns;
	s.t_after_mono_ns = t - c->t0_real_ns;
	if (trapped) {
		s.flags |= SW_STORE_TRAPPED;
		s.trap_ns = c->trap_ns;
		S->traps++;
		sw_model_trap(&S->m, page, t - c->t0_real_ns, &d);
		if (d.update) {
			do_update(S, t - c->upd_lead_ns, SW_CAUSE_TRAP, page);
			s.flags |= SW_STORE_UPDATED;
			s.upd_seq = (uint32_t)S->updates;
		}
	}
	if (page == c->kread_page) {
		S->kh[S->nkh % RING] = (struct gen_hist){ t, s.gen };
		S->nkh++;
	}
	if (page == c->read_page) {
		S->rh[S->nrh % RING] = (struct gen_hist){ t, s.gen };
		S->nrh++;
	}
	S->stores++;
	app(S, S->w, SW_REC_STORE, &s, sizeof(s));
}

static void do_tick(struct synth *S, int64_t t)
{
	struct sw_decision d;
	if (!sw_model_tick(&S->m, t - S->c->t0_real_ns, NULL, &d) || !d.flushed)
		return;
	clean(S, t, SW_CAUSE_KUPDATE, d.cleaned);
	if (d.update)
		do_update(S, t, SW_CAUSE_KUPDATE, SW_NO_PAGE);
}

static void do_msync(struct synth *S, int64_t t, uint32_t cause)
{
	struct sw_rec_sync y = { .t_real_ns = t, .t_mono_ns = t - S->c->t0_real_ns,
				 .dur_ns = 30000, .cause = cause };
	struct sw_decision d;
	if (cause == SW_CAUSE_MSYNC_SYNC) {
		sw_model_msync_sync(&S->m, y.t_mono_ns, NULL, &d);
		clean(S, t, cause, d.cleaned);
	} else {
		sw_model_msync_async(&S->m, y.t_mono_ns, NULL, &d);
		if (d.cleaned) /* the policy write-protected the pages */
			clean(S, t, cause, d.cleaned);
	}
	if (d.update)
		do_update(S, t, cause, SW_NO_PAGE);
	app(S, S->w, SW_REC_SYNC, &y, sizeof(y));
}

/* Server attributes as seen at server time x. */
static void attrs_at(struct synth *S, int64_t x, struct sw_attrs *a)
{
	int64_t stamp = 0;
	uint64_t change = 0;
	uint64_t lo = S->nuh > RING ? S->nuh - RING : 0;
	for (uint64_t i = S->nuh; i > lo; i--) {
		const struct upd_hist *h = &S->uh[(i - 1) % RING];
		if (h->t <= x) {
			stamp = h->stamp;
			change = h->change;
			break;
		}
	}
	memset(a, 0, sizeof(*a));
	a->mtime_ns = a->ctime_ns = stamp ? stamp : S->c->t0_real_ns - 1000000000ll;
	a->size = S->c->pages * 4096;
	a->fileid = 42;
	a->valid = SW_ATTR_SIZE | SW_ATTR_MTIME | SW_ATTR_CTIME | SW_ATTR_FILEID;
	if (S->c->vers == 4) {
		a->change = change + 1;
		a->valid |= SW_ATTR_CHANGE;
	}
}

/* generation of a page's data at time x, from its store history */
static uint64_t gen_at(const struct gen_hist *h, uint64_t n, int64_t x)
{
	uint64_t lo = n > RING ? n - RING : 0;
	for (uint64_t i = n; i > lo; i--)
		if (h[(i - 1) % RING].t <= x)
			return h[(i - 1) % RING].gen;
	return 0;
}

static int in_win(const struct sw_synth_win *w, int n, int64_t rel, int64_t *end)
{
	for (int i = 0; i < n; i++)
		if (rel >= w[i].from_ns && rel < w[i].to_ns) {
			if (end)
				*end = w[i].to_ns;
			return 1;
		}
	return 0;
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static char *writer_meta(const struct sw_synth_cfg *c)
{
	char *m = malloc(2048), native[128] = "\"emulated\":true";
	if (!m)
		return NULL;
	if (c->native_look_ms > 0)
		snprintf(native, sizeof(native),
			 "\"emulated\":false,\"native_fstat_around_store\":false,\"native_poll_ms\":%lld",
			 (long long)c->native_look_ms);
	snprintf(m, 2048,
		 "{\"tool\":\"stalewin-synth\",\"synthetic\":true,\"run_id\":\"%016llx\","
		 "\"argv\":[\"stalewin-synth\",\"--policy\",\"%s\"],"
		 "\"kernel_release\":\"synthetic\",\"policy\":\"%s\",%s,"
		 "\"page_size\":4096,\"pages\":%llu,\"size_bytes\":%llu,"
		 "\"duration_s\":%.3f,"
		 "\"workload\":{\"name\":\"%s\",\"pages\":%llu,\"interval_ms\":%lld},"
		 "\"writeback_model\":{\"modelled\":true,\"writeback_ms\":%lld,\"expire_ms\":%lld},"
		 "\"vm_sysctls\":{\"dirty_writeback_centisecs\":%lld,\"dirty_expire_centisecs\":%lld},"
		 "\"filesystem\":{\"type\":\"synthetic\",\"mount_options\":\"rw\"}}",
		 (unsigned long long)c->run_id, c->policy ? c->policy : "eager",
		 c->policy ? c->policy : "eager", native, (unsigned long long)c->pages,
		 (unsigned long long)c->pages * 4096, c->duration_ns / 1e9,
		 c->random ? "random" : "rewrite", (unsigned long long)c->pages,
		 (long long)(c->store_interval_ns / 1000000),
		 (long long)(c->writeback_ns / 1000000), (long long)(c->expire_ns / 1000000),
		 (long long)(c->writeback_ns / 10000000), (long long)(c->expire_ns / 10000000));
	return m;
}

static int write_text(const char *path, const char *text, char *err, int errlen)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -EIO;
	}
	return 0;
}

static int open_logs(struct synth *S, const char *dir, char *err, int errlen)
{
	const struct sw_synth_cfg *c = S->c;
	char path[4096], e[SWLOG_ERRLEN], meta[1024], *wm = writer_meta(c);
	int rc;

	snprintf(path, sizeof(path), "%s/writer.swlog", dir);
	rc = swlog_create(&S->w, path, 1, SWLOG_KIND_WRITER, c->run_id, wm, 0, e);
	free(wm);
	if (rc)
		goto fail;
	if (c->probe) {
		snprintf(path, sizeof(path), "%s/probe-0.swlog", dir);
		snprintf(meta, sizeof(meta),
			 "{\"tool\":\"stalewin-probe\",\"synthetic\":true,\"libnfs_version\":\"synthetic\","
			 "\"urls\":[\"nfs://synthetic/file?version=%d\"],\"depth\":1,"
			 "\"rate\":%.1f,\"timeout_ms\":1000}",
			 c->vers, 1e9 / (double)c->poll_ns);
		rc = swlog_create(&S->p, path, 1, SWLOG_KIND_PROBE,
				  c->probe_run_id ? c->probe_run_id : c->run_id, meta, 0, e);
		if (rc)
			goto fail;
	}
	if (c->kread_ns > 0) {
		snprintf(path, sizeof(path), "%s/kread-0.swlog", dir);
		snprintf(meta, sizeof(meta),
			 "{\"tool\":\"stalewin-reader\",\"synthetic\":true,\"mount_options\":\"%s\","
			 "\"mount_source\":\"synthetic:/export\",\"every_ms\":%.3f,\"mode\":\"%s\",\"page\":%llu}",
			 c->kread_mount_options ? c->kread_mount_options : "rw,vers=3",
			 c->kread_ns / 1e6, c->kread_kept_open ? "kept-open" : "cto",
			 (unsigned long long)c->kread_page);
		rc = swlog_create(&S->k, path, 1, SWLOG_KIND_READER,
				  c->probe_run_id ? c->probe_run_id : c->run_id, meta, 0, e);
		if (rc)
			goto fail;
	}
	return 0;
fail:
	snprintf(err, errlen, "%s", e);
	return rc;
}

/* One read of the kernel-mount reader at server time tk. */
static void synth_kread(struct synth *S, int64_t tk)
{
	const struct sw_synth_cfg *c = S->c;
	struct sw_rec_kread k = {
		.t_before_real_ns = tk - c->offset_ns,
		.t_after_real_ns = tk - c->offset_ns + 300000,
		.page = c->kread_page,
		.mode = c->kread_kept_open ? SW_KREAD_KEPT_OPEN : SW_KREAD_CTO,
	};
	k.gen = gen_at(S->kh, S->nkh, tk - c->kread_lag_ns);
	k.t_before_mono_ns = k.t_before_real_ns - c->t0_real_ns;
	k.t_after_mono_ns = k.t_after_real_ns - c->t0_real_ns;
	if (!k.gen)
		k.flags = SW_READ_NOSTAMP;
	app(S, S->k, SW_REC_KREAD, &k, sizeof(k));
	S->kreads++;
	S->t_kread += c->kread_ns;
}

/* One GETATTR of the probe (and its READ), answered at server time tp;
 * in a gap, the probe's next try is at the gap's end. */
static void synth_poll(struct synth *S, int64_t tp)
{
	const struct sw_synth_cfg *c = S->c;
	int64_t rel = S->t_poll - c->t0_real_ns, gend;
	struct sw_rec_attr a = { .seq = S->seq++, .vers = (uint8_t)c->vers };
	if (in_win(c->gaps, c->ngaps, rel, &gend)) {
		if (!S->gap_start) {
			struct sw_rec_event e = { .t_real_ns = S->t_poll - c->offset_ns,
						  .kind = SW_EV_GAP_START, .err = -111 };
			app(S, S->p, SW_REC_EVENT, &e, sizeof(e));
			S->gap_start = S->last_good ? S->last_good : S->t_poll - c->offset_ns;
		}
		S->t_poll = c->t0_real_ns + gend;
		return;
	}
	if (in_win(c->stall, c->nstall, rel, &gend)) { /* probe stalled */
		S->t_poll = c->t0_real_ns + gend;
		return;
	}
	int64_t rtt = in_win(c->slow, c->nslow, rel, NULL) ? c->slow_rtt_ns : c->rtt_ns;
	a.t_send_real_ns = S->t_poll - c->offset_ns;
	a.t_recv_real_ns = a.t_send_real_ns + rtt;
	a.t_send_mono_ns = a.t_send_real_ns - c->t0_real_ns;
	a.t_recv_mono_ns = a.t_recv_real_ns - c->t0_real_ns;
	if (in_win(c->lost, c->nlost, rel, NULL)) {
		a.status = -110; /* ETIMEDOUT */
		S->errors++;
	} else {
		if (S->gap_start) {
			struct sw_rec_gap g = { .t_start_real_ns = S->gap_start,
						.t_end_real_ns = a.t_recv_real_ns,
						.err = -111 };
			g.t_start_mono_ns = g.t_start_real_ns - c->t0_real_ns;
			g.t_end_mono_ns = g.t_end_real_ns - c->t0_real_ns;
			app(S, S->p, SW_REC_GAP, &g, sizeof(g));
			S->gap_start = 0;
			S->gaps++;
		}
		attrs_at(S, tp - c->server_lag_ns, &a.attrs);
		S->last_good = a.t_recv_real_ns;
		S->replies++;
	}
	app(S, S->p, SW_REC_ATTR, &a, sizeof(a));
	if (c->read_every > 0 && a.status == 0 && S->seq % (uint64_t)c->read_every == 0) {
		struct sw_rec_read r = { .seq = S->seq++, .vers = a.vers, .page = c->read_page };
		int64_t x = tp + c->rtt_ns;
		r.t_send_real_ns = a.t_recv_real_ns;
		r.t_recv_real_ns = a.t_recv_real_ns + c->rtt_ns;
		r.t_send_mono_ns = r.t_send_real_ns - c->t0_real_ns;
		r.t_recv_mono_ns = r.t_recv_real_ns - c->t0_real_ns;
		attrs_at(S, x - c->server_lag_ns, &r.attrs);
		r.gen = gen_at(S->rh, S->nrh, x);
		if (!r.gen)
			r.flags = SW_READ_NOSTAMP;
		app(S, S->p, SW_REC_READ, &r, sizeof(r));
	}
	S->t_poll += c->poll_ns;
	/* a slow reply holds up the next request (a depth-1 probe) */
	if (rtt != c->rtt_ns && S->t_poll < a.t_recv_real_ns + c->offset_ns)
		S->t_poll = a.t_recv_real_ns + c->offset_ns;
}

/* The closing records of every log, clock.json and meta.json. */
static int synth_end(struct synth *S, const char *dir, int64_t pend, char *err,
		     int errlen)
{
	const struct sw_synth_cfg *c = S->c;
	const int64_t TE = c->t0_real_ns + c->duration_ns;
	char path[4096];
	int rc = 0;

	if (!c->no_end) {
		if (!c->no_munmap) {
			struct sw_rec_munmap m = { .t_real_ns = TE, .t_mono_ns = TE - c->t0_real_ns,
						   .dur_ns = 50000, .dirty_pages = S->m.nwritable };
			struct sw_decision d;
			sw_model_munmap(&S->m, TE - c->t0_real_ns, &d);
			if (d.update)
				do_update(S, TE + 10000, SW_CAUSE_MUNMAP, SW_NO_PAGE);
			app(S, S->w, SW_REC_MUNMAP, &m, sizeof(m));
		}
		struct sw_rec_end e = { .t_real_ns = TE + 100000, .t_mono_ns = TE - c->t0_real_ns + 100000,
					.count_a = S->stores, .count_b = S->updates,
					.count_c = S->traps, .reason = SW_END_DONE };
		app(S, S->w, SW_REC_END, &e, sizeof(e));
	}
	if (S->p) {
		struct sw_rec_end e = { .t_real_ns = c->t0_real_ns + pend - c->offset_ns + c->rtt_ns,
					.count_a = S->replies, .count_b = S->errors,
					.count_c = S->gaps, .reason = SW_END_DONE };
		app(S, S->p, SW_REC_END, &e, sizeof(e));
	}
	if (S->k) {
		struct sw_rec_end e = { .t_real_ns = TE - c->offset_ns, .count_a = S->kreads,
					.reason = SW_END_DONE };
		app(S, S->k, SW_REC_END, &e, sizeof(e));
	}
	if (c->clock_json) {
		char js[512];
		snprintf(path, sizeof(path), "%s/clock.json", dir);
		snprintf(js, sizeof(js),
			 "{\"before\":{\"offset_ns\":%lld,\"err_ns\":%lld,\"rtt_min_ns\":%lld,\"samples\":8,\"t_real_ns\":%lld},"
			 "\"after\":{\"offset_ns\":%lld,\"err_ns\":%lld,\"rtt_min_ns\":%lld,\"samples\":8,\"t_real_ns\":%lld}}\n",
			 (long long)(c->offset_ns + c->offset_bias_ns), (long long)c->err_ns, (long long)c->rtt_ns,
			 (long long)(c->t0_real_ns - c->offset_ns), (long long)(c->offset_ns + c->offset_bias_ns),
			 (long long)c->err_ns, (long long)c->rtt_ns, (long long)(TE - c->offset_ns));
		if (write_text(path, js, err, errlen) && !rc)
			rc = -EIO;
	}
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	if (!rc && write_text(path,
			      "{\"argv\":[\"stalewin-synth\"],\"synthetic\":true}\n",
			      err, errlen))
		rc = -EIO;
	return rc;
}

int64_t sw_synth_run(const struct sw_synth_cfg *c, const char *dir, char *err,
		     int errlen)
{
	struct synth S = { .c = c, .rng = c->seed ? c->seed : 1,
			   .t_poll = c->t0_real_ns + c->probe_start_ns,
			   .t_kread = c->t0_real_ns + c->kread_ns };
	const int64_t T0 = c->t0_real_ns, TE = T0 + c->duration_ns;
	int64_t t_store = T0 + c->first_store_ns, t_tick = T0 + c->writeback_ns;
	int64_t t_msa = T0 + c->msync_async_ns, t_mss = T0 + c->msync_sync_ns;
	int64_t pend = c->probe_end_ns > 0 ? c->probe_end_ns : c->duration_ns;
	int rc;

	S.pol = sw_policy_find(c->policy ? c->policy : "eager");
	if (!S.pol || !S.pol->emulated || c->pages == 0 || c->store_interval_ns <= 0 ||
	    (c->probe && c->poll_ns <= 0)) {
		snprintf(err, errlen,
			 "synth: expected policy eager|deferred|lang|none, pages > 0, intervals > 0; saw policy '%s'",
			 c->policy ? c->policy : "");
		return -EINVAL;
	}
	struct sw_model_cfg mc = { .npages = c->pages, .page_size = 4096,
				   .writeback_ns = c->writeback_ns,
				   .expire_ns = c->expire_ns };
	char merr[256];
	rc = sw_model_init(&S.m, &mc, S.pol, 0, merr, sizeof(merr));
	if (rc) {
		snprintf(err, errlen, "synth: %s", merr);
		return rc;
	}
	S.gen = calloc(c->pages, sizeof(uint64_t));
	if (!S.gen) {
		snprintf(err, errlen, "synth: out of memory for %llu pages",
			 (unsigned long long)c->pages);
		sw_model_free(&S.m);
		return -ENOMEM;
	}
	rc = open_logs(&S, dir, err, errlen);
	if (rc)
		goto out;
	if (c->setup_ns) { /* the set-up; the file's times from 10 s before */
		int64_t len = c->setup_len_ns > 0 ? c->setup_len_ns : 1000000;
		struct sw_rec_setup u = { .t_real_ns = T0 + c->setup_ns - len,
					  .t_done_real_ns = T0 + c->setup_ns,
					  .mtime_before_ns = T0 - 10000000000ll,
					  .ctime_before_ns = T0 - 10000000000ll,
					  .mtime_ns = T0 + c->setup_ns - len + 1000000,
					  .ctime_ns = T0 + c->setup_ns - len + 1000000,
					  .size = c->pages * 4096 };
		u.t_mono_ns = u.t_real_ns - T0;
		app(&S, S.w, SW_REC_SETUP, &u, sizeof(u));
	}

	for (;;) {
		/* the next writer event (server time) */
		int64_t tw = TE, tp = INT64_MAX, tk = INT64_MAX;
		int ev = 0; /* 0 end 1 store 2 tick 3 msa 4 mss */
		/* a store acts from its trap's update on (before its data) */
		int64_t t_act = t_store - c->upd_lead_ns - c->trap_ns;
		if (t_store < TE && t_act < tw) { tw = t_act; ev = 1; }
		if (c->writeback_ns > 0 && t_tick < tw) { tw = t_tick; ev = 2; }
		if (c->msync_async_ns > 0 && t_msa < tw) { tw = t_msa; ev = 3; }
		if (c->msync_sync_ns > 0 && t_mss < tw) { tw = t_mss; ev = 4; }
		if (S.p && S.t_poll - T0 < pend)
			tp = S.t_poll + c->rtt_ns / 2; /* when the server answers */
		if (S.k && S.t_kread < TE)
			tk = S.t_kread;
		if (tk <= tw && tk <= tp) {
			synth_kread(&S, tk);
			continue;
		}
		if (tp < tw) {
			synth_poll(&S, tp);
			continue;
		}
		if (ev == 0)
			break;
		if (ev == 1) {
			uint64_t page = c->random ? xorshift(&S.rng) % c->pages
						  : S.stores % c->pages;
			do_store(&S, t_store, page);
			t_store += c->store_interval_ns;
		} else if (ev == 2) {
			do_tick(&S, tw);
			t_tick += c->writeback_ns;
		} else if (ev == 3) {
			do_msync(&S, tw, SW_CAUSE_MSYNC_ASYNC);
			t_msa += c->msync_async_ns;
		} else {
			do_msync(&S, tw, SW_CAUSE_MSYNC_SYNC);
			t_mss += c->msync_sync_ns;
		}
	}
	rc = synth_end(&S, dir, pend, err, errlen);
out:
	if (S.w && swlog_close(S.w) && !rc) {
		rc = -EIO;
		snprintf(err, errlen, "synth: closing writer.swlog failed");
	}
	if (S.p && swlog_close(S.p) && !rc)
		rc = -EIO;
	if (S.k && swlog_close(S.k) && !rc)
		rc = -EIO;
	if (!rc && S.err) {
		rc = S.err;
		snprintf(err, errlen, "synth: appending a record failed: %s", strerror(-rc));
	}
	sw_model_free(&S.m);
	free(S.gen);
	return rc ? rc : (int64_t)S.recs;
}
