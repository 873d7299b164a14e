/* SPDX-License-Identifier: MIT */
/* truthcur.c - the pass's truth lookahead (truthcur.h). */
#include "truthcur.h"

static void tc_load(struct sw_truth_cur *tc)
{
	struct sw_wev ev;
	while (!tc->eof && tc->n < SW_TC_LOOKAHEAD) {
		if (sw_wev_next(&tc->w, &ev) != SWLOG_OK) {
			tc->eof = 1;
			return;
		}
		if (ev.skip)
			continue;
		if (ev.rec.type == SW_REC_END) {
			tc->t_end = ((const struct sw_rec_end *)ev.rec.payload)->t_real_ns;
			tc->eof = 1;
			return;
		}
		if (ev.rec.type != SW_REC_UPDATE)
			continue;
		const struct sw_rec_update u = ev.upd;
		struct sw_upd *x = &tc->q[(tc->head + tc->n) % SW_TC_LOOKAHEAD];
		x->t = u.t_real_ns;
		x->t_done = u.t_done_real_ns > u.t_real_ns ? u.t_done_real_ns : u.t_real_ns;
		x->mtime = u.mtime_ns;
		x->ctime = u.ctime_ns;
		x->seq = ++tc->seq;
		x->page = u.page;
		x->cause = u.cause;
		x->equal_prev = tc->have_prev && u.mtime_ns == tc->pm && u.ctime_ns == tc->pc;
		tc->pm = u.mtime_ns;
		tc->pc = u.ctime_ns;
		tc->have_prev = 1;
		tc->n++;
		return;
	}
}

const struct sw_upd *sw_tc_get(struct sw_truth_cur *tc, int i)
{
	while (tc->n <= i && !tc->eof)
		tc_load(tc);
	return i < tc->n ? &tc->q[(tc->head + i) % SW_TC_LOOKAHEAD] : NULL;
}

const struct sw_upd *sw_tc_first_after(struct sw_truth_cur *tc, int64_t T)
{
	const struct sw_upd *u;
	while ((u = sw_tc_get(tc, 0)) && u->t < T) {
		tc->head = (tc->head + 1) % SW_TC_LOOKAHEAD;
		tc->n--;
	}
	return u;
}
