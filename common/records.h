/* SPDX-License-Identifier: MIT */
/*
 * records.h - the record layouts of stalewin's logs (format version 1).
 *
 * Every log (writer ground truth, probe observations, kernel-mount reader)
 * is a swlog file (see swlog.h for the framing).  Each record carries one of
 * the payloads below.  All fields are little-endian, fixed width, naturally
 * aligned; sizes are pinned by _Static_assert so a layout change cannot slip
 * in without a version bump.  A reader accepts a payload longer than the
 * struct it knows (fields are only ever appended) and rejects a shorter one.
 *
 * Clocks: *_real_ns is CLOCK_REALTIME of the host that logged the record,
 * *_mono_ns is CLOCK_MONOTONIC of that host (intervals only).  Across hosts
 * the probe side's clock offset estimate (clock.json of a run folder) maps
 * one realtime onto the other.
 */
#ifndef STALEWIN_RECORDS_H
#define STALEWIN_RECORDS_H

#include <stdint.h>

#define SWLOG_FORMAT_VERSION 1u

enum swlog_kind {
	SWLOG_KIND_WRITER = 1, /* stalewin-writer: ground truth */
	SWLOG_KIND_PROBE = 2,  /* stalewin-probe: libnfs observations */
	SWLOG_KIND_READER = 3, /* stalewin-reader: reads through a kernel NFS mount */
};

enum sw_rec_type {
	/* any kind */
	SW_REC_NOTE = 1, /* struct sw_rec_note + text */
	SW_REC_END = 2,  /* struct sw_rec_end: last record of a complete log */

	/* writer */
	SW_REC_STORE = 16,  /* struct sw_rec_store */
	SW_REC_UPDATE = 17, /* struct sw_rec_update */
	SW_REC_CLEAN = 18,  /* struct sw_rec_clean */
	SW_REC_SYNC = 19,   /* struct sw_rec_sync: msync / fsync call */
	SW_REC_MUNMAP = 20, /* struct sw_rec_munmap */
	SW_REC_SETUP = 21,  /* struct sw_rec_setup: the file's times after
			       the writer's set-up, before any store */

	/* probe */
	SW_REC_ATTR = 32,  /* struct sw_rec_attr: one GETATTR reply (or failure) */
	SW_REC_READ = 33,  /* struct sw_rec_read: one READ of a stamped page */
	SW_REC_GAP = 34,   /* struct sw_rec_gap: server unreachable, start+end */
	SW_REC_EVENT = 35, /* struct sw_rec_event + text */

	/* reader (kernel NFS mount) */
	SW_REC_KREAD = 48, /* struct sw_rec_kread */
};

#define SW_NO_PAGE UINT64_MAX

/* Written at offset 0 of a page by every store of the writer. */
#define SW_STAMP_MAGIC 0x504d415453574c53ull /* "SLWSTAMP" little-endian */
struct sw_stamp {
	uint64_t magic;    /* SW_STAMP_MAGIC */
	uint64_t run_id;   /* writer's run id */
	uint64_t page;     /* page index within the file */
	uint64_t gen;      /* generation: 1 for the first store to the page */
	int64_t t_real_ns; /* writer CLOCK_REALTIME just before the store */
	uint64_t check;    /* magic ^ run_id ^ page ^ gen ^ t_real_ns */
};
_Static_assert(sizeof(struct sw_stamp) == 48, "sw_stamp layout");

static inline uint64_t sw_stamp_check(const struct sw_stamp *s)
{
	return s->magic ^ s->run_id ^ s->page ^ s->gen ^ (uint64_t)s->t_real_ns;
}

/* ------------------------------------------------------------------ */
/* any kind                                                           */

enum sw_note_level { SW_NOTE_INFO = 0, SW_NOTE_WARN = 1, SW_NOTE_ERROR = 2 };

struct sw_rec_note {
	int64_t t_real_ns; /* when it was logged */
	uint32_t level;    /* enum sw_note_level */
	uint32_t len;      /* bytes of text that follow (no NUL) */
	/* char text[len]; */
};
_Static_assert(sizeof(struct sw_rec_note) == 16, "sw_rec_note layout");

enum sw_end_reason {
	SW_END_DONE = 1,   /* ran to its planned end */
	SW_END_SIGNAL = 2, /* SIGINT/SIGTERM or a stop request */
	SW_END_ERROR = 3,  /* stopped by an error; `err` holds errno */
};

struct sw_rec_end {
	int64_t t_real_ns; /* when the run ended */
	int64_t t_mono_ns;
	uint64_t count_a;  /* writer: stores; probe: replies; reader: reads */
	uint64_t count_b;  /* writer: timestamp updates; probe: errors */
	uint64_t count_c;  /* writer: traps; probe: gaps */
	uint32_t reason;   /* enum sw_end_reason */
	int32_t err;       /* errno for SW_END_ERROR, else 0 */
};
_Static_assert(sizeof(struct sw_rec_end) == 48, "sw_rec_end layout");

/* ------------------------------------------------------------------ */
/* writer                                                             */

#define SW_STORE_TRAPPED 0x1u /* hit a clean page: trapped (emulated) or
				 faulted again (native) */
#define SW_STORE_UPDATED 0x2u /* the policy updated the times in this trap */

struct sw_rec_store {
	uint64_t page;            /* page index within the file */
	uint64_t gen;             /* generation written into the stamp */
	int64_t t_before_real_ns; /* just before the store instruction */
	int64_t t_before_mono_ns;
	int64_t t_after_real_ns;  /* just after: the data is visible (t_s) */
	int64_t t_after_mono_ns;
	int64_t trap_ns;          /* time spent in the trap, 0 if none */
	uint32_t flags;           /* SW_STORE_* */
	uint32_t upd_seq;         /* SW_STORE_UPDATED: low 32 bits of the 1-based
				     number of the UPDATE its own trap made (the
				     UPDATE records before it in the log); 0 in
				     logs written before this field */
};
_Static_assert(sizeof(struct sw_rec_store) == 64, "sw_rec_store layout");

enum sw_cause {
	SW_CAUSE_TRAP = 1,        /* first store to a clean page */
	SW_CAUSE_KUPDATE = 2,     /* periodic writeback (expire interval) */
	SW_CAUSE_BACKGROUND = 3,  /* dirty bytes over the background limit */
	SW_CAUSE_MSYNC_ASYNC = 4, /* msync(MS_ASYNC) */
	SW_CAUSE_MSYNC_SYNC = 5,  /* msync(MS_SYNC) */
	SW_CAUSE_FSYNC = 6,       /* fsync() */
	SW_CAUSE_MUNMAP = 7,      /* munmap / exit */
	SW_CAUSE_NATIVE = 8,      /* native: the kernel changed the times; seen
				     by fstat after a store */
};

struct sw_rec_update {
	int64_t t_real_ns;      /* just before the update (futimens) call; in
				   native mode, the store's t_before */
	int64_t t_mono_ns;
	int64_t t_done_real_ns; /* after it returned (native: fstat time) */
	int64_t cost_ns;        /* duration of the update call, mono */
	int64_t mtime_ns;       /* st_mtim read back by fstat right after */
	int64_t ctime_ns;       /* st_ctim read back by fstat right after */
	uint64_t page;          /* page whose trap caused it, or SW_NO_PAGE */
	uint32_t cause;         /* enum sw_cause */
	uint32_t reserved;      /* 0 */
};
_Static_assert(sizeof(struct sw_rec_update) == 64, "sw_rec_update layout");

struct sw_rec_clean {
	int64_t t_real_ns; /* start of the cleaning pass */
	int64_t t_mono_ns;
	int64_t dur_ns;    /* duration of the pass, mono */
	uint64_t pages;    /* pages cleaned (write-protected again) */
	uint32_t cause;    /* enum sw_cause (KUPDATE, BACKGROUND, MSYNC_*, FSYNC) */
	uint32_t reserved; /* 0 */
};
_Static_assert(sizeof(struct sw_rec_clean) == 40, "sw_rec_clean layout");

struct sw_rec_sync {
	int64_t t_real_ns; /* before the call */
	int64_t t_mono_ns;
	int64_t dur_ns;    /* duration of the call, mono */
	uint32_t cause;    /* SW_CAUSE_MSYNC_ASYNC, _MSYNC_SYNC or _FSYNC */
	int32_t rc;        /* 0, or -errno */
};
_Static_assert(sizeof(struct sw_rec_sync) == 32, "sw_rec_sync layout");

struct sw_rec_munmap {
	int64_t t_real_ns; /* before munmap */
	int64_t t_mono_ns;
	int64_t dur_ns;    /* duration, mono */
	uint64_t dirty_pages; /* pages dirty at munmap */
};
_Static_assert(sizeof(struct sw_rec_munmap) == 32, "sw_rec_munmap layout");

/* The writer's own set-up (extending, fallocate and the populating mapping
 * of server/setup.c) changes the file's times before the first store: not a
 * policy's update (no UPDATE record, counted nowhere), but a change a
 * client that looked at the file before it will find (traced in the VM:
 * a v3 reader's first revalidation).  Logged once, after the set-up. */
struct sw_rec_setup {
	int64_t t_real_ns;      /* before the first set-up call that may change
				   the file's times */
	int64_t t_mono_ns;
	int64_t t_done_real_ns; /* after the last one (the change is in
				   [t_real_ns, t_done_real_ns]) */
	int64_t mtime_before_ns; /* st_mtim at the writer's open, before it */
	int64_t ctime_before_ns; /* st_ctim then */
	int64_t mtime_ns;       /* st_mtim read back by fstat after it */
	int64_t ctime_ns;       /* st_ctim read back by fstat after it */
	uint64_t size;          /* st_size after it, bytes */
	int64_t atime_before_ns; /* st_atim at the writer's open: newer than
				   ctime_before_ns when a reader read the
				   file since (relatime); 0 in logs written
				   before 5 Dec 2026, whose SETUP payload
				   ends at size (SW_REC_SETUP_V1_LEN) */
};
_Static_assert(sizeof(struct sw_rec_setup) == 72, "sw_rec_setup layout");
#define SW_REC_SETUP_V1_LEN 64u

/* A SETUP payload of len bytes into *u (a shorter, older one with the
 * fields it lacks zero). */
static inline void sw_rec_setup_get(struct sw_rec_setup *u, const void *payload, uint32_t len)
{
	const unsigned char *p = payload;
	unsigned char *d = (unsigned char *)u;
	for (uint32_t i = 0; i < sizeof(*u); i++)
		d[i] = i < len ? p[i] : 0;
}

/* ------------------------------------------------------------------ */
/* probe                                                              */

#define SW_ATTR_SIZE 0x1u   /* size valid */
#define SW_ATTR_MTIME 0x2u  /* mtime_ns valid */
#define SW_ATTR_CTIME 0x4u  /* ctime_ns valid */
#define SW_ATTR_CHANGE 0x8u /* change valid (NFSv4 change attribute) */
#define SW_ATTR_FILEID 0x10u

struct sw_attrs {
	int64_t mtime_ns; /* server's mtime, ns since the epoch */
	int64_t ctime_ns; /* server's ctime, ns since the epoch */
	uint64_t size;    /* bytes */
	uint64_t change;  /* NFSv4 change attribute, 0 when not valid */
	uint64_t fileid;  /* inode number as the server reports it */
	uint32_t valid;   /* SW_ATTR_* */
	uint32_t reserved;
};
_Static_assert(sizeof(struct sw_attrs) == 48, "sw_attrs layout");

struct sw_rec_attr {
	uint64_t seq;            /* probe request number, per target */
	int64_t t_send_real_ns;  /* just before the request was queued */
	int64_t t_send_mono_ns;
	int64_t t_recv_real_ns;  /* when the reply was decoded */
	int64_t t_recv_mono_ns;
	struct sw_attrs attrs;   /* valid only when status == 0 */
	int32_t status;          /* 0; >0 NFS status (NFS3ERR_*, NFS4ERR_*);
				    <0 -errno of the RPC / transport */
	uint16_t target;         /* index of the target (URL) in the probe */
	uint8_t vers;            /* NFS version: 3 or 4 */
	uint8_t reserved;
};
_Static_assert(sizeof(struct sw_rec_attr) == 96, "sw_rec_attr layout");

#define SW_READ_TORN 0x1u     /* stamp's check did not match */
#define SW_READ_NOSTAMP 0x2u  /* no stamp magic: page never written */
#define SW_READ_OTHERRUN 0x4u /* stamp from another run id */

struct sw_rec_read {
	uint64_t seq;           /* probe request number */
	int64_t t_send_real_ns;
	int64_t t_send_mono_ns;
	int64_t t_recv_real_ns;
	int64_t t_recv_mono_ns;
	struct sw_attrs attrs;  /* attributes returned with the data */
	uint64_t page;          /* page read */
	uint64_t gen;           /* stamp generation seen (0: none) */
	int64_t stamp_real_ns;  /* stamp's writer time */
	int32_t status;         /* as in sw_rec_attr */
	uint32_t flags;         /* SW_READ_* */
	uint16_t target;
	uint8_t vers;
	uint8_t reserved[5];
};
_Static_assert(sizeof(struct sw_rec_read) == 128, "sw_rec_read layout");

struct sw_rec_gap {
	int64_t t_start_real_ns; /* last good reply (or first failure) */
	int64_t t_start_mono_ns;
	int64_t t_end_real_ns;   /* first good reply after the gap */
	int64_t t_end_mono_ns;
	int32_t err;             /* status that opened the gap */
	uint16_t target;
	uint16_t reserved;
};
_Static_assert(sizeof(struct sw_rec_gap) == 40, "sw_rec_gap layout");

enum sw_event_kind {
	SW_EV_GAP_START = 1, /* server stopped answering (gap record follows) */
	SW_EV_RECONNECT = 2, /* a new connection / context */
	SW_EV_ESTALE = 3,    /* file handle stale */
	SW_EV_RELOOKUP = 4,  /* handle looked up again */
	SW_EV_TIMEOUT = 5,   /* a request timed out */
	SW_EV_OFFSET = 6,    /* clock offset estimate: text is JSON */
};

struct sw_rec_event {
	int64_t t_real_ns;
	int64_t t_mono_ns;
	uint32_t kind;     /* enum sw_event_kind */
	int32_t err;       /* status / -errno, 0 if none */
	uint16_t target;
	uint16_t reserved;
	uint32_t len;      /* bytes of text that follow */
	/* char text[len]; */
};
_Static_assert(sizeof(struct sw_rec_event) == 32, "sw_rec_event layout");

/* ------------------------------------------------------------------ */
/* reader (kernel NFS mount)                                          */

enum sw_kread_mode {
	SW_KREAD_KEPT_OPEN = 1, /* pread on an fd kept open */
	SW_KREAD_CTO = 2,       /* open/read/close each time (close-to-open) */
};

struct sw_rec_kread {
	int64_t t_before_real_ns; /* before open/pread */
	int64_t t_before_mono_ns;
	int64_t t_after_real_ns;  /* after the read returned */
	int64_t t_after_mono_ns;
	uint64_t page;
	uint64_t gen;             /* stamp generation read (0: none) */
	int64_t stamp_real_ns;
	uint32_t mode;            /* enum sw_kread_mode */
	int32_t err;              /* 0 or -errno */
	uint32_t flags;           /* SW_READ_* */
	uint32_t reserved;
};
_Static_assert(sizeof(struct sw_rec_kread) == 72, "sw_rec_kread layout");

#endif
