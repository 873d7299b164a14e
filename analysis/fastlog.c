/* SPDX-License-Identifier: MIT */
/* fastlog.c - mmap swlog iterator; see fastlog.h. */
#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fastlog.h"

#define HDR_FIXED 24u
#define FRAME_HEAD 8u
#define FRAME_TAIL 4u
#define DROP_EVERY (16u << 20)

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

int sw_flog_open(struct sw_flog *l, const char *path, char err[SWLOG_ERRLEN])
{
	struct swlog_reader *r;
	struct stat st;
	int rc;

	memset(l, 0, sizeof(*l));
	snprintf(l->path, sizeof(l->path), "%s", path);
	if ((rc = swlog_open(&r, path, err)) != 0) /* header checks */
		return rc;
	swlog_reader_close(r);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0) {
		rc = -errno;
		snprintf(err, SWLOG_ERRLEN, "cannot open log %.200s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	l->size = (size_t)st.st_size;
	if (l->size < HDR_FIXED + 4) {
		close(fd);
		snprintf(err, SWLOG_ERRLEN, "log %.200s: expected a header, saw %zu bytes", path, l->size);
		return -EINVAL;
	}
	l->map = mmap(NULL, l->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (l->map == MAP_FAILED) {
		l->map = NULL;
		snprintf(err, SWLOG_ERRLEN, "cannot map log %.200s: %s", path, strerror(errno));
		return -ENOMEM;
	}
	madvise((void *)l->map, l->size, MADV_SEQUENTIAL);
	l->off = HDR_FIXED + le32(l->map + 12) + 4u;
	l->cap = 4096;
	l->buf = malloc(l->cap);
	if (!l->buf) {
		sw_flog_close(l);
		return -ENOMEM;
	}
	return 0;
}

/* Let the reference reader say what is wrong with record `index`. */
static int classify(struct sw_flog *l)
{
	struct swlog_reader *r;
	struct swlog_rec rec;
	char e[SWLOG_ERRLEN];
	int st = SWLOG_CORRUPT;
	snprintf(l->err, sizeof(l->err), "log %.200s: record %llu at offset %zu: bad record",
		 l->path, (unsigned long long)l->index, l->off);
	if (swlog_open(&r, l->path, e))
		return SWLOG_CORRUPT;
	while ((st = swlog_next(r, &rec)) == SWLOG_OK && rec.index < l->index)
		;
	if (st == SWLOG_OK) /* the reference reader disagrees: trust it no further */
		st = SWLOG_CORRUPT;
	else if (st != SWLOG_EOF)
		snprintf(l->err, sizeof(l->err), "%s", swlog_reader_error(r));
	swlog_reader_close(r);
	return st;
}

int sw_flog_next(struct sw_flog *l, struct swlog_rec *rec)
{
	if (l->done)
		return l->status;
	size_t left = l->size - l->off;
	int st;
	if (left == 0) {
		st = SWLOG_EOF;
		goto stop;
	}
	if (left < FRAME_HEAD)
		goto bad;
	const uint8_t *p = l->map + l->off;
	uint32_t len = le32(p);
	uint16_t type = (uint16_t)(p[4] | p[5] << 8);
	if (len > SWLOG_MAX_RECORD || p[6] || p[7] || left < FRAME_HEAD + (size_t)len + FRAME_TAIL)
		goto bad;
	if (libdeflate_crc32(0, p, FRAME_HEAD + len) != le32(p + FRAME_HEAD + len))
		goto bad;
	uint32_t min = swlog_min_len(type);
	if (min && len < min)
		goto bad;
	if (len > l->cap) {
		uint64_t *nb = realloc(l->buf, len);
		if (!nb)
			return -ENOMEM;
		l->buf = nb;
		l->cap = len;
	}
	memcpy(l->buf, p + FRAME_HEAD, len);
	rec->type = type;
	rec->len = len;
	rec->payload = l->buf;
	rec->offset = l->off;
	rec->index = l->index++;
	l->off += FRAME_HEAD + len + FRAME_TAIL;
	if (l->off - l->dropped >= DROP_EVERY) {
		/* keep RSS bounded: unmap what this cursor has passed (the page
		 * cache keeps it for the other cursors) */
		size_t upto = l->off & ~(size_t)(DROP_EVERY - 1);
		if (upto > l->dropped) {
			madvise((void *)(l->map + l->dropped), upto - l->dropped, MADV_DONTNEED);
			l->dropped = upto;
		}
	}
	return SWLOG_OK;
bad:
	st = classify(l);
stop:
	l->done = 1;
	l->status = st;
	return st;
}

void sw_flog_close(struct sw_flog *l)
{
	if (l->map)
		munmap((void *)l->map, l->size);
	free(l->buf);
	l->map = NULL;
	l->buf = NULL;
}
