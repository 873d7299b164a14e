/* SPDX-License-Identifier: MIT */
/* queried.h - each faulting store split by whether ctime was queried
 * since it last changed, and whether the fault changed it (queried.c). */
#ifndef STALEWIN_QUERIED_H
#define STALEWIN_QUERIED_H
#include <jansson.h>
#include <stdint.h>

struct sw_queried {
	int known;                 /* 1: counted; 0: see how */
	int64_t queried, queried_changed;     /* a query since the last
				      change, before the fault */
	int64_t unqueried, unqueried_changed; /* none */
	int64_t during, during_changed;       /* a query during the fault
				      itself: either way */
	char how[200];             /* how counted, or why not */
};

/* Count the faulting stores of WRITER_LOG against TRACE_PATH's timestamp
 * events.  Always 0 (Q->known and Q->how say what came of it). */
int sw_queried_count(const char *writer_log, const char *trace_path, struct sw_queried *Q);
/* Q's counts added to *sum (a study cell's runs) */
void sw_queried_add(struct sw_queried *sum, const struct sw_queried *Q);
/* {"queried": {"faults", "changed"}, "unqueried": {...}, "query_during": {...}} */
json_t *sw_queried_json(const struct sw_queried *Q);

#endif
