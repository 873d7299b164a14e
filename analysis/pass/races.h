/* SPDX-License-Identifier: MIT */
/* races.h - READ race hits: old data cached under the trap's new stamps,
 * a consumer of the pass's writer-log stream (races.c). */
#ifndef STALEWIN_RACES_H
#define STALEWIN_RACES_H
#include "report.h"
#include "runload.h"
#include "writer_events.h"

struct sw_races;
/* The probe logs with READs, opened; writer: the pass's reader of the
 * writer log (cloned for the next-update lookups).  NULL: no probe log
 * with READs, or no memory (*nomem = 1). */
struct sw_races *sw_races_open(struct sw_summary *S, const struct sw_input *in,
			       const struct sw_wev_reader *writer, int *nomem);
/* A STORE paired with its own trap's UPDATE (ev->own), in log order. */
void sw_races_pair(struct sw_races *R, const struct sw_wev *ev);
/* The writer log ended (END or its last record): the READs left are
 * checked against every pair; later pairs are ignored. */
void sw_races_end(struct sw_races *R);
void sw_races_free(struct sw_races *R);
#endif
