/* SPDX-License-Identifier: MIT */
/*
 * model.h - the emulated page/inode state machine and writeback model.
 *
 * Pure computation, no mmap, no clocks: the caller feeds events (a trap on
 * page p at t, a kupdate tick, background writeback, msync, fsync, munmap)
 * with their CLOCK_MONOTONIC times, and gets a decision ("update the times
 * now" or not, how many pages were write-protected again).  The writer calls
 * it from the trap path (sw_model_trap is async-signal-safe) and from its
 * main loop; tests/writer/test_model.c drives it with scripted events.
 *
 * Per page (semantics.md, "The mechanism being modelled"):
 *   writable     the pte is dirty/writable: stores land silently;
 *   cache-dirty  the page is dirty in the page cache (not yet written back).
 * A writable page is always cache-dirty.  A trap makes a page writable and
 * cache-dirty.  A flush (kupdate/background writeback, msync(MS_SYNC),
 * fsync) write-protects every writable page and cleans every page and the
 * inode.  msync(MS_ASYNC) under deferred/lang write-protects the writable
 * pages but leaves them cache-dirty (patch 4/5), so the inode stays dirty.
 *
 * Inode: dirtied_when = time of the trap that made it go from clean to
 * dirty, not moved by later dirtying; the policy's pending flag.
 *
 * kupdate, as the kernel's flusher runs it (fs/fs-writeback.c,
 * mm/backing-dev.c; measured with the writeback:* tracepoints on loop ext4,
 * bench/validate_trace.sh):
 *   - no fixed grid: the flusher's delayed work is armed when the inode goes
 *     from clean to dirty and the wb had no dirty inode (__mark_inode_dirty
 *     -> wb_wakeup_delayed: writeback_ns from THAT moment), and re-armed
 *     writeback_ns after each run while something stays dirty (wb_workfn);
 *     a run with nothing dirty left does not re-arm;
 *   - the delay is rounded up by the timer wheel (calc_wheel_index /
 *     calc_index: a 250-jiffy delay fires after 256 jiffies), so with
 *     jiffy_ns > 0 the period is slightly longer than writeback_ns;
 *   - a run writes the inode when now - dirtied_when >= expire_ns
 *     (wb_writeback -> queue_io -> move_expired_inodes, inode_dirtied_after)
 *     and only if writeback_ns passed since the last periodic flush
 *     (wb_check_old_data_flush, last_old_flush).
 * Journal (journal_commit_ns > 0, ext4 without lazytime): a timestamp
 * update joins the running jbd2 transaction (ext4_dirty_inode), which
 * commits journal_commit_ns after it started, rounded up to a whole second
 * and then to the timer wheel's bucket (jbd2_get_transaction: t_expires;
 * round_jiffies_up of the commit timer, add_timer), at once when a handle
 * stops past t_expires (jbd2_journal_stop; with atime_read_ns, the NFS
 * readers' atime handle after an update is one), or at once at fsync /
 * msync(MS_SYNC) (ext4_sync_file ->
 * jbd2_complete_transaction) and, for the deferred policies, at every
 * writeback that applies the pending update (the patched kernel's
 * ext4_writepages_cmtime(), vm/kernel 0008).  The commit hands the inode table buffer to
 * the VM dirty (__jbd2_journal_refile_buffer -> mark_buffer_dirty), so the
 * block device inode, on the same wb, is dirty until it expires too: while
 * it is, the flusher keeps its own phase and a redirtied file inode does not
 * re-arm it (traced: ino of the loop bdev dirtied ~1 s after each commit
 * timer, the file then flushed 3.5-4.2 s after its dirtying, not 3.07 s).
 * Background at a flusher run (bg_share): wb_do_writeback() runs
 * wb_check_background_flush() after wb_check_old_data_flush() on every
 * wakeup; when wb_over_bg_thresh() holds it writes every dirty inode
 * (for_background: dirtied_before = now, no expiry).  wb_over_bg_thresh()
 * also compares the wb's own reclaimable pages with its share of the
 * background threshold, wb_calc_thresh(), proportional to the wb's
 * writeout fraction (fprop_fraction_percpu, read without folding the
 * per-CPU counts): a disk that wrote almost nothing reads a fraction 0,
 * threshold 0, and one dirty page is over it.  Traced in the stock 6.1
 * guest (ext4 on virtio, 1 s / 5 s, one-page rewrite every 100 ms):
 * after each periodic run ("reason=periodic enqueue=0") a "reason=
 * background age=0" run wrote the file, every flusher run (~1.05-1.1 s:
 * re-armed by the next store, wb_wakeup_delayed), 29 updates in 30 s;
 * the host's 6.18 with loop ext4 never did (traced there too).  The
 * validate pairs in the guest alternate: stretches of per-run updates and
 * 4-5 s gaps (expiry), as the wb's folded count passes 8 and ages back to
 * 0 (SW_BG_FPROP).  What makes it pass 8 was traced in the patched 6.1
 * guest (writeback and jbd2 tracepoints, deferred, the same rewrite): the
 * file's creation journals 5 metadata blocks, and the first checkpoint
 * writeback of the block device inode writes them ("ino=<bdev> wrote=5",
 * later commits 1); with the file's 6 pages before it the count folds,
 * background stops, and the file waits for expiry (create_meta_pages).
 * Traced again with 0008 (patched guest; tests/server/model/test_model.c
 * run_traced): the count moves one page at a time (__folio_end_writeback
 * per folio), so it folds at exactly 8; the file's creation leaves the
 * inode dirty (meta_dirty) and arms the flusher, whose phase and the
 * file's dirtied_when are the creation's; the first write-back of a page
 * allocates its block (delalloc), whose bitmap and group descriptor the
 * next commit dirties (alloc_meta_pages); and a fold below 8 left after a
 * background stretch never ages out (the exact sum halves, never below 0):
 * expiry for the rest of the run.
 * The writeout_period timer that ages the domain (traced in the stock 6.1
 * guest, timer:timer_start): wb_domain_writeout_add() arms it at
 * wp_next_time(jiffies) = jiffies + 3*HZ when it is stopped, and
 * writeout_period() re-arms it at period_time + (missed + 1) * 3*HZ: a
 * grid of expiries 750 jiffies apart, however late it ran.  The timer
 * wheel files a 750-jiffy timeout in level 2 (calc_wheel_index: buckets
 * of 64 jiffies) and runs it at the bucket's end (calc_index): 4-256 ms
 * after the expiry at HZ=250 (traced: six firings of six on that very
 * jiffy, 248, 64, 136, 208, 24 and 96 ms late; the model used
 * to fire it on time, 3 s after the arming, and aged the wb's count
 * before a flusher run that the kernel ran first).  The timer is
 * deferrable (wb_domain_init: TIMER_DEFERRABLE): on an idle NOHZ CPU it
 * may run at a later tick still; cfg.period_fire_mono_ns gives the
 * kernel's own firings for a replay.
 * Runs take time (run_commit_ns, run_alloc_ns, run_pass_ns > 0; traced in
 * the patched 6.1 guest): a run that writes the file applies the
 * pending update and write-protects the pages at once (0008:
 * mapping_mkclean_flush_cmtime), waits for the commit, allocates, and only
 * then do the pages go out.  A store in between traps, and its data goes
 * out with them; do_writepages() applies the update it made pending when
 * ->writepages returns (a second update, no second commit).  A store after
 * the pages went out dirties them again, and the background loop
 * (wb_writeback: while wb_over_bg_thresh, queue_io with dirtied_before =
 * now) writes the file again in a next pass of the same run, with its own
 * update and commit; that pass's pages can fold the wb's writeout count a
 * whole run sooner.  The run's pages complete before the next pass looks at
 * the threshold, and wb_workfn() re-arms the flusher from the run's end.
 * Background: when cache-dirty bytes exceed background_bytes after a trap,
 * the trap's decision says so and the caller flushes (cause BACKGROUND).
 */
#ifndef STALEWIN_MODEL_H
#define STALEWIN_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"

#define SW_MODEL_MAX_PAGES ((uint64_t)UINT32_MAX)

/* Jiffy j began at t_mono_ns (cfg.jiffy_map). */
struct sw_jiffy_anchor {
	int64_t t_mono_ns; /* CLOCK_MONOTONIC ns */
	int64_t j;         /* the kernel's jiffies */
};

struct sw_model_cfg {
	uint64_t npages;           /* pages in the mapping (<= SW_MODEL_MAX_PAGES) */
	uint32_t page_size;        /* bytes */
	int64_t writeback_ns;      /* kupdate period, ns; 0: no periodic writeback */
	int64_t expire_ns;         /* dirtied_when age that kupdate flushes, ns */
	uint64_t background_bytes; /* cache-dirty bytes that start background
				      writeback; 0: never */
	int64_t jiffy_ns;          /* kernel tick (1/HZ) for the timer-wheel
				      rounding of the flusher's delay, ns;
				      0: no rounding (exact delays) */
	int64_t jiffy_origin_ns;   /* CLOCK_MONOTONIC ns at which the
				      jiffy numbered jiffy_origin_count
				      began: the kernel's tick phase and
				      count, which place the timer wheel's
				      buckets (stalewin-model-sweep reads
				      them from writeback tracepoints);
				      0 and 0: jiffies = mono / jiffy_ns */
	int64_t jiffy_origin_count;
	int64_t jiffy_mono_ns;     /* CLOCK_MONOTONIC ns one jiffy lasts
				      (0: jiffy_ns); a TCG guest's jiffies
				      lag its CLOCK_MONOTONIC by ~0.1 %
				      (traced: 42 ms in 33 s) */
	const struct sw_jiffy_anchor *jiffy_map; /* the kernel's jiffies
				      as traced, ascending in both fields
				      (stalewin-model-sweep): jiffy j began
				      at t_mono_ns, the ones between two
				      anchors jiffy_mono_ns apart; a TCG
				      guest's jiffies step against its
				      CLOCK_MONOTONIC (traced: by 8-12
				      jiffies at once in 2 boots of 5),
				      which no one origin and length
				      place; NULL: jiffy_origin_* */
	size_t jiffy_anchors;      /* entries in jiffy_map */
	int64_t journal_commit_ns; /* jbd2 commit interval of the modelled
				      filesystem (ext4 commit=, default 5 s);
				      0: timestamp updates are not journalled
				      (ext4 lazytime, or not modelled) */
	int bg_share;              /* enum sw_bg_share: when a flusher run
				      finds the wb over its background
				      threshold (wb_check_background_flush) */
	uint32_t create_meta_pages; /* block-device pages the file's
				      creation dirtied in the journal (ext4,
				      a new file: inode and block bitmaps,
				      group descriptor, inode table block,
				      directory block = 5, traced in the 6.1
				      guest); the creation starts a
				      transaction at the run's start and the
				      first checkpoint writeback writes them
				      all (fprop counts them); 0: the file
				      existed, or not modelled */
	int64_t run_commit_ns;     /* a flusher run that writes the file
				      with a pending update waits this long
				      for the commit it forces (vm/kernel
				      0008) before the pages go out, ns;
				      with run_alloc_ns and run_pass_ns 0
				      (the default) a run takes no time */
	const int64_t *commit_end_mono_ns; /* the kernel's own commits'
				      ends (jbd2:jbd2_end_commit,
				      CLOCK_MONOTONIC ns, ascending;
				      stalewin-model-sweep reads them): a
				      commit started at t ends at the first
				      of them at most 100 ms after t, else
				      run_commit_ns later (traced in the
				      patched 6.1 guest: 2.5-12.1 ms) */
	size_t commit_ends;        /* entries in commit_end_mono_ns */
	int64_t run_alloc_ns;      /* its extra time when the pages were
				      never written (delalloc allocation),
				      ns; in a run with no commit (stock
				      ext4), when such pages complete
				      after it (ext4_end_io_rsv_work) */
	int64_t run_pass_ns;       /* from never-written pages going out
				      to the background loop's next pass
				      (wb_writeback; the new extent's bio
				      goes out at the plug's end), ns;
				      other passes follow at once */
	int64_t run_io_ns;         /* the block I/O of a run taken as
				      instant: its pages complete this long
				      after it (fprop counts them then: a
				      writeout_period firing in between
				      ages the share first; traced in the
				      stock 6.1 guest: 0.5-3 ms), ns */
	int period_exact;          /* 1: the writeout_period timer fires
				      exactly 3 s after it was armed, and
				      every 3 s (the rule before 4 Dec;
				      kept to show what the wheel changes);
				      0: as the kernel's timer wheel files
				      it when jiffy_ns > 0 (below) */
	const int64_t *period_fire_mono_ns; /* the kernel's own firings of
				      the writeout_period timer (CLOCK_MONOTONIC
				      ns, ascending; stalewin-model-sweep
				      reads them from timer:timer_start): the
				      model's timer fires at the first of
				      them at or after its own firing, while
				      the list lasts (a deferrable timer
				      runs at a later tick, never sooner);
				      NULL: the model's own times */
	size_t period_fires;       /* entries in period_fire_mono_ns */
	const int64_t *period_fire_expires; /* with it, each firing's re-arm
				      target (timer_start expires=, the
				      kernel's jiffies): the next expiry of
				      the kernel's own grid, which the model
				      takes after that firing (its own
				      arming, at its own first writeout,
				      can be up to a wheel bucket off the
				      kernel's, armed by any wb's); NULL:
				      the model's grid */
	const int64_t *bg_pass_mono_ns; /* the kernel's background passes
				      (writeback_start reason=background,
				      CLOCK_MONOTONIC ns, ascending;
				      stalewin-model-sweep reads them): a
				      run that takes time (run_*_ns) passes
				      again at the first of them 1 ms to
				      half a writeback interval after its
				      flush; NULL: after the run's times */
	size_t bg_passes;          /* entries in bg_pass_mono_ns */
	const int64_t *file_wb_mono_ns; /* the kernel's write-backs of the
				      file (writeback_single_inode of it,
				      CLOCK_MONOTONIC ns, ascending;
				      stalewin-model-sweep reads them):
				      the ->writepages of a run that forced
				      a commit returns at the first of them
				      after its flush, up to 100 ms; NULL:
				      after the run's times */
	size_t file_wbs;           /* entries in file_wb_mono_ns */
	const int64_t *bdev_wb_mono_ns; /* the kernel's write-backs of other
				      inodes of the bdi, the bdev inode
				      (writeback_single_inode with wrote >
				      0, CLOCK_MONOTONIC ns, ascending): a
				      background pass that wrote the bdev
				      inode ends at the first of them after
				      it, up to 100 ms, and the loop looks
				      again; NULL: at once */
	size_t bdev_wbs;           /* entries in bdev_wb_mono_ns */
	int64_t first_commit_mono_ns; /* the transaction running when the
				      file is created (create_meta_pages)
				      commits then, CLOCK_MONOTONIC ns:
				      something else may have started it
				      earlier (stalewin-model-sweep reads
				      it from jbd2:jbd2_end_commit); 0: a
				      transaction the creation started */
	int64_t atime_read_ns;     /* NFS clients read the file this long
				      after every update, and knfsd's read
				      journals atime (ext4 relatime: a
				      handle when atime is older than
				      mtime), ns; 0: no reader (model.c
				      atime_read) */
	const int64_t *atime_mono_ns; /* the kernel's own atime handles
				      (writeback_mark_inode_dirty of the
				      file by knfsd, CLOCK_MONOTONIC ns,
				      ascending; stalewin-model-sweep reads
				      them): each is applied at its time,
				      whatever the model's updates; NULL:
				      atime_read_ns after each update */
	size_t atimes;             /* entries in atime_mono_ns */
	int64_t first_read_mono_ns; /* the NFS readers' first read of the
				      file before the run (its atime at the
				      writer's open, newer than its ctime),
				      CLOCK_MONOTONIC ns; 0: none.  With
				      atime_read_ns and no atime_mono_ns, an
				      atime handle then (model_journal.c
				      swm_atime_read) */
	int64_t run_submit_ns;     /* stock ext4 (a run that forces no
				      commit): the pages a run writes for
				      the first time stay writable this
				      long after its start, until
				      ->writepages has allocated their
				      blocks and submits them
				      (mpage_map_and_submit_extent ->
				      mpage_submit_page ->
				      clear_page_dirty_for_io; traced in
				      the stock 6.1 guest:
				      ext4_allocate_blocks 5-12 ms into
				      the run): a store before then lands
				      on the dirty page without a fault and
				      goes out with it, ns; 0: at the
				      run's start */
	const int64_t *submit_mono_ns; /* the kernel's own such times
				      (ext4:ext4_allocate_blocks of the
				      file, CLOCK_MONOTONIC ns, ascending;
				      stalewin-model-sweep reads them): a
				      run's first writes go out at the
				      first of them within 100 ms after
				      its start, else at its start; NULL:
				      run_submit_ns */
	size_t submits;            /* entries in submit_mono_ns */
	uint32_t first_bdev_pages; /* pages the block device inode's
				      first writeback writes, as traced
				      (writeback_single_inode wrote=: 6 or
				      5 in the stock 6.1 guest, over the
				      same five blocks' I/O); fprop counts
				      them; 0: the model's own count */
	uint32_t alloc_meta_pages; /* block-device pages the first
				      writeback of a page with no block yet
				      (ext4 delalloc: block bitmap and group
				      descriptor = 2, traced in the 6.1
				      guest) adds to the transaction
				      running after it; 0: not modelled */
};

/* The wb's share of the background threshold (wb_over_bg_thresh ->
 * wb_calc_thresh), as the model takes it. */
enum sw_bg_share {
	SW_BG_NONE = 0,  /* never over (the host: traced) */
	SW_BG_ZERO = 1,  /* share always 0: every run with a dirty page */
	SW_BG_FPROP = 2, /* 6.1 on one CPU: the share reads 0 while the wb's
			    folded writeout count (fprop_fraction_percpu,
			    percpu batch 8) is 0, aged by the domain's 3 s
			    periods (writeout_period, fprop_new_period,
			    fprop_reflect_period_percpu) */
};

/* "none", "zero", "fprop" <-> enum sw_bg_share (-1: not one of them). */
int sw_bg_share_parse(const char *name);
const char *sw_bg_share_name(int share);

/* A percpu_counter on one CPU: fold is fbc->count (what
 * percpu_counter_read returns), local the CPU's unfolded delta. */
struct sw_pcpu {
	int64_t fold;
	int64_t local;
};

/* What the caller must do after an event. */
struct sw_decision {
	int update;         /* 1: update the file's times now (futimens) */
	uint32_t cause;     /* enum sw_cause (records.h) of the event */
	uint64_t cleaned;   /* pages write-protected again by this event */
	int flushed;        /* 1: this event flushed the inode (it is clean) */
	int background_due; /* trap only: over the background limit, flush */
};

/* How the caller write-protects pages again.  The model calls all() instead
 * of page() for every page when more than npages/32 pages are writable (one
 * mprotect/madvise over the whole mapping is then cheaper). Either may be
 * NULL (tests). */
struct sw_reprotect {
	void (*page)(void *ctx, uint64_t page);
	void (*all)(void *ctx);
	void *ctx;
};

#define SW_PG_WRITABLE 0x1u
#define SW_PG_CDIRTY 0x2u
#define SW_PG_ALLOC 0x4u /* written back once: its block is allocated */
#define SW_PG_SUBMIT 0x8u /* being written for the first time: writable
			     until the run submits it (cfg.run_submit_ns) */

struct sw_model {
	struct sw_model_cfg cfg;
	const struct sw_policy_ops *pol;
	struct sw_pstate ps;             /* policy state of the inode */
	uint8_t *flags;                  /* per page SW_PG_*, npages bytes */
	uint32_t *cdirty;                /* cache-dirty page list, ndirty used */
	uint64_t ndirty;                 /* cache-dirty pages */
	uint64_t nwritable;              /* writable pages */
	int inode_dirty;                 /* 1: some page is cache-dirty */
	int meta_dirty;                  /* 1: the inode is dirty with no
					    dirty page (I_DIRTY_SYNC of the
					    creation's ftruncate, of knfsd's
					    atime): on b_dirty, dirtied_when
					    kept, flusher armed */
	int64_t t_dirtied_when_mono_ns;  /* valid when inode_dirty */
	int64_t t_next_tick_mono_ns;     /* next flusher run (armed delayed
					    work); INT64_MAX: not armed */
	int64_t t_last_old_flush_mono_ns; /* wb->last_old_flush: last periodic
					     flush run (CLOCK_MONOTONIC ns) */
	int64_t t_commit_mono_ns;        /* running jbd2 transaction commits
					    then; INT64_MAX: none running */
	int64_t t_txn_expires_mono_ns;   /* its t_expires: a handle from
					    then on commits it at once;
					    INT64_MAX: none, or as traced */
	int64_t t_atime_mono_ns;         /* the readers' read after the last
					    update journals atime then;
					    INT64_MAX: none due */
	size_t atime_i;                  /* next cfg.atime_mono_ns */
	int64_t t_submit_mono_ns;        /* the SW_PG_SUBMIT pages are
					    write-protected then; INT64_MAX:
					    none waiting */
	uint64_t nsubmit;                /* SW_PG_SUBMIT pages */
	size_t submit_i;                 /* next cfg.submit_mono_ns */
	int bdev_written;                /* the bdev inode was written back
					    once (cfg.first_bdev_pages) */
	int64_t t_commit_done_mono_ns;   /* the last commit ends then and
					    its buffers go to the bdev inode
					    (run_commit_ns after it started);
					    INT64_MAX: none pending */
	int done_itable;                 /* that commit's blocks: the inode */
	uint32_t done_other;             /* table block, others */
	int64_t *commit_log;             /* caller's array or NULL: the
					    commits the model made, in order */
	size_t commit_log_cap, commit_log_n;
	int bdev_dirty;                  /* 1: the journal's checkpoint
					    buffers dirty the block device
					    inode on the same wb */
	int64_t t_bdev_dirtied_when_mono_ns; /* valid when bdev_dirty */
	int txn_itable;                  /* 1: the running transaction holds
					    the inode (its inode table block) */
	int txn_create;                  /* 1: it holds the creation's
					    blocks, one of which an
					    allocation shares (traced in the
					    stock 6.1 guest: creation and the
					    first write-back's allocation in
					    one transaction, 6 block-device
					    pages written, not 5 + 2) */
	int txn_alloc;                   /* 1: it holds an allocation's */
	uint32_t txn_other;              /* its other metadata blocks (the
					    creation's, an allocation's) */
	int bdev_itable;                 /* the bdev inode's dirty pages: */
	uint32_t bdev_other;             /* inode table block, others */
	struct sw_pcpu wb_events;        /* wb->completions.events (pages
					    written back, fprop) */
	struct sw_pcpu dom_events;       /* the domain's completions.events */
	uint32_t wb_period, dom_period;  /* fprop periods (3 s each) */
	int64_t t_period_mono_ns;        /* next writeout_period firing; 0:
					    stopped (dom->period_time = 0) */
	int64_t period_expires;          /* dom->period_time: its expiry, in
					    jiffies when the wheel is
					    modelled, else mono ns */
	size_t period_fire_i;            /* next cfg.period_fire_mono_ns */
	int64_t period_fire_expires;     /* the traced re-arm target of the
					    firing t_period_mono_ns is, 0:
					    none (model.h cfg) */
	int period_fire_traced;          /* the firing t_period_mono_ns is
					    a traced one: the kernel re-armed
					    its timer there */
	int64_t *period_log;             /* caller's array or NULL: the
					    firings the model made, in order */
	size_t period_log_cap, period_log_n;
	int64_t t_run_mono_ns;           /* next step of the flusher run in
					    progress (run_*_ns > 0);
					    INT64_MAX: none */
	int run_step;                    /* 1: its pages go out then
					    (->writepages returns); 2: the
					    background loop's next pass */
	int bdev_after;                  /* 1: this background pass writes
					    the bdev inode when the file's
					    ->writepages returns */
	int in_run;                      /* a flusher run is in progress
					    (its start to run_end) */
	int64_t t_pass_mono_ns;          /* the kernel's next pass of the
					    run (cfg.bg_pass_mono_ns);
					    INT64_MAX: the model's own */
	size_t bg_pass_i;                /* next cfg.bg_pass_mono_ns */
	size_t file_wb_i;                /* next cfg.file_wb_mono_ns */
	size_t bdev_wb_i;                /* next cfg.bdev_wb_mono_ns */
	int run_fresh;                   /* its last flush wrote pages
					    never written before */
	int run_bg;                      /* the run's periodic pass is done:
					    a next pass is a background one */
	int64_t pending_events;          /* pages written by this run, counted
					    at its end (writeback completes
					    after the run's decisions) */
	int run_late;                    /* the run wrote never-written pages
					    with no commit: they complete
					    run_alloc_ns after its end */
	int64_t late_events;             /* such pages not yet counted, */
	int64_t t_late_mono_ns;          /* at this time */
	int64_t t_out_mono_ns;           /* the run's pages went out then
					    (->writepages returned) */
	uint64_t traps;                  /* sw_model_trap calls accepted */
	uint64_t updates;                /* decisions with update = 1 */
	uint64_t flushes;                /* flushes of a dirty inode */
};

/* Allocates the per-page arrays (5 bytes a page).  Returns 0 or -errno with
 * a one-line reason in err. */
int sw_model_init(struct sw_model *m, const struct sw_model_cfg *cfg,
		  const struct sw_policy_ops *pol, int64_t t_start_mono_ns,
		  char *err, size_t errlen);
void sw_model_free(struct sw_model *m);
/* Bytes of model state per page of the mapping. */
size_t sw_model_bytes_per_page(void);

static inline int sw_model_writable(const struct sw_model *m, uint64_t page)
{
	return page < m->cfg.npages && (m->flags[page] & SW_PG_WRITABLE);
}

/* The first store to a write-protected page trapped.  Async-signal-safe.
 * Returns 0, or -EINVAL (page out of range or already writable: a trap
 * that should not have happened; nothing changed). */
int sw_model_trap(struct sw_model *m, uint64_t page, int64_t t_mono_ns,
		  struct sw_decision *d);
/* The file exists from t: the flusher is idle (nothing dirty, no work
 * armed), last_old_flush = t (wb_init); with create_meta_pages the file was
 * created at t, so its inode is dirty from t (meta_dirty) and its creation
 * is journalled.  Call once before the first event. */
void sw_model_start(struct sw_model *m, int64_t t_mono_ns);
/* Where the model of a file changed (created: its ctime) at t_changed
 * starts for a run that starts at t_start: at t_changed, within
 * [t_start - settle, t_start].  After settle = 2 * expire_ns + 10 *
 * writeback_ns + journal_commit_ns the creation's inode and metadata
 * blocks have been written back (each at its expiry) and its commit made,
 * the flusher is idle and the wb's writeout share has aged out, so a file
 * changed longer ago starts as one changed that long ago (stalewin-writer,
 * model-sweep --lead-ms log). */
int64_t sw_model_start_at(const struct sw_model_cfg *cfg, int64_t t_changed_mono_ns,
			  int64_t t_start_mono_ns);
/* Runs every flusher tick due by t, each at its own time (the time between
 * the file's creation and the run's first store). */
void sw_model_advance(struct sw_model *m, int64_t t_mono_ns,
		      const struct sw_reprotect *rp);
/* When a delayed work armed at t with the model's writeback_ns fires:
 * t + writeback_ns, rounded as the timer wheel does (exported for tests). */
int64_t sw_model_wake_after(const struct sw_model *m, int64_t t_mono_ns);
/* CLOCK_MONOTONIC ns at which the kernel's jiffy j began, by cfg's
 * jiffies (jiffy_map, else jiffy_origin_*; model_clock.c) */
int64_t sw_model_cfg_jiffy_start(const struct sw_model_cfg *cfg, int64_t j);
/* The running kernel's tick length (1/CONFIG_HZ) in ns, from
 * /boot/config-RELEASE; 4 ms (HZ=250, Debian's) when it cannot be read. */
int64_t sw_model_host_jiffy_ns(void);
/* The running kernel's jiffies as the model's jiffy_origin_ns/_count:
 * from a /proc/timer_list (path; "now at N nsecs", "jiffies: J" and the
 * tick timer's next expiry, which starts jiffy J + 1), read again until
 * "now" falls in the middle of a jiffy (the tick that began it has run,
 * so J is current).  0, or -1 with err (unreadable: not root, no such
 * file, no tick timer line). */
int sw_model_host_jiffy_origin(const char *path, int64_t jiffy_ns, int64_t *origin_ns,
			       int64_t *count, char *err, size_t errlen);
/* Next kupdate tick (INT64_MAX when periodic writeback is off). */
int64_t sw_model_next_tick(const struct sw_model *m);
/* Runs every tick due at t (returns how many ran, 0 if none); d describes
 * the last one. */
int sw_model_tick(struct sw_model *m, int64_t t_mono_ns,
		  const struct sw_reprotect *rp, struct sw_decision *d);
void sw_model_background(struct sw_model *m, int64_t t_mono_ns,
			 const struct sw_reprotect *rp, struct sw_decision *d);
void sw_model_msync_async(struct sw_model *m, int64_t t_mono_ns,
			  const struct sw_reprotect *rp, struct sw_decision *d);
void sw_model_msync_sync(struct sw_model *m, int64_t t_mono_ns,
			 const struct sw_reprotect *rp, struct sw_decision *d);
void sw_model_fsync(struct sw_model *m, int64_t t_mono_ns,
		    const struct sw_reprotect *rp, struct sw_decision *d);
/* munmap / exit: the policy's munmap semantics; pages are not touched. */
void sw_model_munmap(struct sw_model *m, int64_t t_mono_ns,
		     struct sw_decision *d);

#endif
