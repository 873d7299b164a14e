/* SPDX-License-Identifier: MIT */
/*
 * observer.h - one probe target's GETATTR replies as a stream of "runs"
 * (maximal sequences of consecutive good replies with equal attributes),
 * read ahead only as far as a query needs: memory is a few runs, not the
 * replies of the log.
 *
 * Query for a store at probe-clock time T: the reference run is the one
 * holding the last good reply received before T; the answer is the first
 * reply sent after T, in a later run, whose attributes differ from the
 * reference's.  Each run keeps its first OBS_K replies: with at most
 * OBS_K - 1 requests in flight, the first reply of a run sent after T is
 * among them.
 */
#ifndef STALEWIN_OBSERVER_H
#define STALEWIN_OBSERVER_H

#include <stdint.h>

#include "hist.h"
#include "records.h"
#include "obsclock.h"
#include "swlog.h"

#define OBS_K 32

struct obs_run {
	struct sw_attrs a;           /* the run's attributes */
	uint64_t n;                  /* good replies in it */
	int64_t first_send, first_recv, last_send, last_recv; /* probe clock */
	int64_t send[OBS_K], recv[OBS_K]; /* its first OBS_K replies */
	uint32_t nfail;              /* failed GETATTRs after its first reply */
	int64_t fail_first, fail_last; /* their send times */
	uint32_t ngap;               /* GAP records after its first reply */
	int64_t gap_start, gap_end;  /* first gap's start, last gap's end */
};

struct sw_obs_cursor {
	struct swlog_reader *l;            /* its own reader of the probe log */
	int opened;
	int target;                  /* probe target index */
	int eof;                     /* no more records */
	struct obs_run *runs;        /* ring of cap runs, n from head */
	uint64_t cap, head, n;
	uint32_t pre_fail;           /* failures before the first good reply */
	struct sw_obs_base base;     /* its realtime steps (obsclock.h) */
};

struct sw_obs_answer {
	int status;                  /* enum sw_obs_status (report.h) */
	const struct obs_run *ref;   /* reference run */
	const struct obs_run *rev;   /* revealing run (status OK) */
	int64_t send, recv;          /* the revealing reply, probe clock */
	uint32_t revealed;           /* SW_ATTR_* mask that differs */
	int torn;                    /* change attribute alone, and the
					reference or the revealing reply torn
					by a racing update (sw_attrs_torn) */
	uint32_t fails_between;      /* failed GETATTRs between ref and reply */
	uint32_t gaps_between;       /* gaps between ref and reply */
	int64_t gap_start, gap_end;
	int64_t fail_last;
};

/* Attribute mask (size, mtime, ctime, change) in which a and b differ. */
uint32_t sw_attrs_diff(const struct sw_attrs *a, const struct sw_attrs *b);

/* Was the change attribute's move without ctime, from reply run a to b,
 * a torn GETATTR rather than the kernel's rule?  A fault sets ctime,
 * then i_version, then mtime to ctime's value (file_update_time(), 7.2's
 * inode_update_cmtime()); generic_fillattr() reads mtime, ctime, then
 * i_version, so a GETATTR racing a fault can see part of it.  knfsd's
 * change attribute is i_version + (ctime seconds << 30) + ctime
 * nanoseconds (nfsd4_change_attribute(), 6.1 to 7.2, a regular file
 * without STATX_ATTR_CHANGE_MONOTONIC).  Torn when either
 *   b is torn (old ctime, new i_version): c, the run after b (NULL: none
 *   read), moved ctime and carries b's i_version part; or
 *   a is torn (new ctime, old mtime): a's mtime differs from its ctime,
 *   and b, with the same ctime, carries mtime equal to it: the update a
 *   half saw, now whole.
 * Positive evidence only: a server with another formula never matches
 * the first; the second takes a fault in the tick of a ctime-only change
 * (chmod) for torn, which no workload of the harness makes. */
int sw_attrs_torn(const struct sw_attrs *a, const struct sw_attrs *b,
		  const struct sw_attrs *c);

int sw_obs_open(struct sw_obs_cursor *c, const char *path, int target,
		char err[SWLOG_ERRLEN]);
void sw_obs_close(struct sw_obs_cursor *c);
/* Answer for a store at probe-clock T (T non-decreasing between calls).
 * Pointers in the answer stay valid until the next call. */
int sw_obs_query(struct sw_obs_cursor *c, int64_t T, struct sw_obs_answer *a);

/* First pass over a probe log: the targets and their statistics. */
struct sw_obs_stats {
	int target, vers;
	uint64_t replies, failures, gaps, reads;
	int64_t gap_ns, t_first_recv, t_last_recv; /* probe clock */
	struct sw_hist poll_ns, rtt_ns;
	int64_t last_send;           /* internal */
};

#define SW_OBS_SCAN_TARGETS 8 /* targets one probe log may hold */
struct sw_obs_scan {
	int ntargets;
	struct sw_obs_stats *t;      /* ntargets of them (sw_obs_scan_free) */
	int status;                  /* last swlog_next status */
	int64_t bad_record;          /* index of the torn/corrupt record */
	uint64_t bad_offset;
	char bad_text[SWLOG_ERRLEN];
	int has_end;
	uint64_t other_run_reads;    /* READs that saw another run's stamp */
	uint64_t records;
	int64_t bad_target_record;   /* a target index over 7: record, else -1 */
};

/* Returns 0 or a negative errno (open failure or no memory, text in
 * err); free s->t with sw_obs_scan_free whatever it returned. */
int sw_obs_scan_log(const char *path, struct sw_obs_scan *s,
		    char err[SWLOG_ERRLEN]);
void sw_obs_scan_free(struct sw_obs_scan *s);

#endif
