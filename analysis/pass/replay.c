/* SPDX-License-Identifier: MIT */
/* replay.c - the Linux NFS client's cache rules as a small state machine. */
#include <stddef.h>
#include <stdint.h>

#include "replay.h"

/* First read time >= x (reads at t0 + k * period). */
/* int128 inside: times from damaged logs must not overflow into loops */
static int64_t sat(__int128 v)
{
	return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

static int64_t grid_ceil(const struct sw_replay *r, int64_t x)
{
	if (r->reads) /* a kernel reader's own logged reads */
		return r->reads->ceil(r->reads->ctx, x < r->t0_ns ? r->t0_ns : x);
	__int128 P = r->p->period_ns > 0 ? r->p->period_ns : 1;
	if (x <= r->t0_ns)
		return r->t0_ns;
	__int128 k = ((__int128)x - r->t0_ns + P - 1) / P;
	return sat(r->t0_ns + k * P);
}

static void step(const struct sw_replay *r, int kind, int64_t t, const struct sw_read_time *q,
		 int changed);

static int every_read(const struct sw_replay *r)
{
	return r->p->noac || r->p->cto || r->timeo_ns <= 0;
}

void sw_replay_init(struct sw_replay *r, const struct sw_profile *p,
		    int64_t t0_ns, uint64_t key)
{
	r->p = p;
	r->reads = NULL;
	r->t0_ns = t0_ns;
	r->t_attr_ns = t0_ns;
	r->timeo_ns = p->noac ? 0 : p->acregmin_ns;
	r->key = key;
	r->srv_key = key;
	r->t_fill_ns = t0_ns;
	r->revals = 1;
	r->fills = 1;
	r->tick_ns = 0;
	r->phase_ns = 0;
	r->rcj = 0;
	r->ts_j = 0;
	r->access_stale = 0;
	r->refetch_due = 0;
	r->t_seen_ns = r->t_served_ns = r->t_data_ns = r->t_data_hi_ns = t0_ns;
	r->traced = 0;
	r->t_srv_key_ns = r->t_srv_key_done_ns = t0_ns;
	r->srv_key_prev = key;
	r->err_ns = 0;
	r->undetermined = r->undet_flipped = 0;
	r->on_step = NULL;
	r->step_ctx = NULL;
	/* the first read opens the file (kept-open readers open at their
	 * first read) and its attributes come after that read began (VM:
	 * the first revalidation 3.1 s after it, v3 and v4.2) */
	r->strict = 1;
}

void sw_replay_init_reads(struct sw_replay *r, const struct sw_profile *p,
			  const struct sw_read_src *reads, int64_t t0_ns,
			  uint64_t key)
{
	sw_replay_init(r, p, t0_ns, key);
	r->reads = reads;
}

/* jiffies at the reader's CLOCK_MONOTONIC t (floor on the tick grid) */
static int64_t jif(const struct sw_replay *r, int64_t t)
{
	int64_t d = t - r->phase_ns, q = d / r->tick_ns;
	return (d % r->tick_ns != 0 && d < 0) ? q - 1 : q;
}

static int jiffies_mode(const struct sw_replay *r)
{
	return r->tick_ns > 0;
}

/* The read q made a revalidation (changed: it found a new key and fetched
 * the data again) or, for the first read, opened the file.  Where the
 * client's jiffies were taken (fs/nfs/inode.c, 6.1):
 *  - nfs_update_inode() sets read_cache_jiffies = fattr->time_start, the
 *    jiffies when that RPC's fattr was set up (nfs_fattr_init, at send);
 *    with no change it doubles attrtimeo when now (jiffies at the reply) is
 *    not in [attrtimeo_timestamp, attrtimeo_timestamp + attrtimeo), then
 *    sets attrtimeo_timestamp = now; with a change, attrtimeo = acregmin
 *    and attrtimeo_timestamp = now.
 *  - v3: the refetch's READ carries post-op attributes (nfs3_read_done ->
 *    nfs_refresh_inode), whose fattr was set up at the READ's send: they
 *    move read_cache_jiffies and attrtimeo_timestamp once more.  A v4 READ
 *    compound carries no GETATTR: the GETATTR's stand. */
static void jif_no_change(struct sw_replay *r, int64_t rcj, int64_t now)
{
	r->rcj = rcj;
	if (!r->p->noac && now - r->ts_j >= r->timeo_ns / r->tick_ns) {
		int64_t n = r->timeo_ns * 2;
		r->timeo_ns = n > r->p->acregmax_ns ? r->p->acregmax_ns : n;
	}
	r->ts_j = now;
}

static void jif_reval(struct sw_replay *r, const struct sw_read_time *q, int changed)
{
	int64_t dur = q->ta_mono_ns - q->tb_mono_ns;
	int64_t getattr_reply = q->tb_mono_ns + SW_REPLAY_GETATTR_NS;
	/* the client's own times where its tracepoints were recorded
	 * (nfstrace.h): the GETATTR's send and reply, a v3 READ's */
	int64_t ga_send = 0, ga_reply = 0;
	if (q->ga_send_mono_ns > 0 && q->ga_reply_mono_ns > 0) {
		ga_send = q->ga_send_mono_ns;
		ga_reply = q->ga_reply_mono_ns;
	} else if (r->p->vers != 3 && q->op_send_mono_ns > 0 &&
		   (q->op_refresh_mono_ns > 0 || q->op_reply_mono_ns > 0)) {
		/* v4: the open's OPEN compound carries the GETATTR (a
		 * close-to-open reader revalidates so at every open,
		 * nfs4_do_open -> nfs_refresh_inode; a new inode is set up
		 * by nfs_fhget) */
		ga_send = q->op_send_mono_ns;
		ga_reply = q->op_refresh_mono_ns > 0 ? q->op_refresh_mono_ns : q->op_reply_mono_ns;
	}
	int ga = ga_send > 0;
	int rd = q->rd_send_mono_ns > 0 && q->rd_reply_mono_ns > 0;
	/* count the revalidations whose jiffies the trace gave */
	r->traced += changed ? (r->p->vers == 3 ? rd : ga) : ga;
	if (!changed) {
		jif_no_change(r, jif(r, ga ? ga_send : q->tb_mono_ns),
			      jif(r, ga ? ga_reply
				     : dur >= SW_REPLAY_RPC_MIN_NS ? q->ta_mono_ns : getattr_reply));
		return;
	}
	r->timeo_ns = r->p->noac ? 0 : r->p->acregmin_ns;
	/* the change set NFS_INO_INVALID_ACCESS; a GETATTR of the open's
	 * permission check had that open send the ACCESS (before the READ
	 * below), one of the read's check leaves it to the next open */
	r->access_stale = q->ga_send_mono_ns > 0 && q->ga_reply_mono_ns > 0 && !q->ga_in_open;
	if (r->p->vers == 3 && rd) {
		/* the READ's post-op attributes came last: nfs_update_inode
		 * with no change, in range, so attrtimeo stays acregmin */
		r->rcj = jif(r, q->rd_send_mono_ns);
		r->ts_j = jif(r, q->rd_reply_mono_ns);
	} else if (r->p->vers == 3) {
		/* the READ's reply is handled (nfs_update_inode, on rpciod)
		 * before the reader is woken: never after the read returned,
		 * whatever the read's length (VM, v3 kept-open: a 3.7 ms
		 * refetch ending in the GETATTR's jiffy, then a no-change
		 * GETATTR 750 jiffies later that doubled attrtimeo) */
		int64_t send = dur > SW_REPLAY_READ_TAIL_NS ? q->ta_mono_ns - SW_REPLAY_READ_TAIL_NS
							      : getattr_reply;
		if (send > q->ta_mono_ns)
			send = q->ta_mono_ns;
		r->rcj = jif(r, send);
		r->ts_j = jif(r, q->ta_mono_ns);
	} else {
		/* v4: the GETATTR's stand (the READ compound has none) */
		r->rcj = jif(r, ga ? ga_send : q->tb_mono_ns);
		r->ts_j = jif(r, ga ? ga_reply : getattr_reply);
	}
}

void sw_replay_set_jiffies(struct sw_replay *r, int64_t tick_ns, int64_t phase_ns)
{
	struct sw_read_time q;
	if (tick_ns <= 0 || !r->reads || !r->reads->ceil_mono || !r->reads->get ||
	    !r->reads->get(r->reads->ctx, r->t0_ns, &q) || q.tb_mono_ns <= 0)
		return;
	r->tick_ns = tick_ns;
	r->phase_ns = ((phase_ns % tick_ns) + tick_ns) % tick_ns;
	/* the first read opened the file and read it: a fetch; a v4 OPEN
	 * (its compound's GETATTR stamps the cache, the READ does not) goes
	 * out after the LOOKUP and ACCESS of the open */
	jif_reval(r, &q, 1);
	if (r->p->vers != 3) {
		/* traced: the jiffy its OPEN's fattr was set up in (VM,
		 * v4.2 nocto: an open whose estimate was 2 jiffies late
		 * shifted every revalidation of the run by one read) */
		r->rcj = jif(r, q.op_send_mono_ns > 0 ? q.op_send_mono_ns
						      : q.tb_mono_ns + SW_REPLAY_OPEN_NS);
		/* and the jiffy nfs_fhget set its new inode up in: "now =
		 * jiffies" is the attrtimeo_timestamp the first no-change
		 * GETATTR doubles against (VM, v4.2 acregmin=1 kept-open:
		 * the inode set up a tick after the estimate, the kernel kept
		 * attrtimeo at 1 s where the replay doubled it, and stayed
		 * a revalidation apart for the run) */
		if (q.op_reply_mono_ns > 0)
			r->ts_j = jif(r, q.op_reply_mono_ns);
	}
	r->strict = 0;
	step(r, SW_STEP_OPEN, r->t0_ns, &q, 1);
}

static void step(const struct sw_replay *r, int kind, int64_t t, const struct sw_read_time *q,
		 int changed)
{
	if (!r->on_step)
		return;
	struct sw_replay_step s = { .kind = kind, .t_ns = t, .changed = changed,
				    .t_upd_ns = r->t_srv_key_ns, .t_seen_ns = r->t_seen_ns,
				    .timeo_ns = r->timeo_ns, .rcj = r->rcj, .ts_j = r->ts_j };
	if (q) {
		s.tb_mono_ns = q->tb_mono_ns;
		s.ta_mono_ns = q->ta_mono_ns;
		s.ga_send_mono_ns = q->ga_send_mono_ns;
		s.rd_send_mono_ns = q->rd_send_mono_ns;
	}
	r->on_step(r->step_ctx, &s);
}

/* A v3 reader that opens the file for every read on a nocto mount: its
 * opens revalidate nothing (nfs_lookup_verify_inode), but their permission
 * check (nfs_permission -> nfs_do_access) finds the access cache zapped
 * after a change (nfs_update_inode sets NFS_INO_INVALID_ACCESS;
 * nfs_access_get_cached_locked then goes to out_zap) and sends ACCESS, whose
 * post-op attributes refresh the inode (nfs3_proc_access ->
 * nfs_refresh_inode): read_cache_jiffies becomes that open's jiffy (the
 * fattr is set up right before the call), attrtimeo_timestamp its reply's,
 * and a change since the last refresh is found there.  VM, v3 nocto
 * reopening reader: after a change found by the read's GETATTR at 18.60 s,
 * the next open's ACCESS (18.70 s) put the next GETATTR at 21.80 s, not
 * 21.60 s, and that no-change GETATTR doubled attrtimeo against the
 * ACCESS's reply; the replay without it kept 3 s and stayed apart for the
 * run (p50 3.56 s against the client's 2.87 s). */
static int nocto_reopen_v3(const struct sw_replay *r)
{
	return r->p->reopen && !r->p->cto && r->p->vers == 3;
}

static int access_due(const struct sw_replay *r)
{
	return r->access_stale && nocto_reopen_v3(r) && jiffies_mode(r) && !every_read(r);
}

/* the next read refreshes before any timeout: an ACCESS, or a refetch */
static int refresh_due(const struct sw_replay *r)
{
	return access_due(r) || (r->refetch_due && jiffies_mode(r) && !every_read(r));
}

/* The read q (at writer time t) refetched the data without a GETATTR of
 * its own (an ACCESS, an invalidation, or an update its revalidation
 * got): the jiffies of a change, no traced revalidation counted. */
static void refetch_untraced(struct sw_replay *r, int64_t t, const struct sw_read_time *q)
{
	uint64_t traced = r->traced;
	r->t_fill_ns = t;
	r->fills++;
	jif_reval(r, q, 1);
	r->traced = traced;
}

/* The read q (at writer time t) revalidated or refreshed: what it got is
 * the server's as of its last RPC's send (a v3 refetch's READ, else its
 * GETATTR), where traced. */
static void note_seen(struct sw_replay *r, int64_t t, const struct sw_read_time *q, int changed)
{
	/* the RPC's send as ftrace printed it (µs), where the trace has it;
	 * else a traced send is the middle of its jiffy (nfstrace.c
	 * when()): only what came before that jiffy began surely went out
	 * before it (VM under load: stores made 1-3 ms after a refetch's
	 * GETATTR, before its READ, served by that READ, replayed a
	 * revalidation later for want of the exact send) */
	int v3rd = changed && r->p->vers == 3 && q->rd_send_mono_ns > 0;
	int64_t ev = v3rd ? q->rd_send_ev_mono_ns : q->ga_send_mono_ns > 0 ? q->ga_send_ev_mono_ns : 0;
	int64_t last = v3rd ? q->rd_send_mono_ns
		     : q->ga_send_mono_ns > 0 ? q->ga_send_mono_ns : q->tb_mono_ns;
	if (ev > 0)
		last = ev - r->err_ns;
	else if (last != q->tb_mono_ns)
		last -= r->tick_ns / 2;
	r->t_seen_ns = last > q->tb_mono_ns ? sat((__int128)t + (last - q->tb_mono_ns)) : t;
	/* the data: a fetching read's READ, as ftrace printed it (v4's
	 * READ goes out after the OPEN or GETATTR that found the change:
	 * VM, v4.2 close-to-open under load, a store 16 ms before its READ
	 * served by it) */
	int64_t rs = q->rd_send_ev_mono_ns, rdone = q->rd_done_ev_mono_ns;
	if (changed && rs > 0 && q->tb_mono_ns > 0) {
		r->t_data_ns = sat((__int128)t + (rs - q->tb_mono_ns) - r->err_ns);
		r->t_data_hi_ns = rdone >= rs ? sat((__int128)t + (rdone - q->tb_mono_ns) + r->err_ns)
					      : r->t_data_ns;
	} else {
		r->t_data_ns = r->t_data_hi_ns = r->t_seen_ns;
	}
	r->t_served_ns = q->ta_mono_ns > q->tb_mono_ns ? sat((__int128)t + (q->ta_mono_ns - q->tb_mono_ns)) : t;
}

int64_t sw_replay_next_reval(const struct sw_replay *r)
{
	if (every_read(r))
		return grid_ceil(r, sat((__int128)r->t_attr_ns + 1));
	if (refresh_due(r))
		return grid_ceil(r, sat((__int128)r->t_attr_ns + 1));
	/* nfs_attribute_timeout(): the cache is valid while
	 * time_in_range_open(jiffies, read_cache_jiffies, read_cache_jiffies +
	 * attrtimeo), and read_cache_jiffies is the send time of the last
	 * RPC whose attributes refreshed the inode (fattr->time_start, set by
	 * nfs_update_inode and nfs_check_inode_attributes).  A GETATTR sent by
	 * the read at t_attr sets it within that read's jiffy: the read
	 * exactly attrtimeo later revalidates (VM, v4.2 kept-open: 3.000 s
	 * after a change, 6.000 s after a no-change GETATTR).  After a
	 * refetch under NFSv3 the READ's post-op attributes (nfs3_read_done
	 * -> nfs_refresh_inode -> nfs_check_inode_attributes) move it to the
	 * READ's send time, a GETATTR round trip later: the first read
	 * strictly after (VM, v3 kept-open: 3.1 s after a change, 6.0 s after
	 * no change).  An NFSv4 READ compound carries no GETATTR
	 * (nfs4_xdr_enc_read: SEQUENCE PUTFH READ; nfs4_read_done_cb
	 * refreshes nothing), so v4 never moves it. */
	if (jiffies_mode(r)) {
		/* nfs_attribute_timeout(): the first read whose jiffies are
		 * not in [read_cache_jiffies, read_cache_jiffies + attrtimeo) */
		__int128 m = (__int128)r->phase_ns +
			     ((__int128)r->rcj + r->timeo_ns / r->tick_ns) * r->tick_ns;
		return r->reads->ceil_mono(r->reads->ctx, sat(m));
	}
	if (r->reads) {
		/* logged reads are not on an exact grid: "the read exactly
		 * attrtimeo later" is the one within a jiffy of it (jiffies
		 * compare, HZ=250: 4 ms; the reads' own jitter is sub-ms), and
		 * "strictly after" the first read more than a jiffy after */
		int64_t tol = SW_REPLAY_JIFFY_NS;
		return grid_ceil(r, sat((__int128)r->t_attr_ns + r->timeo_ns +
					(r->strict ? tol + 1 : -tol)));
	}
	return grid_ceil(r, sat((__int128)r->t_attr_ns + r->timeo_ns + (r->strict ? 1 : 0)));
}

/* The open of the read at t sent ACCESS (access_due), or the read found
 * its data invalidated (refetch_due): a refresh, not a GETATTR.  A change
 * found there, or the invalidation, refetches at that read (its READ's
 * post-op attributes come last, as after a GETATTR's). */
static void refresh_at(struct sw_replay *r, int64_t t, const struct sw_read_time *q)
{
	int access = access_due(r);
	int key_changed = r->srv_key != r->key;
	int fetch = key_changed || r->refetch_due;
	r->t_attr_ns = t;
	r->strict = 0;
	r->refetch_due = 0;
	note_seen(r, t, q, fetch);
	if (fetch) {
		r->key = r->srv_key;
		refetch_untraced(r, t, q);
		/* a change found here zapped the access cache again (the
		 * next open's ACCESS); found by the READ's post-op
		 * attributes rather than an ACCESS before it, it also
		 * invalidated the data just read (the next read's refetch) */
		r->access_stale = key_changed;
		r->refetch_due = key_changed && !access;
		step(r, SW_STEP_REFRESH, t, q, 1);
		return;
	}
	r->access_stale = 0;
	jif_no_change(r, jif(r, q->tb_mono_ns),
		      jif(r, q->ac_reply_mono_ns > 0 ? q->ac_reply_mono_ns
						     : q->tb_mono_ns + SW_REPLAY_GETATTR_NS));
	step(r, SW_STEP_REFRESH, t, q, 0);
}

/* Where the server answered the GETATTR of the read q at t, on the
 * writer's clock: between that RPC's send and its reply as ftrace printed
 * them, widened by the two clocks' error.  0: not traced. */
static int ga_window(const struct sw_replay *r, int64_t t, const struct sw_read_time *q,
		     int64_t *lo, int64_t *hi)
{
	int64_t s = q->ga_send_ev_mono_ns, e = q->ga_reply_ev_mono_ns;
	if (s <= 0 && r->p->vers != 3) {
		/* v4: an open's OPEN compound carries the GETATTR */
		s = q->op_send_ev_mono_ns;
		e = q->op_reply_ev_mono_ns;
	}
	if (s <= 0 || e < s || q->tb_mono_ns <= 0)
		return 0;
	*lo = sat((__int128)t + (s - q->tb_mono_ns) - r->err_ns);
	*hi = sat((__int128)t + (e - q->tb_mono_ns) + r->err_ns);
	return 1;
}

/* A change made in [u, u_done] against a GETATTR answered in [lo, hi]:
 * 1 seen, 0 not, -1 either (the server's order is not in the logs). */
static int seen_by(int64_t u, int64_t u_done, int64_t lo, int64_t hi)
{
	if (u_done < lo)
		return 1;
	if (u > hi)
		return 0;
	return -1;
}

/* Either was possible: the client's own outcome, traced (the change
 * found by the GETATTR invalidated the data: the same read sent a READ,
 * nfs_revalidate_mapping -> nfs_invalidate_mapping), counted. */
static int taken(struct sw_replay *r, int client, int own)
{
	r->undetermined++;
	r->undet_flipped += client != own;
	return client;
}

static int take_client(struct sw_replay *r, const struct sw_read_time *q, int own)
{
	return taken(r, q->rd_send_mono_ns > 0, own);
}

/* The read q at t revalidates with the server's last change unseen: was
 * it made before the server answered the read's GETATTR?  Only that
 * change is in question (with an older one unseen it is a change
 * anyway).  VM, v3 kept-open (a CI machine, 6 Dec): a replay that took
 * a change its GETATTR went out after as seen refetched where the client
 * doubled attrtimeo, and stayed apart for the run. */
static int decide_changed(struct sw_replay *r, int64_t t, const struct sw_read_time *q)
{
	int64_t lo, hi;
	if (r->srv_key == r->key)
		return 0;
	if (r->srv_key_prev != r->key || !ga_window(r, t, q, &lo, &hi))
		return 1;
	int s = seen_by(r->t_srv_key_ns, r->t_srv_key_done_ns, lo, hi);
	return s >= 0 ? s : take_client(r, q, 1);
}

static void reval_at(struct sw_replay *r, int64_t t)
{
	struct sw_read_time q;
	if (refresh_due(r) && r->reads->get(r->reads->ctx, t, &q)) {
		refresh_at(r, t, &q);
		return;
	}
	int traced = jiffies_mode(r) && r->reads->get(r->reads->ctx, t, &q);
	int changed = traced ? decide_changed(r, t, &q) : r->srv_key != r->key;
	r->t_attr_ns = t;
	r->revals += !(traced && q.beyond); /* past the reader: not counted */
	r->strict = 0;
	if (changed) {
		r->key = r->srv_key;
		r->t_fill_ns = t;
		r->fills++;
	}
	if (traced) {
		jif_reval(r, &q, changed);
		note_seen(r, t, &q, changed);
		step(r, SW_STEP_REVAL, t, &q, changed);
		return;
	}
	r->t_seen_ns = r->t_served_ns = r->t_data_ns = r->t_data_hi_ns = t;
	if (changed) {
		r->timeo_ns = r->p->noac ? 0 : r->p->acregmin_ns;
		/* the refetch's READ: v3 post-op attributes (see above) */
		r->strict = r->p->vers == 3;
	} else if (!r->p->noac) {
		/* nfs_update_inode(): with no change, attrtimeo doubles when
		 * the reply comes at or after attrtimeo_timestamp + attrtimeo
		 * (time_in_range_open); at zero latency a revalidation
		 * exactly attrtimeo after the last one doubles (in the VM
		 * its jitter sometimes keeps it: a coin flip, not modelled) */
		int64_t n = r->timeo_ns * 2;
		r->timeo_ns = n > r->p->acregmax_ns ? r->p->acregmax_ns : n;
	}
	step(r, SW_STEP_REVAL, t, NULL, changed);
}

void sw_replay_advance(struct sw_replay *r, int64_t t_ns)
{
	for (;;) {
		int64_t nx = sw_replay_next_reval(r);
		if (nx >= t_ns || nx <= r->t_attr_ns) /* saturated: stop */
			return;
		if (!r->reads && r->srv_key == r->key && !r->strict &&
		    (every_read(r) || r->timeo_ns >= r->p->acregmax_ns)) {
			/* constant step from here on: jump in closed form */
			__int128 step = (__int128)nx - r->t_attr_ns;
			if (step > 0) {
				__int128 n = ((__int128)t_ns - 1 - nx) / step;
				if (n > 0) {
					r->t_attr_ns = sat(nx + (n - 1) * step);
					r->revals += (uint64_t)n;
					continue;
				}
			}
		}
		reval_at(r, nx);
	}
}

/* An update at t came after the read at t_attr began but before that
 * read's last RPC went out (note_seen): the client got it there.  Which
 * RPC tells what the client did with it (fs/nfs/inode.c nfs_update_inode:
 * a change sets NFS_INO_INVALID_DATA and _ACCESS):
 *  - the GETATTR of a revalidation that had found nothing: a change after
 *    all, refetched in that read;
 *  - after the GETATTR of one that had found a change (v3): the same
 *    open's ACCESS (a reopening reader whose open's permission check sent
 *    the GETATTR), so its next open sends ACCESS again; else the READ's
 *    post-op attributes, so the next read refetches.
 * VM, v3 nocto reopening reader: the GETATTR of the open at 12.50 s found
 * a change, the open's ACCESS 11 ms later the next one; the client then
 * found nothing new at 15.60 s, where the replay had kept the older key,
 * refetched, and served every store of the 3 s before it 3 s early. */
/* The client's read after the last revalidating one refetched with no
 * GETATTR of its own (its data invalidated by the READ's post-op
 * attributes), counted as an undetermined decision taken from it. */
static int crossed_read(struct sw_replay *r)
{
	struct sw_read_time n;
	int64_t nx = r->reads->ceil(r->reads->ctx, sat((__int128)r->t_attr_ns + 1));
	int k = nx != INT64_MAX && r->reads->get(r->reads->ctx, nx, &n) && !n.beyond &&
		n.rd_send_mono_ns > 0 && n.ga_send_mono_ns <= 0;
	return taken(r, k, 0); /* the send-time rule said not seen */
}

static void seen_in_read(struct sw_replay *r, int64_t t, int64_t t_done, uint64_t key)
{
	struct sw_read_time q;
	int64_t lo, hi;
	int crossed = 0;
	int had_change = r->t_fill_ns == r->t_attr_ns;
	if (!jiffies_mode(r) || key == r->key || t <= r->t_attr_ns ||
	    !r->reads->get(r->reads->ctx, r->t_attr_ns, &q))
		return;
	if (!had_change && r->srv_key == r->key && ga_window(r, r->t_attr_ns, &q, &lo, &hi)) {
		/* the GETATTR's own window, where traced: made before the
		 * server answered it, or not, or either */
		int s = seen_by(t, t_done, lo, hi);
		if (s < 0)
			s = take_client(r, &q, t <= r->t_seen_ns);
		if (!s)
			return;
	} else if (t > r->t_seen_ns) {
		/* v3: made while the refetch's READ was on its way, its
		 * post-op attributes may show it or not; they did if the
		 * client's next read refetched without a GETATTR
		 * (NFS_INO_INVALID_DATA).  VM, v3 nocto reopening reader
		 * under load: a change 90 ms after a READ went out, shown by
		 * its post-op attributes, the next read's refetch moving
		 * read_cache_jiffies a read later */
		if (!had_change || r->p->vers != 3 || t > r->t_data_hi_ns || !crossed_read(r))
			return;
		crossed = 1;
	}
	r->key = key;
	if (!had_change) {
		/* the revalidation was counted where it ran */
		refetch_untraced(r, r->t_attr_ns, &q);
		note_seen(r, r->t_attr_ns, &q, 1);
		r->t_srv_key_ns = t;
		step(r, SW_STEP_LATE, r->t_attr_ns, &q, 1);
		return;
	}
	/* the GETATTR's jiffy began after it: that GETATTR's change */
	int64_t ga = q.ga_send_mono_ns > 0 ? q.ga_send_mono_ns - r->tick_ns / 2 - q.tb_mono_ns : 0;
	if (t <= sat((__int128)r->t_attr_ns + (ga > 0 ? ga : 0)))
		return;
	if (crossed) {
		r->refetch_due = 1;
		r->access_stale = nocto_reopen_v3(r);
	} else if (q.ga_in_open && nocto_reopen_v3(r))
		r->access_stale = 1;
	else
		r->refetch_due = 1;
	r->t_srv_key_ns = t;
	step(r, SW_STEP_LATE, r->t_attr_ns, &q, 0);
}

void sw_replay_update_window(struct sw_replay *r, int64_t t_ns, int64_t t_lo_ns, int64_t t_hi_ns,
			     uint64_t key)
{
	if (t_lo_ns > t_ns)
		t_lo_ns = t_ns;
	if (t_hi_ns < t_ns)
		t_hi_ns = t_ns;
	/* with the client's traced RPCs the window is ordered against
	 * them (decide_changed, seen_in_read); without, the change is
	 * taken at t */
	int64_t at = jiffies_mode(r) ? t_lo_ns : t_ns;
	sw_replay_advance(r, at);
	seen_in_read(r, at, t_hi_ns, key);
	if (key != r->srv_key) {
		r->srv_key_prev = r->srv_key;
		r->t_srv_key_ns = at;
		r->t_srv_key_done_ns = t_hi_ns;
	}
	r->srv_key = key;
}

void sw_replay_update_span(struct sw_replay *r, int64_t t_ns, int64_t t_done_ns, uint64_t key)
{
	sw_replay_update_window(r, t_ns, t_ns, t_done_ns, key);
}

void sw_replay_update(struct sw_replay *r, int64_t t_ns, uint64_t key)
{
	sw_replay_update_span(r, t_ns, t_ns, key);
}

int sw_replay_served_early(const struct sw_replay *r, int64_t t_ns)
{
	return r->t_fill_ns == r->t_attr_ns && t_ns > r->t_attr_ns && t_ns <= r->t_data_ns;
}

int sw_replay_maybe_early(const struct sw_replay *r, int64_t t_ns)
{
	return r->t_fill_ns == r->t_attr_ns && t_ns > r->t_attr_ns && t_ns > r->t_data_ns &&
	       t_ns <= r->t_data_hi_ns;
}

int64_t sw_replay_pending_fill(const struct sw_replay *r)
{
	/* a change still unseen, or one the last read's READ showed after
	 * it fetched (NFS_INO_INVALID_DATA: the next read refetches) */
	if (r->srv_key == r->key && !(r->refetch_due && jiffies_mode(r) && !every_read(r)))
		return -1;
	int64_t f = sw_replay_next_reval(r);
	return f == INT64_MAX ? -1 : f;
}

int64_t sw_replay_served(const struct sw_replay *r, int64_t t_ns)
{
	/* a logged read serves what it fetched when it returns, as the
	 * kernel reader's own figure counts it (its KREAD t_after): a
	 * refetch takes its GETATTR and READ round trips (VM under load, a
	 * 2-core host at load 7: 10-60 ms, every store of a close-to-open
	 * reader replayed that much early) */
	struct sw_read_time q;
	if (t_ns >= 0 && r->reads && r->reads->get && r->reads->get(r->reads->ctx, t_ns, &q) &&
	    q.tb_mono_ns > 0 && q.ta_mono_ns > q.tb_mono_ns)
		return sat((__int128)t_ns + (q.ta_mono_ns - q.tb_mono_ns));
	return t_ns;
}
