/* SPDX-License-Identifier: MIT */
/*
 * progress.h - the live progress of a run, computed from its run
 * folder(s) as they grow (the writer's status through the control API
 * where there is one): stalewin-progress formats it.
 */
#ifndef STALEWIN_PROGRESS_H
#define STALEWIN_PROGRESS_H

#include <stdint.h>

#define SW_PG_MAX_EXPS 256
#define SW_PG_PATHLEN 1024

/* What the logs of one run folder hold so far. */
struct sw_pg_counts {
	uint64_t stores, updates; /* writer.swlog: STORE, UPDATE records */
	uint64_t replies;         /* probe-*.swlog: ATTR + READ with status 0 */
	uint64_t gaps;            /* probe-*.swlog: GAP records (outages seen) */
	uint64_t kreads;          /* kread-*.swlog: KREAD records */
	int64_t first_mono_ns;    /* writer: first STORE (t_before), 0 none */
	int64_t last_mono_ns;     /* writer: last STORE (t_after) */
	int writer_end;           /* writer.swlog has its END record */
	int64_t newest_mtime_ns;  /* newest log's mtime (which run is current) */
};

/* Count the records of every log of dir (a log still being written ends
 * in a torn record: what precedes it counts).  0, or -1 when dir has no
 * log at all. */
int sw_pg_scan(const char *dir, struct sw_pg_counts *c);

/* The run folders under root: root itself when it holds a log, else its
 * subfolders and theirs (two levels) that hold writer.swlog or
 * probe-0.swlog, sorted by name.  Returns how many (at most max). */
int sw_pg_find(const char *root, char dirs[][SW_PG_PATHLEN], int max);

/* One progress figure set, ready to format. */
struct sw_pg_line {
	int64_t wall_s;        /* since the tool started */
	int exp, nexp;         /* current run (1-based) of nexp; nexp 0: one */
	char name[64];         /* current run folder's name */
	double elapsed_s;      /* the current run's writer time */
	double total_s;        /* its planned duration, 0 unknown */
	double stores_per_s;   /* stores / elapsed */
	uint64_t updates;
	double replies_per_s;  /* probe replies over the last interval */
	uint64_t outages;      /* probe gaps + control API outages */
	int api_down;          /* the control API does not answer now */
};

/* The line, without line end, into buf (within 80 columns: the run's
 * name is cut to 14 characters). */
void sw_pg_format(const struct sw_pg_line *l, char *buf, int len);

#endif
