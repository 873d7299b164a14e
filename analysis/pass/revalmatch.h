/* SPDX-License-Identifier: MIT */
/*
 * revalmatch.h - a kernel reader's replay against its client, revalidation
 * by revalidation: the reads at which the replay sent a GETATTR (its
 * steps, replay.h) matched with the client's own GETATTRs
 * (nfs_revalidate_inode_enter, nfstrace.h), and the first read where the
 * two parted, with the replay's state there.  The bands (validate) judge
 * the figures; this says where a disagreement began, so a failure on a
 * machine whose run folder is gone can still be read from its output.
 */
#ifndef STALEWIN_REVALMATCH_H
#define STALEWIN_REVALMATCH_H

#include <stddef.h>
#include <stdint.h>

#include "nfstrace.h"
#include "replay.h"

struct sw_revalmatch {
	struct sw_replay_step *s; /* the replay's GETATTR steps, in order */
	size_t n, cap;
	int oom;                  /* a step was lost: no verdict */
};

enum sw_revalmatch_side {
	SW_PART_NONE = 0,
	SW_PART_REPLAY, /* the replay revalidated at a read the client did not */
	SW_PART_CLIENT, /* the client revalidated at a read the replay did not */
};

struct sw_revalmatch_out {
	int compared;            /* 0: the client traced no GETATTR of its own
				    (v4 close-to-open: its OPENs), or a step
				    was lost */
	uint64_t client, replay, matched; /* reads with a GETATTR within the
					     replay's span (its first to its
					     last step), on each side and both */
	int side;                /* enum sw_revalmatch_side of the first part */
	int64_t first_mono_ns;   /* there, the reader's CLOCK_MONOTONIC */
	struct sw_replay_step at; /* the replay's step there (SW_PART_REPLAY)
				     or its last one before (SW_PART_CLIENT) */
};

/* Keep one step (a hook of the replay's on_step): 0, or -1 out of memory. */
int sw_revalmatch_add(struct sw_revalmatch *m, const struct sw_replay_step *s);
/* Match against the client's events ev[0..n) of the same reader, up to
 * t_end_mono_ns (the trace's last event: the client's tracing stops at
 * the run's end, its readers a little later). */
void sw_revalmatch_finish(const struct sw_revalmatch *m, const struct sw_nfsev *ev, size_t n,
			  int64_t t_end_mono_ns, struct sw_revalmatch_out *o);
void sw_revalmatch_free(struct sw_revalmatch *m);

#endif
