/* SPDX-License-Identifier: MIT */
/* mailfacts.h - what `stalewin mail` says about runs besides the summary
 * rows: how each run was made (meta.json, the writer log's header) and the
 * findings computed from the figures (mailfacts.c).  Printed by
 * analysis/output/mail.c. */
#ifndef STALEWIN_MAILFACTS_H
#define STALEWIN_MAILFACTS_H
#include <stdint.h>

#include "report.h"
#include "runrow.h"

/* The mail's CDF: SW_CDF_X points, 12 a decade from 1 ms to 100 s. */
#define SW_CDF_X 61
static inline double sw_cdf_x_s(int x)
{
	static const double step = 1.2115276586285884; /* 10^(1/12) */
	double v = 1e-3;
	for (int i = 0; i < x; i++)
		v *= step;
	return v;
}

struct sw_runfacts {
	char policy[32], realised[160]; /* "emulated", "stock kernel 6.1", ... */
	char workload[160];      /* "rewrite, one page every 100 ms" */
	double duration_s;       /* planned run length */
	int64_t model_wb_ms, model_expire_ms; /* writeback model, -1 unknown */
	int64_t host_wb_cs, host_expire_cs;   /* host vm.dirty_*_centisecs, -1 */
	int sysctl_pinned;       /* meta.json: the demo pinned them to the model */
	char kernel[160], fs[64], fs_opts[256];
	char nfs[160];           /* "ganesha NFSv3 (probe GETATTR)" */
	char mounts[256];        /* kernel readers' mount options, "" none */
	char packages[512];      /* "nfs-ganesha 5.7-1, libnfs13 ..." */
	int64_t clock_err_ns;    /* -1: same host (exact) */
	int64_t resolution_ns;   /* probe 0's resolution, -1 none */
	char command[1024];      /* the command that made the run */
	int emulated;            /* the writer emulated the policy (no kernel) */
	int tcg;                 /* the writer ran in a qemu TCG guest (meta
				    accel): no absolute latency to post */
	char server[16];         /* "ganesha", "knfsd"; "" unknown */
	int settled;             /* the file was settled at the writer's
				    set-up: 1, 0, -1 unknown */
	int validated;           /* the report names the validate run its
				    emulated rows rest on */
	int64_t wb_ms, expire_ms; /* the writeback the run ran under (the
				    model's, else the kernel's); -1 unknown */
	float truth_cdf[SW_CDF_X]; /* share of stores whose truth window is
				    at most sw_cdf_x_s(x) (stores with none
				    before the end never count) */
	int plot;                /* the mail's CDF shows this run */
};

/* The kernel's own writeback (vm.dirty_writeback_centisecs,
 * vm.dirty_expire_centisecs defaults): anything else is scaled. */
#define SW_KERNEL_WB_MS 5000
#define SW_KERNEL_EXPIRE_MS 30000

/* From a run folder and its pass (S).  Returns 0; unreadable meta leaves
 * fields empty / -1. */
int sw_runfacts_load(const char *dir, const struct sw_summary *S, struct sw_runfacts *f);

#define SW_MAX_FINDINGS 48
struct sw_findings {
	int n;
	char text[SW_MAX_FINDINGS][1024]; /* one sentence each, numbers and resolution */
};
/* One sentence more (printf-like; dropped past SW_MAX_FINDINGS). */
void sw_findings_add(struct sw_findings *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The findings of rows[0..n) with their facts (labels set). */
void sw_findings_compute(const struct sw_runrow *rows, const struct sw_runfacts *facts,
			 int n, struct sw_findings *out);

/* Why the runs are a sketch and not evidence to post (one sentence a
 * reason, none: out->n == 0): every row emulated; every row served by
 * ganesha; writeback scaled from the kernel's defaults; a file not
 * settled at the writer's set-up; fewer than SW_MAIL_MIN_REPEATS runs of
 * a row's command.  The caveats every mail carries (a model row that rests
 * on no validate run) go to caveats. */
#define SW_MAIL_MIN_REPEATS 5
void sw_mail_refusals(const struct sw_runrow *rows, const struct sw_runfacts *facts, int n,
		      struct sw_findings *out, struct sw_findings *caveats);
/* A shell command as a reader can paste it: the harness's own programs as
 * ./stalewin subcommands, paths inside the checkout (top) relative to it,
 * a run folder (--out) by its base name. */
void sw_mail_command(const char *cmd, const char *top, char *dst, size_t n);
#endif
