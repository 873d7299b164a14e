/* SPDX-License-Identifier: MIT */
/*
 * Description: table-driven unit test of the writer's policy state machine
 * and writeback model (server/model/model.c, server/policy/<name>.c).  Each case feeds
 * a scripted timeline (stores, kupdate ticks, msync, fsync, munmap) to one
 * policy and checks the exact times and causes of the timestamp updates it
 * decides, and the number of traps.  A broken model shows as an update at
 * the wrong time (eager updating again on a dirty page, deferred updating
 * before the flush, lang missing its spurious flush update, none updating
 * at all) or as pages not write-protected again after a flush; a broken
 * writeout_period timer as a firing off its wheel bucket or its expiry
 * grid (run_period); a broken journal as a commit off the timer wheel's
 * bucket, a late commit past t_expires, or the wrong block-device pages
 * at a commit (run_journal).
 * Every case is named (tests/check.h): `test_writer_model --list` lists
 * them, `test_writer_model --case model/eager-rewrite` (or
 * SW_TEST_CASE=model/eager-rewrite) runs one, `--case 'journal*'` a few.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model.h"
#include "records.h"

#define MS 1000000ll
#define PG 4096u

enum op { END = 0, STORE, MSYNC_A, MSYNC_S, FSYNC, MUNMAP };

struct ev {
	int op;
	uint64_t page;
	int64_t t_ms;
};

struct upd {
	int64_t t_ms;
	uint32_t cause;
};

struct tcase {
	const char *name;    /* the case's name: model/<name> */
	const char *what;    /* what it shows */
	const char *pol;     /* policy name (policies.c's list) */
	int64_t wb_ms, exp_ms;
	uint64_t bg_pages; /* background limit in pages, 0 = off */
	uint64_t npages;
	struct ev ev[96];
	struct upd upd[16]; /* expected updates, t_ms < 0 ends */
	uint64_t traps;
	uint64_t cleaned; /* pages write-protected again, total */
	int64_t jiffy_us; /* model's jiffy (timer-wheel rounding), 0: none */
	int64_t journal_ms; /* jbd2 commit interval, 0: not journalled */
	int bg_run; /* 1: wb over its background threshold at every run */
	uint32_t create_meta; /* bdev pages the file's creation journals (create_meta_pages) */
};

/* stores to page 0 every 1.1 s from 0 to 9.9 s, end 10 s (one store a
 * flusher run of the 1 s interval) */
#define REWRITE_1100                                                          \
	{ STORE, 0, 0 }, { STORE, 0, 1100 }, { STORE, 0, 2200 },              \
	{ STORE, 0, 3300 }, { STORE, 0, 4400 }, { STORE, 0, 5500 },           \
	{ STORE, 0, 6600 }, { STORE, 0, 7700 }, { STORE, 0, 8800 },           \
	{ STORE, 0, 9900 }, { MUNMAP, 0, 10000 }
/* ... and the first six of them trapping */
#define TRAPS_0_5500                                                          \
	{ 0, SW_CAUSE_TRAP }, { 1100, SW_CAUSE_TRAP }, { 2200, SW_CAUSE_TRAP }, \
	{ 3300, SW_CAUSE_TRAP }, { 4400, SW_CAUSE_TRAP }, { 5500, SW_CAUSE_TRAP },

/* stores to page 0 every 100 ms from 50 to 6950, end 7100 */
#define REWRITE_70                                                            \
	{ STORE, 0, 50 }, { STORE, 0, 150 }, { STORE, 0, 250 },               \
	{ STORE, 0, 350 }, { STORE, 0, 450 }, { STORE, 0, 550 },              \
	{ STORE, 0, 650 }, { STORE, 0, 750 }, { STORE, 0, 850 },              \
	{ STORE, 0, 950 }, { STORE, 0, 1050 }, { STORE, 0, 1550 },            \
	{ STORE, 0, 2050 }, { STORE, 0, 2550 }, { STORE, 0, 3050 },           \
	{ STORE, 0, 3450 }, { STORE, 0, 3550 }, { STORE, 0, 3650 },           \
	{ STORE, 0, 4050 }, { STORE, 0, 5050 }, { STORE, 0, 6050 },           \
	{ STORE, 0, 6450 }, { STORE, 0, 6550 }, { STORE, 0, 6950 },           \
	{ MUNMAP, 0, 7100 }

/* The last three journal the file's creation (create_meta: the pages
 * its creation journals, create_meta_pages; 0 for a file that existed). */
static const struct tcase cases[] = {
	{ .name = "eager-rewrite",
	  .what = "eager rewrite: update at each trap only, second store to a dirty page changes nothing",
	  .pol = "eager", .wb_ms = 500, .exp_ms = 3000, .npages = 16,
	  .ev = { REWRITE_70 },
	  .upd = { { 50, SW_CAUSE_TRAP }, { 3050, SW_CAUSE_TRAP }, { 6050, SW_CAUSE_TRAP },
	    { -1, 0 } },
	  .traps = 3, .cleaned = 2 },
	{ .name = "deferred-rewrite",
	  .what = "deferred rewrite: nothing until the kupdate flush, then exactly one update",
	  .pol = "deferred", .wb_ms = 500, .exp_ms = 3000, .npages = 16,
	  .ev = { REWRITE_70 },
	  .upd = { { 3050, SW_CAUSE_KUPDATE }, { 6050, SW_CAUSE_KUPDATE },
	    { 7100, SW_CAUSE_MUNMAP }, { -1, 0 } },
	  .traps = 3, .cleaned = 2 },
	{ .name = "lang-rewrite",
	  .what = "lang rewrite: update at the trap and again at each flush",
	  .pol = "lang", .wb_ms = 500, .exp_ms = 3000, .npages = 16,
	  .ev = { REWRITE_70 },
	  .upd = { { 50, SW_CAUSE_TRAP }, { 3050, SW_CAUSE_KUPDATE },
	    { 3050, SW_CAUSE_TRAP }, { 6050, SW_CAUSE_KUPDATE }, { 6050, SW_CAUSE_TRAP },
	    { 7100, SW_CAUSE_MUNMAP }, { -1, 0 } },
	  .traps = 3, .cleaned = 2 },
	{ .name = "none-rewrite",
	  .what = "none rewrite: never an update, same traps",
	  .pol = "none", .wb_ms = 500, .exp_ms = 3000, .npages = 16,
	  .ev = { REWRITE_70 },
	  .upd = { { -1, 0 } },
	  .traps = 3, .cleaned = 2 },
	{ .name = "lang-lone-store",
	  .what = "lang lone store: first-fault update plus the spurious flush update",
	  .pol = "lang", .wb_ms = 500, .exp_ms = 1000, .npages = 16,
	  .ev = { { STORE, 3, 100 }, { MUNMAP, 0, 2000 } },
	  .upd = { { 100, SW_CAUSE_TRAP }, { 1100, SW_CAUSE_KUPDATE }, { -1, 0 } },
	  .traps = 1, .cleaned = 1 },
	{ .name = "deferred-msync-async",
	  .what = "deferred msync(MS_ASYNC): update now, pages write-protected, munmap flushes the next",
	  .pol = "deferred", .npages = 16,
	  .ev = { { STORE, 0, 100 }, { MSYNC_A, 0, 200 }, { STORE, 0, 300 },
	    { STORE, 0, 350 }, { MUNMAP, 0, 400 } },
	  .upd = { { 200, SW_CAUSE_MSYNC_ASYNC }, { 400, SW_CAUSE_MUNMAP }, { -1, 0 } },
	  .traps = 2, .cleaned = 1 },
	{ .name = "eager-msync-async",
	  .what = "eager msync(MS_ASYNC): nothing, page stays writable",
	  .pol = "eager", .npages = 16,
	  .ev = { { STORE, 0, 100 }, { MSYNC_A, 0, 200 }, { STORE, 0, 300 },
	    { MUNMAP, 0, 400 } },
	  .upd = { { 100, SW_CAUSE_TRAP }, { -1, 0 } },
	  .traps = 1, .cleaned = 0 },
	{ .name = "deferred-fsync-msync-sync",
	  .what = "deferred fsync and msync(MS_SYNC): one update per flush with pending",
	  .pol = "deferred", .npages = 16,
	  .ev = { { STORE, 1, 100 }, { STORE, 2, 150 }, { FSYNC, 0, 200 },
	    { FSYNC, 0, 250 }, { STORE, 1, 300 }, { MSYNC_S, 0, 400 }, { MUNMAP, 0, 500 } },
	  .upd = { { 200, SW_CAUSE_FSYNC }, { 400, SW_CAUSE_MSYNC_SYNC }, { -1, 0 } },
	  .traps = 3, .cleaned = 3 },
	{ .name = "eager-fsync-cleans",
	  .what = "eager fsync cleans: the next store traps and updates",
	  .pol = "eager", .npages = 16,
	  .ev = { { STORE, 1, 100 }, { STORE, 1, 150 }, { FSYNC, 0, 200 },
	    { STORE, 1, 300 }, { MUNMAP, 0, 500 } },
	  .upd = { { 100, SW_CAUSE_TRAP }, { 300, SW_CAUSE_TRAP }, { -1, 0 } },
	  .traps = 2, .cleaned = 1 },
	{ .name = "deferred-background-limit",
	  .what = "deferred background writeback over the dirty limit",
	  .pol = "deferred", .bg_pages = 2, .npages = 16,
	  .ev = { { STORE, 0, 10 }, { STORE, 1, 20 }, { STORE, 2, 30 }, { STORE, 0, 40 },
	    { MUNMAP, 0, 50 } },
	  .upd = { { 30, SW_CAUSE_BACKGROUND }, { 50, SW_CAUSE_MUNMAP }, { -1, 0 } },
	  .traps = 4, .cleaned = 3 },
	{ .name = "deferred-msync-async-dirtied-when",
	  .what = "deferred MS_ASYNC keeps the inode dirty: kupdate by the first dirtied_when",
	  .pol = "deferred", .wb_ms = 100, .exp_ms = 1000, .npages = 16,
	  .ev = { { STORE, 0, 0 }, { MSYNC_A, 0, 50 }, { STORE, 0, 500 },
	    { MUNMAP, 0, 1700 } },
	  .upd = { { 50, SW_CAUSE_MSYNC_ASYNC }, { 1000, SW_CAUSE_KUPDATE }, { -1, 0 } },
	  .traps = 2, .cleaned = 2 },
	{ .name = "eager-kupdate-off",
	  .what = "eager kupdate off (writeback 0): never cleaned, one trap",
	  .pol = "eager", .exp_ms = 3000, .npages = 16,
	  .ev = { { STORE, 5, 0 }, { STORE, 5, 10000 }, { STORE, 5, 20000 },
	    { MUNMAP, 0, 30000 } },
	  .upd = { { 0, SW_CAUSE_TRAP }, { -1, 0 } },
	  .traps = 1, .cleaned = 0 },
	{ .name = "deferred-expire-0",
	  .what = "deferred expire 0: every tick flushes a dirty inode",
	  .pol = "deferred", .wb_ms = 100, .npages = 16,
	  .ev = { { STORE, 5, 10 }, { STORE, 6, 150 }, { STORE, 6, 160 },
	    { MUNMAP, 0, 250 } },
	  .upd = { { 110, SW_CAUSE_KUPDATE }, { 250, SW_CAUSE_KUPDATE }, { -1, 0 } },
	  .traps = 2, .cleaned = 2 },
	/* Kernel rules, each measured on loop ext4 with the
	 * writeback:* tracepoints (bench/validate_trace.sh). */
	{ .name = "wb-wakeup-delayed",
	  .what = "__mark_inode_dirty -> wb_wakeup_delayed: the flusher runs writeback_ms after the first dirtying, not on a grid from the run start",
	  .pol = "eager", .wb_ms = 1000, .exp_ms = 3000, .npages = 16,
	  .ev = { { STORE, 0, 700 }, { STORE, 0, 3650 }, { STORE, 0, 3800 },
	    { STORE, 0, 6800 }, { STORE, 0, 7000 }, { MUNMAP, 0, 7100 } },
	  .upd = { { 700, SW_CAUSE_TRAP }, { 3800, SW_CAUSE_TRAP },
	    { 6800, SW_CAUSE_TRAP }, { -1, 0 } },
	  .traps = 3, .cleaned = 2 },
	{ .name = "wb-workfn-armed",
	  .what = "wb_workfn: an fsync-cleaned inode leaves the armed work in place (queue_delayed_work keeps a pending timer)",
	  .pol = "eager", .wb_ms = 1000, .npages = 16,
	  .ev = { { STORE, 0, 0 }, { FSYNC, 0, 500 }, { STORE, 0, 600 },
	    { STORE, 0, 1100 }, { MUNMAP, 0, 1200 } },
	  .upd = { { 0, SW_CAUSE_TRAP }, { 600, SW_CAUSE_TRAP }, { 1100, SW_CAUSE_TRAP },
	    { -1, 0 } },
	  .traps = 3, .cleaned = 2 },
	{ .name = "ext4-sync-file-dirtied-when",
	  .what = "ext4_sync_file: fsync cleans the pages but keeps dirtied_when, so kupdate still cleans expire after the first dirtying",
	  .pol = "eager", .wb_ms = 1000, .exp_ms = 3000, .npages = 16,
	  .ev = { { STORE, 0, 0 }, { FSYNC, 0, 2300 }, { STORE, 0, 2400 },
	    { STORE, 0, 3050 }, { STORE, 0, 4600 }, { FSYNC, 0, 4600 }, { STORE, 0, 4700 },
	    { MUNMAP, 0, 5000 } },
	  .upd = { { 0, SW_CAUSE_TRAP }, { 2400, SW_CAUSE_TRAP }, { 3050, SW_CAUSE_TRAP },
	    { 4700, SW_CAUSE_TRAP }, { -1, 0 } },
	  .traps = 4, .cleaned = 3 },
	{ .name = "jbd2-refile-buffer",
	  .what = "__jbd2_journal_refile_buffer: the commit dirties the block device inode, the flusher keeps its phase (no wb_wakeup_delayed at the redirty)",
	  .pol = "eager", .wb_ms = 1000, .exp_ms = 3000, .npages = 16,
	  .ev = { { STORE, 0, 0 }, { STORE, 0, 3500 }, { STORE, 0, 7000 },
	    { STORE, 0, 10200 }, { STORE, 0, 10600 }, { MUNMAP, 0, 11000 } },
	  .upd = { { 0, SW_CAUSE_TRAP }, { 3500, SW_CAUSE_TRAP }, { 7000, SW_CAUSE_TRAP },
	    { 10600, SW_CAUSE_TRAP }, { -1, 0 } },
	  .traps = 4, .cleaned = 3, .journal_ms = 5000 },
	{ .name = "ext4-sync-file-commit",
	  .what = "ext4_sync_file -> jbd2_complete_transaction: fsync commits at once, the bdev inode is dirty from then",
	  .pol = "eager", .wb_ms = 1000, .exp_ms = 3000, .npages = 16,
	  .ev = { { STORE, 0, 0 }, { FSYNC, 0, 500 }, { STORE, 0, 600 },
	    { STORE, 0, 3100 }, { STORE, 0, 6500 }, { STORE, 0, 7200 },
	    { MUNMAP, 0, 7500 } },
	  .upd = { { 0, SW_CAUSE_TRAP }, { 600, SW_CAUSE_TRAP }, { 3100, SW_CAUSE_TRAP },
	    { 7200, SW_CAUSE_TRAP }, { -1, 0 } },
	  .traps = 4, .cleaned = 3, .journal_ms = 5000 },
	{ .name = "calc-index-hz250",
	  .what = "calc_index: HZ=250, a 1 s interval runs every 1.024 s, so expire 3 s flushes 3.072 s after the dirtying (trace: 3.02-3.08 s)",
	  .pol = "eager", .wb_ms = 1000, .exp_ms = 3000, .npages = 16,
	  .ev = { { STORE, 0, 0 }, { STORE, 0, 3000 }, { STORE, 0, 3100 },
	    { STORE, 0, 6150 }, { STORE, 0, 6200 }, { MUNMAP, 0, 6300 } },
	  .upd = { { 0, SW_CAUSE_TRAP }, { 3100, SW_CAUSE_TRAP }, { 6200, SW_CAUSE_TRAP },
	    { -1, 0 } },
	  .traps = 3, .cleaned = 2, .jiffy_us = 4000 },
	/* Traced in the stock 6.1 guest (ext4 on virtio-blk, TCG): after
	 * each periodic pass a "reason=background age=0" pass writes the
	 * file (wb_over_bg_thresh: the wb's share of the threshold reads
	 * 0), so a 100 ms rewrite updates once per flusher run: 29 in 30 s
	 * against 6 with expiry alone. */
	{ .name = "bg-flush-eager",
	  .what = "wb_check_background_flush: every flusher run writes the dirty inode when wb_over_bg_thresh, no expiry; the next store re-arms (wb_wakeup_delayed)",
	  .pol = "eager", .wb_ms = 1000, .exp_ms = 5000, .npages = 16,
	  .ev = { { STORE, 0, 0 }, { STORE, 0, 100 }, { STORE, 0, 1100 },
	    { STORE, 0, 1200 }, { STORE, 0, 2200 }, { STORE, 0, 2300 }, { STORE, 0, 3300 },
	    { MUNMAP, 0, 3400 } },
	  .upd = { { 0, SW_CAUSE_TRAP }, { 1100, SW_CAUSE_TRAP }, { 2200, SW_CAUSE_TRAP },
	    { 3300, SW_CAUSE_TRAP }, { -1, 0 } },
	  .traps = 4, .cleaned = 3, .bg_run = 1 },
	{ .name = "bg-flush-deferred",
	  .what = "wb_check_background_flush: deferred updates at each background pass (cause BACKGROUND), the armed work waits for the next store",
	  .pol = "deferred", .wb_ms = 1000, .exp_ms = 5000, .npages = 16,
	  .ev = { { STORE, 0, 0 }, { STORE, 0, 1050 }, { STORE, 0, 4000 },
	    { MUNMAP, 0, 5500 } },
	  .upd = { { 1000, SW_CAUSE_BACKGROUND }, { 2050, SW_CAUSE_BACKGROUND },
	    { 5000, SW_CAUSE_BACKGROUND }, { -1, 0 } },
	  .traps = 3, .cleaned = 3, .bg_run = 1 },
	{ .name = "bg-flush-journal",
	  .what = "wb_check_background_flush with the journal: the commit's bdev inode is written with the file, the flusher is not kept armed by it",
	  .pol = "eager", .wb_ms = 1000, .exp_ms = 5000, .npages = 16,
	  .ev = { { STORE, 0, 0 }, { STORE, 0, 1500 }, { STORE, 0, 7000 },
	    { STORE, 0, 7100 }, { MUNMAP, 0, 8500 } },
	  .upd = { { 0, SW_CAUSE_TRAP }, { 1500, SW_CAUSE_TRAP }, { 7000, SW_CAUSE_TRAP },
	    { -1, 0 } },
	  .traps = 3, .cleaned = 3, .journal_ms = 5000, .bg_run = 1 },
	/* SW_BG_FPROP (6.1, one CPU): the share reads 0 until 8 pages of
	 * writeout fold into the wb's counter (fprop_fraction_percpu ->
	 * percpu_counter_read_positive, PROP_BATCH 8); the domain's 3 s
	 * period then halves it only through the unfolded delta
	 * (fprop_reflect_period_percpu), so it stays non-zero here */
	{ .name = "fprop-fold",
	  .what = "wb_calc_thresh / fprop_fraction_percpu: after 8 pages written back the wb's share is no longer 0, so the flusher waits for expiry again",
	  .pol = "eager", .wb_ms = 1000, .exp_ms = 5000, .npages = 16,
	  .ev = { { STORE, 0, 0 }, { STORE, 1, 10 }, { STORE, 2, 20 }, { STORE, 3, 30 },
	    { STORE, 4, 40 }, { STORE, 5, 50 }, { STORE, 6, 60 }, { STORE, 7, 70 },
	    { STORE, 0, 1100 }, { STORE, 0, 1200 }, { STORE, 0, 2200 }, { STORE, 0, 6200 },
	    { MUNMAP, 0, 6300 } },
	  .upd = { { 0, SW_CAUSE_TRAP }, { 10, SW_CAUSE_TRAP }, { 20, SW_CAUSE_TRAP },
	    { 30, SW_CAUSE_TRAP }, { 40, SW_CAUSE_TRAP }, { 50, SW_CAUSE_TRAP },
	    { 60, SW_CAUSE_TRAP }, { 70, SW_CAUSE_TRAP }, { 1100, SW_CAUSE_TRAP },
	    { 6200, SW_CAUSE_TRAP }, { -1, 0 } },
	  .traps = 10, .cleaned = 9, .bg_run = SW_BG_FPROP },
	{ .name = "fprop-reflect-period",
	  .what = "fprop_reflect_period_percpu: below the batch the wb's events only halve per 3 s period, one page a run never folds: background every run",
	  .pol = "eager", .wb_ms = 1000, .exp_ms = 5000, .npages = 16,
	  .ev = { REWRITE_1100 },
	  .upd = { TRAPS_0_5500 { 6600, SW_CAUSE_TRAP }, { 7700, SW_CAUSE_TRAP },
	    { 8800, SW_CAUSE_TRAP }, { 9900, SW_CAUSE_TRAP }, { -1, 0 } },
	  .traps = 10, .cleaned = 9, .bg_run = SW_BG_FPROP },
	/* Traced in the patched 6.1 guest (deferred, 100 ms rewrite, 1 s /
	 * 5 s): the first checkpoint writeback of the bdev inode wrote 5
	 * pages (the creation's bitmaps, group descriptor, inode table and
	 * directory blocks: __jbd2_journal_refile_buffer -> mark_buffer_dirty
	 * at the commit that started with ext4_create), later ones 1; with
	 * the file's pages before them the wb's count folds and background
	 * stops until the count ages out (gap 17.4 -> 26.0 s, one update by
	 * expiry in it). */
	{ .name = "ext4-create-meta",
	  .what = "ext4_create + jbd2 commit: the creation's 5 metadata pages fold the wb's count at the first bdev writeback (5.4 s): background stops, the page stays dirty",
	  .pol = "eager", .wb_ms = 1000, .exp_ms = 5000, .npages = 16, .create_meta = 5,
	  .ev = { REWRITE_1100 },
	  .upd = { TRAPS_0_5500 { -1, 0 } },
	  .traps = 6, .cleaned = 5, .journal_ms = 5000, .bg_run = SW_BG_FPROP },
	/* Traced in the patched 6.1 guest with 0008 (deferred, 100 ms
	 * rewrite, 1 s / 5 s; writeback and jbd2 tracepoints): every
	 * flusher run that applies the update commits (jbd2_start_commit
	 * inside the file's writeback, 11 commits in 30 s against 5
	 * without 0008) and writes the bdev inode in the same background
	 * run; background passes stop after two or three runs and the file
	 * waits for expiry (12 updates in 30 s against 18-26 without).
	 * After such a run nothing of the wb is dirty: the commit inside it
	 * did not arm the flusher (the file was on b_io), and the next store
	 * does (wb_wakeup_delayed): 1.1 s apart here, as traced (the patched
	 * guest: "run 17.377-17.398, armed 17.469 by the next dirtying"). */
	{ .name = "writepages-cmtime-0008",
	  .what = "ext4_writepages_cmtime (vm/kernel 0008) -> jbd2_complete_transaction: a deferred update applied at writeback commits at once, its inode-table page goes out in the same background run and folds the wb's count: background stops",
	  .pol = "deferred", .wb_ms = 1000, .exp_ms = 5000, .npages = 16,
	  .ev = { REWRITE_1100 },
	  .upd = { { 1000, SW_CAUSE_BACKGROUND }, { 2100, SW_CAUSE_BACKGROUND },
	    { 3200, SW_CAUSE_BACKGROUND }, { 4300, SW_CAUSE_BACKGROUND },
	    { 5400, SW_CAUSE_BACKGROUND }, { 6500, SW_CAUSE_BACKGROUND },
	    { 10000, SW_CAUSE_MUNMAP }, { -1, 0 } },
	  .traps = 7, .cleaned = 6, .journal_ms = 5000, .bg_run = SW_BG_FPROP },
	{ .name = "existing-file",
	  .what = "the same without the creation (a file that existed): the commit's one inode-table page does not fold the count, background every run",
	  .pol = "eager", .wb_ms = 1000, .exp_ms = 5000, .npages = 16,
	  .ev = { REWRITE_1100 },
	  .upd = { TRAPS_0_5500 { 6600, SW_CAUSE_TRAP }, { 7700, SW_CAUSE_TRAP },
	    { 8800, SW_CAUSE_TRAP }, { 9900, SW_CAUSE_TRAP }, { -1, 0 } },
	  .traps = 10, .cleaned = 9, .journal_ms = 5000, .bg_run = SW_BG_FPROP },

};

static int whole_calls, page_calls;
static void cb_page(void *ctx, uint64_t p)
{
	(void)ctx;
	(void)p;
	page_calls++;
}
static void cb_all(void *ctx)
{
	(void)ctx;
	whole_calls++;
}

struct run {
	struct upd got[64];
	int ngot;
	uint64_t cleaned;
};

static void take(struct run *r, const struct sw_decision *d, int64_t t_ns)
{
	r->cleaned += d->cleaned;
	if (d->update && r->ngot < 64)
		r->got[r->ngot++] = (struct upd){ t_ns / MS, d->cause };
}

/* prints the updates expected (want, t_ms < 0 ends) and got */
static void print_updates(const struct upd *want, const struct run *r)
{
	printf("  expected updates:");
	for (int i = 0; want[i].t_ms >= 0; i++)
		printf(" %" PRId64 "ms/cause%u", want[i].t_ms, want[i].cause);
	printf("\n  got updates:     ");
	for (int i = 0; i < r->ngot; i++)
		printf(" %" PRId64 "ms/cause%u", r->got[i].t_ms, r->got[i].cause);
	printf("\n");
}

/* 1 when r holds exactly the updates of want (t_ms < 0 ends) */
static int same_updates(const struct upd *want, const struct run *r)
{
	int k = 0;
	for (; want[k].t_ms >= 0; k++)
		if (k >= r->ngot || r->got[k].t_ms != want[k].t_ms || r->got[k].cause != want[k].cause)
			return 0;
	return k == r->ngot;
}

static void run_case(const struct tcase *c)
{
	struct sw_model m;
	struct sw_model_cfg cfg = {
		.npages = c->npages,
		.page_size = PG,
		.writeback_ns = c->wb_ms * MS,
		.expire_ns = c->exp_ms * MS,
		.background_bytes = c->bg_pages * PG,
		.jiffy_ns = c->jiffy_us * 1000,
		.journal_commit_ns = c->journal_ms * MS,
		.bg_share = c->bg_run,
		.create_meta_pages = c->create_meta,
	};
	struct sw_reprotect rp = { cb_page, cb_all, NULL };
	struct sw_decision d;
	struct run r = { .ngot = 0 };
	char err[256];

	if (sw_model_init(&m, &cfg, sw_policy_find(c->pol), 0, err, sizeof(err)) != 0) {
		CHECK(0, "%s: init: %s", c->what, err);
		return;
	}
	for (const struct ev *e = c->ev; e->op != END; e++) {
		int64_t t = e->t_ms * MS;
		/* kupdate ticks due at or before this event run first, each
		 * at its own scheduled time */
		while (sw_model_next_tick(&m) <= t) {
			int64_t tt = sw_model_next_tick(&m);
			sw_model_tick(&m, tt, &rp, &d);
			take(&r, &d, tt);
		}
		switch (e->op) {
		case STORE:
			if (!sw_model_writable(&m, e->page)) {
				CHECK(sw_model_trap(&m, e->page, t, &d) == 0, "%s: trap refused", c->what);
				take(&r, &d, t);
				if (d.background_due) {
					sw_model_background(&m, t, &rp, &d);
					take(&r, &d, t);
				}
			}
			break;
		case MSYNC_A:
			sw_model_msync_async(&m, t, &rp, &d);
			take(&r, &d, t);
			break;
		case MSYNC_S:
			sw_model_msync_sync(&m, t, &rp, &d);
			take(&r, &d, t);
			break;
		case FSYNC:
			sw_model_fsync(&m, t, &rp, &d);
			take(&r, &d, t);
			break;
		case MUNMAP:
			sw_model_munmap(&m, t, &d);
			take(&r, &d, t);
			break;
		}
	}
	int ok = same_updates(c->upd, &r) && m.traps == c->traps && r.cleaned == c->cleaned &&
		 m.updates == (uint64_t)r.ngot;
	CHECK(ok, "%s", c->what);
	if (!ok) {
		print_updates(c->upd, &r);
		printf("  traps expected %" PRIu64 " got %" PRIu64
		       ", cleaned expected %" PRIu64 " got %" PRIu64 "\n",
		       c->traps, m.traps, c->cleaned, r.cleaned);
	}
	sw_model_free(&m);
}

/* kernel/time/timer.c calc_wheel_index()/calc_index() as the flusher's
 * delayed work meets them (wb_wakeup_delayed, wb_workfn): when a work armed
 * at t with interval wb fires. */
static const struct wheel {
	const char *name;
	int64_t jiffy_us, wb_ms, t_us, want_us;
} wheel_rows[] = {
	{ .name = "level1", .jiffy_us = 4000, .wb_ms = 1000, .t_us = 0, .want_us = 1024000 }, /* 250 j, level 1: 256 j */
	{ .name = "jiffy1", .jiffy_us = 4000, .wb_ms = 1000, .t_us = 4000, .want_us = 1024000 }, /* 251 -> 256 */
	{ .name = "jiffy9", .jiffy_us = 4000, .wb_ms = 1000, .t_us = 36000, .want_us = 1056000 }, /* 259 -> 264 */
	{ .name = "mid-jiffy", .jiffy_us = 4000, .wb_ms = 1000, .t_us = 5999, .want_us = 1024000 }, /* counts as jiffy 1 */
	{ .name = "level2", .jiffy_us = 4000, .wb_ms = 5000, .t_us = 0, .want_us = 5120000 }, /* 1250 j, level 2: 1280 j */
	{ .name = "level0", .jiffy_us = 4000, .wb_ms = 100, .t_us = 0, .want_us = 104000 }, /* 25 j, level 0: +1 j */
	{ .name = "hz1000", .jiffy_us = 1000, .wb_ms = 5000, .t_us = 0, .want_us = 5120000 }, /* 5000 j, level 3 */
	{ .name = "round-up", .jiffy_us = 4000, .wb_ms = 30, .t_us = 0, .want_us = 36000 }, /* 8 j (rounded up), level 0: 9 j */
	{ .name = "no-rounding", .jiffy_us = 0, .wb_ms = 1000, .t_us = 123, .want_us = 1000123 },
};

static void run_wheel(const struct wheel *w)
{
	struct sw_model m = { .cfg = { .writeback_ns = w->wb_ms * MS, .jiffy_ns = w->jiffy_us * 1000 } };
	int64_t got = sw_model_wake_after(&m, w->t_us * 1000);
	CHECK(got == w->want_us * 1000,
	      "calc_index: jiffy %lld us, interval %lld ms, armed at %lld us: expected %lld us, saw %lld ns",
	      (long long)w->jiffy_us, (long long)w->wb_ms, (long long)w->t_us, (long long)w->want_us,
	      (long long)got);
}
SW_VARIANTS(calc_index, wheel_rows, run_wheel)
SW_VARIANTS(model, cases, run_case)

/* Error paths and the whole-mapping write-protect switch. */
SW_CASE(edges)
{
	struct sw_model m;
	struct sw_model_cfg cfg = { .npages = 64, .page_size = PG };
	struct sw_reprotect rp = { cb_page, cb_all, NULL };
	struct sw_decision d;
	char err[256];

	cfg.npages = 0;
	CHECK(sw_model_init(&m, &cfg, sw_policy_find("eager"), 0, err, sizeof(err)) == -EINVAL,
	      "0 pages accepted");
	cfg.npages = 64;
	if (sw_model_init(&m, &cfg, sw_policy_find("eager"), 0, err, sizeof(err)) != 0) {
		CHECK(0, "init: %s", err);
		return;
	}
	CHECK(sw_model_next_tick(&m) == INT64_MAX, "writeback 0 must disable ticks");
	CHECK(sw_model_trap(&m, 64, 0, &d) == -EINVAL, "trap beyond the mapping accepted");
	CHECK(sw_model_trap(&m, 1, 0, &d) == 0 && d.update, "eager trap");
	CHECK(sw_model_trap(&m, 1, 0, &d) == -EINVAL, "trap on a writable page accepted");
	whole_calls = page_calls = 0;
	sw_model_fsync(&m, 1, &rp, &d);
	CHECK(page_calls == 1 && whole_calls == 0 && d.cleaned == 1,
	      "one page: expected 1 page call, saw %d/%d", page_calls, whole_calls);
	for (uint64_t p = 0; p < 3; p++)
		sw_model_trap(&m, p, 2, &d);
	whole_calls = page_calls = 0;
	sw_model_fsync(&m, 3, &rp, &d);
	CHECK(page_calls == 0 && whole_calls == 1 && d.cleaned == 3,
	      "3 of 64 pages: expected one whole call, saw %d/%d", page_calls, whole_calls);
	for (uint64_t p = 0; p < 64; p++)
		CHECK(!sw_model_writable(&m, p), "page %" PRIu64 " writable after fsync", p);
	sw_model_free(&m);
}

/* The traced runs of the patched 6.1 guest are replayed whole by
 * tests/server/test_model_traced.sh (stalewin-model-sweep at the kernel's
 * own flusher phase, tests/server/data/). */

/*
 * Run times (model.h; traced in the patched 6.1 guest): a
 * flusher run that forces a commit (vm/kernel 0008) write-protects and
 * applies the update at its start (mapping_mkclean_flush_cmtime), waits
 * for the commit (jbd2_complete_transaction, 4 ms here) and the
 * allocation of never-written pages (16 ms), and only then do the pages
 * go out; the background loop (wb_writeback) passes again 6 ms later.
 * Every run is background (bg_share zero), writeback 1 s exact.
 */
static const struct run_time {
	const char *name, *what;
	const char *pol;
	int64_t store_ms[4];  /* page-0 stores after the first at 0 ms, -1 ends */
	struct upd upd[6];    /* expected updates, t_ms < 0 ends */
	int64_t pass_ms;      /* the kernel's traced next pass, 0: none */
} run_time_cases[] = {
	{ .name = "store-in-commit-wait",
	  .what = "a store during the commit wait: its data goes out with the pages, do_writepages() applies the update it made pending when ->writepages returns (1020 ms), no second flush",
	  .pol = "deferred", .store_ms = { 1010, -1 },
	  .upd = { { 1000, SW_CAUSE_BACKGROUND }, { 1020, SW_CAUSE_BACKGROUND }, { -1, 0 } } },
	{ .name = "store-before-next-pass",
	  .what = "a store after the pages went out, before the loop's next pass: wb_writeback() passes again (queue_io, dirtied_before = now) and writes the file in the same run, its own update at 1026 ms",
	  .pol = "deferred", .store_ms = { 1023, -1 },
	  .upd = { { 1000, SW_CAUSE_BACKGROUND }, { 1026, SW_CAUSE_BACKGROUND }, { -1, 0 } } },
	{ .name = "traced-next-pass",
	  .what = "the kernel's own next pass (cfg.bg_pass_mono_ns, traced 20 ms into the run): the store at 1023 ms comes after the run and arms the flusher, 2023 ms",
	  .pol = "deferred", .store_ms = { 1023, -1 },
	  .upd = { { 1000, SW_CAUSE_BACKGROUND }, { 2023, SW_CAUSE_BACKGROUND }, { -1, 0 } },
	  .pass_ms = 1020 },
	{ .name = "store-after-run",
	  .what = "after the run nothing is dirty: the next store arms the flusher (wb_wakeup_delayed), one writeback interval later",
	  .pol = "deferred", .store_ms = { 1100, -1 },
	  .upd = { { 1000, SW_CAUSE_BACKGROUND }, { 2100, SW_CAUSE_BACKGROUND }, { -1, 0 } } },
	{ .name = "eager-no-commit",
	  .what = "eager forces no commit: stock ext4 write-protects a page only as it submits it (mpage_submit_folio -> folio_clear_dirty_for_io), the run is instant and a store after it traps once",
	  .pol = "eager", .store_ms = { 1010, -1 },
	  .upd = { { 0, SW_CAUSE_TRAP }, { 1010, SW_CAUSE_TRAP }, { -1, 0 } } },
};

static void run_time(const struct run_time *c)
{
	struct sw_model_cfg cfg = {
		.npages = 16, .page_size = PG, .writeback_ns = 1000 * MS,
		.expire_ns = 5000 * MS, .journal_commit_ns = 5000 * MS,
		.bg_share = SW_BG_ZERO, .run_commit_ns = 4 * MS,
		.run_alloc_ns = 16 * MS, .run_pass_ns = 6 * MS,
	};
	int64_t pass = c->pass_ms * MS;
	if (pass) {
		cfg.bg_pass_mono_ns = &pass;
		cfg.bg_passes = 1;
	}
	struct sw_model m;
	struct sw_decision d;
	struct run r = { .ngot = 0 };
	char err[256];
	int64_t stores[5] = { 0 };
	int ns = 1;
	for (int i = 0; i < 4 && c->store_ms[i] >= 0; i++)
		stores[ns++] = c->store_ms[i] * MS;
	if (sw_model_init(&m, &cfg, sw_policy_find(c->pol), 0, err, sizeof(err))) {
		CHECK(0, "run times: init: %s", err);
		return;
	}
	for (int i = 0; i <= ns; i++) {
		int64_t t = i < ns ? stores[i] : 3000 * MS;
		while (sw_model_next_tick(&m) <= t) {
			int64_t tt = sw_model_next_tick(&m);
			sw_model_tick(&m, tt, NULL, &d);
			take(&r, &d, tt);
		}
		if (i < ns && !sw_model_writable(&m, 0)) {
			sw_model_trap(&m, 0, t, &d);
			take(&r, &d, t);
		}
	}
	int ok = same_updates(c->upd, &r);
	CHECK(ok, "%s", c->what);
	if (!ok)
		print_updates(c->upd, &r);
	sw_model_free(&m);
}
SW_VARIANTS(run_time, run_time_cases, run_time)

/*
 * The writeout_period timer (model.h; traced in the stock 6.1 guest): an
 * eager writer stores to page 0 at 72 ms, then every second (a trap
 * every other one, a flusher run 1 s after each trap); every
 * flusher run is background (fprop, the count never folds here) and
 * writes the page.  The first run (jiffy 272, 1.088 s) arms the timer at
 * jiffy 272 + 750 = 1022, which the wheel runs at the end of its 64-jiffy
 * bucket, 1024 (4.096 s); the next expiry is 1772 (the grid, not the
 * firing), run at 1792 (7.168 s).  The page getting its block completes
 * run_alloc_ns (17.4 ms = 4.35 jiffies) after the run: expiry 1026, in
 * the next bucket (4.352 s).  exact: 3 s after the arming; traced: the
 * first listed firing at or after the wheel's; traced with the kernel's
 * re-arm targets: after its firing at 4.096 s the kernel's next expiry
 * was 1700 (its grid armed elsewhere), bucket 1728 (6.912 s), which the
 * model's own grid (1792) would skip.  A traced firing half a period or
 * more after the wheel's (9.0 s for 7.168 s) is not this timer's: the
 * kernel's stopped there and a later writeout armed it again (no
 * timer_start line for a stop), so the model fires on its own grid.
 */
static const int64_t traced[] = { 4200 * MS, 7300 * MS };
static const int64_t traced2[] = { 4096 * MS, 6912 * MS }, expires2[] = { 1700, 2450 };
static const int64_t traced3[] = { 4096 * MS, 9000 * MS };
static const int64_t *const fired[] = { NULL, traced, traced2, traced3 };
static const struct period {
	const char *name, *what;
	int exact, late, traced; /* traced: fired[traced] */
	int64_t want_us[2];
} period_rows[] = {
	{ .name = "wheel", .what = "wheel bucket, expiry grid", .want_us = { 4096000, 7168000 } },
	{ .name = "late-completion", .what = "late first completion", .late = 1,
	  .want_us = { 4352000, 7168000 } },
	{ .name = "exact", .what = "exact 3 s (old rule)", .exact = 1, .want_us = { 4088000, 7088000 } },
	{ .name = "traced", .what = "traced firings", .traced = 1, .want_us = { 4200000, 7300000 } },
	{ .name = "traced-grid", .what = "traced firings and the kernel's grid", .traced = 2,
	  .want_us = { 4096000, 6912000 } },
	{ .name = "traced-other", .what = "a traced firing 1.8 s after the wheel's: another arming's",
	  .traced = 3, .want_us = { 4096000, 7168000 } },
};

static void run_period(const struct period *c)
{
	struct sw_model_cfg cfg = {
		.npages = 4, .page_size = PG, .writeback_ns = 1000 * MS,
		.expire_ns = 5000 * MS, .jiffy_ns = 4 * MS, .bg_share = SW_BG_FPROP,
		.period_exact = c->exact, .run_alloc_ns = c->late ? 17400000 : 0,
		.period_fire_mono_ns = fired[c->traced],
		.period_fires = 2, .period_fire_expires = c->traced == 2 ? expires2 : NULL,
	};
	struct sw_model m;
	struct sw_decision d;
	char err[256];
	int64_t log[8];
	if (sw_model_init(&m, &cfg, sw_policy_find("eager"), 0, err, sizeof(err))) {
		CHECK(0, "period timer: init: %s", err);
		return;
	}
	m.period_log = log;
	m.period_log_cap = 8;
	for (int64_t t = 72 * MS; t < 12000 * MS; t += 1000 * MS) {
		sw_model_advance(&m, t, NULL);
		if (!sw_model_writable(&m, 0))
			sw_model_trap(&m, 0, t, &d);
	}
	int bad = m.period_log_n < 2;
	for (size_t i = 0; i < 2 && !bad; i++)
		bad = log[i] != c->want_us[i] * 1000;
	CHECK(!bad, "period timer, %s: expected firings at %lld and %lld us, saw %zu firings, the first at %lld and %lld ns",
	      c->what, (long long)c->want_us[0], (long long)c->want_us[1], m.period_log_n,
	      (long long)(m.period_log_n > 0 ? log[0] : -1), (long long)(m.period_log_n > 1 ? log[1] : -1));
	sw_model_free(&m);
}
SW_VARIANTS(period, period_rows, run_period)

/*
 * The journal (model.c journal_start, journal_commit, atime_read; traced
 * in the stock 6.1 guest, tests/server/test_model_journal.sh): HZ=250,
 * jiffies = mono / 4 ms, commit interval 5 s (1250 jiffies), eager, no
 * flusher.  jbd2_get_transaction() arms the commit timer at
 * round_jiffies_up(t_expires) (a whole second of jiffies; one more when
 * t_expires is on one), filed in the timer wheel (level 2: 64 jiffies);
 * jbd2_journal_stop() commits at once a transaction past t_expires; the
 * readers' atime handle starts the next transaction after such a commit.
 */
static const struct journal {
	const char *name, *what;
	int64_t atime_ms;     /* cfg.atime_read_ns, ms */
	int64_t upd_ms[4];    /* eager traps (updates) on pages 0, 1, ..., -1 ends */
	int64_t commit_ms[4]; /* expected commits, -1 ends */
} journal_cases[] = {
	{ .name = "t-expires-on-second",
	  .what = "jbd2_get_transaction: t_expires 1250 j on a whole second, rounded up a second more (1500 j), wheel level 2: 1536 j",
	  .upd_ms = { 0, -1 }, .commit_ms = { 6144, -1 } },
	{ .name = "handle-at-25j",
	  .what = "a handle at 25 j: t_expires 1275 j rounds up to 1500 j, bucket 1536 j",
	  .upd_ms = { 100, -1 }, .commit_ms = { 6144, -1 } },
	{ .name = "stop-at-t-expires",
	  .what = "jbd2_journal_stop: a handle at t_expires (1250 j) commits at once",
	  .upd_ms = { 0, 5000, -1 }, .commit_ms = { 5000, -1 } },
	{ .name = "handle-before-t-expires",
	  .what = "a handle one jiffy before t_expires joins and waits for the timer",
	  .upd_ms = { 0, 4996, -1 }, .commit_ms = { 6144, -1 } },
	{ .name = "atime-handle",
	  .what = "after a forced commit the readers' read 50 ms later starts the next transaction: 1262 j, t_expires 2512 j, rounded 2750 j, bucket 2752 j",
	  .atime_ms = 50, .upd_ms = { 0, 5000, -1 }, .commit_ms = { 5000, 11008, -1 } },
};

static void run_journal(const struct journal *c)
{
	struct sw_model_cfg cfg = {
		.npages = 16, .page_size = PG, .jiffy_ns = 4 * MS,
		.journal_commit_ns = 5000 * MS,
		.atime_read_ns = c->atime_ms * MS,
	};
	struct sw_model m;
	struct sw_decision d;
	int64_t log[8];
	char err[256];
	if (sw_model_init(&m, &cfg, sw_policy_find("eager"), 0, err, sizeof(err))) {
		CHECK(0, "%s: %s", c->what, err);
		return;
	}
	m.commit_log = log;
	m.commit_log_cap = 8;
	for (int i = 0; i < 4 && c->upd_ms[i] >= 0; i++) {
		sw_model_advance(&m, c->upd_ms[i] * MS, NULL);
		sw_model_trap(&m, (uint64_t)i, c->upd_ms[i] * MS, &d);
	}
	sw_model_advance(&m, 20000 * MS, NULL);
	size_t want = 0;
	while (want < 4 && c->commit_ms[want] >= 0)
		want++;
	int bad = m.commit_log_n != want;
	for (size_t i = 0; !bad && i < want; i++)
		bad = log[i] != c->commit_ms[i] * MS;
	CHECK(!bad, "%s: expected %zu commits, the first at %lld ms, saw %zu, the first at %lld ns",
	      c->what, want, (long long)c->commit_ms[0], m.commit_log_n,
	      m.commit_log_n ? (long long)log[0] : -1ll);
	sw_model_free(&m);
}
SW_VARIANTS(journal, journal_cases, run_journal)

/* the first write-back's allocation in the creation's transaction:
 * block bitmap and group descriptor, one shared with the creation
 * (traced: the first checkpoint writeback wrote 6 pages, not 5 + 2) */
SW_CASE(journal_allocation)
{
	for (int created = 0; created <= 1; created++) {
		struct sw_model_cfg cfg = {
			.npages = 16, .page_size = PG, .jiffy_ns = 4 * MS,
			.writeback_ns = 1000 * MS, .expire_ns = 0,
			.journal_commit_ns = 5000 * MS,
			.create_meta_pages = created ? 5 : 0, .alloc_meta_pages = 2,
		};
		struct sw_model m;
		struct sw_decision d;
		char err[256];
		if (sw_model_init(&m, &cfg, sw_policy_find("eager"), 0, err, sizeof(err))) {
			CHECK(0, "allocation: %s", err);
			return;
		}
		sw_model_trap(&m, 0, 100 * MS, &d); /* the update: the inode table block */
		sw_model_advance(&m, 6144 * MS, NULL); /* a run writes the page, the commit */
		uint32_t pages = m.bdev_other + (uint32_t)m.bdev_itable, want = created ? 6 : 3;
		CHECK(pages == want,
		      "allocation %s the creation's transaction: expected %u block-device pages at its commit, saw %u",
		      created ? "in" : "without", want, pages);
		sw_model_free(&m);
	}
}

SW_MAIN()
