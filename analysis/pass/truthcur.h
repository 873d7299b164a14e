/* SPDX-License-Identifier: MIT */
/*
 * truthcur.h - the pass's truth lookahead: a clone of its writer-log
 * reader that holds the next UPDATEs ahead of the store being resolved
 * (windows.c), and the key a replayed client compares for an update.
 */
#ifndef STALEWIN_TRUTHCUR_H
#define STALEWIN_TRUTHCUR_H

#include <stdint.h>

#include "replay.h"
#include "writer_events.h"

#define SW_TC_LOOKAHEAD 64 /* updates the replay may look past a collision */

struct sw_upd { /* an UPDATE as the pass needs it */
	int64_t t;        /* UPDATE.t_real_ns: writer realtime, ns */
	int64_t t_done;   /* UPDATE.t_done_real_ns: the change was made by
			     then (same clock; t where not logged) */
	int64_t mtime, ctime; /* the stamps it left, ns since the epoch */
	uint64_t seq;     /* 1-based update number */
	uint64_t page;
	uint32_t cause;
	int equal_prev;   /* same stamps as the update before */
};

struct sw_truth_cur { /* a clone of the pass's reader: UPDATEs ahead */
	struct sw_wev_reader w;
	int opened;
	struct sw_upd q[SW_TC_LOOKAHEAD];
	int head, n, eof; /* ring front, updates held, log ended */
	uint64_t seq;     /* updates read so far */
	int64_t pm, pc;   /* the last one's mtime and ctime, ns */
	int64_t t_end;    /* END.t_real_ns, 0 until read */
	int have_prev;
};

/* i-th update from the front, or NULL past the end of the log */
const struct sw_upd *sw_tc_get(struct sw_truth_cur *tc, int i);
/* drop updates before T; the front is then the first update at or after T */
const struct sw_upd *sw_tc_first_after(struct sw_truth_cur *tc, int64_t T);

/* what a client of profile p compares: the change attribute (v4, here the
 * update's number) or ctime (v3) */
static inline uint64_t sw_upd_key(const struct sw_profile *p, const struct sw_upd *u)
{
	return p->vers >= 4 ? u->seq : (uint64_t)u->ctime;
}

#endif
