/* SPDX-License-Identifier: MIT */
/*
 * probe.h - stalewin-probe's internal interfaces.
 *
 *   main.c    CLI, event loop (poll on every target's rpc fd), rate
 *                   pacing, timeouts, signals, status line
 *   target.c  one target: libnfs context, mount, file handle,
 *                   GETATTR / READ requests and their replies, reconnect
 *   log.c     log metadata and records
 *
 * File handles: libnfs 4.0's struct nfs_fh is opaque in its headers.
 *   NFSv3: nfs_open_async() looks the file up; nfs_get_fh() returns libnfs'
 *   private struct nfs_fh, which in libnfs 4.0 (lib/libnfs-private.h) is
 *   { int len; char *val; }.  We copy it through that mirror and then prove
 *   the copy right: a raw GETATTR3 with the copied handle must return a
 *   regular file with the fileid libnfs' own nfs_fstat64 reported.  A libnfs
 *   with another layout fails that check with a clear error, never silently.
 *   NFSv4: no private layout at all: our own COMPOUND
 *   PUTROOTFH + LOOKUP(each component) + GETFH + GETATTR returns the handle.
 */
#ifndef STALEWIN_PROBE_H
#define STALEWIN_PROBE_H

#include <stdint.h>
#include "hist.h"
#include "nfs_url.h"
#include "records.h"
#include "swlog.h"

#define PROBE_MAX_TARGETS 16
/* --rate: GETATTRs/s per target.  The loop waits in poll(), whose
 * timeout is whole ms, so above 1000/s it cannot pace evenly: flat out is
 * asked for as 'wire'.  The default, 100/s, is a poll every 10 ms (the
 * floor of the observed window's resolution) and, on a multigrain server
 * (6.13+), a query of ctime every 10 ms rather than ~10,000. */
#define PROBE_RATE_MAX 1000
#define PROBE_RATE_DEFAULT 100.0
#define PROBE_MAX_PAGES 64
#define PROBE_FH_MAX 128

struct probe_opts {
	struct sw_nfs_url url[PROBE_MAX_TARGETS]; /* parsed --url */
	unsigned nurl;
	const char *log_path;       /* --log */
	int force;                  /* --force: overwrite the log */
	double duration_s;          /* --duration, 0 = until a signal */
	double rate;                /* --rate GETATTR/s per target, 0 = wire
				       (flat out) */
	unsigned depth;             /* --depth GETATTRs in flight per target */
	uint64_t read_page[PROBE_MAX_PAGES]; /* --read-page */
	unsigned nread_page;
	unsigned read_every;        /* --read-every K GETATTRs, 0 = no reads */
	unsigned page_size;         /* --page-size bytes (default: sysconf) */
	unsigned timeout_ms;        /* --timeout-ms: request timeout */
	unsigned connect_timeout_ms; /* --connect-timeout-ms: first connect */
	unsigned backoff_max_ms;    /* --backoff-max-ms: reconnect back-off cap */
	int status;                 /* 1 status line, 0 quiet */
	uint64_t run_id;            /* --run-id */
	uint64_t writer_run_id;     /* --writer-run-id (0: not checked) */
};

enum target_state {
	TS_BACKOFF = 0, /* no context; next attempt at t_next_mono_ns */
	TS_MOUNTING,    /* nfs_mount_async in flight */
	TS_LOOKUP,      /* getting the file handle (open/fstat/verify or v4 compound) */
	TS_LOOKUP_WAIT, /* re-lookup failed (file missing): retry at t_next_mono_ns */
	TS_READY,       /* polling */
};

struct probe_req;
struct nfsfh;
struct nfs_context;
struct rpc_context;

struct probe_target {
	unsigned idx;               /* index in opts.url */
	const struct sw_nfs_url *u;
	struct probe *p;            /* owner */
	enum target_state state;
	struct nfs_context *nfs;    /* NULL in TS_BACKOFF */
	struct rpc_context *rpc;    /* nfs_get_rpc_context(nfs) */
	int tearing;                /* inside nfs_destroy_context: callbacks cancel */
	int teardown_err;           /* -errno the teardown is for */
	int want_teardown;          /* -errno: tear down after rpc_service returns */
	char why[256];              /* text of the failure that wants a teardown */
	uint8_t fh[PROBE_FH_MAX];   /* current file handle */
	unsigned fh_len;
	uint64_t fh_gen;            /* bumped at every new handle */
	struct nfsfh *nfsfh;        /* v3: libnfs open file during the lookup */
	uint64_t fileid;            /* fileid of the handle (from the lookup) */
	uint64_t lookup_ino;        /* v3: nfs_fstat64's st_ino to verify against */
	int ever_ready;             /* reached TS_READY once */
	int relookup;               /* the lookup in progress is after ESTALE */
	unsigned attempts;          /* connect attempts since the last success */
	int64_t t_attempt_deadline_mono_ns; /* connect attempt gives up */
	int64_t t_next_mono_ns;     /* next connect / re-lookup attempt */
	int64_t backoff_ns;         /* current back-off */
	char last_err[256];         /* last connect / lookup error text */
	int last_err_fatal;         /* server said no (export, file, type): input */
	/* requests */
	struct probe_req *head, *tail; /* in flight, in send order */
	struct probe_req *free;     /* free list */
	unsigned inflight_attr;     /* GETATTRs in flight (bounded by depth) */
	unsigned inflight;          /* all requests in flight */
	uint64_t seq;               /* next request number */
	uint64_t attrs_sent;        /* GETATTRs sent (for --read-every) */
	unsigned next_read;         /* round-robin index into read_page */
	int64_t t_next_send_mono_ns; /* rate pacing */
	/* gaps */
	int in_gap;
	struct sw_rec_gap gap;      /* start filled while in_gap */
	int64_t t_last_good_real_ns, t_last_good_mono_ns;
	/* statistics */
	uint64_t replies, errors, gaps;
	struct sw_hist *rtt_win;    /* RTT ns since the last status line */
	struct sw_hist *rtt_all;    /* RTT ns, whole run */
	uint64_t win_replies;
	struct sw_attrs last_attrs; /* last successful attributes */
	int have_last;
	int64_t t_last_change_real_ns; /* when attributes last changed, 0 = never */
};

struct probe {
	struct probe_opts *o;
	struct swlog_writer *log;
	int log_err;                /* first swlog_append error, stops the run */
	struct probe_target t[PROBE_MAX_TARGETS];
	unsigned nt;
	int stopping;               /* no new requests */
};

/* target.c */
int probe_target_init(struct probe *p, struct probe_target *t, unsigned idx);
void probe_target_free(struct probe_target *t);
int probe_target_connect(struct probe_target *t); /* start an attempt */
void probe_target_teardown(struct probe_target *t, int err);
int probe_target_send_attr(struct probe_target *t);
int probe_target_send_read(struct probe_target *t);
void probe_target_fail(struct probe_target *t, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void probe_target_tick(struct probe_target *t, int64_t now_mono); /* connect, retry, timeouts */
int64_t probe_target_oldest_send_mono(const struct probe_target *t);

/* log.c */
char *probe_meta_json(const struct probe_opts *o, int argc, char **argv);
void probe_log_attr(struct probe *p, const struct sw_rec_attr *r);
void probe_log_read(struct probe *p, const struct sw_rec_read *r);
void probe_log_event(struct probe *p, unsigned target, uint32_t kind, int32_t err,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void probe_log_gap(struct probe *p, const struct sw_rec_gap *g);
void probe_log_end(struct probe *p, uint32_t reason, int32_t err);
/* Decode a stamp read at page; fills gen, stamp_real_ns, flags. */
void probe_decode_stamp(const void *data, unsigned len, uint64_t page,
			uint64_t writer_run_id, struct sw_rec_read *r);

#endif
