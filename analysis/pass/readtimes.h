/* SPDX-License-Identifier: MIT */
/*
 * readtimes.h - a kernel reader's logged read times as the replay's read
 * sequence.
 *
 * The replay of a kernel reader runs the client's rules at the reads that
 * reader really made (KREAD t_before, writer clock), not at an ideal grid:
 * TCG guests stall reads by 100-800 ms, which moves the kernel's
 * revalidation by whole periods.  The log is walked by its own cursor, in
 * step with the writer's events: only the reads from the live replay's last
 * revalidation on are kept (the lookahead of a store may reach further; the
 * window grows up to SW_RT_MAX reads, then the log counts as ended there).
 * After the last logged read the reader's period continues from it.
 */
#ifndef STALEWIN_READTIMES_H
#define STALEWIN_READTIMES_H

#include <stddef.h>
#include <stdint.h>

#include "replay.h"

#define SW_RT_MAX (1u << 20) /* reads held at most (8 MiB) */

struct swlog_reader;

struct sw_readtimes {
	/* where more reads come from: returns 1 and the next read (start in
	 * the writer clock; start and end in the reader's monotonic clock,
	 * 0 if not known), 0 at the end */
	int (*next)(void *ctx, struct sw_read_time *q);
	void *ctx;
	int eof;          /* next() said end (or the window was full) */
	struct sw_read_time *t; /* ring of reads, starts nondecreasing */
	size_t cap, head, n;
	uint64_t capped;  /* 1: SW_RT_MAX reached, later reads ignored */
	int64_t period_ns; /* after the last read: reads every period_ns */
	struct sw_read_src src; /* what the replay calls (ceil) */
};

/* Set up (no allocation yet); next/ctx supply the reads in log order;
 * past the last of them the reads go on every period_ns (0: none). */
void sw_readtimes_init(struct sw_readtimes *rt,
		       int (*next)(void *, struct sw_read_time *), void *ctx,
		       int64_t period_ns);
/* Forget reads before t_ns (the live replay will not ask for them). */
void sw_readtimes_drop_before(struct sw_readtimes *rt, int64_t t_ns);
void sw_readtimes_free(struct sw_readtimes *rt);

/* A fixed array of read times (tests, and readers read in full). */
struct sw_readtimes_array {
	const int64_t *t;
	size_t n, i;
	const int64_t *tb_mono, *ta_mono; /* NULL: not known */
	const int64_t *ga_send, *ga_reply, *rd_send, *rd_reply, *chk, *op_send,
		      *op_reply, *op_refresh, *ac_reply; /*
					traced times (replay.h); NULL: none */
	const int *ga_in_open; /* replay.h; NULL: none */
	const int64_t *ga_send_ev, *ga_reply_ev, *rd_send_ev, *rd_done_ev; /*
					the same as ftrace printed them
					(replay.h); NULL: none */
};
int sw_readtimes_array_next(void *ctx, struct sw_read_time *q);

#endif
