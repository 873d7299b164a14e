/* SPDX-License-Identifier: MIT */
/* obsclock.h - steps of an observer's realtime clock (a probe's, a kernel
 * reader's: the client's clock), taken off its records as writer_events.c
 * does for the writer's.  An observer record carries each of its times
 * on both clocks (CLOCK_REALTIME, CLOCK_MONOTONIC, adjacent fields); a
 * jump of realtime - monotonic by more than SW_CLOCK_STEP_MIN_NS from the
 * log's first record is a step (date -s, an NTP step, vm run's --fault
 * client-clock-step), and every realtime of the record is put back on the
 * first record's base: a window that spans a step keeps its monotonic
 * length, never shifted by the step.  The stamp a READ or KREAD returns
 * is the writer's time and is left alone. */
#ifndef STALEWIN_OBSCLOCK_H
#define STALEWIN_OBSCLOCK_H

#include <stdint.h>

#include "swlog.h"

struct sw_summary;

struct sw_obs_base {
	int set;
	int64_t off0_ns;  /* realtime - monotonic of the first record */
	int64_t shift_ns; /* the step in force (0: none) */
};

/* Take the step in force off rec's realtime fields (the payload is the
 * reader's own copy of the record, valid until the next one); returns
 * the step in force after it, 0 when none. */
int64_t sw_obs_rebase(struct sw_obs_base *b, struct swlog_rec *rec);

/* swlog_next, then sw_obs_rebase on a record read */
int sw_obs_next(struct swlog_reader *r, struct sw_obs_base *b, struct swlog_rec *rec);

/* The steps of the observer log at path (the client's clock: probe-0,
 * else kread-0) into S->obs_step, named after name; 0, or -1 when the log
 * cannot be read (its pass reports that). */
int sw_obs_steps_scan(struct sw_summary *S, const char *path, const char *name);

#endif
