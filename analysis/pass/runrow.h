/* SPDX-License-Identifier: MIT */
/* runrow.h - one run reduced to the row of `stalewin summary` (and of the
 * mail's table): the figures a mailing-list reader compares across runs.
 * Filled from a finished struct sw_summary (runrow.c); printed by
 * analysis/output/summary.c.  Window values: ns, -1 "> run end", -2 no
 * stores. */
#ifndef STALEWIN_RUNROW_H
#define STALEWIN_RUNROW_H
#include <stdint.h>

#include "repstats.h"
#include "report.h"

enum sw_view_src {
	SW_VIEW_NONE = 0,    /* neither a kernel reader nor a replay profile */
	SW_VIEW_KERNEL = 1,  /* the real kernel NFS client (a kread log) */
	SW_VIEW_REPLAY = 2,  /* the replay of the client's rules (replay.c) */
};

struct sw_view { /* one client view: a window p50 and where it comes from */
	int src;                 /* enum sw_view_src */
	char name[48];           /* the figure: "kread-0 kept-open", "v3-cto" */
	int64_t p50_ns;          /* writer CLOCK_REALTIME ns; -1 >end, -2 none */
	uint64_t n, unresolved;  /* stores it covers; with no end in the logs */
};

enum sw_runrow_dim { /* what can tell runs apart (the row's label) */
	SW_DIM_POLICY = 0, SW_DIM_WORKLOAD, SW_DIM_FS, SW_DIM_KERNEL,
	SW_DIM_QUERY,            /* the planned query rate ("q=100/s"): on a
				    multigrain kernel part of what is measured */
	SW_DIM_N
};

struct sw_runrow {
	char label[64];          /* the differing dimensions, "eager rewrite" */
	char dir[SW_PATHLEN];    /* run folder */
	char policy[32], workload[32], fs[64], kernel[160];
	char model_profile[64];  /* emulated: the model profile, "none"; "" native */
	int partial;             /* the run's report is partial (exit 3) */
	uint64_t stores, updates;
	int64_t truth_p50_ns, truth_p99_ns, truth_max_ns; /* over all stores */
	uint64_t truth_unresolved; /* stores never made visible before the end */
	double uncovered_share;  /* truth_unresolved / stores, 0..1 */
	int vers;                /* NFS version of the observed figure, 0 none */
	int64_t observed_p50_ns; /* probe 0 target 0; -2 no probe */
	struct sw_view view_default, view_cto;
	double updates_per_1k;   /* timestamp updates per 1000 stores */
	int64_t trap_p50_ns;     /* the emulator's write-fault trap latency
				    p50 (userfaultfd + futimens: a cost of the
				    emulation, never a kernel's), -2 none or
				    not emulated, -3 measured in a TCG guest
				    (set by the mail: no absolute latency) */
	int64_t resolution_ns;   /* probe 0's resolution, -1 none */
	int64_t change_only, ctime_only, both; /* stores the v4 target saw
				    revealed by the change attribute alone,
				    ctime alone, both (one reply); -1: no v4
				    target */
	int64_t change_only_torn; /* of change_only, by a reply torn by a
				    racing fault (observer.h); -1: no v4 */
	int64_t equal_ctime;     /* faults (native) or updates (emulated)
				    that left ctime as it was; -1 unknown */
	double query_hz;         /* planned queries of the file per second
				    (probe + kernel readers); -1 not
				    recorded, -2 wire speed */
	int multigrain;          /* the server's fs: 1, 0, -1 not recorded */
	char query[32];          /* "q=2.7/s", "q=wire", "" not recorded */
	char same[1024];         /* policy|workload|fs|kernel| and the run's
				    command without --out, --log and --seed
				    and their values: runs with equal ones
				    are repeats of one command */
};

/* Runs of one command (struct sw_runrow.same), two or more: the spread
 * of their figures.  Windows: ns, -1 "> run end" (above every figure). */
#define SW_REPEAT_MAX 64 /* runs of one group counted */
#define SW_REPEAT_GROUPS 32 /* groups: two runs each at most of the
			       summary's 64 */
struct sw_repeat {
	int first;               /* its first row's index (its label) */
	int n;                   /* runs */
	int64_t p50_med_ns, p50_min_ns, p50_max_ns; /* truth p50: the median
				    (the lower middle for an even n), range */
	double upd_med, upd_min, upd_max; /* timestamp updates per 1000 stores */
	struct sw_repstats p50;  /* truth p50 over the runs: the 95 %
				    interval of the median and its coverage,
				    regimes (repstats.h; floor: the probe's
				    coarsest resolution) */
	struct sw_repstats_f upd; /* updates per 1000 stores, the same */
};

/* One row from a finished pass (label left empty). */
void sw_runrow_fill(const struct sw_summary *S, struct sw_runrow *r);
/* Label every row by the dimensions that differ between the rows (the
 * policy when nothing differs); returns the mask of 1 << enum
 * sw_runrow_dim used. */
unsigned sw_runrow_label(struct sw_runrow *rows, int n);
const char *sw_runrow_dim_name(int dim);
/* cmd (words separated by spaces) without --out, --log and --seed and
 * their values ("--out DIR" or "--out=DIR"), into dst */
void sw_runrow_command_key(const char *cmd, char *dst, size_t len);
/* The groups of rows that repeat one command, in the order of their
 * first rows; returns how many (at most cap). */
int sw_runrow_repeats(const struct sw_runrow *rows, int n, struct sw_repeat *g, int cap);

#endif
