/* SPDX-License-Identifier: MIT */
/*
 * report.h - the summary one analysis pass produces (windows.c), which the
 * format modules (fmt_*.c), compare and the archive only read.
 *
 * All times are ns of the writer's CLOCK_REALTIME (the probe's and the
 * kernel reader's times are mapped with the clock offset of clock.json).
 * A window that has no end inside the logs ("> run end") is never put in a
 * histogram: it is counted in `unresolved` of its figure.
 */
#ifndef STALEWIN_REPORT_H
#define STALEWIN_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "cleanedge.h"
#include "hist.h"
#include "records.h"
#include "replay.h"
#include "revalmatch.h"
#include "queried.h"

#define SW_REPORT_SCHEMA 2 /* 2: kread is an array, one entry per reader log */
/* Observers (probe targets) one report takes; each costs two histograms
 * (about 130 KiB), allocated for the run's own count (S->obs). */
#define SW_MAX_OBS 128
/* Of them, the first SW_ROWS_OBS are held in the per-store rows (the
 * CSV's columns, the plots) and in the figures' table (text, JSON
 * "figures", compare); every observer keeps its own figures (S->obs). */
#define SW_ROWS_OBS 8
#define SW_MAX_PROBLEMS 32
#define SW_PATHLEN 1024

enum sw_exc { /* why W_obs - W_truth left its bound (or why not checked) */
	SW_EXC_NONE = 0,
	SW_EXC_RACE,        /* reference reply already carried the trap's update */
	SW_EXC_EARLY,       /* revealed by an update before the store */
	SW_EXC_COLLISION,   /* closing update left the stamps equal */
	SW_EXC_LOST,        /* failed GETATTRs (lost replies) in the window */
	SW_EXC_GAP,         /* server unreachable (gap) in the window */
	SW_EXC_SERVER_LAG,  /* replies sent after the update showed old attrs */
	SW_EXC_STALL,       /* no request sent for longer than the poll p99 */
	SW_EXC_SLOW,        /* reply slower than the rtt p99 */
	SW_EXC_CLOCK,       /* observed before the update beyond the offset error */
	SW_EXC_UNEXPLAINED,
	SW_EXC_N
};
const char *sw_exc_name(int exc);

enum sw_obs_status {
	SW_OBS_OK = 0,     /* a reply revealed the change */
	SW_OBS_NO_REF = 1, /* no reply before the store (probe not started) */
	SW_OBS_END = 2,    /* no differing reply before the probe's log ended */
};

#define SW_MAX_KREAD 8 /* kernel-mount reader logs per run */

struct sw_fig { /* one row of a window table */
	char name[48];           /* "truth", "obs probe-0/t0 v3", "v3-default" */
	char desc[96];           /* what it is, one line */
	struct sw_hist h;        /* resolved windows, ns */
	uint64_t n;              /* stores this figure covers */
	uint64_t unresolved;     /* no end in the logs: "> run end" */
};

struct sw_observer {
	char name[48];           /* "probe-0/t0 v3" */
	char file[SW_PATHLEN];   /* its log */
	int target, vers;        /* target index in the probe, NFS version */
	struct sw_fig fig;       /* W_obs */
	uint64_t replies, failures, gaps, reads; /* counts in the log */
	int64_t gap_ns;          /* total time in gaps */
	int64_t poll_p50_ns, poll_p99_ns; /* send-to-send of good replies */
	int64_t rtt_p50_ns, rtt_p99_ns;   /* recv - send */
	int64_t resolution_ns;   /* poll p99 + rtt p99 + offset error */
	int64_t t_first_ns, t_last_ns; /* first/last reply (writer clock) */
	uint64_t no_ref, ended;  /* stores it could not judge (sw_obs_status) */
	uint64_t checked, consistent, low, high; /* the consistency check */
	uint64_t exc[SW_EXC_N];  /* explanation of each low/high */
	uint64_t revealed[16];   /* by mask of SW_ATTR_SIZE|MTIME|CTIME|CHANGE */
	uint64_t torn;           /* of those by the change attribute without
				    ctime, replies torn by a racing update
				    (observer.h, sw_attrs_torn) */
	uint64_t race_attr_hits; /* reference reply inside a race gap */
	uint64_t race_read_hits; /* READ: old data under the trap's new attrs */
	struct sw_hist race_stale_ns; /* how long those READ hits stayed stale */
};

struct sw_problem {
	char file[SW_PATHLEN];   /* the file it is about */
	int64_t record;          /* record number, -1 if none */
	int partial;             /* 1: the report is partial because of it */
	char msg[400];
};

#define SW_MAX_FAULTS 16
#define SW_MAX_CRASH_RUNS 16
struct sw_fault { /* one entry of the run folder's faults.json */
	char kind[32];           /* partition, ganesha-pause, control-outage... */
	int64_t t_start_ns;      /* writer realtime (host realtime + offset) */
	int64_t t_end_ns;        /* writer realtime; -1: lasted to the end */
	int cut_short;           /* the orchestrator lost something by it */
	uint64_t stores;         /* stores with t_s in [t_start, t_end] */
	char what[200];          /* what it did, "" none: io-error's
				    filesystem, clock-step's step (faults.c),
				    server-crash's stores (crash.c) */
	int64_t step_ns;         /* clock-step: the step made (faults.json) */
	/* server-crash (crash.c), -1 unknown: the stores the writer logged
	 * before the shutdown; of them those whose data (or a later store's
	 * to the page) the disk held after the reboot; of those, the ones on
	 * a page the kernel readers read, and of these the ones no reader
	 * ever read (the client never saw them as changed); of the on-disk
	 * ones the probe had a reply before, those after which no reply's
	 * times (mtime, ctime, size, change) ever differed */
	int64_t crash_before, crash_on_disk, crash_on_read_pages, crash_never_read;
	int64_t crash_probe_base, crash_probe_never;
	char file_after[64];     /* server-crash: the file's copy after the
				    reboot, relative to the run folder */
	/* server-crash: the stores on disk no reader read, as runs of
	 * consecutive generations of a page {page, first gen, last gen}, in
	 * log order; the first SW_MAX_CRASH_RUNS, ncrash_runs counts all */
	int64_t crash_run[SW_MAX_CRASH_RUNS][3];
	int ncrash_runs;
};

/* A step of the writer's realtime clock seen in writer.swlog (clockstep.c,
 * writer_events.h SW_CLOCK_STEP_MIN_NS). */
#define SW_MAX_CLOCK_STEPS 8
/* clock.json: the fastest two free-running clocks drift apart, ppm (the
 * most the kernel's NTP code slews a clock, MAXFREQ); the offset moving
 * faster between its two estimates is a step, and the run partial */
#define SW_CLOCK_DRIFT_MAX_PPM 500
struct sw_clock_step {
	int64_t t_ns;            /* when: writer realtime on the log's first
				    base (its monotonic time + first offset) */
	int64_t step_ns;         /* realtime - monotonic after minus before */
};

/* What revealed the stores, the equal ctimes, the queries of the file
 * (attrs.c, after the pass). */
struct sw_reveal {
	int obs;                 /* the observer whose replies carry both
				    ctime and the change attribute (the first
				    v4 target), -1 none */
	uint64_t revealed;       /* stores its first differing reply revealed */
	uint64_t change_only, ctime_only, both, other; /* which of the change
				    attribute and ctime moved in that reply
				    (other: neither, mtime or size alone) */
	uint64_t change_only_torn; /* of change_only, replies that read ctime
				    before a racing update and i_version
				    after it (observer.h, sw_attrs_torn) */
	int64_t equal_ctime;     /* native: faulting stores whose fault left
				    ctime as it was; emulated: updates that
				    left mtime and ctime equal; -1 unknown */
	int64_t faults;          /* native: faulting stores; -1 emulated */
	char equal_how[200];     /* how equal_ctime was counted, or why not */
	double query_hz;         /* planned queries of the file per second
				    from the client (probe + kernel readers;
				    meta.json query_rate_hz); -1 not recorded,
				    -2 wire speed (the probe flat out) */
	double probe_hz;         /* per probe target, planned; -1 none, -2 wire */
	int probe_targets;
	double readers_hz;       /* the kernel readers' planned GETATTRs per
				    second, -1 not recorded */
	double probe_achieved_hz; /* the first probe target's replies per
				    second over its span, -1 none */
	int multigrain;          /* the server's fs gives fine-grained ctimes
				    after a query: 1, 0, -1 not recorded */
	char multigrain_how[160];
	struct sw_queried by_query; /* native, 6.13+: faults by whether ctime
				    was queried before them (queried.c) */
	int writer_stats;        /* the native writer stat-ed the file right
				    after each store (a query on the server
				    itself): 1, 0; -1 not native or unknown */
};

/* The run's scenario (vm run --scenario, meta.json) and what nfsd traced
 * of delegations on the server (server/trace.txt, the whole run; its
 * times are the server's CLOCK_MONOTONIC, trace_clock mono, whole us).
 * deleg.c fills the times. */
#define SW_DELEG_MAX 8 /* grants and recalls kept with their times */
struct sw_deleg_recall {
	int64_t t_srv_mono_ns;   /* its first event (nfsd_cb_recall: the lease
				    break, in the task of the open that broke
				    it), server CLOCK_MONOTONIC ns */
	int64_t t_return_srv_mono_ns; /* the DELEGRETURN that ended it
				    (nfsd_deleg_return), server mono ns; -1 none */
	int64_t t_cb_done_srv_mono_ns; /* the client's CB_RECALL reply
				    (nfsd_cb_recall_done), server mono ns; -1 */
	char event[32];          /* its first event's name */
	char task[32];           /* the task nfsd_cb_recall fired in */
};
struct sw_deleg_reader {
	int j;                   /* kread-<j> */
	int judged;              /* it read the file before the recall */
	uint64_t gen_before;     /* the generation it last read before it */
	uint64_t gen;            /* the first other one it read after it */
	int64_t after_recall_ns; /* that read's end (reader CLOCK_REALTIME +
				    the run's offset: the server's) minus the
				    recall (server mono -> real by the writer's
				    SETUP), ns; -1: no new data read after it */
	uint64_t stale_reads;    /* reads after the recall that returned the
				    old generation before that one */
};
struct sw_deleg {
	char scenario[32];       /* "" none, "deleg-none", ... */
	char note[160];          /* what the scenario sets up (meta.json) */
	int traced;              /* nfsd's delegation events were enabled */
	int64_t granted, recalls, returns; /* events counted (srvtrace.c) */
	int ngrant, nrecall;     /* kept below (at most SW_DELEG_MAX) */
	int64_t ngrant_all, nrecall_all, nreturn_all; /* deleg.c's counts */
	struct {
		int64_t t_srv_mono_ns; /* server CLOCK_MONOTONIC ns */
		char event[32];        /* nfsd_deleg_read, ... */
	} grant[SW_DELEG_MAX];
	struct sw_deleg_recall recall[SW_DELEG_MAX];
	int have_srv_clock;      /* srv_real_minus_mono_ns known */
	char srv_clock_from[16]; /* the writer's record it came from: "SETUP",
				    else "first STORE" */
	int64_t srv_real_minus_mono_ns; /* the server's CLOCK_REALTIME minus its
				    CLOCK_MONOTONIC (the writer's SETUP), ns */
	int64_t t_open_done_srv_mono_ns; /* the writer's SETUP (its open had
				    returned), server mono ns; -1 */
	int64_t t_first_store_srv_mono_ns; /* its first store's end, server
				    mono ns; -1 */
	int nreader;
	struct sw_deleg_reader reader[SW_MAX_KREAD]; /* after recall[0] */
};

struct sw_summary {
	/* identity (from the logs' headers and meta) */
	char run_dir[SW_PATHLEN];
	uint64_t run_id;
	char policy[32], workload[32];
	char cmdline[2048];      /* orchestrator's argv, else the writer's */
	char kernel[160], fs[64], fs_opts[512], sysctls[512], libnfs[64];
	char trap[32];
	int synthetic;
	int emulated;            /* the writer emulated the policy (meta) */
	/* clock */
	int clock_file;          /* 1: clock.json present */
	int64_t offset_ns, err_ns;
	/* the writer's realtime steps (clockstep.c): its records are kept on
	 * its monotonic clock, the after-run offset estimate corrected */
	int nclock_steps;        /* seen (may exceed SW_MAX_CLOCK_STEPS) */
	struct sw_clock_step clock_step[SW_MAX_CLOCK_STEPS];
	int nobs_steps;          /* the client's realtime steps seen in one
				    observer log (obsclock.c; may exceed
				    SW_MAX_CLOCK_STEPS) */
	struct sw_clock_step obs_step[SW_MAX_CLOCK_STEPS]; /* t_ns: client
				    realtime on that log's first base */
	char obs_step_log[32];   /* the log they were read from */
	int64_t clock_after_raw_ns; /* clock.json's after.offset_ns as measured
				       (0: none, or no step to correct) */
	int64_t writer_look_ms;    /* native writer: its look at the file
				      between stores (meta native_poll_ms;
				      -1 unknown) */
	int updates_unseen;        /* the native writer never looked during
				      the run: truth, the replays and the
				      consistency check left out (blind.c) */
	char updates_unseen_why[200];
	int64_t clock_moved_ns;    /* after - before offset (steps corrected) */
	int64_t clock_interval_ns; /* between the two estimates (0: unknown) */
	/* writer */
	int64_t t_start_ns, t_end_ns; /* first record, END (or last record) */
	int complete;            /* writer log has END */
	uint32_t end_reason;     /* its enum sw_end_reason, 0 without END */
	int64_t file_changed_ns; /* the file's ctime at the writer's open
				    (its creation, when something created it
				    for the run) before the writer's set-up,
				    ns; -1: no SETUP record.  It sets the
				    writeback's phase and state at the first
				    store (server/README.md) */
	int64_t file_read_ns;    /* its atime then, if newer (a reader's
				    read since), before the set-up, ns; -1 */
	int64_t settle_ns;       /* sw_settle_ns of the writer's writeback
				    (its meta: the model's, or the kernel's
				    sysctls for native; commit= of the
				    mount where it says), ns; -1: unknown.
				    file_changed_ns >= it: settled */
	uint64_t records;        /* writer records read */
	uint64_t stores, traps, updates, upd_cause[10];
	uint64_t spurious, collisions, cleans, syncs, munmaps;
	struct sw_hist trap_ns, upd_cost_ns;
	uint64_t traps_updated;  /* faulting stores whose own update the
				    writer logged (SW_STORE_UPDATED) */
	int64_t store_mono_lo_ns, store_mono_hi_ns; /* the first store's
				    t_before, the last's t_after: the writer's
				    CLOCK_MONOTONIC ns (0: no store) */
	struct sw_reveal attrs;  /* attrs.c */
	struct sw_deleg deleg;   /* attrs.c */
	/* flusher passes (CLEAN, kupdate or background, pages > 0) and the
	 * (pass, page) pairs whose trap count moves with a pass moved by
	 * sw_edge_window_ms[k] (cleanedge.h); edge_void: not counted (a page
	 * table out of memory) */
	int edge_passes, edge_void;
	uint64_t edge_pairs[SW_EDGE_WINDOWS];
	uint64_t race_stores;    /* stores whose own trap update preceded them */
	struct sw_hist race_gap_ns; /* t_s - t_update of those */
	struct sw_fig truth;
	/* observers (probe targets): nobs of them, allocated by the pass
	 * (sw_summary_free); NULL when there are none */
	int nobs;
	struct sw_observer *obs;
	/* replay */
	int nprof;
	struct sw_profile prof[SW_MAX_PROFILES];
	struct sw_fig replay[SW_MAX_PROFILES];
	/* kernel mount readers (kread-<j>.swlog, VM runs) */
	int has_kread;           /* nkread > 0 */
	int kread_rpc_trace;     /* the client's NFS events were traced
				    (client/trace.txt, nfstrace.h) */
	int nkread;
	int ns_clients;          /* of them, namespace clients: each a kernel
				    NFS client of its own, one guest's clock */
	struct sw_nfsd_load {    /* vm run: knfsd's counters (nfsdstat.c) */
		int have;        /* server/nfsd-before.txt and -after.txt */
		int threads;     /* nfsd threads at the end ("th") */
		double secs;     /* between the two samples */
		uint64_t calls;  /* RPC calls ("rpc", first field) */
		uint64_t getattr3, getattr4; /* v3 GETATTR; v4 GETATTR ops */
		int clients;     /* distinct addresses in knfsd's export cache */
	} nfsd;
	struct sw_kread {
		char file[SW_PATHLEN];
		char mount[512];      /* mount_options from the log meta */
		char mode[16];        /* "kept-open" or "cto" */
		char netns[32];       /* vm run --ns-clients: its network
					 namespace (client/ns-clients.txt), "" none */
		char addr[48];        /* and that namespace's address */
		uint64_t page, reads; /* page read; KREAD records used */
		struct sw_profile prof; /* replay profile of the same options */
		struct sw_fig fig, replay; /* stores to `page` only */
		uint64_t replay_revals; /* revalidations the replay made */
		uint64_t replay_traced; /* of those, at the client's own
					   traced RPC times (nfstrace.h) */
		uint64_t replay_undetermined; /* changes inside a traced
					   GETATTR's window at the server:
					   the client's outcome taken */
		uint64_t replay_undet_flipped; /* of those, against the
					   replay's own rule */
		uint64_t replay_undet_stores; /* stores made while the READ
					   that could serve them was on its
					   way: either answer allowed */
		uint64_t replay_undet_taken; /* of those, the client's own
					   answer was one of the two, taken */
		uint64_t replay_same_read; /* stores the replay and the client
					   served by the same read (or neither) */
		struct sw_revalmatch_out match; /* its GETATTRs against the
					   client's (revalmatch.h) */
	} kr[SW_MAX_KREAD];
	/* input problems */
	int nprob;
	uint64_t nprob_total;
	struct sw_problem prob[SW_MAX_PROBLEMS];
	int partial;             /* exit 3 */
	/* the validate run the model rows rest on (validation.c) */
	char valid_wb[160], valid_replay[160];
	/* an emulated run: the model profile its writer ran with and what it
	 * rests on, or that it had none (the host's defaults); "" native */
	char model_profile[400];
	char model_profile_name[64]; /* its name, "none"; "" native */
	/* faults.json: what the harness caused or saw (exit 4 if not partial) */
	int nfaults;
	struct sw_fault fault[SW_MAX_FAULTS];
	/* the per-store table when asked for (sw_analyze_opts.keep_rows),
	 * else NULL; the caller frees it (sw_rows_free) */
	struct sw_rows *rows;
};
/* What a pass allocated in S (its observers, its per-store table), freed;
 * S may be analyzed again after it.  Safe on a summary sw_analyze left
 * at any point (or one memset to 0). */
void sw_summary_free(struct sw_summary *S);
/* Fill valid_wb/valid_replay from a `stalewin validate --json` file. */
int sw_validation_load(struct sw_summary *S, const char *file, char *err, int errlen);

struct sw_store_row { /* one store as the pass resolved it (sw_rows_get) */
	uint64_t index;          /* 0-based store number */
	uint64_t page, gen;
	int64_t t_s_ns;          /* STORE.t_after_real_ns */
	int64_t trap_ns;
	uint32_t flags;          /* SW_STORE_* */
	int64_t w_truth_ns;      /* -1: uncovered (> run end) */
	int64_t w_truth_lb_ns;   /* uncovered: run end - t_s */
	uint32_t truth_cause;    /* enum sw_cause of the closing update */
	int own_update;          /* covered by its own trap update */
	int64_t race_gap_ns;     /* own update: t_s - t_update */
	int nobs;                /* the first SW_ROWS_OBS observers only */
	struct sw_row_obs {
		int status;      /* enum sw_obs_status */
		int64_t w_ns;    /* W_obs when status == OK */
		uint32_t revealed; /* attribute mask that moved */
		int exc;         /* enum sw_exc, NONE if consistent/unchecked */
	} obs[SW_ROWS_OBS];
	int nprof;
	int64_t replay_ns[SW_MAX_PROFILES]; /* -1: > run end */
	int nkread;
	struct {
		int seen;        /* 0 n/a (other page), 1 seen, 2 not seen */
		int64_t w_ns, replay_ns; /* -1: > run end */
	} kr[SW_MAX_KREAD];
};

/* The per-store table of a pass (rows.c), kept only when an output needs
 * each store (sw_analyze_opts.keep_rows): the CSV's rows, the plots'
 * timeline.  The outputs read it from the finished summary (S->rows). */
struct sw_rows;
struct sw_rows *sw_rows_new(const struct sw_summary *S, uint64_t keep_rows,
			    uint64_t keep_updates);
int sw_rows_add(struct sw_rows *t, const struct sw_store_row *r); /* -1: no memory */
void sw_rows_add_update(struct sw_rows *t, int64_t t_ns, uint32_t cause);
uint64_t sw_rows_n(const struct sw_rows *t);        /* stores kept (0 for NULL) */
void sw_rows_get(const struct sw_rows *t, uint64_t i, struct sw_store_row *r);
uint64_t sw_rows_nupdates(const struct sw_rows *t); /* updates kept */
void sw_rows_update(const struct sw_rows *t, uint64_t i, int64_t *t_ns, uint32_t *cause);
int64_t sw_rows_t0(const struct sw_rows *t); /* first store's t_s or update's t */
void sw_rows_free(struct sw_rows *t);

struct sw_analyze_opts {
	int nprof;                             /* 0: the built-in table */
	const struct sw_profile *prof;
	uint64_t keep_rows;                    /* stores S->rows keeps (0: no table) */
	uint64_t keep_updates;                 /* updates it keeps (the plots') */
	const char *cmdline_override;          /* NULL: from meta */
	/* each step of kernel reader j's replay (NULL: none asked) */
	void (*on_replay_step)(void *ctx, int j, const struct sw_replay_step *s);
	void *step_ctx;
};

/* Analyze a run folder.  Returns 0 (complete), 4 (complete, with faults:
 * S->fault), 3 (partial: S->prob says why), 2 (bad input: nothing to report, S->prob[0] says why) or 1. */
int sw_analyze(const char *run_dir, const struct sw_analyze_opts *o,
	       struct sw_summary *S);

/* After the pass: S->attrs from the observers, the writer's faults,
 * server/trace.txt and meta.json of dir (attrs.c). */
void sw_attrs_finish(struct sw_summary *S, const char *dir, const char *writer_log);
/* deleg.c: S->deleg's events and times (server/trace.txt, the writer's
 * log, the kernel readers' logs); called by sw_attrs_finish */
void sw_deleg_finish(struct sw_summary *S, const char *dir, const char *writer_log);

/* The steps of the writer's realtime in its log (clockstep.c), read
 * through a clone of the open reader (the log is opened once): into
 * S->clock_step; 0, or -1 (no reader, no memory). */
struct swlog_reader;
int sw_clock_steps_scan(struct sw_summary *S, const struct swlog_reader *writer);
/* vm run: knfsd's counters around the writer's run, server/nfsd-before.txt
 * and nfsd-after.txt of dir, into S->nfsd (nfsdstat.c); absent: have 0. */
void sw_nfsd_load(struct sw_summary *S, const char *dir);
/* faults.json of dir into S (after the clock is known; faults.c). */
void sw_faults_load(struct sw_summary *S, const char *dir);
/* --fault server-crash: each such fault's stores against the file the
 * disk kept and what the client's readers and probe saw (crash.c). */
struct sw_input;
void sw_crash_figures(struct sw_summary *S, const char *dir, const struct sw_input *in);
/* A store at t_s (writer realtime): count it in every fault it falls in. */
void sw_faults_on_store(struct sw_summary *S, int64_t t_s_ns);
/* After the pass: faults that cut the run short, a writer stopped early. */
void sw_faults_finish(struct sw_summary *S);
/* a native writer that never looked at its file during the run
 * (--native-poll-only, a look interval at least the run's): the figures
 * resting on its looks are left out and the report says why (blind.c) */
void sw_blind_finish(struct sw_summary *S);
/* The report's status: "complete", "complete, with faults: ..." or
 * "PARTIAL: ..." naming each fault (when, how long, stores) and each log
 * that ended early. */
void sw_status_line(const struct sw_summary *S, char *buf, size_t n);

/* Record an input problem (windows.c, runload.c). */
void sw_problem(struct sw_summary *S, const char *file, int64_t record,
		int partial, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Formats (each its own module, analysis/output/fmt.h). */
int sw_fmt_text(FILE *f, const struct sw_summary *S);
int sw_fmt_json(FILE *f, const struct sw_summary *S);

/* Helpers shared by the formats. */
const char *sw_cause_name(uint32_t cause);

#endif
