/* SPDX-License-Identifier: MIT */
/*
 * conn.c - a target's connection: fresh libnfs context, async mount,
 * file-handle look-up (see probe.h for how the handle is obtained),
 * teardown, back-off, and the per-target timers.
 */
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

/* ------------------------------------------------------------------ */
/* connecting and looking the file up                                  */

static int server_said_no_text(const char *s)
{
	return s && (strstr(s, "MNT3ERR") || strstr(s, "NFS3ERR") || strstr(s, "NFS4ERR"));
}

static int server_said_no_err(int err)
{
	return err == -ENOENT || err == -EACCES || err == -EPERM || err == -EISDIR ||
	       err == -ENOTDIR || err == -ESTALE || err == -EINVAL;
}

/* The server answered the lookup with a refusal (no such file, not a
 * regular file...).  Before the first success it is an input error; later
 * (the file is being replaced) we log it and try again. */
static void lookup_refused(struct probe_target *t, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void lookup_refused(struct probe_target *t, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->last_err, sizeof(t->last_err), fmt, ap);
	va_end(ap);
	if (!t->ever_ready) {
		t->last_err_fatal = 1;
		probe_target_fail(t, status > 0 ? -EINVAL : status, "%s", t->last_err);
		return;
	}
	probe_log_event(t->p, t->idx, SW_EV_RELOOKUP, status ? status : -EINVAL,
		   "look-up failed, retrying in %lld ms: %s",
		   (long long)(t->backoff_ns / SW_NS_PER_MS), t->last_err);
	t->state = TS_LOOKUP_WAIT;
	t->t_next_mono_ns = sw_mono_ns() + t->backoff_ns;
	t->backoff_ns *= 2;
	if (t->backoff_ns > (int64_t)t->p->o->backoff_max_ms * SW_NS_PER_MS)
		t->backoff_ns = (int64_t)t->p->o->backoff_max_ms * SW_NS_PER_MS;
}

static void ready(struct probe_target *t, uint64_t fileid)
{
	char hex[2 * PROBE_FH_MAX + 1];
	uint64_t old = t->fileid;
	probe_hexfh(t, hex, sizeof(hex));
	t->fh_gen++;
	t->fileid = fileid;
	t->state = TS_READY;
	t->t_next_send_mono_ns = sw_mono_ns();
	t->backoff_ns = BACKOFF_MIN_NS;
	if (!t->ever_ready) {
		if (!t->p->log_err)
			swlog_note(t->p->log, SW_NOTE_INFO,
				   "target %u %s: NFSv%d handle %s fileid %llu", t->idx,
				   t->u->url, t->u->version, hex, (unsigned long long)fileid);
		t->ever_ready = 1;
	} else if (t->relookup) {
		probe_log_event(t->p, t->idx, SW_EV_RELOOKUP, 0,
			   "new handle %s fileid %llu (was %llu)", hex,
			   (unsigned long long)fileid, (unsigned long long)old);
	} else {
		probe_log_event(t->p, t->idx, SW_EV_RECONNECT, 0,
			   "reconnected after %u attempt(s); handle %s fileid %llu%s",
			   t->attempts, hex, (unsigned long long)fileid,
			   fileid == old ? "" : " (fileid changed)");
	}
	t->relookup = 0;
	t->attempts = 0;
}

/* The start of a look-up RPC's callback: drops r's reference; 1 when
 * there is nothing more to do (the target is being torn down, the call
 * was cancelled, or it failed: then t fails, saying what failed). */
static int lookup_rpc_done(struct probe_req *r, int status, void *data,
			   const char *what)
{
	struct probe_target *t = r->t;
	probe_req_put(r);
	if (t->tearing || status == RPC_STATUS_CANCEL)
		return 1;
	if (status != RPC_STATUS_SUCCESS) {
		probe_target_fail(t, probe_rpc_status_err(status), "%s failed: %s", what,
				  data ? (const char *)data : "rpc error");
		return 1;
	}
	return 0;
}

static void verify3_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	struct probe_req *r = priv;
	struct probe_target *t = r->t;
	(void)rpc;
	if (lookup_rpc_done(r, status, data, "GETATTR of the looked-up handle"))
		return;
	GETATTR3res *res = data;
	probe_server_answered(t, sw_real_ns(), sw_mono_ns());
	if (res->status != NFS3_OK) {
		lookup_refused(t, (int)res->status,
			       "GETATTR of the new handle of %s: NFS3 status %d", t->u->path,
			       (int)res->status);
		return;
	}
	const fattr3 *f = &res->GETATTR3res_u.resok.obj_attributes;
	if (f->type != NF3REG || f->fileid != t->lookup_ino) {
		t->last_err_fatal = 1;
		probe_target_fail(t, -EPROTO,
			    "handle copied from libnfs' struct nfs_fh does not name %s (expected a regular file with fileid %llu, saw type %d fileid %llu): this libnfs' private layout is not libnfs 4.0's",
			    t->u->path, (unsigned long long)t->lookup_ino, (int)f->type,
			    (unsigned long long)f->fileid);
		return;
	}
	ready(t, f->fileid);
}

static void close_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
	(void)err; (void)nfs; (void)data; (void)priv;
}

static void fstat_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
	struct probe_target *t = priv;
	struct libnfs40_fh_mirror *m;
	if (t->tearing)
		return;
	if (err) {
		if (server_said_no_err(err))
			lookup_refused(t, err, "stat of %s failed: %s", t->u->path, (char *)data);
		else
			probe_target_fail(t, err, "stat of %s failed: %s", t->u->path, (char *)data);
		return;
	}
	const struct nfs_stat_64 *st = data;
	if (!S_ISREG(st->nfs_mode)) {
		lookup_refused(t, -EINVAL, "expected a regular file, saw %s (mode 0%llo) at %s",
			       S_ISDIR(st->nfs_mode) ? "a directory" : "another file type",
			       (unsigned long long)st->nfs_mode, t->u->path);
		nfs_close_async(nfs, t->nfsfh, close_cb, NULL);
		t->nfsfh = NULL;
		return;
	}
	t->lookup_ino = st->nfs_ino;
	m = (struct libnfs40_fh_mirror *)nfs_get_fh(t->nfsfh);
	if (!m || m->len <= 0 || m->len > 64 || !m->val) {
		t->last_err_fatal = 1;
		probe_target_fail(t, -EPROTO, "libnfs' struct nfs_fh is not libnfs 4.0's {int len; char *val} (len %d)",
			    m ? m->len : -1);
		return;
	}
	memcpy(t->fh, m->val, (size_t)m->len);
	t->fh_len = (unsigned)m->len;
	nfs_close_async(nfs, t->nfsfh, close_cb, NULL); /* NFSv3: no RPC */
	t->nfsfh = NULL;
	struct probe_req *r = probe_req_get(t, RQ_VERIFY3);
	GETATTR3args a = { .object.data = { t->fh_len, (char *)t->fh } };
	if (!r || rpc_nfs3_getattr_async(t->rpc, verify3_cb, &a, r)) {
		if (r)
			probe_req_put(r);
		probe_target_fail(t, -ENOTCONN, "could not queue the verifying GETATTR");
	}
}

static void open_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
	struct probe_target *t = priv;
	if (t->tearing)
		return;
	if (err) {
		if (server_said_no_err(err) || server_said_no_text(data))
			lookup_refused(t, err, "look-up of %s on %s failed: %s", t->u->path,
				       t->u->host, (char *)data);
		else
			probe_target_fail(t, err, "look-up of %s failed: %s", t->u->path, (char *)data);
		return;
	}
	t->nfsfh = data;
	if (nfs_fstat64_async(nfs, t->nfsfh, fstat_cb, t))
		probe_target_fail(t, -ENOTCONN, "could not queue a stat: %s", nfs_get_error(nfs));
}

static void lookup4_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	struct probe_req *r = priv;
	struct probe_target *t = r->t;
	char err[256];
	(void)rpc;
	if (lookup_rpc_done(r, status, data, "look-up COMPOUND"))
		return;
	COMPOUND4res *res = data;
	unsigned n = res->resarray.resarray_len;
	probe_server_answered(t, sw_real_ns(), sw_mono_ns());
	if (res->status != NFS4_OK || n < 3) {
		const char *what = res->status == NFS4ERR_NOENT ? " (no such file or directory)" : "";
		lookup_refused(t, res->status ? (int)res->status : -EPROTO,
			       "NFSv4 look-up of %s on %s failed with NFS4 status %d%s",
			       t->u->path, t->u->host, (int)res->status, what);
		return;
	}
	nfs_resop4 fhop_copy, gop;
	const nfs_resop4 *fhop = &fhop_copy;
	struct sw_attrs a;
	uint32_t type = 0;
	probe_resop_at(res, n - 2, &fhop_copy);
	probe_resop_at(res, n - 1, &gop);
	int rc = probe_decode_getattr4(&gop, &a, &type, err, sizeof(err));
	if (fhop->resop != OP_GETFH || rc) {
		t->last_err_fatal = !t->ever_ready;
		probe_target_fail(t, -EPROTO, "undecodable look-up reply for %s: %s", t->u->path,
			    rc ? err : "no GETFH result");
		return;
	}
	if (type != NF4REG) {
		lookup_refused(t, -EINVAL, "expected a regular file, saw NFSv4 type %u%s at %s",
			       type, type == 2 ? " (a directory)" : "", t->u->path);
		return;
	}
	const nfs_fh4 *fh = &fhop->nfs_resop4_u.opgetfh.GETFH4res_u.resok4.object;
	if (fh->nfs_fh4_len == 0 || fh->nfs_fh4_len > PROBE_FH_MAX) {
		probe_target_fail(t, -EPROTO, "NFSv4 handle of %u bytes (expected 1..%d)",
			    fh->nfs_fh4_len, PROBE_FH_MAX);
		return;
	}
	memcpy(t->fh, fh->nfs_fh4_val, fh->nfs_fh4_len);
	t->fh_len = fh->nfs_fh4_len;
	ready(t, a.fileid);
}

void probe_start_lookup(struct probe_target *t)
{
	t->state = TS_LOOKUP;
	t->t_attempt_deadline_mono_ns = sw_mono_ns() +
		(int64_t)t->p->o->connect_timeout_ms * SW_NS_PER_MS;
	if (t->u->version == 3) {
		char path[300];
		snprintf(path, sizeof(path), "/%s", t->u->file);
		if (nfs_open_async(t->nfs, path, O_RDONLY, open_cb, t))
			probe_target_fail(t, -ENOTCONN, "could not start the look-up: %s",
				    nfs_get_error(t->nfs));
		return;
	}
	/* PUTROOTFH, LOOKUP per component, GETFH, GETATTR */
	char comp[sizeof(t->u->path)], *save = NULL, *c;
	nfs_argop4 op[40];
	unsigned n = 0;
	uint32_t words[SW_FATTR4_WORDS];
	COMPOUND4args args;
	memset(op, 0, sizeof(op));
	memset(&args, 0, sizeof(args));
	snprintf(comp, sizeof(comp), "%s", t->u->path);
	op[n++].argop = OP_PUTROOTFH;
	for (c = strtok_r(comp, "/", &save); c && n < 37; c = strtok_r(NULL, "/", &save)) {
		op[n].argop = OP_LOOKUP;
		op[n].nfs_argop4_u.oplookup.objname.utf8string_len = (u_int)strlen(c);
		op[n].nfs_argop4_u.oplookup.objname.utf8string_val = c;
		n++;
	}
	op[n++].argop = OP_GETFH;
	op[n].argop = OP_GETATTR;
	op[n].nfs_argop4_u.opgetattr.attr_request.bitmap4_len = sw_fattr4_request(words);
	op[n].nfs_argop4_u.opgetattr.attr_request.bitmap4_val = words;
	n++;
	args.argarray.argarray_len = n;
	args.argarray.argarray_val = op;
	struct probe_req *r = probe_req_get(t, RQ_LOOKUP4);
	if (!r || rpc_nfs4_compound_async(t->rpc, lookup4_cb, &args, r)) {
		if (r)
			probe_req_put(r);
		probe_target_fail(t, -ENOTCONN, "could not queue the look-up COMPOUND: %s",
			    rpc_get_error(t->rpc));
	}
}

static void mount_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
	struct probe_target *t = priv;
	(void)nfs;
	if (t->tearing)
		return;
	if (err) {
		const char *s = data ? (const char *)data : "";
		if (server_said_no_text(s) || err == -EACCES || err == -ENOENT) {
			if (!t->ever_ready)
				t->last_err_fatal = 1;
			probe_target_fail(t, err, "mount of export %s on %s failed: %s%s", t->u->export,
				    t->u->host, s,
				    err == -EACCES ? " (is the export path right?)" : "");
		} else if (strstr(s, "Program not available") || strstr(s, "PROG_MISMATCH") ||
			   strstr(s, "PROG_UNAVAIL")) {
			if (!t->ever_ready)
				t->last_err_fatal = 1;
			probe_target_fail(t, err, "mount of %s on %s: the reply is not NFSv%d (wrong port or version?): %s",
				    t->u->export, t->u->host, t->u->version, s);
		} else {
			probe_target_fail(t, err, "mount of %s on %s failed: %s", t->u->export,
				    t->u->host, *s ? s : strerror(-err));
		}
		return;
	}
	t->rpc = nfs_get_rpc_context(t->nfs);
	probe_start_lookup(t);
}

/* NFSv4: our own connection (rpc_connect_port_async) instead of libnfs'
 * nfs_mount_async: PUTFH/GETATTR/READ with the anonymous stateid need no
 * client id, so SETCLIENTID and libnfs' v4 mount state are not needed, and
 * every failure is one rpc callback we classify ourselves. */
static void connect4_cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	struct probe_target *t = priv;
	(void)rpc;
	if (t->tearing)
		return;
	if (status != RPC_STATUS_SUCCESS && data &&
	    (strstr(data, "Program not available") || strstr(data, "PROG_"))) {
		if (!t->ever_ready)
			t->last_err_fatal = 1;
		probe_target_fail(t, -EPROTONOSUPPORT, "the server at %s port %d does not serve NFSv4 (wrong port or version?): %s",
			    t->u->host, t->u->nfsport ? t->u->nfsport : 2049, (const char *)data);
		return;
	}
	if (status != RPC_STATUS_SUCCESS) {
		probe_target_fail(t, -ECONNREFUSED, "connect to %s port %d failed: %s", t->u->host,
			    t->u->nfsport ? t->u->nfsport : 2049,
			    data ? (const char *)data : "cancelled");
		return;
	}
	probe_start_lookup(t);
}

int probe_target_connect(struct probe_target *t)
{
	struct nfs_url *url;
	t->attempts++;
	t->state = TS_MOUNTING;
	t->t_attempt_deadline_mono_ns = sw_mono_ns() +
		(int64_t)t->p->o->connect_timeout_ms * SW_NS_PER_MS;
	if (t->u->version == 4) {
		t->rpc = rpc_init_context();
		if (!t->rpc)
			return -ENOMEM;
		if (rpc_connect_port_async(t->rpc, t->u->host, t->u->nfsport ? t->u->nfsport : 2049,
					   NFS4_PROGRAM, NFS_V4, connect4_cb, t)) {
			probe_target_fail(t, -EHOSTUNREACH, "connect to %s could not start: %s",
				    t->u->host, rpc_get_error(t->rpc));
			return -EHOSTUNREACH;
		}
		return 0;
	}
	t->nfs = nfs_init_context();
	if (!t->nfs)
		return -ENOMEM;
	url = nfs_parse_url_full(t->nfs, t->u->url); /* applies version and ports */
	if (!url) {
		t->last_err_fatal = 1;
		snprintf(t->last_err, sizeof(t->last_err), "libnfs rejected the URL %s: %s",
			 t->u->url, nfs_get_error(t->nfs));
		probe_target_fail(t, -EINVAL, "%s", t->last_err);
		return -EINVAL;
	}
	nfs_destroy_url(url);
	nfs_set_autoreconnect(t->nfs, 0); /* we reconnect with a fresh context */
	nfs_set_dircache(t->nfs, 0);
	t->rpc = nfs_get_rpc_context(t->nfs);
	if (nfs_mount_async(t->nfs, t->u->host, t->u->export, mount_cb, t)) {
		probe_target_fail(t, -EHOSTUNREACH, "mount of %s on %s could not start: %s",
			    t->u->export, t->u->host, nfs_get_error(t->nfs));
		return -EHOSTUNREACH;
	}
	return 0;
}

void probe_target_teardown(struct probe_target *t, int err)
{
	struct probe_req *r;
	int64_t rr, rm;
	if (t->nfs || t->rpc) {
		t->tearing = 1;
		t->teardown_err = err;
		if (t->nfs) /* cancels every request in flight */
			nfs_destroy_context(t->nfs);
		else
			rpc_destroy_context(t->rpc);
		t->nfs = NULL;
		t->rpc = NULL;
		t->nfsfh = NULL;
	}
	t->tearing = 1;
	rr = sw_real_ns();
	rm = sw_mono_ns();
	while ((r = t->head)) { /* anything libnfs did not call back */
		if (r->kind == RQ_ATTR)
			probe_target_log_attr(t, r, probe_cancel_status(t, r), NULL, rr, rm);
		else if (r->kind == RQ_READ)
			probe_target_log_read(t, r, probe_cancel_status(t, r), NULL, NULL, 0, rr, rm);
		probe_req_put(r);
	}
	t->tearing = 0;
	t->want_teardown = 0;
	t->state = TS_BACKOFF;
	t->t_next_mono_ns = sw_mono_ns() + t->backoff_ns;
	t->backoff_ns *= 2;
	if (t->backoff_ns > (int64_t)t->p->o->backoff_max_ms * SW_NS_PER_MS)
		t->backoff_ns = (int64_t)t->p->o->backoff_max_ms * SW_NS_PER_MS;
}

void probe_target_tick(struct probe_target *t, int64_t now)
{
	const struct probe_opts *o = t->p->o;
	if (t->want_teardown)
		return;
	switch (t->state) {
	case TS_BACKOFF:
		if (!t->p->stopping && now >= t->t_next_mono_ns)
			probe_target_connect(t);
		break;
	case TS_LOOKUP_WAIT:
		if (!t->p->stopping && now >= t->t_next_mono_ns) {
			t->relookup = 1;
			probe_start_lookup(t);
		}
		break;
	case TS_MOUNTING:
	case TS_LOOKUP:
		if (now > t->t_attempt_deadline_mono_ns)
			probe_target_fail(t, -ETIMEDOUT, "no answer to the %s of %s on %s within %u ms",
				    t->state == TS_MOUNTING ? "mount" : "look-up",
				    t->u->path, t->u->host, o->connect_timeout_ms);
		break;
	case TS_READY:
		break;
	}
	if (t->head && now - t->head->t_send_mono_ns > (int64_t)o->timeout_ms * SW_NS_PER_MS &&
	    !t->want_teardown) {
		probe_log_event(t->p, t->idx, SW_EV_TIMEOUT, -ETIMEDOUT,
			   "request %llu sent %lld ms ago has no answer (timeout %u ms)",
			   (unsigned long long)t->head->seq,
			   (long long)((now - t->head->t_send_mono_ns) / SW_NS_PER_MS),
			   o->timeout_ms);
		probe_target_fail(t, -ETIMEDOUT, "no reply within %u ms", o->timeout_ms);
	}
}
