/* SPDX-License-Identifier: MIT */
/* swlog.c - framed, crc-checked, crash-readable log files (see swlog.h). */
#include "swlog.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libdeflate.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "swtime.h"

#define HDR_FIXED 24u        /* magic 8, version 2, kind 2, meta_len 4, run_id 8 */
#define FRAME_HEAD 8u        /* len 4, type 2, zero 2 */
#define FRAME_TAIL 4u        /* crc */
#define WBUF_SIZE (256u << 10)
#define MAX_META (16u << 20)

/* CRC-32 (the gzip/zlib polynomial) through libdeflate: several times
 * faster than zlib's on small records, which bounds the analysis pass. */
static uint32_t sw_crc32(const void *p, size_t n)
{
	return libdeflate_crc32(0, p, n);
}

static void put_le16(uint8_t *p, uint16_t v) { p[0] = v; p[1] = v >> 8; }
static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = v >> (8 * i);
}
static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = v >> (8 * i);
}
static uint16_t get_le16(const uint8_t *p) { return p[0] | (uint16_t)p[1] << 8; }
static uint32_t get_le32(const uint8_t *p)
{
	uint32_t v = 0;
	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}
static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* ------------------------------------------------------------------ */
/* writer                                                             */

struct swlog_writer {
	int fd;                  /* log file, O_WRONLY|O_APPEND */
	char path[4096];         /* for messages */
	pthread_mutex_t lock;    /* guards everything below */
	pthread_cond_t cond;     /* wakes the flusher at close */
	pthread_t flusher;       /* background flush thread */
	int flusher_running;     /* 1 while the thread exists */
	int stopping;            /* close requested */
	unsigned flush_ms;       /* flush interval, ms */
	uint8_t *buf;            /* WBUF_SIZE bytes */
	size_t used;             /* bytes buffered */
	uint64_t records;        /* records appended */
	int error;               /* first error (negative errno), sticky */
	char errtext[SWLOG_ERRLEN];
};

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t r = write(fd, p, n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static int flush_locked(struct swlog_writer *w)
{
	if (w->error)
		return w->error;
	if (w->used == 0)
		return 0;
	int rc = write_all(w->fd, w->buf, w->used);
	if (rc) {
		w->error = rc;
		snprintf(w->errtext, sizeof(w->errtext),
			 "writing log %.200s: expected to write %zu bytes, saw %s",
			 w->path, w->used, strerror(-rc));
		/* Keep only whole records on disk: a partial write leaves a torn
		 * tail the reader detects; nothing before it is lost. */
		return rc;
	}
	w->used = 0;
	return 0;
}

static void *flusher_main(void *arg)
{
	struct swlog_writer *w = arg;
	pthread_mutex_lock(&w->lock);
	while (!w->stopping) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		int64_t dl = sw_ts_ns(&ts) + (int64_t)w->flush_ms * SW_NS_PER_MS;
		ts = sw_ns_ts(dl);
		pthread_cond_timedwait(&w->cond, &w->lock, &ts);
		flush_locked(w);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int swlog_create(struct swlog_writer **out, const char *path, int overwrite,
		 enum swlog_kind kind, uint64_t run_id, const char *meta_json,
		 unsigned flush_ms, char err[SWLOG_ERRLEN])
{
	*out = NULL;
	if (!meta_json)
		meta_json = "{}";
	size_t mlen = strlen(meta_json);
	if (mlen > MAX_META) {
		snprintf(err, SWLOG_ERRLEN, "log %.200s: expected metadata <= %u bytes, saw %zu",
			 path, MAX_META, mlen);
		return -EINVAL;
	}
	int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC |
		    (overwrite ? O_TRUNC : O_EXCL);
	int fd = open(path, flags, 0644);
	if (fd < 0) {
		int e = errno;
		snprintf(err, SWLOG_ERRLEN, "cannot create log %.200s: %s%s", path,
			 strerror(e), e == EEXIST ? " (expected a new file)" : "");
		return -e;
	}
	struct swlog_writer *w = calloc(1, sizeof(*w));
	uint8_t *hdr = malloc(HDR_FIXED + mlen + 4);
	if (!w || !hdr) {
		free(w);
		free(hdr);
		close(fd);
		snprintf(err, SWLOG_ERRLEN, "log %.200s: out of memory", path);
		return -ENOMEM;
	}
	memcpy(hdr, SWLOG_MAGIC, 8);
	put_le16(hdr + 8, SWLOG_FORMAT_VERSION);
	put_le16(hdr + 10, (uint16_t)kind);
	put_le32(hdr + 12, (uint32_t)mlen);
	put_le64(hdr + 16, run_id);
	memcpy(hdr + HDR_FIXED, meta_json, mlen);
	uint32_t crc = sw_crc32(hdr, HDR_FIXED + mlen);
	put_le32(hdr + HDR_FIXED + mlen, crc);
	int rc = write_all(fd, hdr, HDR_FIXED + mlen + 4);
	free(hdr);
	if (rc) {
		snprintf(err, SWLOG_ERRLEN, "writing header of log %.200s: %s", path,
			 strerror(-rc));
		close(fd);
		free(w);
		return rc;
	}
	w->fd = fd;
	snprintf(w->path, sizeof(w->path), "%s", path);
	w->flush_ms = flush_ms ? flush_ms : 100;
	w->buf = malloc(WBUF_SIZE);
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	if (!w->buf || pthread_create(&w->flusher, NULL, flusher_main, w) != 0) {
		snprintf(err, SWLOG_ERRLEN, "log %.200s: cannot start flusher", path);
		free(w->buf);
		close(fd);
		free(w);
		return -ENOMEM;
	}
	w->flusher_running = 1;
	*out = w;
	return 0;
}

/* One record's frame at p: head, payload (fixed part then tail), crc. */
static void frame(uint8_t *p, uint16_t type, const void *fixed, uint32_t fixed_len,
		  const void *tail, uint32_t tail_len)
{
	uint32_t len = fixed_len + tail_len;
	put_le32(p, len);
	put_le16(p + 4, type);
	put_le16(p + 6, 0);
	if (fixed_len)
		memcpy(p + FRAME_HEAD, fixed, fixed_len);
	if (tail_len)
		memcpy(p + FRAME_HEAD + fixed_len, tail, tail_len);
	put_le32(p + FRAME_HEAD + len, sw_crc32(p, FRAME_HEAD + len));
}

int swlog_append2(struct swlog_writer *w, uint16_t type, const void *fixed,
		  uint32_t fixed_len, const void *tail, uint32_t tail_len)
{
	uint32_t len = fixed_len + tail_len;
	if (len > SWLOG_MAX_RECORD || len < fixed_len)
		return -EMSGSIZE;
	size_t need = FRAME_HEAD + len + FRAME_TAIL;
	pthread_mutex_lock(&w->lock);
	int rc = w->error;
	if (!rc && w->used + need > WBUF_SIZE)
		rc = flush_locked(w);
	if (!rc && need > WBUF_SIZE) {
		/* A huge record goes straight to the file. */
		uint8_t *tmp = malloc(need);
		if (!tmp) {
			rc = -ENOMEM;
		} else {
			frame(tmp, type, fixed, fixed_len, tail, tail_len);
			rc = write_all(w->fd, tmp, need);
			if (rc) {
				w->error = rc;
				snprintf(w->errtext, sizeof(w->errtext),
					 "writing log %.200s: %s", w->path, strerror(-rc));
			}
			free(tmp);
		}
	} else if (!rc) {
		frame(w->buf + w->used, type, fixed, fixed_len, tail, tail_len);
		w->used += need;
	}
	if (!rc)
		w->records++;
	pthread_mutex_unlock(&w->lock);
	return rc;
}

int swlog_append(struct swlog_writer *w, uint16_t type, const void *payload,
		 uint32_t len)
{
	return swlog_append2(w, type, payload, len, NULL, 0);
}

int swlog_note(struct swlog_writer *w, enum sw_note_level level,
	       const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= sizeof(text))
		n = sizeof(text) - 1;
	struct sw_rec_note note = { .t_real_ns = sw_real_ns(),
				    .level = (uint32_t)level,
				    .len = (uint32_t)n };
	return swlog_append2(w, SW_REC_NOTE, &note, sizeof(note), text,
			     (uint32_t)n);
}

int swlog_flush(struct swlog_writer *w)
{
	pthread_mutex_lock(&w->lock);
	int rc = flush_locked(w);
	pthread_mutex_unlock(&w->lock);
	return rc;
}

int swlog_sync(struct swlog_writer *w)
{
	pthread_mutex_lock(&w->lock);
	int rc = flush_locked(w);
	if (!rc && fsync(w->fd) != 0) {
		rc = -errno;
		w->error = rc;
		snprintf(w->errtext, sizeof(w->errtext), "fsync of log %.200s: %s",
			 w->path, strerror(errno));
	}
	pthread_mutex_unlock(&w->lock);
	return rc;
}

int swlog_close(struct swlog_writer *w)
{
	if (!w)
		return 0;
	pthread_mutex_lock(&w->lock);
	w->stopping = 1;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	if (w->flusher_running)
		pthread_join(w->flusher, NULL);
	int rc = swlog_sync(w);
	if (close(w->fd) != 0 && !rc)
		rc = -errno;
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cond);
	free(w->buf);
	free(w);
	return rc;
}

const char *swlog_strerror(const struct swlog_writer *w)
{
	return w->errtext;
}

uint64_t swlog_records(const struct swlog_writer *w)
{
	return w->records;
}

/* ------------------------------------------------------------------ */
/* reader: the file is mapped read-only and walked in place; payloads are
 * copied to an aligned buffer (frames are only 4-byte aligned), and pages
 * already passed are dropped from this mapping so RSS stays bounded by
 * DROP_EVERY, not by the log's size.  Clones (swlog_reader_clone) share
 * the mapping: a frame one of them has checked is not checked again. */

#define DROP_EVERY (8u << 20)

struct swlog_map { /* one open file's mapping, shared by its clones */
	const uint8_t *map;    /* whole file, PROT_READ; NULL if empty */
	size_t size;           /* file size at open, bytes */
	size_t checked;        /* frames in [data start, checked) passed every
				  check of next_frame */
	int refs;              /* readers on it */
};

struct swlog_reader {
	struct swlog_map *m;   /* the mapping (shared with clones) */
	const uint8_t *map;    /* m->map */
	size_t size;           /* m->size */
	size_t data;           /* offset of the first frame */
	size_t off;            /* offset of the next frame */
	size_t dropped;        /* bytes [0, dropped) madvised away */
	uint64_t index;        /* next record number */
	int done;              /* a final status was returned */
	int status;            /* that status */
	char path[1024];
	unsigned version;      /* header version */
	enum swlog_kind kind;
	uint64_t run_id;
	char *meta;            /* NUL-terminated JSON */
	uint64_t *buf;         /* aligned payload copy */
	size_t cap;            /* bytes in buf */
	char errtext[SWLOG_ERRLEN];
};

static int open_fail(struct swlog_reader *r, int rc)
{
	swlog_reader_close(r);
	return rc;
}

int swlog_open(struct swlog_reader **out, const char *path,
	       char err[SWLOG_ERRLEN])
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(err, SWLOG_ERRLEN, "cannot open log %.200s: %s", path, strerror(e));
		return -e;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, SWLOG_ERRLEN, "log %.200s: expected a regular file, saw %s",
			 path, S_ISDIR(st.st_mode) ? "a directory" : "another file type");
		close(fd);
		return -EINVAL;
	}
	struct swlog_reader *r = calloc(1, sizeof(*r));
	if (!r || !(r->m = calloc(1, sizeof(*r->m)))) {
		free(r);
		close(fd);
		return -ENOMEM;
	}
	r->m->refs = 1;
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->size = r->m->size = (size_t)st.st_size;
	if (r->size > 0) {
		void *m = mmap(NULL, r->size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED) {
			int e = errno;
			snprintf(err, SWLOG_ERRLEN, "cannot map log %.200s: %s", path, strerror(e));
			close(fd);
			return open_fail(r, -e);
		}
		r->map = r->m->map = m;
		madvise(m, r->size, MADV_SEQUENTIAL);
	}
	close(fd);
	const uint8_t *h = r->map;
	if (r->size < HDR_FIXED) {
		snprintf(err, SWLOG_ERRLEN,
			 "log %.200s: expected a %u-byte stalewin header, saw %zu bytes",
			 path, HDR_FIXED, r->size);
		return open_fail(r, -EINVAL);
	}
	if (memcmp(h, SWLOG_MAGIC, 8) != 0) {
		snprintf(err, SWLOG_ERRLEN,
			 "log %.200s: expected magic \"STALEWIN\" at offset 0, saw other bytes (not a stalewin log)",
			 path);
		return open_fail(r, -EINVAL);
	}
	r->version = get_le16(h + 8);
	if (r->version != SWLOG_FORMAT_VERSION) {
		snprintf(err, SWLOG_ERRLEN,
			 "log %.200s: expected log format version %u, saw version %u",
			 path, SWLOG_FORMAT_VERSION, r->version);
		return open_fail(r, -EPROTONOSUPPORT);
	}
	uint32_t mlen = get_le32(h + 12);
	if (mlen > MAX_META) {
		snprintf(err, SWLOG_ERRLEN,
			 "log %.200s: expected metadata <= %u bytes, saw %u (damaged header)",
			 path, MAX_META, mlen);
		return open_fail(r, -EINVAL);
	}
	if (r->size < (size_t)HDR_FIXED + mlen + 4) {
		snprintf(err, SWLOG_ERRLEN,
			 "log %.200s: expected %u bytes of header metadata, saw a shorter file (torn header)",
			 path, mlen + 4);
		return open_fail(r, -EINVAL);
	}
	if (sw_crc32(h, HDR_FIXED + mlen) != get_le32(h + HDR_FIXED + mlen)) {
		snprintf(err, SWLOG_ERRLEN, "log %.200s: header crc mismatch (damaged header)",
			 path);
		return open_fail(r, -EINVAL);
	}
	r->meta = malloc(mlen + 1);
	r->cap = 4096;
	r->buf = malloc(r->cap);
	if (!r->meta || !r->buf)
		return open_fail(r, -ENOMEM);
	memcpy(r->meta, h + HDR_FIXED, mlen);
	r->meta[mlen] = 0;
	r->kind = (enum swlog_kind)get_le16(h + 10);
	r->run_id = get_le64(h + 16);
	r->off = r->data = r->m->checked = HDR_FIXED + mlen + 4;
	*out = r;
	return 0;
}

int swlog_reader_clone(struct swlog_reader **out, const struct swlog_reader *src)
{
	struct swlog_reader *r = calloc(1, sizeof(*r));
	size_t mlen = strlen(src->meta);

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->meta = malloc(mlen + 1);
	r->cap = 4096;
	r->buf = malloc(r->cap);
	if (!r->meta || !r->buf) {
		free(r->meta);
		free(r->buf);
		free(r);
		return -ENOMEM;
	}
	memcpy(r->meta, src->meta, mlen + 1);
	r->m = src->m;
	r->m->refs++;
	r->map = src->map;
	r->size = src->size;
	r->off = r->data = src->data;
	memcpy(r->path, src->path, sizeof(r->path));
	r->version = src->version;
	r->kind = src->kind;
	r->run_id = src->run_id;
	*out = r;
	return 0;
}

/* A bad frame at the tail is torn (the writer died mid-record); one with
 * more data after it than its own length is corruption. */
static int bad_record(struct swlog_reader *r, const char *what)
{
	size_t left = r->size - r->off;
	uint32_t len = left >= 4 ? get_le32(r->map + r->off) : 0;
	int torn = !(len <= SWLOG_MAX_RECORD &&
		     left > FRAME_HEAD + (size_t)len + FRAME_TAIL);
	snprintf(r->errtext, sizeof(r->errtext),
		 "log %.200s: record %llu at offset %zu: %s%s", r->path,
		 (unsigned long long)r->index, r->off, what,
		 torn ? " (torn tail: the writer stopped mid-record; records before it are good)"
		      : " (damaged log: data follows the bad record)");
	return torn ? SWLOG_TORN : SWLOG_CORRUPT;
}

/* The payload of a checked frame at r->off to the caller; next frame.
 * Inlined in both paths of next_frame: it runs for every record. */
static inline __attribute__((always_inline)) int
take_frame(struct swlog_reader *r, struct swlog_rec *rec, uint16_t type, uint32_t len)
{
	const uint8_t *p = r->map + r->off;
	if (len > r->cap) {
		uint64_t *nb = realloc(r->buf, len);
		if (!nb)
			return -ENOMEM;
		r->buf = nb;
		r->cap = len;
	}
	memcpy(r->buf, p + FRAME_HEAD, len);
	rec->type = type;
	rec->len = len;
	rec->payload = r->buf;
	rec->offset = r->off;
	rec->index = r->index++;
	r->off += FRAME_HEAD + len + FRAME_TAIL;
	if (r->off > r->m->checked)
		r->m->checked = r->off;
	if (r->off - r->dropped >= DROP_EVERY) {
		size_t upto = r->off & ~(size_t)(DROP_EVERY - 1);
		if (upto > r->dropped) {
			madvise((void *)(r->map + r->dropped), upto - r->dropped,
				MADV_DONTNEED);
			r->dropped = upto;
		}
	}
	return SWLOG_OK;
}

static int next_frame(struct swlog_reader *r, struct swlog_rec *rec)
{
	size_t left = r->size - r->off;
	char what[160];
	if (r->off < r->m->checked) /* a clone checked it already */
		return take_frame(r, rec, get_le16(r->map + r->off + 4),
				  get_le32(r->map + r->off));
	if (left == 0)
		return SWLOG_EOF;
	if (left < FRAME_HEAD) {
		snprintf(what, sizeof(what),
			 "expected an %u-byte frame header, saw %zu bytes", FRAME_HEAD, left);
		return bad_record(r, what);
	}
	const uint8_t *p = r->map + r->off;
	uint32_t len = get_le32(p);
	uint16_t type = get_le16(p + 4);
	if (len > SWLOG_MAX_RECORD || get_le16(p + 6) != 0) {
		snprintf(what, sizeof(what),
			 "expected a frame length <= %u and zero pad, saw length %u",
			 SWLOG_MAX_RECORD, len);
		return bad_record(r, what);
	}
	if (left < FRAME_HEAD + (size_t)len + FRAME_TAIL) {
		snprintf(what, sizeof(what),
			 "expected %u payload+crc bytes of a %s record, saw %zu",
			 len + FRAME_TAIL, swlog_type_name(type), left - FRAME_HEAD);
		return bad_record(r, what);
	}
	if (sw_crc32(p, FRAME_HEAD + len) != get_le32(p + FRAME_HEAD + len))
		return bad_record(r, "crc mismatch");
	uint32_t min = swlog_min_len(type);
	if (min && len < min) {
		snprintf(r->errtext, sizeof(r->errtext),
			 "log %.200s: record %llu at offset %zu: expected a %s payload of >= %u bytes, saw %u",
			 r->path, (unsigned long long)r->index, r->off,
			 swlog_type_name(type), min, len);
		return SWLOG_CORRUPT;
	}
	return take_frame(r, rec, type, len);
}

int swlog_next(struct swlog_reader *r, struct swlog_rec *rec)
{
	if (r->done)
		return r->status;
	int st = next_frame(r, rec);
	if (st != SWLOG_OK) {
		r->done = 1;
		r->status = st;
	}
	return st;
}

const char *swlog_reader_error(const struct swlog_reader *r) { return r->errtext; }
enum swlog_kind swlog_reader_kind(const struct swlog_reader *r) { return r->kind; }
unsigned swlog_reader_version(const struct swlog_reader *r) { return r->version; }
uint64_t swlog_reader_run_id(const struct swlog_reader *r) { return r->run_id; }
const char *swlog_reader_meta(const struct swlog_reader *r) { return r->meta; }
const char *swlog_reader_path(const struct swlog_reader *r) { return r->path; }

void swlog_reader_close(struct swlog_reader *r)
{
	if (!r)
		return;
	if (r->m && --r->m->refs == 0) {
		if (r->map)
			munmap((void *)r->map, r->size);
		free(r->m);
	}
	free(r->meta);
	free(r->buf);
	free(r);
}

uint32_t swlog_min_len(uint16_t type)
{
	switch (type) {
	case SW_REC_NOTE: return sizeof(struct sw_rec_note);
	case SW_REC_END: return sizeof(struct sw_rec_end);
	case SW_REC_STORE: return sizeof(struct sw_rec_store);
	case SW_REC_UPDATE: return sizeof(struct sw_rec_update);
	case SW_REC_CLEAN: return sizeof(struct sw_rec_clean);
	case SW_REC_SYNC: return sizeof(struct sw_rec_sync);
	case SW_REC_MUNMAP: return sizeof(struct sw_rec_munmap);
	case SW_REC_SETUP: return SW_REC_SETUP_V1_LEN;
	case SW_REC_ATTR: return sizeof(struct sw_rec_attr);
	case SW_REC_READ: return sizeof(struct sw_rec_read);
	case SW_REC_GAP: return sizeof(struct sw_rec_gap);
	case SW_REC_EVENT: return sizeof(struct sw_rec_event);
	case SW_REC_KREAD: return sizeof(struct sw_rec_kread);
	default: return 0;
	}
}

uint32_t swlog_record_bytes(uint16_t type)
{
	uint32_t n = swlog_min_len(type);
	return n ? FRAME_HEAD + n + FRAME_TAIL : 0;
}

const char *swlog_type_name(uint16_t type)
{
	switch (type) {
	case SW_REC_NOTE: return "NOTE";
	case SW_REC_END: return "END";
	case SW_REC_STORE: return "STORE";
	case SW_REC_UPDATE: return "UPDATE";
	case SW_REC_CLEAN: return "CLEAN";
	case SW_REC_SYNC: return "SYNC";
	case SW_REC_MUNMAP: return "MUNMAP";
	case SW_REC_SETUP: return "SETUP";
	case SW_REC_ATTR: return "ATTR";
	case SW_REC_READ: return "READ";
	case SW_REC_GAP: return "GAP";
	case SW_REC_EVENT: return "EVENT";
	case SW_REC_KREAD: return "KREAD";
	default: return "UNKNOWN";
	}
}

const char *swlog_kind_name(enum swlog_kind kind)
{
	switch (kind) {
	case SWLOG_KIND_WRITER: return "writer";
	case SWLOG_KIND_PROBE: return "probe";
	case SWLOG_KIND_READER: return "reader";
	default: return "unknown";
	}
}
