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

struct sw_runfacts {
	char policy[32], realised[96]; /* "emulated", "stock kernel 6.1", ... */
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
};

/* From a run folder and its pass (S).  Returns 0; unreadable meta leaves
 * fields empty / -1. */
int sw_runfacts_load(const char *dir, const struct sw_summary *S, struct sw_runfacts *f);

#define SW_MAX_FINDINGS 48
struct sw_findings {
	int n;
	char text[SW_MAX_FINDINGS][400]; /* one sentence each, numbers and resolution */
};
/* The findings of rows[0..n) with their facts (labels set). */
void sw_findings_compute(const struct sw_runrow *rows, const struct sw_runfacts *facts,
			 int n, struct sw_findings *out);
#endif
