/* SPDX-License-Identifier: MIT */
/*
 * writer_events.h - the one reader of a writer log every analysis cursor
 * uses; a pass opens the log once and its further cursors are clones.  It checks each record once (payload long enough, time within
 * SW_WEV_SANE_NS of the log's first record) and pairs each STORE with the
 * UPDATE its own trap made: by the STORE's upd_seq (records.h) where the
 * writer logged it, else, for logs written before upd_seq existed, with the
 * last trap UPDATE not yet claimed, of the same page (other threads'
 * records may come between the two).
 */
#ifndef STALEWIN_WRITER_EVENTS_H
#define STALEWIN_WRITER_EVENTS_H

#include <stdint.h>

#include "records.h"
#include "swlog.h"

/* A writer time this far from the log's first record is damage, not a
 * run: such records are reported and skipped by every cursor alike. */
#define SW_WEV_SANE_NS 1000000000000000ll /* ~11.6 days */

/* A jump of realtime - monotonic between two writer records larger than
 * this is a step of the writer's realtime clock (date -s, an NTP step,
 * vm run's --fault clock-step), not the microseconds between the two
 * clock reads of one record.  Every reader of a writer log then keeps the
 * records' realtimes on the base of the log's first record, each record's
 * own monotonic time plus that first offset: a truth window that spans a
 * step is its monotonic length, never shifted by the step. */
#define SW_CLOCK_STEP_MIN_NS 100000000ll /* 100 ms */

enum sw_wev_skip {
	SW_WEV_OK = 0,
	SW_WEV_SHORT,  /* payload shorter than its type's struct */
	SW_WEV_INSANE, /* a time too far from the first record's */
	SW_WEV_SKIP_N
};

struct sw_wev {
	struct swlog_rec rec;      /* the record as read (payload valid until
				      the next sw_wev_next) */
	enum sw_wev_skip skip;     /* != OK: not to be used, see rec */
	int64_t t_real_ns;         /* its realtime (STORE: t_before) */
	/* rec.type == SW_REC_UPDATE */
	struct sw_rec_update upd;
	uint64_t upd_seq;          /* 1-based number of the UPDATE in the log */
	int upd_trap;              /* 1: made by a trap (TRAP, or NATIVE with
				      a page) */
	/* rec.type == SW_REC_STORE */
	struct sw_rec_store store;
	int own;                   /* 1: the UPDATE of its own trap is own_upd */
	struct sw_rec_update own_upd;
	uint64_t own_seq;
};

struct sw_wev_reader {
	struct swlog_reader *r;
	int updates_only;          /* 1: the caller reads UPDATEs and END
				      only: other records are neither checked
				      nor paired (set after sw_wev_open) */
	int64_t t_ref;             /* first usable record's realtime, ns (0:
				      none yet) */
	int off_set;               /* off0_ns known */
	int64_t off0_ns;           /* realtime - monotonic of the first record
				      with both */
	int64_t shift_ns;          /* the realtime step in force (0: none
				      larger than SW_CLOCK_STEP_MIN_NS)
				      taken off every record's realtimes */
	uint64_t nupd;             /* UPDATE records read */
	struct sw_rec_update trap; /* last trap UPDATE not yet claimed */
	uint64_t trap_seq;
	int have_trap;
};

/* Returns 0 or -errno with err filled (swlog_open). */
int sw_wev_open(struct sw_wev_reader *w, const char *path, char err[SWLOG_ERRLEN]);
/* A reader over a log already open (runload.c's header check): w owns r. */
void sw_wev_attach(struct sw_wev_reader *w, struct swlog_reader *r);
/* A further cursor over src's log from its first record, without opening
 * the file again (swlog_reader_clone): 0 or -ENOMEM. */
int sw_wev_clone(struct sw_wev_reader *dst, const struct sw_wev_reader *src);
/* The checks and the pairing of one record (sw_wev_next's slow path). */
void sw_wev_check(struct sw_wev_reader *w, struct sw_wev *ev);

/* enum swlog_status of swlog_next (SWLOG_OK: *ev filled).  Inline: it runs
 * for every record of every cursor. */
static inline int sw_wev_next(struct sw_wev_reader *w, struct sw_wev *ev)
{
	int st = swlog_next(w->r, &ev->rec);

	if (st != SWLOG_OK)
		return st;
	ev->skip = SW_WEV_OK;
	ev->own = 0;
	ev->upd_trap = 0;
	if (!w->updates_only || !w->t_ref || ev->rec.type == SW_REC_UPDATE ||
	    ev->rec.type == SW_REC_END)
		sw_wev_check(w, ev);
	return st;
}
void sw_wev_close(struct sw_wev_reader *w);
/* A writer record's realtime and monotonic time where it logs both
 * (STORE: t_before; UPDATE, CLEAN, SYNC, MUNMAP, END, SETUP: t): 1, else 0
 * (NOTE, unknown types, a payload too short). */
int sw_wev_rec_clocks(const struct swlog_rec *r, int64_t *real_ns, int64_t *mono_ns);
/* realtime of a writer record: every payload starts with an int64
 * realtime, except STORE (t_before) */
int64_t sw_wev_rec_time(const struct swlog_rec *r);

#endif
