/* SPDX-License-Identifier: MIT */
/*
 * synth.h - synthetic run folders for tests, goldens and the bench.
 *
 * Simulates a writer (policy, workload, kupdate-style writeback, msync,
 * munmap at the end) and a probe polling the file's attributes over a
 * modelled network (poll interval, RTT, lost replies, gaps, a server
 * attribute lag, stamp granularity) and writes writer.swlog,
 * probe-0.swlog, optionally kread-0.swlog and clock.json into a folder,
 * exactly as the real tools would.  Deterministic for a given config.
 */
#ifndef STALEWIN_SYNTH_H
#define STALEWIN_SYNTH_H

#include <stdint.h>

#define SW_SYNTH_MAX_WIN 8

struct sw_synth_win {
	int64_t from_ns, to_ns; /* relative to the run start */
};

struct sw_synth_cfg {
	uint64_t run_id;            /* header run id of every log */
	uint64_t probe_run_id;      /* 0: same as run_id (tests mix runs) */
	int64_t t0_real_ns;         /* writer realtime of the run start */
	int64_t duration_ns;        /* run length */
	const char *policy;         /* eager|deferred|lang|none */
	/* workload: a store every store_interval_ns to page (k % pages), or a
	 * pseudo-random page (random, seed) */
	int64_t store_interval_ns;
	uint64_t pages;
	int random;
	uint64_t seed;
	int64_t first_store_ns;     /* relative time of the first store */
	int64_t trap_ns;            /* latency of a trapping store */
	int64_t upd_lead_ns;        /* trap update precedes the data by this */
	/* writeback */
	int64_t writeback_ns;       /* flusher period (0: never) */
	int64_t expire_ns;          /* dirty age before kupdate writes back */
	int64_t msync_async_ns;     /* period of msync(MS_ASYNC) (0: none) */
	int64_t msync_sync_ns;      /* period of msync(MS_SYNC) (0: none) */
	int no_munmap;              /* 1: no munmap at the end */
	int no_end;                 /* 1: no END record (writer died) */
	int64_t stamp_gran_ns;      /* timestamp granularity (0: 1 ns) */
	/* probe */
	int probe;                  /* 1: write probe-0.swlog */
	int vers;                   /* 3 or 4 */
	int64_t poll_ns;            /* GETATTR period */
	int64_t rtt_ns;             /* round trip (server sees it at half) */
	int64_t probe_start_ns, probe_end_ns; /* relative; end 0 = duration */
	int64_t server_lag_ns;      /* server shows a change this much late */
	struct sw_synth_win lost[SW_SYNTH_MAX_WIN]; /* replies lost (timeout) */
	int nlost;
	struct sw_synth_win gaps[SW_SYNTH_MAX_WIN]; /* server down */
	int ngaps;
	struct sw_synth_win stall[SW_SYNTH_MAX_WIN]; /* probe sends nothing */
	int nstall;
	struct sw_synth_win slow[SW_SYNTH_MAX_WIN]; /* replies take slow_rtt_ns,
				       the next request waits for each */
	int nslow;
	int64_t slow_rtt_ns;        /* round trip of a request sent in slow[] */
	int read_every;             /* a READ of read_page every K GETATTRs */
	uint64_t read_page;
	/* clock: probe realtime = writer realtime - offset_ns */
	int clock_json;             /* 1: write clock.json */
	int64_t offset_ns, err_ns;
	int64_t offset_bias_ns;     /* clock.json states offset_ns + this: a
				       wrong estimate (clock-error class) */
	/* kernel-mount reader: fresh read of kread_page every kread_ns */
	int64_t kread_ns;           /* 0: no kread log */
	uint64_t kread_page;
	int64_t kread_lag_ns;       /* reads return new data this much late */
	const char *kread_mount_options;
	int kread_kept_open;        /* 1: mode kept-open (default cto) */
	/* the writer's set-up stamp (SETUP record): its end, relative, before
	 * any other writer record; 0: none.  It lasts setup_len_ns (0: 1 ms)
	 * and stamps the file 1 ms after it begins */
	int64_t setup_ns, setup_len_ns;
	/* > 0: the meta of a native writer that never stats around a store
	 * and looks at its file every native_look_ms (--native-poll-only
	 * --native-poll-ms); 0: an emulated policy's */
	int64_t native_look_ms;
};

/* Defaults: eager, 10 s, one page rewritten every 100 ms, writeback 5 s /
 * expire 30 s, probe v3 every 1 ms, RTT 200 us. */
void sw_synth_defaults(struct sw_synth_cfg *c);
/* Write the run folder dir (must exist).  Returns the number of records
 * written (>= 0) or a negative errno with err filled. */
int64_t sw_synth_run(const struct sw_synth_cfg *c, const char *dir,
		     char *err, int errlen);

#endif
