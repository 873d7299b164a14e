/* SPDX-License-Identifier: MIT */
/* probe_int.h - shared between target.c (requests, replies) and
 * conn.c (connect, look-up, teardown, timers).  Include after the
 * libnfs headers. */
#ifndef STALEWIN_PROBE_INT_H
#define STALEWIN_PROBE_INT_H

#include "probe.h"

#define BACKOFF_MIN_NS (20 * SW_NS_PER_MS)

enum req_kind { RQ_ATTR, RQ_READ, RQ_VERIFY3, RQ_LOOKUP4 };

struct probe_req {
	struct probe_req *prev, *next; /* in flight list (send order) / free list */
	struct probe_target *t;
	enum req_kind kind;
	uint64_t seq;           /* request number (ATTR, READ) */
	uint64_t page;          /* READ: page index */
	uint64_t fh_gen;        /* handle generation the request used */
	int64_t t_send_real_ns; /* just before it was queued */
	int64_t t_send_mono_ns;
};

/* libnfs 4.0's private struct nfs_fh (lib/libnfs-private.h); see probe.h
 * for how the copy is verified. */
struct libnfs40_fh_mirror {
	int len;
	char *val;
};

struct probe_req *probe_req_get(struct probe_target *t, enum req_kind k);
void probe_req_put(struct probe_req *r);
void probe_hexfh(const struct probe_target *t, char *out, size_t n);
void probe_server_answered(struct probe_target *t, int64_t real, int64_t mono);
int probe_cancel_status(const struct probe_target *t, const struct probe_req *r);
void probe_target_log_attr(struct probe_target *t, struct probe_req *r, int status,
	      const struct sw_attrs *a, int64_t rr, int64_t rm);
void probe_target_log_read(struct probe_target *t, struct probe_req *r, int status,
	      const struct sw_attrs *a, const void *buf, unsigned len,
	      int64_t rr, int64_t rm);
int probe_rpc_status_err(int status);
int probe_is_stale4(int s);
int probe_decode_getattr4(const nfs_resop4 *op, struct sw_attrs *a, uint32_t *type,
		    char *err, size_t n);
void probe_start_lookup(struct probe_target *t);
void probe_resop_at(const COMPOUND4res *res, unsigned i, nfs_resop4 *out);

#endif
