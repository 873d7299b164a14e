/* SPDX-License-Identifier: MIT */
/*
 * nfstrace.h - the client guest's own NFS times for the file:
 * RUN/client/trace.txt, written by vm/guest/trace.sh (sw_trace_start_nfs),
 * ftrace text with the mono clock (CLOCK_MONOTONIC, the readers' KREAD
 * t_*_mono_ns clock).  Four events of fs/nfs (6.1), filtered to the file's
 * fileid:
 *   nfs_revalidate_inode_enter  a GETATTR is about to go out: its fattr's
 *                               time_start (later read_cache_jiffies) is
 *                               taken next (__nfs_revalidate_inode)
 *   nfs_refresh_inode_enter     a reply's attributes are applied
 *                               (nfs_update_inode: "now", the
 *                               attrtimeo_timestamp and doubling jiffy)
 *   nfs_initiate_read           a READ goes out, its fattr set up just
 *                               before (nfs_pgio_rpcsetup)
 *   nfs_readpage_done           its reply (v3: post-op attributes applied
 *                               next, nfs3_read_done -> nfs_refresh_inode)
 * and "# dev: J MAJOR:MINOR" lines (decimal, /proc/self/mountinfo) tying
 * kernel reader J to its mount's superblock (one per reader:
 * nosharecache).  The replay takes, for each logged read, the events of
 * its reader within the read (sw_nfstrace_attach).
 */
#ifndef STALEWIN_NFSTRACE_H
#define STALEWIN_NFSTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "replay.h"

#define SW_NFSTRACE_READERS 8 /* = SW_MAX_KREAD */

enum sw_nfsev_kind {
	SW_NFSEV_GA_SEND = 1, /* nfs_revalidate_inode_enter */
	SW_NFSEV_REFRESH,     /* nfs_refresh_inode_enter */
	SW_NFSEV_RD_SEND,     /* nfs_initiate_read */
	SW_NFSEV_RD_DONE,     /* nfs_readpage_done */
	SW_NFSEV_CHECK,       /* kprobe jif_check: nfs_revalidate_mapping */
	SW_NFSEV_OPEN,        /* kprobe jif_open: nfs4_opendata_alloc */
	SW_NFSEV_UPDATE,      /* kprobe jif_update: nfs_update_inode (its
				 jiffies go to the refresh before it) */
	SW_NFSEV_FHGET,       /* kprobe jif_fhget: nfs_fhget (by the
				 reader's pid) */
	SW_NFSEV_GA_INIT,     /* kprobes jif_gai3/4 (nfs3/4_proc_getattr
				 entry) and jif_fattr (nfs_fattr_init):
				 the last one's jiffies go to the GETATTR's
				 send before them */
};

/*
 * The jiffies themselves: kprobes (trace.sh) reading jiffies_64 at
 *   jif_check    nfs_revalidate_mapping (every read's attribute check;
 *                by the reader's pid, "# pid: J PID")
 *   jif_getattr  __nfs_revalidate_inode, before nfs_revalidate_inode_enter
 *   jif_refresh  nfs_refresh_inode, before nfs_refresh_inode_enter
 *   jif_read     nfs_initiate_read, before its tracepoint
 *   jif_open     nfs4_opendata_alloc: a v4 OPEN's fattr set up (by the
 *                reader's pid; nfs_fhget takes its time_start)
 *   jif_ga3/4    kretprobes on nfs3_proc_getattr / nfs4_proc_getattr,
 *                before the refresh of a GETATTR's reply (inlined calls
 *                of nfs_refresh_inode escape jif_refresh)
 *   jif_update   nfs_update_inode, after nfs_refresh_inode_enter: its
 *                "now = jiffies" is the refresh's jiffy
 *   jif_gai3/4   nfs3_proc_getattr / nfs4_proc_getattr entry, after
 *                nfs_revalidate_inode_enter: the GETATTR's fattr is set
 *                up soon after (nfs_fattr_init: time_start, later
 *                read_cache_jiffies)
 *   jif_fhget    nfs_fhget: a v4 OPEN's inode looked up; a new one
 *                takes "now = jiffies" as its attrtimeo_timestamp (by the
 *                reader's pid; an existing one is refreshed instead)
 *   jif_fattr    nfs_fattr_init itself (called from nfsv3.ko/nfsv4.ko,
 *                so never inlined there): the last one of the task
 *                before the GETATTR's reply is its time_start, exact
 *                where a tick fell after the procedure's entry or
 *                _nfs4_proc_getattr was retried; traces without it keep
 *                jif_gai3/4's jiffy.  After jif_open, before the OPEN's
 *                reply (jif_fhget or a refresh), it is the OPEN's
 *                (nfs4_opendata_alloc -> nfs4_init_opendata_res)
 * A tracepoint takes the jiffies of its task's kprobe right before it,
 * however long the task was preempted between the two; a refresh followed
 * by jif_update in its task, no other kprobe of the task between, takes
 * jif_update's (a tick between a kretprobe and nfs_update_inode moves the
 * doubling jiffy).
 */
#define SW_NFSEV_NOJ INT64_MIN /* no jiffies read there */

struct sw_nfsev {
	int64_t t_mono_ns; /* event time, the client's CLOCK_MONOTONIC (µs
			      resolution: ftrace prints µs) */
	int64_t offset;    /* READ events: the READ's offset (bytes); -1 */
	int64_t j;         /* jiffies_64 there (kprobe), or SW_NFSEV_NOJ */
	int kind;          /* enum sw_nfsev_kind */
};

struct sw_nfstrace {
	int enabled;      /* nfs events the file says were enabled (0: the
			     client kernel had none: nothing traced) */
	uint64_t lines;   /* event lines taken */
	uint64_t jlines;  /* kprobe lines taken (jiffies_64 read) */
	int64_t t_last_mono_ns; /* the last event line's time: tracing
				   stopped after it */
	/* grid jiffy -> kernel jiffies_64 (sw_nfstrace_set_grid) */
	int64_t tick_ns, phase_ns, j_off; /* tick_ns 0: no grid */
	int64_t lag_ns;   /* an event less than this after its grid point
			     still reads the count before it (ticks handled
			     late); 0: none seen */
	struct {
		int known;              /* a "# dev:" line named this reader */
		unsigned major, minor;  /* its mount's superblock */
		int pid;                /* its process ("# pid:"), 0: unknown */
		struct sw_nfsev *ev;    /* its events, time order */
		size_t n, cap;
	} r[SW_NFSTRACE_READERS];
	struct {                        /* loading: each task's last kprobe */
		int pid, kind;
		int64_t t, j;
	} last[64];
	struct {                        /* loading: each task's last refresh
					   or GETATTR send, for the kprobe
					   after it (jif_update, jif_gai3/4,
					   jif_fattr) */
		int pid, r;             /* its task, its reader */
		int kind;               /* SW_NFSEV_REFRESH or _GA_SEND */
		size_t i;               /* its index in r[r].ev */
		int64_t t;
	} pushed[64];
	struct {                        /* loading: each task's last
					   jif_fattr no GETATTR or OPEN took:
					   a READ's, for its jif_read */
		int pid;
		int64_t t, j;
	} fattr[64];
};

/* Load path.  0; -ENOENT when there is no such file (nothing traced, not
 * an error); -EINVAL / -ENOMEM with err naming the line and what was
 * expected there.  Free with sw_nfstrace_free in every case. */
int sw_nfstrace_load(const char *path, struct sw_nfstrace *t, char *err, int errlen);
void sw_nfstrace_free(struct sw_nfstrace *t);

/* The client's jiffies grid (meta client_tick): the kernel's jiffies_64
 * are tied to it by their most common offset from the grid's count at the
 * kprobes' times; jiffies then become the middle of their jiffy on the
 * grid, which the replay turns back into the same jiffy.  Returns the
 * number of kprobe samples off that offset (ticks handled late). */
uint64_t sw_nfstrace_set_grid(struct sw_nfstrace *t, int64_t tick_ns, int64_t phase_ns);

/* Fill q's traced fields (ga_send/ga_reply/rd_send/rd_reply/chk, 0 where
 * no such event) from reader j's events within [q->tb_mono_ns,
 * q->ta_mono_ns]: with a grid set, those whose jiffies were read are the
 * middle of that jiffy.  Returns 1 when q got at least one traced time. */
int sw_nfstrace_attach(const struct sw_nfstrace *t, int j, struct sw_read_time *q);

#endif
