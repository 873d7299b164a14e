/* SPDX-License-Identifier: MIT */
/* model_journal.c - the model's ext4 journal: jbd2 transactions and
 * commits, the commit's buffers on the block device inode, and the NFS
 * readers' atime handles (see model.h, model_int.h). */
#include <stdint.h>

#include "model.h"
#include "model_int.h"
#include "swtime.h"

/* round_jiffies_up(j) on CPU 0 (kernel/time/timer.c round_jiffies_common,
 * force_up): j - j % HZ + HZ, a whole second later even when j is on one
 * (the per-CPU skew of 3 jiffies a CPU is 0 on CPU 0, the only one of
 * the guests). */
static int64_t round_jiffies_up(const struct sw_model *m, int64_t j)
{
	int64_t hz = SW_NS_PER_S / m->cfg.jiffy_ns;
	return (swm_floor_div(j, hz) + 1) * hz;
}

/* A handle at t (ext4_journal_start()) joins the running transaction, or
 * starts one (jbd2_get_transaction): t_expires = jiffies +
 * j_commit_interval, and the commit timer at round_jiffies_up(t_expires),
 * which add_timer() files in the wheel (calc_wheel_index: a 5 s timeout
 * is in level 2, 64 jiffies) and runs at its bucket's end: up to 1.256 s
 * after t_expires at HZ=250 (traced in the stock 6.1 guest: commits at
 * 12.297 s and 18.181 s, the buckets of the whole seconds 12.109 and
 * 18.109 s; the model used to commit at the whole second).  A handle
 * that stops at or after t_expires asks for the commit at once
 * (jbd2_journal_stop: time_after_eq(jiffies, t_expires) ->
 * jbd2_log_start_commit; traced: a commit 5.1 s after the transaction's
 * first update, with the next update, 0.4 s before its timer). */
void swm_journal_start(struct sw_model *m, int64_t t)
{
	int64_t J = m->cfg.jiffy_ns;

	if (m->cfg.journal_commit_ns <= 0)
		return;
	if (m->t_commit_mono_ns != INT64_MAX) {
		if (t >= m->t_txn_expires_mono_ns && t < m->t_commit_mono_ns)
			m->t_commit_mono_ns = t;
		return;
	}
	if (J <= 0) {
		m->t_txn_expires_mono_ns = t + m->cfg.journal_commit_ns;
		m->t_commit_mono_ns = m->t_txn_expires_mono_ns;
		return;
	}
	int64_t now = swm_jiffies_at(m, t), expires = now + m->cfg.journal_commit_ns / J;
	m->t_txn_expires_mono_ns = swm_jiffy_start(m, expires);
	m->t_commit_mono_ns =
		swm_jiffy_start(m, swm_wheel_fires(now, round_jiffies_up(m, expires)));
}

/* A timestamp update at t: ext4_dirty_inode() journals the inode. */
void swm_journal_update(struct sw_model *m, int64_t t)
{
	swm_journal_start(m, t);
	if (m->t_commit_mono_ns != INT64_MAX)
		m->txn_itable = 1;
}

/* The commit's metadata buffers go to the VM dirty at its end
 * (jbd2_journal_commit_transaction -> __jbd2_journal_refile_buffer ->
 * mark_buffer_dirty -> __mark_inode_dirty(bdev inode)): a page already
 * dirty counts once; dirtied_when is set when the block device inode was
 * clean, and wb_wakeup_delayed() arms the flusher when nothing else was
 * dirty. */
static void commit_to_bdev(struct sw_model *m, int64_t t, int itable, uint32_t other)
{
	m->bdev_itable |= itable;
	m->bdev_other += other;
	if (m->bdev_dirty)
		return;
	m->bdev_dirty = 1;
	m->t_bdev_dirtied_when_mono_ns = t;
	/* not while a flusher run is writing the file: the wb has dirty io
	 * (the file on b_io) and __mark_inode_dirty() wakes nothing; the run
	 * re-arms at its end if the bdev inode is still dirty (traced: after
	 * a background run that wrote the file and the bdev inode, the next
	 * run was armed by the next store, ~1.1 s apart, not 1.024 s) */
	if (m->t_next_tick_mono_ns == INT64_MAX && !m->in_run)
		m->t_next_tick_mono_ns = sw_model_wake_after(m, t);
}

/* The running commit ends: its buffers to the bdev inode, but for an
 * inode table block that a handle of the transaction now running has
 * journaled again (jbd2_journal_commit_transaction ->
 * __jbd2_journal_refile_buffer: a buffer with b_next_transaction moves
 * to that transaction, not dirty; traced in the patched 6.1 guest: a
 * 38 ms commit during which knfsd's atime handle journaled the inode
 * dirtied no bdev inode, and the flusher was not re-armed at the run's
 * end, where the model re-armed it 32 ms early). */
static void commit_end(struct sw_model *m, int64_t t, int refile)
{
	int itable = m->done_itable && !(refile && m->txn_itable);
	m->t_commit_done_mono_ns = INT64_MAX;
	if (itable || m->done_other)
		commit_to_bdev(m, t, itable, m->done_other);
	m->done_itable = 0;
	m->done_other = 0;
}

void swm_commit_done(struct sw_model *m, int64_t t)
{
	commit_end(m, t, 1);
}

/* How long a commit started at t takes: until the kernel's own end
 * (cfg.commit_end_mono_ns: the first at most 100 ms after t), else
 * run_commit_ns (traced in the patched 6.1 guest: 2.5-12.1 ms; a commit
 * that ended 3 ms after its start let the run that forced it write the
 * block device inode, where the model's 4.2 ms had its buffers dirty it
 * after that run and re-arm the flusher on a grid 60 ms earlier). */
int64_t swm_commit_len(const struct sw_model *m, int64_t t)
{
	const int64_t *e = m->cfg.commit_end_mono_ns;
	size_t lo = 0, hi = m->cfg.commit_ends;
	if (!e)
		return m->cfg.run_commit_ns;
	while (lo < hi) { /* the first end at or after t */
		size_t mid = lo + (hi - lo) / 2;
		if (e[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < m->cfg.commit_ends && e[lo] <= t + 100 * SW_NS_PER_MS)
		return e[lo] - t;
	return m->cfg.run_commit_ns;
}

/* The commit at t; it takes swm_commit_len() (traced in the 6.1 guests:
 * ~4 ms), and its buffers reach the bdev inode at its end (traced in
 * the stock guest: a commit timer 2 ms before a flusher run dirtied the
 * bdev inode after the run's background pass had looked, the flusher
 * was re-armed from the run's end, 43.232 s, where the model, dirtying
 * it at the commit's start, wrote it in that pass and waited for the
 * next store: 43.328 s). */
void swm_journal_commit(struct sw_model *m, int64_t t)
{
	m->t_commit_mono_ns = INT64_MAX;
	m->t_txn_expires_mono_ns = INT64_MAX;
	if (m->commit_log && m->commit_log_n < m->commit_log_cap)
		m->commit_log[m->commit_log_n++] = t;
	/* one commit at a time: the one before ends first (when the model
	 * had it end later than this start, without the refile rule: what
	 * this transaction journaled during it is not known) */
	if (m->t_commit_done_mono_ns != INT64_MAX)
		commit_end(m, t, 0);
	int itable = m->txn_itable;
	uint32_t other = m->txn_other;
	m->txn_itable = 0;
	m->txn_other = 0;
	m->txn_create = 0;
	m->txn_alloc = 0;
	if (itable || other) {
		m->done_itable = itable;
		m->done_other = other;
		int64_t len = swm_commit_len(m, t);
		if (len > 0)
			m->t_commit_done_mono_ns = t + len;
		else
			swm_commit_done(m, t);
	}
}

/* When the NFS readers' read after an update at t journals atime:
 * cfg.atime_read_ns later; INT64_MAX: no readers.  (With the kernel's
 * own handles, cfg.atime_mono_ns, each is applied at its time instead:
 * swm_atime_next.) */
int64_t swm_atime_after(const struct sw_model *m, int64_t t)
{
	return m->cfg.atime_read_ns > 0 ? t + m->cfg.atime_read_ns : INT64_MAX;
}

/* The kernel's next atime handle at or after t (cfg.atime_mono_ns),
 * consumed; INT64_MAX: none left or none traced.  The replay applies
 * every one the kernel traced, whatever its own updates: they came 7-92
 * ms after the kernel's updates, and one before any, the readers' first
 * read of the new file (traced: a writer that stored 7 s after the
 * creation; that read dirtied the inode, its handle forced the creation's
 * commit and armed the run that wrote the bdev inode). */
int64_t swm_atime_next(struct sw_model *m, int64_t t)
{
	const int64_t *a = m->cfg.atime_mono_ns;
	if (!a)
		return INT64_MAX;
	while (m->atime_i < m->cfg.atimes && a[m->atime_i] < t)
		m->atime_i++;
	return m->atime_i < m->cfg.atimes ? a[m->atime_i++] : INT64_MAX;
}

/* The NFS readers' first read after an update (cfg.atime_read_ns after
 * it): knfsd's read updates atime (touch_atime, relatime: atime older
 * than the new mtime), a handle that journals the inode (traced in the
 * stock 6.1 guest: knfsd dirtying the file's inode 8-109 ms after each
 * of the writer's updates; after a commit that an update's handle
 * forced, that read starts the next transaction, whose commit came
 * 5.2-5.5 s later with no update in between).
 *
 * The same handle dirties the inode (__mark_inode_dirty(I_DIRTY_SYNC)):
 * an inode that was clean goes on the wb's dirty list with dirtied_when
 * now (meta_dirty), and when nothing else of the wb was dirty,
 * wb_wakeup_delayed() arms the flusher (traced in the patched 6.1 guest,
 * deferred: a flusher run applied the update and cleaned the file, and
 * knfsd re-armed the delayed work 26-45 ms later; the next run came
 * 1.02 s after that, where the model, leaving the inode clean, waited
 * for the next store to arm it: 30-130 ms later at each run). */
void swm_atime_read(struct sw_model *m, int64_t t)
{
	m->t_atime_mono_ns = swm_atime_next(m, t);
	swm_journal_update(m, t);
	if (m->inode_dirty || m->meta_dirty)
		return;
	m->meta_dirty = 1;
	m->t_dirtied_when_mono_ns = t;
	if (m->t_next_tick_mono_ns == INT64_MAX && !m->in_run)
		m->t_next_tick_mono_ns = sw_model_wake_after(m, t);
}
