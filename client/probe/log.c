/* SPDX-License-Identifier: MIT */
/* log.c - the probe log's metadata and records (see probe.h). */
#include "probe.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "swtime.h"

#ifndef SW_LIBNFS_VERSION
#define SW_LIBNFS_VERSION "unknown"
#endif
#ifndef STALEWIN_VERSION
#define STALEWIN_VERSION "0"
#endif

char *probe_meta_json(const struct probe_opts *o, int argc, char **argv)
{
	json_t *m, *a = json_array(), *ts = json_array(), *pg = json_array();
	struct utsname un;
	char host[256] = "";
	char *s;

	for (int i = 0; i < argc; i++)
		json_array_append_new(a, json_string(argv[i]));
	for (unsigned i = 0; i < o->nurl; i++) {
		const struct sw_nfs_url *u = &o->url[i];
		json_array_append_new(ts, json_pack("{s:s,s:i,s:s,s:s,s:s,s:i,s:i}",
			"url", u->url, "version", u->version, "host", u->host,
			"export", u->export, "file", u->file, "nfsport", u->nfsport,
			"mountport", u->mountport));
	}
	for (unsigned i = 0; i < o->nread_page; i++)
		json_array_append_new(pg, json_integer((json_int_t)o->read_page[i]));
	gethostname(host, sizeof(host) - 1);
	uname(&un);
	/* one pack, in the order the keys are written */
	m = json_pack("{s:s,s:s,s:s,s:o,s:o,s:I,s:f,s:f,s:I,s:I,s:I,s:o,s:I,s:I,s:s,"
		      "s:{s:s,s:s,s:s},s:I,s:I,s:s}",
		"tool", "stalewin-probe", "tool_version", STALEWIN_VERSION,
		"libnfs_version", SW_LIBNFS_VERSION, "argv", a, "targets", ts,
		"depth", (json_int_t)o->depth, "rate_per_s", o->rate,
		"duration_s", o->duration_s, "timeout_ms", (json_int_t)o->timeout_ms,
		"connect_timeout_ms", (json_int_t)o->connect_timeout_ms,
		"backoff_max_ms", (json_int_t)o->backoff_max_ms, "read_pages", pg,
		"read_every", (json_int_t)o->read_every, "page_size", (json_int_t)o->page_size,
		"hostname", host,
		"kernel", "sysname", un.sysname, "release", un.release, "version", un.version,
		"t_start_real_ns", (json_int_t)sw_real_ns(),
		"t_start_mono_ns", (json_int_t)sw_mono_ns(),
		"gap_open_end", "a GAP record with t_end_*_ns == 0 was still open when the run ended");
	if (!m)
		return NULL;
	s = json_dumps(m, JSON_COMPACT);
	json_decref(m);
	return s;
}

static void app(struct probe *p, uint16_t type, const void *x, uint32_t len)
{
	int rc;
	if (p->log_err)
		return;
	rc = swlog_append(p->log, type, x, len);
	if (rc)
		p->log_err = rc;
}

void probe_log_attr(struct probe *p, const struct sw_rec_attr *r)
{
	app(p, SW_REC_ATTR, r, sizeof(*r));
}

void probe_log_read(struct probe *p, const struct sw_rec_read *r)
{
	app(p, SW_REC_READ, r, sizeof(*r));
}

void probe_log_gap(struct probe *p, const struct sw_rec_gap *g)
{
	app(p, SW_REC_GAP, g, sizeof(*g));
}

void probe_log_event(struct probe *p, unsigned target, uint32_t kind, int32_t err,
		const char *fmt, ...)
{
	struct sw_rec_event e = {
		.t_real_ns = sw_real_ns(), .t_mono_ns = sw_mono_ns(),
		.kind = kind, .err = err, .target = (uint16_t)target,
	};
	char text[512];
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(text))
		n = sizeof(text) - 1;
	e.len = (uint32_t)n;
	if (p->log_err)
		return;
	rc = swlog_append2(p->log, SW_REC_EVENT, &e, sizeof(e), text, (uint32_t)n);
	if (rc)
		p->log_err = rc;
}

void probe_log_end(struct probe *p, uint32_t reason, int32_t err)
{
	struct sw_rec_end e = {
		.t_real_ns = sw_real_ns(), .t_mono_ns = sw_mono_ns(),
		.reason = reason, .err = err,
	};
	for (unsigned i = 0; i < p->nt; i++) {
		e.count_a += p->t[i].replies;
		e.count_b += p->t[i].errors;
		e.count_c += p->t[i].gaps;
	}
	app(p, SW_REC_END, &e, sizeof(e));
}

void probe_decode_stamp(const void *data, unsigned len, uint64_t page,
			uint64_t writer_run_id, struct sw_rec_read *r)
{
	struct sw_stamp s;

	r->gen = 0;
	r->stamp_real_ns = 0;
	r->flags = 0;
	if (len < sizeof(s)) {
		r->flags = SW_READ_NOSTAMP;
		return;
	}
	memcpy(&s, data, sizeof(s));
	if (s.magic != SW_STAMP_MAGIC) {
		r->flags = SW_READ_NOSTAMP;
		return;
	}
	if (s.check != sw_stamp_check(&s) || s.page != page) {
		r->flags = SW_READ_TORN;
		return;
	}
	if (writer_run_id && s.run_id != writer_run_id)
		r->flags |= SW_READ_OTHERRUN;
	r->gen = s.gen;
	r->stamp_real_ns = s.t_real_ns;
}
