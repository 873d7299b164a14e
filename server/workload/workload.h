/* SPDX-License-Identifier: MIT */
/*
 * workload.h - which page the writer stores to next, and when.  Each
 * workload is one ops struct in its own file (workload/<name>.c), listed
 * in workloads.c.  Pure computation: a workload yields (page, planned time
 * offset from the run's start); the main loop sleeps until then and
 * stores.  Seeded workloads are reproducible: same parameters and seed,
 * same sequence.
 */
#ifndef STALEWIN_WORKLOAD_H
#define STALEWIN_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

struct sw_wl_params {
	uint64_t npages;      /* pages in the mapping */
	uint64_t pages;       /* working set: pages [0, pages) (0: all) */
	uint64_t page;        /* rewrite: the page stored again */
	int64_t interval_ns;  /* rewrite: period */
	double rate;          /* stream/random/burst: stores/s, 0 = flat out */
	uint64_t hot_pages;   /* random: hot set [0, hot_pages), 0 = uniform */
	double hot_share;     /* random: share of stores into the hot set */
	uint64_t seed;        /* random: PRNG seed */
	uint64_t burst_stores;/* burst: stores per burst */
	int64_t silence_ns;   /* burst: silence after each burst */
};

struct sw_wl {
	const struct sw_workload_ops *ops;
	struct sw_wl_params p;
	uint64_t i;        /* stores planned so far */
	double rate_planned; /* stores/s for the achieved-rate check, 0 = none
				planned (flat out or in bursts): p.rate
				unless init says otherwise */
	uint64_t rng[4];   /* xoshiro256** state (random) */
};

struct sw_workload_ops {
	const char *name;    /* --workload NAME */
	const char *summary;
	/* Validates w->p (filled by the caller) and sets defaults. Returns 0
	 * or -EINVAL with "expected ..., saw ..." in err.  NULL:
	 * sw_wl_check_pages. */
	int (*init)(struct sw_wl *w, char *err, size_t errlen);
	/* Store number w->i: page and planned time (ns after the run's
	 * start). */
	void (*next)(struct sw_wl *w, uint64_t *page, int64_t *t_off_ns);
};

extern const struct sw_workload_ops *const sw_workloads[];
const struct sw_workload_ops *sw_workload_find(const char *name);
/* "rewrite|stream|...": the list's names, for messages. */
const char *sw_workload_names(void);

/* Shared helpers (workloads.c). */
int sw_wl_init(struct sw_wl *w, const struct sw_workload_ops *ops,
	       const struct sw_wl_params *p, char *err, size_t errlen);
/* The next store (ops->next, then w->i counts it). */
void sw_wl_next(struct sw_wl *w, uint64_t *page, int64_t *t_off_ns);
/* err from fmt; returns -EINVAL. */
int sw_wl_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int sw_wl_check_pages(struct sw_wl *w, char *err, size_t errlen);
int64_t sw_wl_rate_offset(double rate, uint64_t i);
uint64_t sw_wl_rand(struct sw_wl *w);          /* 64 random bits */
uint64_t sw_wl_rand_below(struct sw_wl *w, uint64_t n); /* [0, n) */
double sw_wl_rand_unit(struct sw_wl *w);        /* [0, 1) */

#endif
