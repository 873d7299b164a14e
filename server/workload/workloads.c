/* SPDX-License-Identifier: MIT */
/* workloads.c - the explicit list of workloads and their shared helpers. */
#include <errno.h>
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "parse.h"
#include "swtime.h"
#include "workload.h"

extern const struct sw_workload_ops sw_wl_rewrite, sw_wl_stream, sw_wl_random,
	sw_wl_burst;

const struct sw_workload_ops *const sw_workloads[] = {
	&sw_wl_rewrite,
	&sw_wl_stream,
	&sw_wl_random,
	&sw_wl_burst,
	NULL,
};

/* sw_workload_find, sw_workload_names */
SW_PARSE_LIST_FNS(struct sw_workload_ops, sw_workloads, sw_workload_find, sw_workload_names)

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int sw_wl_init(struct sw_wl *w, const struct sw_workload_ops *ops,
	       const struct sw_wl_params *p, char *err, size_t errlen)
{
	memset(w, 0, sizeof(*w));
	w->ops = ops;
	w->p = *p;
	w->rate_planned = -1;
	int rc = ops->init ? ops->init(w, err, errlen) : sw_wl_check_pages(w, err, errlen);
	if (w->rate_planned < 0)
		w->rate_planned = w->p.rate;
	return rc;
}

void sw_wl_seed(struct sw_wl *w, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		w->rng[i] = splitmix64(&seed);
}

void sw_wl_next(struct sw_wl *w, uint64_t *page, int64_t *t_off_ns)
{
	w->ops->next(w, page, t_off_ns);
	w->i++;
}

int sw_wl_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int sw_wl_check_pages(struct sw_wl *w, char *err, size_t errlen)
{
	if (w->p.pages == 0)
		w->p.pages = w->p.npages;
	if (w->p.pages > w->p.npages)
		return sw_wl_fail(err, errlen,
				  "expected --pages at most %llu (the mapping's pages), saw %llu",
				  (unsigned long long)w->p.npages,
				  (unsigned long long)w->p.pages);
	if (w->p.rate < 0 || w->p.rate > 1e8)
		return sw_wl_fail(err, errlen,
				  "expected --rate in 0..100000000 stores/s (0 = as fast as possible), saw %g",
				  w->p.rate);
	return 0;
}

int sw_wl_read_u64(const char *name, const char *text, uint64_t *out, int suffix, char *err,
		   size_t errlen)
{
	if (sw_parse_u64(text, 0, suffix ? SW_PARSE_SUFFIX : 0, 0, UINT64_MAX, out))
		return sw_wl_fail(err, errlen, "expected a non-negative integer%s for --%s, saw '%s'",
				  suffix ? " (K/M/G suffix ok)" : "", name, text);
	return 0;
}

int sw_wl_read_ms(const char *name, const char *text, int64_t *out_ms, char *err, size_t errlen)
{
	uint64_t u;

	if (sw_parse_u64(text, 0, 0, 0, (uint64_t)INT64_MAX / SW_NS_PER_MS, &u))
		return sw_wl_fail(err, errlen, "expected milliseconds (integer >= 0) for --%s, saw '%s'",
				  name, text);
	*out_ms = (int64_t)u;
	return 0;
}

int sw_wl_opt_set(const struct sw_wl_opt *opt, union sw_wl_own *own, const char *text,
		  char *err, size_t errlen)
{
	void *v = own->b + opt->off;
	int64_t ms = 0;
	int rc;

	switch (opt->kind) {
	case SW_WL_OPT_U64:
		return sw_wl_read_u64(opt->name, text, v, 0, err, errlen);
	case SW_WL_OPT_MS_NS:
		if ((rc = sw_wl_read_ms(opt->name, text, &ms, err, errlen)))
			return rc;
		*(int64_t *)v = ms * SW_NS_PER_MS;
		return 0;
	case SW_WL_OPT_DOUBLE:
		if (sw_parse_double(text, -DBL_MAX, DBL_MAX, v))
			return sw_wl_fail(err, errlen, "expected --%s as %s, saw '%s'", opt->name,
					  opt->expect ? opt->expect : "a number", text);
		return 0;
	}
	return sw_wl_fail(err, errlen, "expected a known kind for --%s, saw %d", opt->name,
			  (int)opt->kind);
}

int sw_wl_own_defaults(const struct sw_workload_ops *ops, union sw_wl_own *own,
		       char *err, size_t errlen)
{
	char e[256];

	memset(own, 0, sizeof(*own));
	for (const struct sw_wl_opt *o = ops->opts; o && o->name; o++)
		if (sw_wl_opt_set(o, own, o->dflt ? o->dflt : "", e, sizeof(e)))
			return sw_wl_fail(err, errlen,
					  "expected workload %s's default for --%s to read, saw: %s",
					  ops->name, o->name, e);
	return 0;
}

const struct sw_wl_opt *sw_wl_opt_find(const struct sw_workload_ops *ops, const char *name)
{
	for (const struct sw_wl_opt *o = ops->opts; o && o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

int sw_wl_opt_value(const struct sw_wl_opt *opt, const union sw_wl_own *own, int64_t *i,
		    double *d)
{
	const void *v = own->b + opt->off;

	switch (opt->kind) {
	case SW_WL_OPT_U64: *i = (int64_t)*(const uint64_t *)v; return 0;
	case SW_WL_OPT_MS_NS: *i = *(const int64_t *)v / SW_NS_PER_MS; return 0;
	case SW_WL_OPT_DOUBLE: *d = *(const double *)v; return 1;
	}
	*i = 0;
	return 0;
}

int64_t sw_wl_rate_offset(double rate, uint64_t i)
{
	if (rate <= 0)
		return 0;
	return (int64_t)((double)i * 1e9 / rate);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t sw_wl_rand(struct sw_wl *w)
{
	uint64_t *s = w->rng;
	uint64_t r = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

uint64_t sw_wl_rand_below(struct sw_wl *w, uint64_t n)
{
	/* Lemire's multiply-shift, bias < 2^-32 for n < 2^32 pages */
	return (uint64_t)(((unsigned __int128)sw_wl_rand(w) * n) >> 64);
}

double sw_wl_rand_unit(struct sw_wl *w)
{
	return (double)(sw_wl_rand(w) >> 11) * 0x1.0p-53;
}
