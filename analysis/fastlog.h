/* SPDX-License-Identifier: MIT */
/*
 * fastlog.h - a read-only, mmap-based iterator over a swlog file for the
 * analysis' several cursors.  Same framing rules and statuses as
 * swlog_next() (common/swlog.h), same CRC-32 (libdeflate's, which is
 * several times faster than zlib's on small records); the header is
 * checked by swlog_open() itself.  On a bad record the lead's reader
 * classifies it (torn / corrupt) and provides the message, so both
 * readers always agree.  Payloads are copied to an aligned buffer.
 */
#ifndef STALEWIN_FASTLOG_H
#define STALEWIN_FASTLOG_H

#include <stddef.h>
#include <stdint.h>

#include "swlog.h"

struct sw_flog {
	const uint8_t *map;     /* whole file */
	size_t size;            /* bytes */
	size_t off;             /* next frame */
	size_t dropped;         /* bytes before this are unmapped again */
	uint64_t index;         /* next record number */
	int done;               /* a non-OK status was returned */
	int status;             /* that status */
	uint64_t *buf;          /* aligned payload copy */
	size_t cap;             /* bytes in buf */
	char path[1024];
	char err[SWLOG_ERRLEN];
};

int sw_flog_open(struct sw_flog *l, const char *path, char err[SWLOG_ERRLEN]);
/* As swlog_next(): SWLOG_OK with rec filled, SWLOG_EOF, SWLOG_TORN,
 * SWLOG_CORRUPT (text in l->err), or a negative errno. */
int sw_flog_next(struct sw_flog *l, struct swlog_rec *rec);
void sw_flog_close(struct sw_flog *l);

#endif
