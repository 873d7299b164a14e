/* SPDX-License-Identifier: MIT */
/* ring.h - growing a ring buffer of fixed-size elements (observer.c's
 * runs, readtimes.c's reads). */
#ifndef STALEWIN_RING_H
#define STALEWIN_RING_H
#include <stdlib.h>
#include <string.h>

/* A buffer of newcap elements of elsize bytes holding buf's n elements
 * from head on (wrapping at cap), in order from index 0; buf is freed.
 * NULL when out of memory (buf is then kept). */
static inline void *sw_ring_regrow(void *buf, size_t elsize, size_t head,
				   size_t n, size_t cap, size_t newcap)
{
	char *nb = malloc(newcap * elsize);
	if (!nb)
		return NULL;
	for (size_t i = 0; i < n; i++)
		memcpy(nb + i * elsize, (char *)buf + (head + i) % cap * elsize, elsize);
	free(buf);
	return nb;
}

#endif
