/* SPDX-License-Identifier: MIT */
/* satmath.h - saturating int64 arithmetic for times read from logs: a
 * damaged log must give odd numbers, never undefined behaviour. */
#ifndef STALEWIN_SATMATH_H
#define STALEWIN_SATMATH_H
#include <stdint.h>
static inline int64_t ss(int64_t a, int64_t b) /* a - b */
{
	int64_t r;
	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return r;
}
static inline int64_t sa(int64_t a, int64_t b) /* a + b */
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}
#endif
