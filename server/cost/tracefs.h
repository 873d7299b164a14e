/* SPDX-License-Identifier: MIT */
/*
 * tracefs.h - the live kernel trace, from inside the machine it runs on:
 * enable an event (with a filter), clear the buffer, write a marker, and
 * count each event's lines in the buffer, split at the markers, with the
 * numbers a line's "name=value" or "name value" fields carry.  Used by
 * stalewin-cost (server/cost) and by the guest programs of tests/kernel
 * (cmtime_cases.c, built there with gcc -static): plain C, no library.
 * Every function takes the trace's root: SW_TFS_ROOT (the global buffer)
 * or an instance of one's own (sw_tfs_instance: its own buffer, events
 * and filters, so nothing else tracing on the machine is disturbed).
 * Every function returns 0 or -1 with a message in err; none exits.
 */
#ifndef STALEWIN_TRACEFS_H
#define STALEWIN_TRACEFS_H

#include <stddef.h>
#include <stdint.h>

#define SW_TFS_ROOT "/sys/kernel/tracing"

/* A new instance named name (its root into root), or remove one. */
int sw_tfs_instance(const char *name, char *root, size_t len, char *err, size_t errlen);
int sw_tfs_instance_free(const char *root);

/* "group/event" on (with filter, NULL: none) or off. */
int sw_tfs_event(const char *root, const char *event, int on, const char *filter, char *err,
		 size_t errlen);
/* 1 when "group/event" exists in this kernel, else 0. */
int sw_tfs_has(const char *root, const char *event);
/* Empty the buffer; per-CPU size in KiB first when kib > 0. */
int sw_tfs_clear(const char *root, long kib, char *err, size_t errlen);
/* A line "text" into the buffer (trace_marker). */
int sw_tfs_marker(const char *root, const char *text, char *err, size_t errlen);
/* Events lost to a full buffer since the last clear (sum over CPUs of
 * "overrun"); -1 when it cannot be read. */
long sw_tfs_overrun(const char *root);

/* The buffer's clock ("mono": CLOCK_MONOTONIC, as the trace prints it:
 * seconds with microseconds). */
int sw_tfs_clock(const char *root, const char *clock, char *err, size_t errlen);

/* An event line of the buffer. */
struct sw_tfs_line {
	const char *event;  /* its name, up to its colon */
	const char *fields; /* the text after it */
	int phase;          /* markers seen before it */
	int64_t t_ns;       /* its timestamp, ns of the buffer's clock (us
			       resolution) */
	long pid;           /* the task's pid (thread id) */
};

/* One pass over the buffer: fn for every event line (not a marker); fn
 * returns 0 to go on. */
typedef int (*sw_tfs_line_fn)(const struct sw_tfs_line *l, void *arg);
int sw_tfs_scan(const char *root, sw_tfs_line_fn fn, void *arg, char *err, size_t errlen);
/* Lines of event (bare name, e.g. "jbd2_handle_start") in the buffer, or
 * -1 with err. */
long sw_tfs_count(const char *root, const char *event, char *err, size_t errlen);
/* The integer after "key=" or "key " in fields; 0 and *v set, or -1. */
int sw_tfs_field(const char *fields, const char *key, long long *v);

#endif
