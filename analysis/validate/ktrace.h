/* SPDX-License-Identifier: MIT */
/*
 * ktrace.h - what stalewin-model-sweep reads from the server guest's
 * kernel trace (vm/guest/trace.sh: ftrace text, clock mono, the writer's
 * CLOCK_MONOTONIC) for its kernel-phase replay: the flusher's runs and
 * passes, the jiffies every writeback_queue_io and timer_start line says,
 * the writeout_period timer, the journal's commits, and the file's own
 * lines (its inode number): submissions, atime handles, the first
 * write-back.  Reading only; model_sweep.c turns it into the model's cfg.
 */
#ifndef STALEWIN_KTRACE_H
#define STALEWIN_KTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

#define KT_MAX 256     /* commits, firings, submissions, bdev writebacks */
#define KT_MAX_BIG 1024 /* background passes, atime handles */

struct ktrace {
	/* the flusher (writeback_start of the bdi) */
	int64_t t_run_mono_ns;         /* first periodic run at or after the
					  first store; -1: none */
	int64_t t_run_created_mono_ns; /* first periodic run after the
					  creation; -1: none or not asked */
	long runs;                     /* periodic runs */
	int64_t bg_pass_mono_ns[KT_MAX_BIG]; /* reason=background passes */
	size_t bg_passes;
	/* jiffies: (t, j) samples in trace order (malloc'd) */
	struct sw_jiffy_anchor *js;
	size_t jn, jcap;
	/* the writeout_period timer: its firings and re-arm targets */
	int64_t period_mono_ns[KT_MAX];
	int64_t period_expires[KT_MAX]; /* jiffies */
	size_t periods;
	size_t period_lines;           /* its timer_start lines, all */
	/* the journal (jbd2 of the bdi's device) */
	int64_t commit_mono_ns[KT_MAX], commit_end_mono_ns[KT_MAX];
	size_t commits, commit_ends;
	/* the file (ino >= 0): its never-written pages' submissions */
	int64_t alloc_mono_ns[KT_MAX];  /* ext4_allocate_blocks */
	int64_t clear_mono_ns[KT_MAX];  /* kprobe folio_clear_dirty_for_io */
	size_t allocs, clears;
	/* other inodes of the bdi written back (the bdev inode): when, how
	 * many pages */
	int64_t bdev_wb_mono_ns[KT_MAX];
	long long bdev_wb_pages[KT_MAX];
	size_t bdev_wbs;
	/* knfsd's atime handles on the file; atime_traced: the event was on */
	int64_t atime_mono_ns[KT_MAX_BIG];
	size_t atimes;
	int atime_traced;
	/* the writer's faults dirtying the file's clean pages while the inode
	 * was clean (folio_mark_dirty -> __mark_inode_dirty(I_DIRTY_PAGES),
	 * "state= "): when the flusher was armed */
	int64_t dirty_mono_ns[KT_MAX_BIG];
	size_t dirties;
	long long file_dirtied_when;   /* its first write-back's, jiffies; -1 */
	int64_t file_wb_mono_ns[KT_MAX_BIG]; /* its write-backs' ends
					  (writeback_single_inode of it) */
	size_t file_wbs;
};

/* Read path for bdi "MAJ:MIN" and the file's inode number ino (-1: none);
 * t_first_mono_ns the first store, t_created_mono_ns the creation (-1:
 * unknown), jiffy_ns the kernel's tick (0: no jiffies).  0, or -1 with
 * err set; ktrace_free() either way. */
int ktrace_read(const char *path, const char *bdi, long long ino, int64_t t_first_mono_ns,
		int64_t t_created_mono_ns, int64_t jiffy_ns, struct ktrace *kt, char *err,
		size_t errlen);
void ktrace_free(struct ktrace *kt);

#endif
