/* SPDX-License-Identifier: MIT */
/* stalewin-logdump: print any stalewin log as text, one record a line.
 *   stalewin-logdump [--meta] [--type NAME] FILE
 * Exit 0 for a complete log, 3 for a torn tail (everything before it was
 * printed), 1 for a damaged log or read error, 2 for bad usage. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "swlog.h"
#include "parse.h"

/* what ATTR and READ replies start with */
static void print_reply(uint64_t seq, unsigned target, unsigned vers, int64_t send,
			int64_t recv, int status)
{
	printf(" seq=%" PRIu64 " target=%u v%u send=%" PRId64 " recv=%" PRId64 " status=%d",
	       seq, target, vers, send, recv, status);
}

static void print_attrs(const struct sw_attrs *a)
{
	printf(" size=%" PRIu64 " mtime=%" PRId64 " ctime=%" PRId64, a->size,
	       a->mtime_ns, a->ctime_ns);
	if (a->valid & SW_ATTR_CHANGE)
		printf(" change=%" PRIu64, a->change);
}

static void print_rec(const struct swlog_rec *rec)
{
	const void *p = rec->payload;
	printf("%" PRIu64 " %s", rec->index, swlog_type_name(rec->type));
	switch (rec->type) {
	case SW_REC_NOTE: {
		const struct sw_rec_note *n = p;
		int len = (int)(rec->len - sizeof(*n));
		if ((uint32_t)len > n->len)
			len = (int)n->len;
		printf(" t=%" PRId64 " level=%u %.*s", n->t_real_ns, n->level, len,
		       (const char *)(n + 1));
		break;
	}
	case SW_REC_END: {
		const struct sw_rec_end *e = p;
		printf(" t=%" PRId64 " reason=%u err=%d a=%" PRIu64 " b=%" PRIu64
		       " c=%" PRIu64, e->t_real_ns, e->reason, e->err, e->count_a,
		       e->count_b, e->count_c);
		break;
	}
	case SW_REC_STORE: {
		const struct sw_rec_store *s = p;
		printf(" page=%" PRIu64 " gen=%" PRIu64 " t_before=%" PRId64
		       " t_after=%" PRId64 " trap_ns=%" PRId64 " flags=%#x", s->page,
		       s->gen, s->t_before_real_ns, s->t_after_real_ns, s->trap_ns,
		       s->flags);
		if (s->upd_seq)
			printf(" upd_seq=%u", s->upd_seq);
		/* (its monotonic time last: a realtime step shows as a jump
		 * of t_before - t_before_mono, vm run --fault clock-step) */
		printf(" t_before_mono=%" PRId64, s->t_before_mono_ns);
		break;
	}
	case SW_REC_UPDATE: {
		const struct sw_rec_update *u = p;
		printf(" t=%" PRId64 " done=%" PRId64 " cost_ns=%" PRId64
		       " mtime=%" PRId64 " ctime=%" PRId64 " page=%" PRId64 " cause=%u",
		       u->t_real_ns, u->t_done_real_ns, u->cost_ns, u->mtime_ns,
		       u->ctime_ns, u->page == SW_NO_PAGE ? -1 : (int64_t)u->page,
		       u->cause);
		break;
	}
	case SW_REC_CLEAN: {
		const struct sw_rec_clean *c = p;
		printf(" t=%" PRId64 " dur_ns=%" PRId64 " pages=%" PRIu64 " cause=%u",
		       c->t_real_ns, c->dur_ns, c->pages, c->cause);
		break;
	}
	case SW_REC_SYNC: {
		const struct sw_rec_sync *s = p;
		printf(" t=%" PRId64 " dur_ns=%" PRId64 " cause=%u rc=%d",
		       s->t_real_ns, s->dur_ns, s->cause, s->rc);
		break;
	}
	case SW_REC_MUNMAP: {
		const struct sw_rec_munmap *m = p;
		printf(" t=%" PRId64 " dur_ns=%" PRId64 " dirty_pages=%" PRIu64,
		       m->t_real_ns, m->dur_ns, m->dirty_pages);
		break;
	}
	case SW_REC_SETUP: {
		struct sw_rec_setup u;
		sw_rec_setup_get(&u, p, rec->len);
		printf(" t=%" PRId64 " done=%" PRId64 " mtime=%" PRId64 "->%" PRId64
		       " ctime=%" PRId64 "->%" PRId64 " size=%" PRIu64, u.t_real_ns,
		       u.t_done_real_ns, u.mtime_before_ns, u.mtime_ns,
		       u.ctime_before_ns, u.ctime_ns, u.size);
		if (u.atime_before_ns)
			printf(" atime_before=%" PRId64, u.atime_before_ns);
		break;
	}
	case SW_REC_ATTR: {
		const struct sw_rec_attr *a = p;
		print_reply(a->seq, a->target, a->vers, a->t_send_real_ns, a->t_recv_real_ns,
			    a->status);
		if (a->status == 0)
			print_attrs(&a->attrs);
		break;
	}
	case SW_REC_READ: {
		const struct sw_rec_read *r = p;
		print_reply(r->seq, r->target, r->vers, r->t_send_real_ns, r->t_recv_real_ns,
			    r->status);
		printf(" page=%" PRIu64 " gen=%" PRIu64 " flags=%#x", r->page, r->gen, r->flags);
		if (r->status == 0)
			print_attrs(&r->attrs);
		break;
	}
	case SW_REC_GAP: {
		const struct sw_rec_gap *g = p;
		printf(" target=%u start=%" PRId64 " end=%" PRId64 " err=%d", g->target,
		       g->t_start_real_ns, g->t_end_real_ns, g->err);
		break;
	}
	case SW_REC_EVENT: {
		const struct sw_rec_event *e = p;
		int len = (int)(rec->len - sizeof(*e));
		if ((uint32_t)len > e->len)
			len = (int)e->len;
		printf(" t=%" PRId64 " kind=%u err=%d target=%u %.*s", e->t_real_ns,
		       e->kind, e->err, e->target, len, (const char *)(e + 1));
		break;
	}
	case SW_REC_KREAD: {
		const struct sw_rec_kread *k = p;
		printf(" t_before=%" PRId64 " t_after=%" PRId64 " page=%" PRIu64
		       " gen=%" PRIu64 " mode=%u err=%d flags=%#x t_before_mono=%" PRId64
		       " t_after_mono=%" PRId64, k->t_before_real_ns,
		       k->t_after_real_ns, k->page, k->gen, k->mode, k->err, k->flags,
		       k->t_before_mono_ns, k->t_after_mono_ns);
		break;
	}
	default:
		printf(" len=%u", rec->len);
	}
	putchar('\n');
}

int main(int argc, char **argv)
{
	int meta = 0;
	const char *only = NULL;
	static const struct option opts[] = {
		SW_OPT_FLAG("meta", 'm'),
		SW_OPT_ARG("type", 't'),
		SW_OPT_FLAG("help", 'h'),
		{ 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "mt:h", opts, NULL)) != -1) {
		switch (c) {
		case 'm': meta = 1; break;
		case 't': only = optarg; break;
		default:
			fprintf(stderr, "usage: stalewin-logdump [--meta] [--type NAME] FILE\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "stalewin-logdump: expected one log file, saw %d arguments\n",
			argc - optind);
		return 2;
	}
	char err[SWLOG_ERRLEN];
	struct swlog_reader *r;
	if (swlog_open(&r, argv[optind], err) < 0) {
		fprintf(stderr, "stalewin-logdump: %s\n", err);
		return 1;
	}
	printf("# %s log v%u run_id=%016" PRIx64 "\n",
	       swlog_kind_name(swlog_reader_kind(r)), swlog_reader_version(r),
	       swlog_reader_run_id(r));
	if (meta)
		printf("# meta %s\n", swlog_reader_meta(r));
	struct swlog_rec rec;
	int st;
	while ((st = swlog_next(r, &rec)) == SWLOG_OK) {
		if (!only || strcmp(only, swlog_type_name(rec.type)) == 0)
			print_rec(&rec);
	}
	int rc = 0;
	if (st == SWLOG_TORN) {
		fprintf(stderr, "stalewin-logdump: %s\n", swlog_reader_error(r));
		rc = 3;
	} else if (st != SWLOG_EOF) {
		fprintf(stderr, "stalewin-logdump: %s\n",
			st < 0 ? "read error" : swlog_reader_error(r));
		rc = 1;
	}
	swlog_reader_close(r);
	return rc;
}
