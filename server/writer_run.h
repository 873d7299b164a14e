/* SPDX-License-Identifier: MIT */
/* writer_run.h - the state of one writer run, shared by setup.c
 * (validation, mapping, self-check) and run.c (the loop). */
#ifndef STALEWIN_WRITER_RUN_H
#define STALEWIN_WRITER_RUN_H

#include <stdint.h>

#include "model.h"
#include "swlog.h"
#include "trap.h"
#include "workload.h"
#include "writer.h"
#include "writer_status.h"

struct sw_run {
	const struct sw_opts *o;
	struct sw_resolved r;
	int fd;                         /* the file, O_RDWR */
	int native;                     /* 1: --policy native */
	struct swlog_writer *log;
	struct sw_mapping mp;           /* mapping + trap mechanism */
	struct sw_model model;          /* emulated policies only */
	uint32_t *gen;                  /* per page: last generation stored */
	struct sw_wl wl;
	int64_t t0_mono_ns;             /* run start (after the self-check) */
	int64_t t_create_mono_ns;       /* the file's creation by the writer,
	                                 * else its ctime at the open */
	int created;                    /* 1: the writer created the file */
	int64_t lead_waited_ns;         /* --lead-ms: how long the writer waited
					   before its set-up, ns; -1: the file
					   was older than the lead already */
	int64_t t_first_read_mono_ns;   /* a reader's first read before the
	                                 * open (atime newer than ctime); 0 */
	int64_t t_stop_mono_ns;         /* loop end */
	int64_t cpu_t0_ns;              /* main thread CPU time (user+sys,
	                                 * RUSAGE_THREAD) at the run start, ns */
	long nivcsw_t0;                 /* main thread involuntary context
	                                 * switches at the run start */
	int64_t cpu_run_ns;             /* main thread CPU during the loop, ns
	                                 * (set at the loop end) */
	long nivcsw_run;                /* involuntary switches during it */
	int64_t cpu_proc_t0_ns;         /* whole process CPU (RUSAGE_SELF, all
	                                 * threads: uffd handler, log flusher)
	                                 * at the run start, ns */
	int64_t cpu_proc_run_ns;        /* ... during the loop, ns */
	uint64_t stores, traps, updates;/* counts for END and status */
	double rate_planned;            /* stores/s, 0: flat out */
	int64_t last_mtime_ns;          /* native: last times seen by fstat */
	int64_t last_ctime_ns;
	int64_t t_last_look_real_ns;    /* native: last fstat */
	int64_t t_last_look_mono_ns;
	int log_err;                    /* first swlog error (-errno) */
	int fatal_errno;
	char fatal[512];                /* runtime failure, one line */
	char warning[256];              /* rate not met, ... */
};

int sw_run_install_signals(void);
int sw_run_stopped(void);
void sw_run_note(struct sw_run *R, enum sw_note_level lvl, const char *msg);
void sw_run_status(struct sw_run *R, const char *state);
/* Runs the loop and the closing records; returns enum sw_end_reason. */
int sw_run_main(struct sw_run *R);

#endif
