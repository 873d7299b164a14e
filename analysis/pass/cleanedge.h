/* SPDX-License-Identifier: MIT */
/*
 * cleanedge.h - how many timestamp updates hinge on when the flusher
 * cleaned the file, window by window (docs/semantics.md, "Cost").
 *
 * Under a policy that updates the times at the first store to a clean
 * page, a page p stored more than once between two flusher passes around
 * a pass C (from its first store f after the pass before to its last l
 * before the pass after) traps twice when C falls inside (f, l) and once
 * when it falls outside.  Moving C by up to w changes that count for the
 * (C, p) pairs with f or l within w of C and (f, l) reaching into
 * [C - w, C + w]: their number bounds the updates two runs of the same
 * stores can differ by when their flusher passes agree within w
 * (`stalewin validate`'s updates band, analysis/validate/bands.c).
 *
 * Streaming: O(pages) memory, whatever the number of stores.
 */
#ifndef STALEWIN_CLEANEDGE_H
#define STALEWIN_CLEANEDGE_H

#include <stdint.h>

#define SW_EDGE_WINDOWS 11 /* sw_edge_window_ms */

/* 1, 2, 4 .. 1024 ms: powers of two, as the timer wheel's granularities
 * are in jiffies (8^L) and a jiffy is 4 ms (HZ 250) or 1 ms (HZ 1000) */
extern const int sw_edge_window_ms[SW_EDGE_WINDOWS];

struct sw_cleanedge {
	/* per page: first store after the pass before the last one (f),
	 * first store after the last pass, last store; INT64_MIN: none */
	int64_t *f_prev, *f_cur, *last;
	uint64_t *touched;       /* pages stored since the pass before last */
	uint64_t *touched_cur;   /* pages stored since the last pass */
	size_t npages, ntouched, ntouched_cur, cap_touched, cap_touched_cur;
	int64_t c_cur;           /* the last pass (INT64_MIN: none) */
	int ncleans;
	int oom;                 /* a page table could not grow: figures void */
	uint64_t pairs[SW_EDGE_WINDOWS]; /* (pass, page) pairs per window */
};

void sw_edge_init(struct sw_cleanedge *e);
/* a store of PAGE at T (writer realtime ns, the data visible) */
void sw_edge_store(struct sw_cleanedge *e, uint64_t page, int64_t t_ns);
/* a flusher pass that cleaned pages, starting at T */
void sw_edge_clean(struct sw_cleanedge *e, int64_t t_ns);
/* the run's end: the last pass's pairs counted; 0, or -1 when out of
 * memory (the figures are then void) */
int sw_edge_finish(struct sw_cleanedge *e);
void sw_edge_free(struct sw_cleanedge *e);

#endif
