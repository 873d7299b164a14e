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

/* A workload's own options, as fio's engines carry theirs: each workload
 * file declares a table of them beside its ops, and the writer makes its
 * getopt, --help (under the workload's name) and meta.json's workload
 * object from the central table (server/cli.c) plus every workload's.
 * An option shared by several workloads (--rate, --pages) is central and
 * lives in struct sw_wl_params; a workload's own values live in its own
 * struct, read and written through sw_wl_params.own at each row's off. */
enum sw_wl_opt_kind {
	SW_WL_OPT_U64,    /* uint64_t: an integer >= 0; meta: that integer */
	SW_WL_OPT_MS_NS,  /* int64_t: milliseconds >= 0, kept in ns; meta: ms */
	SW_WL_OPT_DOUBLE, /* double: a finite number; meta: a real */
};

struct sw_wl_opt {
	const char *name;  /* --name */
	const char *arg;   /* its value in --help ("N") */
	const char *help;  /* --help's text; " (default DFLT)" is added */
	enum sw_wl_opt_kind kind;
	size_t off;        /* the field in the workload's own struct */
	const char *dflt;  /* the default, read as a command line's value is */
	const char *meta;  /* its key in meta.json's workload object */
	const char *expect;/* SW_WL_OPT_DOUBLE: what the message names
			      ("a number in [0,1]"); NULL: "a number" */
};

/* The bytes of a workload's own struct (aligned for any field). */
#define SW_WL_OWN_BYTES 64
union sw_wl_own {
	unsigned char b[SW_WL_OWN_BYTES];
	uint64_t u;
	int64_t i;
	double d;
};
/* A workload's own struct in w: SW_WL_OWN(w, struct rewrite_own). */
#define SW_WL_OWN(w, type) ((const type *)(const void *)(w)->p.own.b)
/* In a workload's file: its own struct fits the bytes. */
#define SW_WL_OWN_FITS(type)                                                  \
	_Static_assert(sizeof(type) <= SW_WL_OWN_BYTES,                       \
		       #type " is larger than SW_WL_OWN_BYTES")

struct sw_wl_params {
	uint64_t npages;      /* pages in the mapping */
	uint64_t pages;       /* working set: pages [0, pages) (0: all) */
	double rate;          /* stream/random/burst: stores/s, 0 = flat out */
	union sw_wl_own own;  /* the workload's own options (its table's) */
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
	/* Its own options ({0}-ended; NULL: none), read into its own struct
	 * of own_size bytes (at most SW_WL_OWN_BYTES). */
	const struct sw_wl_opt *opts;
	size_t own_size;
};

/* Workloads the writer keeps every one's own options for (struct
 * sw_opts): the list may hold this many. */
#define SW_WL_MAX 16

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
/* Seeds the PRNG (sw_wl_rand) from seed. */
void sw_wl_seed(struct sw_wl *w, uint64_t seed);

/* The writer's option values, one message for each kind wherever the
 * option is declared (server/cli.c's table, a workload's): an integer
 * >= 0 (suffix: K/M/G allowed), milliseconds >= 0.  0, or -EINVAL with
 * "expected ..., saw ..." naming --name in err. */
int sw_wl_read_u64(const char *name, const char *text, uint64_t *out, int suffix, char *err,
		   size_t errlen);
int sw_wl_read_ms(const char *name, const char *text, int64_t *out_ms, char *err, size_t errlen);
/* Own options (workloads.c).  Reads text into opt's field of own: 0, or
 * -EINVAL with "expected ..., saw ..." in err (the writer's messages). */
int sw_wl_opt_set(const struct sw_wl_opt *opt, union sw_wl_own *own, const char *text,
		  char *err, size_t errlen);
/* Every own option of ops at its default: 0, or -EINVAL (a default that
 * does not read: a broken table). */
int sw_wl_own_defaults(const struct sw_workload_ops *ops, union sw_wl_own *own,
		       char *err, size_t errlen);
/* ops's own option NAME (without "--"), or NULL. */
const struct sw_wl_opt *sw_wl_opt_find(const struct sw_workload_ops *ops, const char *name);
/* An own option's value as meta.json writes it: an integer (U64; MS_NS
 * in ms) in *i, or a real (DOUBLE) in *d; returns 1 for a real, else 0. */
int sw_wl_opt_value(const struct sw_wl_opt *opt, const union sw_wl_own *own, int64_t *i,
		    double *d);
int64_t sw_wl_rate_offset(double rate, uint64_t i);
uint64_t sw_wl_rand(struct sw_wl *w);          /* 64 random bits */
uint64_t sw_wl_rand_below(struct sw_wl *w, uint64_t n); /* [0, n) */
double sw_wl_rand_unit(struct sw_wl *w);        /* [0, 1) */

#endif
