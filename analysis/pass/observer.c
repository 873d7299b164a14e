/* SPDX-License-Identifier: MIT */
/* observer.c - probe replies as runs of equal attributes; see observer.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "observer.h"
#include "ring.h"
#include "report.h"
#include "satmath.h"

uint32_t sw_attrs_diff(const struct sw_attrs *a, const struct sw_attrs *b)
{
	uint32_t both = a->valid & b->valid, d = 0;
	if ((both & SW_ATTR_SIZE) && a->size != b->size)
		d |= SW_ATTR_SIZE;
	if ((both & SW_ATTR_MTIME) && a->mtime_ns != b->mtime_ns)
		d |= SW_ATTR_MTIME;
	if ((both & SW_ATTR_CTIME) && a->ctime_ns != b->ctime_ns)
		d |= SW_ATTR_CTIME;
	if ((both & SW_ATTR_CHANGE) && a->change != b->change)
		d |= SW_ATTR_CHANGE;
	return d;
}

/* the i_version part of knfsd's change attribute (sw_attrs_torn) */
static uint64_t iversion_part(const struct sw_attrs *a)
{
	uint64_t sec = (uint64_t)(a->ctime_ns / 1000000000), nsec = (uint64_t)(a->ctime_ns % 1000000000);
	return a->change - ((sec << 30) + nsec);
}

int sw_attrs_torn(const struct sw_attrs *a, const struct sw_attrs *b,
		  const struct sw_attrs *c)
{
	const uint32_t tc = SW_ATTR_CTIME | SW_ATTR_CHANGE, mc = SW_ATTR_MTIME | SW_ATTR_CTIME;
	if ((a->valid & b->valid & tc) != tc || (sw_attrs_diff(a, b) & tc) != SW_ATTR_CHANGE)
		return 0;
	if (c && (c->valid & tc) == tc && a->ctime_ns >= 0 && c->ctime_ns >= 0 &&
	    (sw_attrs_diff(b, c) & SW_ATTR_CTIME) && iversion_part(b) == iversion_part(c))
		return 1; /* b read ctime before the update, i_version after */
	return (a->valid & b->valid & mc) == mc && a->mtime_ns != a->ctime_ns &&
	       b->mtime_ns == b->ctime_ns; /* a read mtime before, ctime after */
}

int sw_obs_open(struct sw_obs_cursor *c, const char *path, int target,
		char err[SWLOG_ERRLEN])
{
	memset(c, 0, sizeof(*c));
	c->target = target;
	c->cap = 8;
	c->runs = calloc(c->cap, sizeof(*c->runs));
	if (!c->runs) {
		snprintf(err, SWLOG_ERRLEN, "out of memory");
		return -ENOMEM;
	}
	int rc = swlog_open(&c->l, path, err);
	if (rc) {
		free(c->runs);
		c->runs = NULL;
	} else
		c->opened = 1;
	return rc;
}

void sw_obs_close(struct sw_obs_cursor *c)
{
	if (c->opened)
		swlog_reader_close(c->l);
	free(c->runs);
	memset(c, 0, sizeof(*c));
}

static struct obs_run *run_at(struct sw_obs_cursor *c, uint64_t i)
{
	return &c->runs[(c->head + i) % c->cap];
}

static int grow(struct sw_obs_cursor *c)
{
	uint64_t nc = c->cap * 2;
	struct obs_run *nr = sw_ring_regrow(c->runs, sizeof(*nr), c->head, c->n, c->cap, nc);
	if (!nr)
		return -ENOMEM;
	c->runs = nr;
	c->cap = nc;
	c->head = 0;
	return 0;
}

/* Read records until one more reply/failure/gap of our target is in. */
static int load_one(struct sw_obs_cursor *c)
{
	struct swlog_rec rec;
	while (!c->eof) {
		int st = sw_obs_next(c->l, &c->base, &rec);
		if (st != SWLOG_OK) {
			c->eof = 1;
			return 0;
		}
		if (rec.type == SW_REC_END) {
			c->eof = 1;
			return 0;
		}
		if (rec.type == SW_REC_ATTR && rec.len >= sizeof(struct sw_rec_attr)) {
			struct sw_rec_attr a;
			memcpy(&a, rec.payload, sizeof(a));
			if (a.target != c->target)
				continue;
			struct obs_run *last = c->n ? run_at(c, c->n - 1) : NULL;
			if (a.status != 0) {
				if (!last) {
					c->pre_fail++;
					continue;
				}
				if (!last->nfail)
					last->fail_first = a.t_send_real_ns;
				last->nfail++;
				last->fail_last = a.t_send_real_ns;
				return 1;
			}
			if (!last || sw_attrs_diff(&last->a, &a.attrs)) {
				if (c->n == c->cap && grow(c))
					return -ENOMEM;
				last = run_at(c, c->n++);
				memset(last, 0, sizeof(*last));
				last->a = a.attrs;
				last->first_send = a.t_send_real_ns;
				last->first_recv = a.t_recv_real_ns;
			}
			if (last->n < OBS_K) {
				last->send[last->n] = a.t_send_real_ns;
				last->recv[last->n] = a.t_recv_real_ns;
			}
			last->n++;
			last->last_send = a.t_send_real_ns;
			last->last_recv = a.t_recv_real_ns;
			return 1;
		}
		if (rec.type == SW_REC_GAP && rec.len >= sizeof(struct sw_rec_gap)) {
			struct sw_rec_gap g;
			memcpy(&g, rec.payload, sizeof(g));
			if (g.target != c->target || !c->n)
				continue;
			struct obs_run *last = run_at(c, c->n - 1);
			if (!last->ngap)
				last->gap_start = g.t_start_real_ns;
			last->ngap++;
			/* t_end 0: still open when the probe stopped */
			last->gap_end = g.t_end_real_ns ? g.t_end_real_ns : INT64_MAX;
			return 1;
		}
	}
	return 0;
}

/* Is run i complete enough to answer "first reply sent after T"? */
static int run_ready(struct sw_obs_cursor *c, uint64_t i)
{
	return c->eof || i + 1 < c->n || (i < c->n && run_at(c, i)->n >= OBS_K);
}

int sw_obs_query(struct sw_obs_cursor *c, int64_t T, struct sw_obs_answer *ans)
{
	int rc;
	memset(ans, 0, sizeof(*ans));
	/* trailing: drop runs while the next one starts before T */
	for (;;) {
		while (c->n < 2 && !c->eof)
			if ((rc = load_one(c)) < 0)
				return rc;
		if (c->n >= 2 && run_at(c, 1)->first_recv < T) {
			c->head = (c->head + 1) % c->cap;
			c->n--;
			continue;
		}
		break;
	}
	if (!c->n || run_at(c, 0)->first_recv >= T) {
		ans->status = SW_OBS_NO_REF;
		return 0;
	}
	const struct obs_run *ref = run_at(c, 0);
	ans->ref = ref;
	uint32_t fails = 0, gaps = 0;
	int64_t gs = 0, ge = 0, fl = 0;
	for (uint64_t j = 1;; j++) {
		while (!run_ready(c, j))
			if ((rc = load_one(c)) < 0)
				return rc;
		ref = run_at(c, 0); /* the ring may have moved */
		ans->ref = ref;
		const struct obs_run *prev = run_at(c, j - 1);
		if (prev->nfail && prev->fail_last >= T) {
			fails += prev->nfail;
			fl = prev->fail_last;
		}
		if (prev->ngap && prev->gap_end >= T) {
			if (!gaps)
				gs = prev->gap_start;
			gaps += prev->ngap;
			ge = prev->gap_end;
		}
		if (j >= c->n) {
			ans->status = SW_OBS_END;
			break;
		}
		const struct obs_run *r = run_at(c, j);
		uint32_t d = sw_attrs_diff(&ref->a, &r->a);
		if (!d)
			continue;
		uint64_t k = r->n < OBS_K ? r->n : OBS_K, i;
		for (i = 0; i < k && r->send[i] <= T; i++)
			;
		if (i == k && r->n > OBS_K)
			i = k - 1; /* more than OBS_K-1 in flight: nearest kept */
		if (i == k)
			continue;
		ans->status = SW_OBS_OK;
		ans->send = r->send[i];
		ans->recv = r->recv[i];
		ans->revealed = d;
		/* change alone: the next run tells a torn reply */
		if ((d & (SW_ATTR_CTIME | SW_ATTR_CHANGE)) == SW_ATTR_CHANGE) {
			while (c->n <= j + 1 && !c->eof)
				if ((rc = load_one(c)) < 0)
					return rc;
			ans->ref = run_at(c, 0); /* the ring may have moved */
			r = run_at(c, j);
			ans->torn = sw_attrs_torn(&ans->ref->a, &r->a,
						  c->n > j + 1 ? &run_at(c, j + 1)->a : NULL);
		}
		ans->rev = r;
		break;
	}
	ans->fails_between = fails;
	ans->gaps_between = gaps;
	ans->gap_start = gs;
	ans->gap_end = ge;
	ans->fail_last = fl;
	return 0;
}

int sw_obs_scan_log(const char *path, struct sw_obs_scan *s,
		    char err[SWLOG_ERRLEN])
{
	struct swlog_reader *l;
	struct swlog_rec rec;
	struct sw_obs_base base = { 0 };
	int rc = swlog_open(&l, path, err);

	memset(s, 0, sizeof(*s));
	s->bad_record = -1;
	s->bad_target_record = -1;
	if (rc)
		return rc;
	for (;;) {
		int st = sw_obs_next(l, &base, &rec);
		if (st != SWLOG_OK) {
			s->status = st;
			if (st != SWLOG_EOF) {
				s->bad_record = (int64_t)s->records;
				snprintf(s->bad_text, sizeof(s->bad_text), "%s",
					 st < 0 ? strerror(-st) : swlog_reader_error(l));
			}
			break;
		}
		s->records++;
		if (rec.type == SW_REC_END) {
			s->has_end = 1;
			continue;
		}
		uint16_t target;
		if (rec.type == SW_REC_ATTR && rec.len >= sizeof(struct sw_rec_attr))
			target = ((const struct sw_rec_attr *)rec.payload)->target;
		else if (rec.type == SW_REC_GAP && rec.len >= sizeof(struct sw_rec_gap))
			target = ((const struct sw_rec_gap *)rec.payload)->target;
		else if (rec.type == SW_REC_READ && rec.len >= sizeof(struct sw_rec_read))
			target = ((const struct sw_rec_read *)rec.payload)->target;
		else
			continue;
		struct sw_obs_stats *t = NULL;
		for (int i = 0; i < s->ntargets; i++)
			if (s->t[i].target == target)
				t = &s->t[i];
		if (!t) {
			if (s->ntargets == SW_OBS_SCAN_TARGETS) {
				if (s->bad_target_record < 0)
					s->bad_target_record = (int64_t)rec.index;
				continue;
			}
			/* a target's two histograms are 128 KiB: as many as
			 * the log has, not SW_OBS_SCAN_TARGETS of them */
			struct sw_obs_stats *nt = realloc(s->t, (size_t)(s->ntargets + 1) * sizeof(*nt));
			if (!nt) {
				snprintf(err, SWLOG_ERRLEN,
					 "expected memory for target %u's figures (%zu bytes), saw none",
					 (unsigned)target, sizeof(*nt));
				swlog_reader_close(l);
				return -ENOMEM;
			}
			s->t = nt;
			t = &s->t[s->ntargets++];
			memset(t, 0, sizeof(*t));
			t->target = target;
			sw_hist_init(&t->poll_ns);
			sw_hist_init(&t->rtt_ns);
		}
		if (rec.type == SW_REC_ATTR) {
			struct sw_rec_attr a;
			memcpy(&a, rec.payload, sizeof(a));
			t->vers = a.vers;
			if (a.status) {
				t->failures++;
				continue;
			}
			if (!t->replies)
				t->t_first_recv = a.t_recv_real_ns;
			else
				sw_hist_add(&t->poll_ns, ss(a.t_send_real_ns, t->last_send));
			t->last_send = a.t_send_real_ns;
			t->t_last_recv = a.t_recv_real_ns;
			sw_hist_add(&t->rtt_ns, ss(a.t_recv_real_ns, a.t_send_real_ns));
			t->replies++;
		} else if (rec.type == SW_REC_GAP) {
			struct sw_rec_gap g;
			memcpy(&g, rec.payload, sizeof(g));
			t->gaps++;
			if (g.t_end_real_ns) /* 0: open at the end, length unknown */
				t->gap_ns = sa(t->gap_ns, ss(g.t_end_real_ns, g.t_start_real_ns));
		} else {
			struct sw_rec_read rd;
			memcpy(&rd, rec.payload, sizeof(rd));
			t->reads++;
			if (rd.flags & SW_READ_OTHERRUN)
				s->other_run_reads++;
		}
	}
	swlog_reader_close(l);
	return 0;
}

void sw_obs_scan_free(struct sw_obs_scan *s)
{
	free(s->t);
	s->t = NULL;
	s->ntargets = 0;
}
