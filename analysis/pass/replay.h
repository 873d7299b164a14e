/* SPDX-License-Identifier: MIT */
/*
 * replay.h - the Linux NFS client's attribute/data cache rules, replayed
 * against the writer's truth timeline (semantics.md "Client view").
 *
 * A profile is data: NFS version (which attribute invalidates the data
 * cache), acregmin/acregmax, noac, close-to-open, and the application's
 * read period.  The application reads at t0 + k * period; at a read the
 * attributes are revalidated when the attribute cache has timed out (or at
 * every read under noac / close-to-open).  A revalidation that finds the
 * invalidation key changed drops the data cache (the read then fetches
 * fresh data) and resets the timeout to acregmin; one that finds nothing
 * new doubles the timeout, capped at acregmax.
 */
#ifndef STALEWIN_REPLAY_H
#define STALEWIN_REPLAY_H

#include <stdint.h>

#define SW_PROFILE_NAME 40
#define SW_MAX_PROFILES 16

struct sw_profile {
	char name[SW_PROFILE_NAME]; /* e.g. "v3-default" */
	int vers;                   /* 3: key = ctime (+size); 4: change attr */
	int64_t acregmin_ns;        /* first timeout after a change */
	int64_t acregmax_ns;        /* cap of the doubling */
	int noac;                   /* 1: revalidate at every read */
	int cto;                    /* 1: an open (GETATTR) before every read */
	int reopen;                 /* 1: the application opens the file
				       for every read (with cto 0: a v3
				       nocto mount, whose opens send an
				       ACCESS after a change, replay.c) */
	int64_t period_ns;          /* application read period (> 0) */
};

/* The built-in table (profiles.c). */
extern const struct sw_profile sw_default_profiles[];
extern const int sw_n_default_profiles;

/* Parse one profile line "NAME vers=3 acregmin=3 acregmax=60 [noac] [cto]
 * [reopen] period_ms=100" (seconds may be fractional).  0 or -EINVAL with
 * err. */
int sw_profile_parse(const char *line, struct sw_profile *p, char *err,
		     int errlen);
/* Load up to max profiles from a file (one per line, '#' comments). */
int sw_profiles_load(const char *path, struct sw_profile *out, int max,
		     char *err, int errlen);
/* A profile from a mount's options as in /proc/mounts (vers=, actimeo=,
 * acregmin=, acregmax=, noac, nocto) and the reader's period/mode. */
void sw_profile_from_mount(const char *opts, int64_t period_ns, int cto,
			   struct sw_profile *p);
/* One line describing the profile ("v3 ac 3..60s cto read/100ms"). */
void sw_profile_describe(const struct sw_profile *p, char *buf, int len);

/* Where the replayed reads come from when not the ideal grid: ceil(ctx, x)
 * is the first read starting at or after x (writer realtime, ns),
 * INT64_MAX when there is none (a kernel reader's logged reads). */
#define SW_REPLAY_JIFFY_NS 4000000 /* HZ=250: the kernel's time grain */

/* With the reader's jiffies grid known (sw_replay_set_jiffies), where in a
 * logged read the client took its jiffies (fitted on the TCG guests' logs,
 * two runs whose reads began 0.3 ms and 1.5-3.5 ms after a tick):
 *   OPEN_NS       (above) the v4 OPEN, whose GETATTR stamps the cache;
 *   GETATTR_NS    the GETATTR's reply after the read began (a read that
 *                 made no RPC of its own);
 *   READ_TAIL_NS  a refetch's READ sent this long before the read returned
 *                 (its post-op attributes, v3);
 *   RPC_MIN_NS    a read this long or longer made an RPC: it returned
 *                 with the reply. */
#define SW_REPLAY_GETATTR_NS 2000000
#define SW_REPLAY_OPEN_NS 3000000 /* v4: the OPEN's send after the first
				     read began (LOOKUP/ACCESS first) */
#define SW_REPLAY_READ_TAIL_NS 6500000
#define SW_REPLAY_RPC_MIN_NS 500000

/* One logged read: its start in the writer's clock (what the replay orders
 * by) and its start and end in the reader's CLOCK_MONOTONIC (what the
 * client's jiffies follow; 0 and 0: not known). */
struct sw_read_time {
	int64_t t_ns;       /* start, writer realtime */
	int64_t tb_mono_ns; /* start, reader's CLOCK_MONOTONIC */
	int64_t ta_mono_ns; /* end (the read returned), same clock */
	/* the client's own times within the read, same clock, from its
	 * tracepoints (nfstrace.h; 0: not traced): where it took its
	 * jiffies, instead of the *_NS estimates above; where its kprobes
	 * read jiffies_64 there, the middle of that jiffy on the grid */
	int64_t ga_send_mono_ns;  /* GETATTR's fattr set up (time_start) */
	int64_t ga_reply_mono_ns; /* its reply applied (nfs_update_inode) */
	int64_t rd_send_mono_ns;  /* READ's fattr set up (the READ whose
				     post-op attributes were applied last) */
	int64_t rd_reply_mono_ns; /* those attributes applied (v3) */
	int64_t op_send_mono_ns;  /* a v4 OPEN's fattr set up before the
				     read's check (its open, traced) */
	int64_t op_reply_mono_ns; /* that OPEN's new inode set up (nfs_fhget:
				     attrtimeo_timestamp); 0: not traced, or
				     the inode existed (a refresh followed) */
	int64_t op_refresh_mono_ns; /* that OPEN's reply refreshed an inode
				     that existed (nfs_refresh_inode ->
				     nfs_update_inode: read_cache_jiffies =
				     the OPEN's time_start, attrtimeo_timestamp
				     this); 0: not traced, or a new inode */
	int64_t chk_mono_ns;      /* the attribute check (nfs_revalidate_mapping
				     from nfs_file_read): the middle of the
				     jiffy the kernel read then (traced); 0:
				     not traced, the read's start stands */
	int ga_in_open;           /* 1: the GETATTR came before the read's
				     check: the open's permission check sent
				     it (nfs_access_get_cached ->
				     __nfs_revalidate_inode), so a change it
				     found had the same open send the ACCESS
				     (traced; 0: after the check, or not
				     traced) */
	/* the same GETATTR's and READ's events at the time ftrace printed
	 * them (µs), not on the jiffy grid: where the server may have
	 * answered them (0: not traced) */
	int64_t ga_send_ev_mono_ns, ga_reply_ev_mono_ns, rd_send_ev_mono_ns;
	int64_t rd_done_ev_mono_ns; /* that READ's reply (nfs_readpage_done) */
	int64_t op_send_ev_mono_ns, op_reply_ev_mono_ns; /* a v4 open's OPEN
				     (its fattr set up) and its reply applied */
	int beyond;               /* 1: past the reader's last logged read
				     (its period continued: nothing traced) */
	int64_t ac_reply_mono_ns; /* a v3 open's ACCESS reply applied
				     (nfs3_proc_access -> nfs_refresh_inode)
				     before the read's check, with no GETATTR
				     before it; 0: none traced */
};

struct sw_read_src {
	int64_t (*ceil)(void *ctx, int64_t x_ns);
	/* the writer time of the first read starting at or after the
	 * reader's CLOCK_MONOTONIC mono_ns; INT64_MAX: none */
	int64_t (*ceil_mono)(void *ctx, int64_t mono_ns);
	/* the read starting at t_ns (a time ceil or ceil_mono gave): 1 and
	 * *out, or 0 */
	int (*get)(void *ctx, int64_t t_ns, struct sw_read_time *out);
	void *ctx;
};

/* One step of a replay, for a log of its decisions (sw_replay.on_step):
 * a revalidation, a refresh (an ACCESS or an invalidated read), or a
 * change found late (an update its last read's RPC still saw). */
enum sw_replay_step_kind {
	SW_STEP_REVAL = 1, /* nfs_attribute_timeout() expired: a GETATTR */
	SW_STEP_REFRESH,   /* an ACCESS or a refetch, no GETATTR */
	SW_STEP_LATE,      /* an update its last RPC saw after all */
	SW_STEP_OPEN,      /* the first read: the open's attributes */
};

struct sw_replay_step {
	int kind;             /* enum sw_replay_step_kind */
	int64_t t_ns;         /* the read's start, writer realtime */
	int64_t tb_mono_ns;   /* the same, reader's CLOCK_MONOTONIC (0: none) */
	int64_t ta_mono_ns;   /* the read's end, same clock */
	int64_t ga_send_mono_ns, rd_send_mono_ns; /* traced (0: none) */
	int changed;          /* it found a change: the data fetched again */
	int64_t t_upd_ns;     /* writer realtime of the server's last change
				 the replay knew then */
	int64_t t_seen_ns;    /* writer realtime: its last RPC's send */
	int64_t timeo_ns, rcj, ts_j; /* the state after it (jiffies: grid) */
};

struct sw_replay {
	const struct sw_profile *p; /* the profile (not owned) */
	const struct sw_read_src *reads; /* NULL: reads at t0 + k * period */
	int64_t t0_ns;        /* first read (writer realtime) */
	int64_t t_attr_ns;    /* time of the last revalidation (a read time) */
	int64_t timeo_ns;     /* current attribute cache timeout */
	int strict;           /* 1: read_cache_jiffies is later than the read
				 at t_attr_ns (a v3 READ's post-op attributes
				 after the refetch, or the first read's open),
				 so the read exactly timeo later is still
				 inside; 0: the GETATTR of that read set it */
	uint64_t key;         /* invalidation key the client cached */
	uint64_t srv_key;     /* server's current key */
	int64_t t_fill_ns;    /* when the cached data was fetched */
	uint64_t revals;      /* revalidations (GETATTRs) made, but for those
				 past the reader's last logged read */
	uint64_t fills;       /* data cache fills (re-reads) */
	/* jiffies mode (sw_replay_set_jiffies; tick_ns 0: off): the client's
	 * own comparisons, in jiffies of its CLOCK_MONOTONIC grid */
	int64_t tick_ns;      /* jiffy length (1/HZ) */
	int64_t phase_ns;     /* a jiffy boundary, mod tick_ns */
	int64_t rcj;          /* read_cache_jiffies: send jiffy of the RPC
				 whose attributes refreshed the inode */
	int64_t ts_j;         /* attrtimeo_timestamp: reply jiffy */
	int access_stale;     /* NFS_INO_INVALID_ACCESS: a refresh found a
				 change after the open's permission check, so
				 a reopening reader's next open sends ACCESS
				 (jiffies mode, v3 reopen without cto) */
	int refetch_due;      /* NFS_INO_INVALID_DATA after the read at
				 t_attr_ns fetched: its READ's post-op
				 attributes (v3) showed a change, so the next
				 read refetches (jiffies mode) */
	int64_t t_seen_ns;    /* writer clock: the last RPC of the read at
				 t_attr_ns went out, so the attributes and
				 data it got are the server's as of then
				 (jiffies mode, traced; else t_attr_ns) */
	int64_t t_served_ns;  /* writer clock: that read returned */
	int64_t t_data_ns, t_data_hi_ns; /* writer clock: a fetching read's
				 READ went out and its reply came (traced,
				 widened by err_ns; else t_seen_ns both): data
				 stored before the first it served, between
				 the two it may have or not
				 (sw_replay_served_early, _maybe_early) */
	uint64_t traced;      /* revalidations whose GETATTR times came
				 from the client's tracepoints */
	int64_t t_srv_key_ns; /* writer realtime of the last key change */
	int64_t t_srv_key_done_ns; /* that change was made by then */
	uint64_t srv_key_prev; /* the server's key before that change */
	int64_t err_ns;       /* the reader's clock against the writer's
				 (clock.json's error; 0: exact) */
	uint64_t undetermined; /* changes the server may have made before or
				  after it answered a traced GETATTR (inside
				  that RPC's window, widened by err_ns): the
				  client's own outcome was taken (its READ) */
	uint64_t undet_flipped; /* of those, where the replay's rule alone
				   (the GETATTR's send jiffy) said otherwise */
	/* each step of this replay, when set (copies for a look ahead
	 * must clear it) */
	void (*on_step)(void *ctx, const struct sw_replay_step *s);
	void *step_ctx;
};

/* Start: first read at t0 fetches data and attributes (key). */
void sw_replay_init(struct sw_replay *r, const struct sw_profile *p,
		    int64_t t0_ns, uint64_t key);
/* The same, reading at the times `reads` gives (t0: the first of them). */
void sw_replay_init_reads(struct sw_replay *r, const struct sw_profile *p,
			  const struct sw_read_src *reads, int64_t t0_ns,
			  uint64_t key);
/* Jiffies mode: the reader's client ticks every tick_ns, on a grid through
 * phase_ns of its CLOCK_MONOTONIC, and reads carry their monotonic times
 * (reads->ceil_mono and ->get): nfs_attribute_timeout and the attrtimeo
 * doubling are then decided as the client decides them, in jiffies.  Call
 * right after sw_replay_init_reads; a no-op without those. */
void sw_replay_set_jiffies(struct sw_replay *r, int64_t tick_ns, int64_t phase_ns);
/* Perform every revalidation at a read time < t (server key unchanged). */
void sw_replay_advance(struct sw_replay *r, int64_t t_ns);
/* The server's key changes at t (an update). */
void sw_replay_update(struct sw_replay *r, int64_t t_ns, uint64_t key);
/* The same, for a change made somewhere in [t, t_done] (the writer's
 * call around it): the span decides whether a traced GETATTR saw it. */
void sw_replay_update_span(struct sw_replay *r, int64_t t_ns, int64_t t_done_ns, uint64_t key);
/* The same, for a change taken to be made at t but made somewhere in
 * [t_lo, t_hi] (the writer's set-up: several calls, one final stamp);
 * in jiffies mode the window is ordered against the client's traced
 * RPCs, else the change is at t. */
void sw_replay_update_window(struct sw_replay *r, int64_t t_ns, int64_t t_lo_ns, int64_t t_hi_ns,
			     uint64_t key);
/* Time of the next revalidation at or after the current position. */
int64_t sw_replay_next_reval(const struct sw_replay *r);
/* With the state advanced to t (sw_replay_advance(t) done on a copy): if a
 * change is pending (srv_key != key), the time the client drops its cache
 * (>= t), else -1 (also when no read is left to see it). */
int64_t sw_replay_pending_fill(const struct sw_replay *r);
/* The read starting at t (a time pending_fill gave) returned: its logged
 * end, on the writer's clock; t itself where reads are not logged. */
int64_t sw_replay_served(const struct sw_replay *r, int64_t t_ns);
/* With the state advanced to t: 1 when the last revalidation's read
 * fetched the data after t (its READ went out later), so what was stored
 * at t is served when that read returned (t_served_ns). */
int sw_replay_served_early(const struct sw_replay *r, int64_t t_ns);
/* Or stored while that read's last RPC was on its way (between its send
 * and its reply): served then or at the next fill, the logs cannot say
 * which (t_served_ns is the first). */
int sw_replay_maybe_early(const struct sw_replay *r, int64_t t_ns);

#endif
