/* SPDX-License-Identifier: MIT */
/*
 * measure.h - what one policy x filesystem x thread count costs, measured
 * in the kernel it runs on (stalewin-cost measure; docs/cost.md).
 *
 * T threads each store once to M distinct clean pages of one MAP_SHARED
 * mapping of a file; each store is timed with the cycle counter and its
 * minor faults counted (getrusage RUSAGE_THREAD around it), so a sample is
 * known to be one fault; then one msync(MS_SYNC).  The kernel's work is
 * read from tracefs (tracefs.h) over the stores and over the flush: the
 * journal's handles, their hold time, its commits, the inode's dirtyings.
 * R rounds (repeats) of that on the same file, each on a fresh mapping of
 * its written-back pages, pool into one result.  With tracing, each
 * repeat is two rounds: a traced one counts the kernel's work, an
 * untraced one times the stores, so that the events' recording is not in
 * the latencies.
 */
#ifndef STALEWIN_COST_MEASURE_H
#define STALEWIN_COST_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#define SW_COST_MAX_THREADS 64

struct sw_cost_cfg {
	const char *dir;     /* the filesystem under test: the file goes here */
	const char *fs;      /* its label: ext4, ext4-lazytime, xfs, btrfs, tmpfs */
	const char *policy;  /* eager, deferred, lang (the sysctl) or stock */
	const char *kernel;  /* the kernel's label for the row */
	int query_statx;     /* 1: a statx of the file after each store */
	const char *query;   /* its name for the row: none, statx, nfs (a client
				polls from outside); NULL: from query_statx */
	int threads;         /* T, 1..SW_COST_MAX_THREADS */
	long pages;          /* M, pages per thread */
	int repeats;         /* R rounds */
	int spaced;          /* 1: a thread sleeps > one tick before each store */
	int trace;           /* 0: tracing off (the overhead's baseline) */
	int pressure;        /* 1: an fsync-heavy writer in the same fs */
	const char *poll;    /* the file as a client sees it (an NFS mount):
				polled every ms while the rounds run; NULL: none */
	const char *client_ctl; /* the client guest polls the file (clientpoll.h):
				   the control folder both see; NULL: none */
	double query_rate;   /* the rate it was asked for, calls/s */
};

/* A count of the kernel's work; n < 0: not measured, why says so. */
struct sw_cost_count {
	long long stores_phase; /* during the stores */
	long long flush_phase;  /* during the msync(MS_SYNC) after them */
	int measured;
	const char *event;      /* the tracepoint counted, group/name */
	const char *why;        /* when not measured */
};

struct sw_cost_result {
	long long stores;       /* T x M x R timed (untraced rounds) */
	long long faults;       /* minor faults during those stores, all */
	long long counted_stores; /* T x M x R whose kernel work was counted
				   (traced rounds; the timed ones untraced) */
	long long faults_traced;  /* minor faults during the counted stores */
	long long one_fault;    /* stores that took exactly one fault */
	const char *clock;      /* the latency's clock: "tsc" or "mono" */
	double clock_khz;       /* its rate against CLOCK_MONOTONIC */
	double fault_us[5];     /* p50, p90, p99, p99.9, max over one-fault
				   stores, us */
	struct sw_cost_count handles, commits, dirtied, updates;
	double handle_hold_p99_us; /* p99 of a handle's hold: its task's
				      jbd2_handle_start to jbd2_handle_stats,
				      trace clock mono, us resolution */
	double tick_us;         /* one jiffy (the coarse clock's tick) */
	int handle_hold_measured;
	const char *hold_why;   /* when not measured */
	long long handle_holds; /* handles whose hold time was read */
	double pages_per_s;     /* stores / wall time of the store phases */
	double wall_s;          /* the store phases' wall time, summed */
	char kernel_release[65];
	int tcg;
	double pressure_fsyncs_per_s; /* the writer's rate, with cfg->pressure */
	double polls_per_s;     /* the client's statx rate, with cfg->poll
				   or cfg->client_ctl */
	long long polls_found;  /* its calls that found the file */
	long long polls;        /* its calls */
};

/* Measure cfg into res: 0, or -1 with a message in err.  The caller has
 * set the policy; this checks the filesystem type against cfg->fs. */
int sw_cost_measure(const struct sw_cost_cfg *cfg, struct sw_cost_result *res,
		    char *err, size_t errlen);

#endif
