/* SPDX-License-Identifier: MIT */
/*
 * target.c - one probe target: its libnfs context, mount, file handle,
 * GETATTR/READ requests and replies, failures and reconnects (see probe.h).
 *
 * Rule: nothing here destroys a libnfs context from inside one of its
 * callbacks.  A callback that sees the connection fail calls probe_target_fail(),
 * which only records the wish; the event loop calls probe_target_teardown() after
 * rpc_service() has returned.
 */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-nfs.h>
#include <nfsc/libnfs-raw-nfs4.h>

#include "fattr4.h"
#include "probe_int.h"
#include "swtime.h"

#define STAMP_BYTES ((unsigned)sizeof(struct sw_stamp))

struct probe_req *probe_req_get(struct probe_target *t, enum req_kind k)
{
	struct probe_req *r = t->free;
	if (r)
		t->free = r->next;
	else if (!(r = calloc(1, sizeof(*r))))
		return NULL;
	memset(r, 0, sizeof(*r));
	r->t = t;
	r->kind = k;
	r->fh_gen = t->fh_gen;
	r->prev = t->tail;
	if (t->tail)
		t->tail->next = r;
	else
		t->head = r;
	t->tail = r;
	t->inflight++;
	if (k == RQ_ATTR)
		t->inflight_attr++;
	r->t_send_real_ns = sw_real_ns();
	r->t_send_mono_ns = sw_mono_ns();
	return r;
}

void probe_req_put(struct probe_req *r)
{
	struct probe_target *t = r->t;
	if (r->prev)
		r->prev->next = r->next;
	else
		t->head = r->next;
	if (r->next)
		r->next->prev = r->prev;
	else
		t->tail = r->prev;
	t->inflight--;
	if (r->kind == RQ_ATTR)
		t->inflight_attr--;
	r->next = t->free;
	t->free = r;
}

int probe_target_init(struct probe *p, struct probe_target *t, unsigned idx)
{
	memset(t, 0, sizeof(*t));
	t->idx = idx;
	t->p = p;
	t->u = &p->o->url[idx];
	t->backoff_ns = BACKOFF_MIN_NS;
	t->rtt_win = malloc(sizeof(*t->rtt_win));
	t->rtt_all = malloc(sizeof(*t->rtt_all));
	if (!t->rtt_win || !t->rtt_all)
		return -ENOMEM;
	sw_hist_init(t->rtt_win);
	sw_hist_init(t->rtt_all);
	return 0;
}

void probe_target_free(struct probe_target *t)
{
	struct probe_req *r;
	probe_target_teardown(t, -ECANCELED);
	while ((r = t->free)) {
		t->free = r->next;
		free(r);
	}
	free(t->rtt_win);
	free(t->rtt_all);
}

int64_t probe_target_oldest_send_mono(const struct probe_target *t)
{
	return t->head ? t->head->t_send_mono_ns : 0;
}

void probe_hexfh(const struct probe_target *t, char *out, size_t n)
{
	size_t o = 0;
	for (unsigned i = 0; i < t->fh_len && o + 3 < n; i++)
		o += (size_t)snprintf(out + o, n - o, "%02x", t->fh[i]);
	out[o] = 0;
}

/* The server answered (any RPC-level success): close an open gap. */
void probe_server_answered(struct probe_target *t, int64_t real, int64_t mono)
{
	if (t->in_gap) {
		t->gap.t_end_real_ns = real;
		t->gap.t_end_mono_ns = mono;
		probe_log_gap(t->p, &t->gap);
		t->in_gap = 0;
		t->gaps++;
	}
	t->t_last_good_real_ns = real;
	t->t_last_good_mono_ns = mono;
}

void probe_target_fail(struct probe_target *t, int err, const char *fmt, ...)
{
	va_list ap;
	if (t->tearing || t->want_teardown)
		return;
	t->want_teardown = err ? err : -EIO;
	va_start(ap, fmt);
	vsnprintf(t->why, sizeof(t->why), fmt, ap);
	va_end(ap);
	snprintf(t->last_err, sizeof(t->last_err), "%s", t->why);
	if (t->ever_ready && !t->in_gap) {
		int64_t now_r = sw_real_ns(), now_m = sw_mono_ns();
		t->in_gap = 1;
		memset(&t->gap, 0, sizeof(t->gap));
		t->gap.target = (uint16_t)t->idx;
		t->gap.err = t->want_teardown;
		t->gap.t_start_real_ns = t->t_last_good_real_ns ? t->t_last_good_real_ns : now_r;
		t->gap.t_start_mono_ns = t->t_last_good_mono_ns ? t->t_last_good_mono_ns : now_m;
		probe_log_event(t->p, t->idx, SW_EV_GAP_START, t->want_teardown, "%s", t->why);
	}
}

/* Status of a request that ends because we cancel it. */
int probe_cancel_status(const struct probe_target *t, const struct probe_req *r)
{
	int64_t age = sw_mono_ns() - r->t_send_mono_ns;
	if (age > (int64_t)t->p->o->timeout_ms * SW_NS_PER_MS)
		return -ETIMEDOUT;
	if (t->teardown_err == -ETIMEDOUT)
		return -ECANCELED;
	return t->teardown_err ? t->teardown_err : -ECANCELED;
}

void probe_target_log_attr(struct probe_target *t, struct probe_req *r, int status,
		     const struct sw_attrs *a, int64_t rr, int64_t rm)
{
	struct sw_rec_attr rec = {
		.seq = r->seq,
		.t_send_real_ns = r->t_send_real_ns,
		.t_send_mono_ns = r->t_send_mono_ns,
		.t_recv_real_ns = rr,
		.t_recv_mono_ns = rm,
		.status = status,
		.target = (uint16_t)t->idx,
		.vers = (uint8_t)t->u->version,
	};
	if (a && status == 0)
		rec.attrs = *a;
	probe_log_attr(t->p, &rec);
	if (status == 0) {
		t->replies++;
		t->win_replies++;
		sw_hist_add(t->rtt_win, rm - r->t_send_mono_ns);
		sw_hist_add(t->rtt_all, rm - r->t_send_mono_ns);
		if (t->have_last && (a->mtime_ns != t->last_attrs.mtime_ns ||
				     a->ctime_ns != t->last_attrs.ctime_ns ||
				     a->size != t->last_attrs.size ||
				     a->change != t->last_attrs.change))
			t->t_last_change_real_ns = rr;
		t->last_attrs = *a;
		t->have_last = 1;
	} else {
		t->errors++;
	}
}

static void attrs_from_fattr3(const fattr3 *f, struct sw_attrs *a)
{
	memset(a, 0, sizeof(*a));
	a->mtime_ns = (int64_t)f->mtime.seconds * SW_NS_PER_S + f->mtime.nseconds;
	a->ctime_ns = (int64_t)f->ctime.seconds * SW_NS_PER_S + f->ctime.nseconds;
	a->size = f->size;
	a->fileid = f->fileid;
	a->valid = SW_ATTR_SIZE | SW_ATTR_MTIME | SW_ATTR_CTIME | SW_ATTR_FILEID;
}

int probe_rpc_status_err(int status)
{
	return status == RPC_STATUS_TIMEOUT ? -ETIMEDOUT : -ECONNRESET;
}


/* An NFS-level ESTALE for the current handle: log, look up again. */
static void saw_stale(struct probe_target *t, struct probe_req *r, int status)
{
	if (t->state != TS_READY || r->fh_gen != t->fh_gen)
		return;
	char hex[2 * PROBE_FH_MAX + 1];
	probe_hexfh(t, hex, sizeof(hex));
	probe_log_event(t->p, t->idx, SW_EV_ESTALE, status,
		   "file handle %s (fileid %llu) of %s is stale: looking it up again",
		   hex, (unsigned long long)t->fileid, t->u->path);
	t->relookup = 1;
	probe_start_lookup(t);
}

/* ------------------------------------------------------------------ */
/* replies                                                             */

int probe_is_stale4(int s) { return s == NFS4ERR_STALE || s == NFS4ERR_FHEXPIRED; }

/* A request that got no reply (cancelled at teardown, or the RPC failed):
 * log its record with that status; a failure also fails the target.
 * Returns 0 when there is a reply to decode. */
static int unanswered(struct probe_target *t, struct probe_req *r, int status,
		      void *data, const char *what, int64_t rr, int64_t rm)
{
	int cancelled = status == RPC_STATUS_CANCEL || t->tearing;
	int s;
	if (status == RPC_STATUS_SUCCESS)
		return 0;
	s = cancelled ? probe_cancel_status(t, r) : probe_rpc_status_err(status);
	if (r->kind == RQ_ATTR)
		probe_target_log_attr(t, r, s, NULL, rr, rm);
	else
		probe_target_log_read(t, r, s, NULL, NULL, 0, rr, rm);
	if (!cancelled)
		probe_target_fail(t, s, "%s failed: %s", what,
			    data ? (const char *)data : "rpc error");
	return 1;
}

static void attr3_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	struct probe_req *r = priv;
	struct probe_target *t = r->t;
	int64_t rr = sw_real_ns(), rm = sw_mono_ns();
	(void)rpc;
	if (!unanswered(t, r, status, data, "GETATTR", rr, rm)) {
		GETATTR3res *res = data;
		struct sw_attrs a;
		probe_server_answered(t, rr, rm);
		if (res->status == NFS3_OK) {
			attrs_from_fattr3(&res->GETATTR3res_u.resok.obj_attributes, &a);
			probe_target_log_attr(t, r, 0, &a, rr, rm);
		} else {
			probe_target_log_attr(t, r, (int)res->status, NULL, rr, rm);
			if (res->status == NFS3ERR_STALE)
				saw_stale(t, r, (int)res->status);
		}
	}
	probe_req_put(r);
}

/* libnfs' zdr decoder packs results at 4-byte alignment: copy a result out
 * before touching its 8-byte-aligned members (UBSan: misaligned access). */
void probe_resop_at(const COMPOUND4res *res, unsigned i, nfs_resop4 *out)
{
	const char *base = (const char *)res->resarray.resarray_val;
	memcpy(out, base + (size_t)i * sizeof(nfs_resop4), sizeof(*out));
}

int probe_decode_getattr4(const nfs_resop4 *op, struct sw_attrs *a,
			   uint32_t *type, char *err, size_t n)
{
	const fattr4 *f;
	if (op->resop != OP_GETATTR) {
		snprintf(err, n, "expected a GETATTR result, saw op %d", (int)op->resop);
		return -EPROTO;
	}
	if (op->nfs_resop4_u.opgetattr.status != NFS4_OK)
		return (int)op->nfs_resop4_u.opgetattr.status;
	f = &op->nfs_resop4_u.opgetattr.GETATTR4res_u.resok4.obj_attributes;
#ifdef SW_DUMP_FATTR4 /* debug build: print the raw fattr4 (test vectors) */
	{
		uint32_t w[4] = { 0 };
		memcpy(w, f->attrmask.bitmap4_val, 4 * (f->attrmask.bitmap4_len < 4 ? f->attrmask.bitmap4_len : 4));
		fprintf(stderr, "fattr4 mask %u words 0x%08x 0x%08x vals", f->attrmask.bitmap4_len, w[0], w[1]);
		for (u_int i = 0; i < f->attr_vals.attrlist4_len; i++)
			fprintf(stderr, " %02x", (unsigned char)f->attr_vals.attrlist4_val[i]);
		fputc('\n', stderr);
	}
#endif
	return sw_fattr4_decode(f->attrmask.bitmap4_val, f->attrmask.bitmap4_len,
				f->attr_vals.attrlist4_val, f->attr_vals.attrlist4_len,
				a, type, err, n);
}

static void attr4_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	struct probe_req *r = priv;
	struct probe_target *t = r->t;
	int64_t rr = sw_real_ns(), rm = sw_mono_ns();
	char err[256];
	(void)rpc;
	if (!unanswered(t, r, status, data, "COMPOUND(PUTFH,GETATTR)", rr, rm)) {
		COMPOUND4res *res = data;
		struct sw_attrs a;
		probe_server_answered(t, rr, rm);
		if (res->status != NFS4_OK || res->resarray.resarray_len < 2) {
			int s = res->status != NFS4_OK ? (int)res->status : -EPROTO;
			probe_target_log_attr(t, r, s, NULL, rr, rm);
			if (probe_is_stale4(s))
				saw_stale(t, r, s);
		} else {
			nfs_resop4 op;
			probe_resop_at(res, 1, &op);
			int rc = probe_decode_getattr4(&op, &a, NULL, err, sizeof(err));
			probe_target_log_attr(t, r, rc, &a, rr, rm);
			if (rc < 0 && !t->p->log_err)
				swlog_note(t->p->log, SW_NOTE_WARN,
					   "target %u: undecodable GETATTR reply: %s",
					   t->idx, err);
		}
	}
	probe_req_put(r);
}

void probe_target_log_read(struct probe_target *t, struct probe_req *r, int status,
		     const struct sw_attrs *a, const void *buf, unsigned len,
		     int64_t rr, int64_t rm)
{
	struct sw_rec_read rec = {
		.seq = r->seq,
		.t_send_real_ns = r->t_send_real_ns,
		.t_send_mono_ns = r->t_send_mono_ns,
		.t_recv_real_ns = rr,
		.t_recv_mono_ns = rm,
		.page = r->page,
		.status = status,
		.target = (uint16_t)t->idx,
		.vers = (uint8_t)t->u->version,
	};
	if (a)
		rec.attrs = *a;
	if (status == 0)
		probe_decode_stamp(buf, len, r->page, t->p->o->writer_run_id, &rec);
	else
		t->errors++;
	probe_log_read(t->p, &rec);
}

static void read3_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	struct probe_req *r = priv;
	struct probe_target *t = r->t;
	int64_t rr = sw_real_ns(), rm = sw_mono_ns();
	(void)rpc;
	if (!unanswered(t, r, status, data, "READ", rr, rm)) {
		READ3res *res = data;
		struct sw_attrs a = { 0 };
		const post_op_attr *pa = res->status == NFS3_OK ?
			&res->READ3res_u.resok.file_attributes :
			&res->READ3res_u.resfail.file_attributes;
		probe_server_answered(t, rr, rm);
		if (pa->attributes_follow)
			attrs_from_fattr3(&pa->post_op_attr_u.attributes, &a);
		if (res->status == NFS3_OK)
			probe_target_log_read(t, r, 0, &a, res->READ3res_u.resok.data.data_val,
				 res->READ3res_u.resok.data.data_len, rr, rm);
		else {
			probe_target_log_read(t, r, (int)res->status, &a, NULL, 0, rr, rm);
			if (res->status == NFS3ERR_STALE)
				saw_stale(t, r, (int)res->status);
		}
	}
	probe_req_put(r);
}

static void read4_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	struct probe_req *r = priv;
	struct probe_target *t = r->t;
	int64_t rr = sw_real_ns(), rm = sw_mono_ns();
	char err[256];
	(void)rpc;
	if (!unanswered(t, r, status, data, "COMPOUND(PUTFH,READ,GETATTR)", rr, rm)) {
		COMPOUND4res *res = data;
		struct sw_attrs a = { 0 };
		probe_server_answered(t, rr, rm);
		if (res->status != NFS4_OK || res->resarray.resarray_len < 3) {
			int s = res->status != NFS4_OK ? (int)res->status : -EPROTO;
			probe_target_log_read(t, r, s, NULL, NULL, 0, rr, rm);
			if (probe_is_stale4(s))
				saw_stale(t, r, s);
		} else {
			nfs_resop4 rop, gop;
			probe_resop_at(res, 1, &rop);
			probe_resop_at(res, 2, &gop);
			const READ4resok *ok = &rop.nfs_resop4_u.opread.READ4res_u.resok4;
			int rc = probe_decode_getattr4(&gop, &a, NULL, err, sizeof(err));
			if (rc)
				memset(&a, 0, sizeof(a));
			probe_target_log_read(t, r, 0, &a, ok->data.data_val, ok->data.data_len, rr, rm);
		}
	}
	probe_req_put(r);
}

/* ------------------------------------------------------------------ */
/* sending                                                             */

int probe_target_send_attr(struct probe_target *t)
{
	struct probe_req *r = probe_req_get(t, RQ_ATTR);
	int rc;
	if (!r)
		return -ENOMEM;
	r->seq = t->seq++;
	t->attrs_sent++;
	if (t->u->version == 3) {
		GETATTR3args a = { .object.data = { t->fh_len, (char *)t->fh } };
		rc = rpc_nfs3_getattr_async(t->rpc, attr3_cb, &a, r);
	} else {
		uint32_t words[SW_FATTR4_WORDS];
		nfs_argop4 op[2];
		COMPOUND4args c;
		memset(op, 0, sizeof(op));
		memset(&c, 0, sizeof(c));
		op[0].argop = OP_PUTFH;
		op[0].nfs_argop4_u.opputfh.object.nfs_fh4_len = t->fh_len;
		op[0].nfs_argop4_u.opputfh.object.nfs_fh4_val = (char *)t->fh;
		op[1].argop = OP_GETATTR;
		op[1].nfs_argop4_u.opgetattr.attr_request.bitmap4_len = sw_fattr4_request(words);
		op[1].nfs_argop4_u.opgetattr.attr_request.bitmap4_val = words;
		c.argarray.argarray_len = 2;
		c.argarray.argarray_val = op;
		rc = rpc_nfs4_compound_async(t->rpc, attr4_cb, &c, r);
	}
	if (rc) {
		probe_target_log_attr(t, r, -ENOTCONN, NULL, sw_real_ns(), sw_mono_ns());
		probe_req_put(r);
		probe_target_fail(t, -ENOTCONN, "could not queue a GETATTR: %s",
			    rpc_get_error(t->rpc));
		return -ENOTCONN;
	}
	return 0;
}

int probe_target_send_read(struct probe_target *t)
{
	const struct probe_opts *o = t->p->o;
	struct probe_req *r;
	int rc;
	if (!o->nread_page)
		return 0;
	if (!(r = probe_req_get(t, RQ_READ)))
		return -ENOMEM;
	r->seq = t->seq++;
	r->page = o->read_page[t->next_read++ % o->nread_page];
	if (t->u->version == 3) {
		READ3args a = { .file.data = { t->fh_len, (char *)t->fh },
				.offset = r->page * o->page_size, .count = STAMP_BYTES };
		rc = rpc_nfs3_read_async(t->rpc, read3_cb, &a, r);
	} else {
		uint32_t words[SW_FATTR4_WORDS];
		nfs_argop4 op[3];
		COMPOUND4args c;
		memset(op, 0, sizeof(op)); /* READ: the anonymous stateid (all 0) */
		memset(&c, 0, sizeof(c));
		op[0].argop = OP_PUTFH;
		op[0].nfs_argop4_u.opputfh.object.nfs_fh4_len = t->fh_len;
		op[0].nfs_argop4_u.opputfh.object.nfs_fh4_val = (char *)t->fh;
		op[1].argop = OP_READ;
		op[1].nfs_argop4_u.opread.offset = r->page * o->page_size;
		op[1].nfs_argop4_u.opread.count = STAMP_BYTES;
		op[2].argop = OP_GETATTR;
		op[2].nfs_argop4_u.opgetattr.attr_request.bitmap4_len = sw_fattr4_request(words);
		op[2].nfs_argop4_u.opgetattr.attr_request.bitmap4_val = words;
		c.argarray.argarray_len = 3;
		c.argarray.argarray_val = op;
		rc = rpc_nfs4_compound_async(t->rpc, read4_cb, &c, r);
	}
	if (rc) {
		probe_target_log_read(t, r, -ENOTCONN, NULL, NULL, 0, sw_real_ns(), sw_mono_ns());
		probe_req_put(r);
		probe_target_fail(t, -ENOTCONN, "could not queue a READ: %s", rpc_get_error(t->rpc));
		return -ENOTCONN;
	}
	return 0;
}


