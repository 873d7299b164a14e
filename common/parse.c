/* SPDX-License-Identifier: MIT */
/* parse.c - numbers with units and ranges (parse.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

static int suffix_mul(const char **end, unsigned long long *mul)
{
	const char *e = *end;
	switch (*e) {
	case 'k': case 'K': *mul = 1ull << 10; break;
	case 'm': case 'M': *mul = 1ull << 20; break;
	case 'g': case 'G': *mul = 1ull << 30; break;
	case 't': case 'T': *mul = 1ull << 40; break;
	default: return -1;
	}
	e++;
	if (*e == 'i' || *e == 'I')
		e++;
	if (*e == 'b' || *e == 'B')
		e++;
	*end = e;
	return 0;
}

int sw_parse_u64(const char *s, int base, unsigned flags, uint64_t lo,
		 uint64_t hi, uint64_t *out)
{
	char *e;
	const char *end;
	unsigned long long v, mul = 1;

	if (!s[0] || s[0] == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &e, base);
	if (errno || e == s)
		return -1;
	end = e;
	if ((flags & SW_PARSE_SUFFIX) && *end && suffix_mul(&end, &mul))
		return -1;
	if (*end || v > UINT64_MAX / mul)
		return -1;
	v *= mul;
	if (v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int sw_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	char *e;
	long long v;

	if (!s[0])
		return -1;
	errno = 0;
	v = strtoll(s, &e, 10);
	if (errno || e == s || *e || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int sw_parse_double(const char *s, double lo, double hi, double *out)
{
	char *e;
	double v;

	errno = 0;
	v = strtod(s, &e);
	if (errno || e == s || *e || !(v >= lo && v <= hi))
		return -1;
	*out = v;
	return 0;
}

const void *sw_parse_named(const void *const *list, const char *name)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(*(const char *const *)list[i], name))
			return list[i];
	return NULL;
}

const char *sw_parse_names(const void *const *list, const char *sep, char *buf,
			   size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; list[i] && n < len; i++) {
		int w = snprintf(buf + n, len - n, "%s%s", i ? sep : "",
				 *(const char *const *)list[i]);
		if (w < 0)
			break;
		n += (size_t)w;
	}
	return buf;
}

int sw_parse_range(const char *s, double *from, double *to)
{
	char buf[128], *d;
	double a, b;

	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf))
		return -1;
	d = strchr(buf, '-');
	if (!d)
		return -1;
	*d = 0;
	if (sw_parse_double(buf, 0, HUGE_VAL, &a) ||
	    sw_parse_double(d + 1, 0, HUGE_VAL, &b) || b < a)
		return -1;
	*from = a;
	*to = b;
	return 0;
}
