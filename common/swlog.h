/* SPDX-License-Identifier: MIT */
/*
 * swlog.h - stalewin's log file: a header, then framed records.
 *
 * File layout (all integers little-endian):
 *
 *   header:  char magic[8] = "STALEWIN"
 *            u16 version   (SWLOG_FORMAT_VERSION)
 *            u16 kind      (enum swlog_kind)
 *            u32 meta_len  (bytes of JSON metadata that follow)
 *            u64 run_id
 *            char meta[meta_len]   (JSON object: parameters, host, versions)
 *            u32 crc       (zlib crc32 of everything above)
 *   record:  u32 len       (payload bytes)
 *            u16 type      (enum sw_rec_type)
 *            u16 zero
 *            u8  payload[len]
 *            u32 crc       (crc32 of len, type, zero and payload)
 *
 * A record is either whole with a good crc, or it is the torn tail of a log
 * whose writer died mid-write (SWLOG_TORN: reported, never decoded), or the
 * file is damaged (SWLOG_CORRUPT: a bad record with more data after it).
 *
 * The writer side buffers records and write(2)s them at least every
 * flush interval (default 100 ms, a background thread does it even when no
 * record arrives), so a crash loses at most that much.  All functions return
 * 0 or a negative errno and never exit; the error text is in err.
 */
#ifndef STALEWIN_SWLOG_H
#define STALEWIN_SWLOG_H

#include <stddef.h>
#include <stdint.h>
#include "records.h"

#define SWLOG_MAGIC "STALEWIN"
#define SWLOG_MAX_RECORD (1u << 20) /* payload bytes; larger is corrupt */
#define SWLOG_ERRLEN 512

struct swlog_writer;

/* Create (O_EXCL unless overwrite) and write the header.  meta_json may be
 * NULL ("{}").  flush_ms 0 means the default 100 ms; the flusher thread is
 * started here and stopped by swlog_close(). */
int swlog_create(struct swlog_writer **out, const char *path, int overwrite,
		 enum swlog_kind kind, uint64_t run_id, const char *meta_json,
		 unsigned flush_ms, char err[SWLOG_ERRLEN]);

/* Append one record (thread-safe, buffered).  Once a write has failed
 * (ENOSPC, EIO...) every call returns that error: the caller stops the run;
 * everything appended before the failing flush is on disk. */
int swlog_append(struct swlog_writer *w, uint16_t type, const void *payload,
		 uint32_t len);
/* Append a record made of a fixed part and a text tail (NOTE, EVENT). */
int swlog_append2(struct swlog_writer *w, uint16_t type, const void *fixed,
		  uint32_t fixed_len, const void *tail, uint32_t tail_len);
int swlog_note(struct swlog_writer *w, enum sw_note_level level,
	       const char *fmt, ...) __attribute__((format(printf, 3, 4)));

int swlog_flush(struct swlog_writer *w); /* write(2) what is buffered */
int swlog_sync(struct swlog_writer *w);  /* flush + fsync */
/* Flush, fsync, stop the flusher, close, free.  Returns the first error the
 * log ever saw (so a caller learns that a flush failed) or 0. */
int swlog_close(struct swlog_writer *w);
/* Text of the last error of this writer ("" if none). */
const char *swlog_strerror(const struct swlog_writer *w);
uint64_t swlog_records(const struct swlog_writer *w); /* appended so far */

/* ------------------------------------------------------------------ */

enum swlog_status {
	SWLOG_OK = 0,      /* a record was returned */
	SWLOG_EOF = 1,     /* clean end of file */
	SWLOG_TORN = 2,    /* incomplete or bad last record: the tail of a
			      writer that died; everything before is good */
	SWLOG_CORRUPT = 3, /* a bad record with data after it */
};

struct swlog_rec {
	uint16_t type;       /* enum sw_rec_type */
	uint32_t len;        /* payload bytes */
	const void *payload; /* valid until the next swlog_next() */
	uint64_t offset;     /* file offset of the record's frame */
	uint64_t index;      /* 0-based record number */
};

struct swlog_reader;

int swlog_open(struct swlog_reader **out, const char *path,
	       char err[SWLOG_ERRLEN]);
/* A second reader of the same open log, from its first record: it shares
 * src's mapping (no second open) and skips the checks of the frames src or
 * another clone already checked.  Close each with swlog_reader_close; the
 * mapping goes with the last.  Not thread-safe: one thread per log. */
int swlog_reader_clone(struct swlog_reader **out, const struct swlog_reader *src);
/* Returns enum swlog_status (>= 0) or a negative errno on a read error.
 * For TORN/CORRUPT the reason (offset, record number, what was expected and
 * what was seen) is in swlog_reader_error(). */
int swlog_next(struct swlog_reader *r, struct swlog_rec *rec);
const char *swlog_reader_error(const struct swlog_reader *r);
enum swlog_kind swlog_reader_kind(const struct swlog_reader *r);
unsigned swlog_reader_version(const struct swlog_reader *r);
uint64_t swlog_reader_run_id(const struct swlog_reader *r);
const char *swlog_reader_meta(const struct swlog_reader *r); /* JSON, NUL-terminated */
const char *swlog_reader_path(const struct swlog_reader *r);
void swlog_reader_close(struct swlog_reader *r);

/* Minimum payload size for a known record type (0 if unknown type). */
uint32_t swlog_min_len(uint16_t type);
/* Bytes a record of that type takes in the file at its minimum payload
 * (frame included), 0 if unknown: what a log grows by per record. */
uint32_t swlog_record_bytes(uint16_t type);
const char *swlog_type_name(uint16_t type);
const char *swlog_kind_name(enum swlog_kind kind);

#endif
