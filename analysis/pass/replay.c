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
	r->t_seen_ns = r->t_served_ns = t0_ns;
	r->traced = 0;
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
	/* a traced send is the middle of its jiffy (nfstrace.c when()):
	 * only what came before that jiffy began surely went out before it */
	int64_t last = changed && r->p->vers == 3 && q->rd_send_mono_ns > 0 ? q->rd_send_mono_ns
		     : q->ga_send_mono_ns > 0 ? q->ga_send_mono_ns : q->tb_mono_ns;
	if (last != q->tb_mono_ns)
		last -= r->tick_ns / 2;
	r->t_seen_ns = last > q->tb_mono_ns ? sat((__int128)t + (last - q->tb_mono_ns)) : t;
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
		return;
	}
	r->access_stale = 0;
	jif_no_change(r, jif(r, q->tb_mono_ns),
		      jif(r, q->ac_reply_mono_ns > 0 ? q->ac_reply_mono_ns
						     : q->tb_mono_ns + SW_REPLAY_GETATTR_NS));
}

static void reval_at(struct sw_replay *r, int64_t t)
{
	struct sw_read_time q;
	if (refresh_due(r) && r->reads->get(r->reads->ctx, t, &q)) {
		refresh_at(r, t, &q);
		return;
	}
	int changed = r->srv_key != r->key;
	r->t_attr_ns = t;
	r->revals++;
	r->strict = 0;
	if (changed) {
		r->key = r->srv_key;
		r->t_fill_ns = t;
		r->fills++;
	}
	if (jiffies_mode(r) && r->reads->get(r->reads->ctx, t, &q)) {
		jif_reval(r, &q, changed);
		note_seen(r, t, &q, changed);
		return;
	}
	r->t_seen_ns = r->t_served_ns = t;
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
static void seen_in_read(struct sw_replay *r, int64_t t, uint64_t key)
{
	struct sw_read_time q;
	int had_change = r->t_fill_ns == r->t_attr_ns;
	if (!jiffies_mode(r) || key == r->key || t <= r->t_attr_ns || t > r->t_seen_ns ||
	    !r->reads->get(r->reads->ctx, r->t_attr_ns, &q))
		return;
	r->key = key;
	if (!had_change) {
		/* the revalidation was counted where it ran */
		refetch_untraced(r, r->t_attr_ns, &q);
		note_seen(r, r->t_attr_ns, &q, 1);
		return;
	}
	/* the GETATTR's jiffy began after it: that GETATTR's change */
	int64_t ga = q.ga_send_mono_ns > 0 ? q.ga_send_mono_ns - r->tick_ns / 2 - q.tb_mono_ns : 0;
	if (t <= sat((__int128)r->t_attr_ns + (ga > 0 ? ga : 0)))
		return;
	if (q.ga_in_open && nocto_reopen_v3(r))
		r->access_stale = 1;
	else
		r->refetch_due = 1;
}

void sw_replay_update(struct sw_replay *r, int64_t t_ns, uint64_t key)
{
	sw_replay_advance(r, t_ns);
	seen_in_read(r, t_ns, key);
	r->srv_key = key;
}

int sw_replay_served_early(const struct sw_replay *r, int64_t t_ns)
{
	return r->t_fill_ns == r->t_attr_ns && t_ns > r->t_attr_ns && t_ns <= r->t_seen_ns;
}

int64_t sw_replay_pending_fill(const struct sw_replay *r)
{
	if (r->srv_key == r->key)
		return -1;
	int64_t f = sw_replay_next_reval(r);
	return f == INT64_MAX ? -1 : f;
}
