/* SPDX-License-Identifier: MIT */
/* writer_events.c - one reader of a writer log (writer_events.h). */
#include <stddef.h>
#include <string.h>

#include "satmath.h"
#include "writer_events.h"

int sw_wev_open(struct sw_wev_reader *w, const char *path, char err[SWLOG_ERRLEN])
{
	memset(w, 0, sizeof(*w));
	return swlog_open(&w->r, path, err);
}

void sw_wev_attach(struct sw_wev_reader *w, struct swlog_reader *r)
{
	memset(w, 0, sizeof(*w));
	w->r = r;
}

int sw_wev_clone(struct sw_wev_reader *dst, const struct sw_wev_reader *src)
{
	memset(dst, 0, sizeof(*dst));
	return swlog_reader_clone(&dst->r, src->r);
}

void sw_wev_close(struct sw_wev_reader *w)
{
	if (w->r)
		swlog_reader_close(w->r);
	w->r = NULL;
}

int64_t sw_wev_rec_time(const struct swlog_rec *r)
{
	if (r->type == SW_REC_STORE)
		return ((const struct sw_rec_store *)r->payload)->t_before_real_ns;
	if (r->len >= 8) {
		int64_t t;
		memcpy(&t, r->payload, 8);
		return t;
	}
	return 0;
}

int sw_wev_rec_clocks(const struct swlog_rec *r, int64_t *real_ns, int64_t *mono_ns)
{
	size_t at = 0;
	uint32_t need = swlog_min_len(r->type);

	switch (r->type) {
	case SW_REC_STORE:
		at = offsetof(struct sw_rec_store, t_before_real_ns);
		break;
	case SW_REC_UPDATE: case SW_REC_CLEAN: case SW_REC_SYNC:
	case SW_REC_MUNMAP: case SW_REC_END: case SW_REC_SETUP:
		break;
	default:
		return 0;
	}
	if (!need || r->len < need || r->len < at + 16)
		return 0;
	memcpy(real_ns, (const char *)r->payload + at, 8);
	memcpy(mono_ns, (const char *)r->payload + at + 8, 8);
	return *mono_ns > 0; /* (a synthetic log may leave it 0) */
}

/* The realtime step in force (writer_events.h, SW_CLOCK_STEP_MIN_NS) taken
 * off the record's realtime fields.  The payload is the reader's own copy
 * of the record (swlog.c take_frame), valid until the next record. */
static void rebase(struct sw_wev_reader *w, struct sw_wev *ev)
{
	static const size_t store_at[] = { offsetof(struct sw_rec_store, t_before_real_ns),
					   offsetof(struct sw_rec_store, t_after_real_ns) };
	static const size_t upd_at[] = { offsetof(struct sw_rec_update, t_real_ns),
					 offsetof(struct sw_rec_update, t_done_real_ns) };
	static const size_t first_at[] = { 0 };
	const size_t *at = first_at;
	size_t n = 1;
	int64_t re, mo, v;

	if (sw_wev_rec_clocks(&ev->rec, &re, &mo)) {
		int64_t off = ss(re, mo), d;
		if (!w->off_set) {
			w->off0_ns = off;
			w->off_set = 1;
		}
		d = ss(off, w->off0_ns);
		/* a damaged time (SW_WEV_INSANE) is left to the sanity check */
		w->shift_ns = (d > SW_CLOCK_STEP_MIN_NS || d < -SW_CLOCK_STEP_MIN_NS) &&
				      d < SW_WEV_SANE_NS && d > -SW_WEV_SANE_NS ? d : 0;
	} else if (ev->rec.type != SW_REC_NOTE) {
		return;
	}
	if (!w->shift_ns)
		return;
	if (ev->rec.type == SW_REC_STORE)
		at = store_at, n = 2;
	else if (ev->rec.type == SW_REC_UPDATE || ev->rec.type == SW_REC_SETUP)
		at = upd_at, n = 2; /* (SETUP: t_real_ns, t_done_real_ns too) */
	for (size_t i = 0; i < n; i++) {
		char *p = (char *)(uintptr_t)ev->rec.payload + at[i];
		memcpy(&v, p, 8);
		v = ss(v, w->shift_ns);
		memcpy(p, &v, 8);
	}
}

static int sane(const struct sw_wev_reader *w, int64_t t)
{
	return t > w->t_ref - SW_WEV_SANE_NS && t < w->t_ref + SW_WEV_SANE_NS;
}

static void on_update(struct sw_wev_reader *w, struct sw_wev *ev)
{
	memcpy(&ev->upd, ev->rec.payload, sizeof(ev->upd));
	ev->upd_seq = ++w->nupd;
	ev->upd_trap = ev->upd.cause == SW_CAUSE_TRAP ||
		       (ev->upd.cause == SW_CAUSE_NATIVE && ev->upd.page != SW_NO_PAGE);
	if (ev->upd_trap) {
		w->trap = ev->upd;
		w->trap_seq = ev->upd_seq;
		w->have_trap = 1;
	}
}

static void on_store(struct sw_wev_reader *w, struct sw_wev *ev)
{
	const struct sw_rec_store *s = &ev->store;
	memcpy(&ev->store, ev->rec.payload, sizeof(ev->store));
	if (!(s->flags & SW_STORE_UPDATED) || !w->have_trap || w->trap.page != s->page)
		return;
	if (s->upd_seq && s->upd_seq != (uint32_t)w->trap_seq)
		return;
	ev->own = 1;
	ev->own_upd = w->trap;
	ev->own_seq = w->trap_seq;
	w->have_trap = 0;
}

void sw_wev_check(struct sw_wev_reader *w, struct sw_wev *ev)
{
	uint32_t need = swlog_min_len(ev->rec.type);

	if (need && ev->rec.len < need) {
		ev->skip = SW_WEV_SHORT;
		return;
	}
	rebase(w, ev);
	ev->t_real_ns = sw_wev_rec_time(&ev->rec);
	if (!w->t_ref) /* the first usable record with a time */
		w->t_ref = ev->t_real_ns;
	if ((ev->rec.type == SW_REC_STORE || ev->rec.type == SW_REC_UPDATE) &&
	    (!sane(w, ev->t_real_ns) ||
	     (ev->rec.type == SW_REC_STORE &&
	      !sane(w, ((const struct sw_rec_store *)ev->rec.payload)->t_after_real_ns)))) {
		ev->skip = SW_WEV_INSANE;
		return;
	}
	if (ev->rec.type == SW_REC_UPDATE)
		on_update(w, ev);
	else if (ev->rec.type == SW_REC_STORE)
		on_store(w, ev);
}
