/* SPDX-License-Identifier: MIT */
/* obsclock.c - an observer's realtime steps taken off its records
 * (obsclock.h). */
#include <string.h>

#include "obsclock.h"
#include "records.h"
#include "report.h"
#include "satmath.h"
#include "writer_events.h"

/* offsets of the (realtime, monotonic) pairs of an observer record */
static int pairs(const struct swlog_rec *rec, size_t at[2])
{
	switch (rec->type) {
	case SW_REC_ATTR:
		if (rec->len < sizeof(struct sw_rec_attr))
			return 0;
		at[0] = offsetof(struct sw_rec_attr, t_send_real_ns);
		at[1] = offsetof(struct sw_rec_attr, t_recv_real_ns);
		return 2;
	case SW_REC_READ:
		if (rec->len < sizeof(struct sw_rec_read))
			return 0;
		at[0] = offsetof(struct sw_rec_read, t_send_real_ns);
		at[1] = offsetof(struct sw_rec_read, t_recv_real_ns);
		return 2;
	case SW_REC_GAP:
		if (rec->len < sizeof(struct sw_rec_gap))
			return 0;
		at[0] = offsetof(struct sw_rec_gap, t_start_real_ns);
		at[1] = offsetof(struct sw_rec_gap, t_end_real_ns);
		return 2;
	case SW_REC_EVENT:
		if (rec->len < sizeof(struct sw_rec_event))
			return 0;
		at[0] = offsetof(struct sw_rec_event, t_real_ns);
		return 1;
	case SW_REC_KREAD:
		if (rec->len < sizeof(struct sw_rec_kread))
			return 0;
		at[0] = offsetof(struct sw_rec_kread, t_before_real_ns);
		at[1] = offsetof(struct sw_rec_kread, t_after_real_ns);
		return 2;
	default:
		return 0;
	}
}
/* (each realtime field is followed by its monotonic one) */
_Static_assert(offsetof(struct sw_rec_attr, t_send_mono_ns) == offsetof(struct sw_rec_attr, t_send_real_ns) + 8 &&
	       offsetof(struct sw_rec_attr, t_recv_mono_ns) == offsetof(struct sw_rec_attr, t_recv_real_ns) + 8 &&
	       offsetof(struct sw_rec_read, t_send_mono_ns) == offsetof(struct sw_rec_read, t_send_real_ns) + 8 &&
	       offsetof(struct sw_rec_read, t_recv_mono_ns) == offsetof(struct sw_rec_read, t_recv_real_ns) + 8 &&
	       offsetof(struct sw_rec_gap, t_start_mono_ns) == offsetof(struct sw_rec_gap, t_start_real_ns) + 8 &&
	       offsetof(struct sw_rec_gap, t_end_mono_ns) == offsetof(struct sw_rec_gap, t_end_real_ns) + 8 &&
	       offsetof(struct sw_rec_event, t_mono_ns) == offsetof(struct sw_rec_event, t_real_ns) + 8 &&
	       offsetof(struct sw_rec_kread, t_before_mono_ns) == offsetof(struct sw_rec_kread, t_before_real_ns) + 8 &&
	       offsetof(struct sw_rec_kread, t_after_mono_ns) == offsetof(struct sw_rec_kread, t_after_real_ns) + 8,
	       "observer records: monotonic beside realtime");

static int64_t get(const struct swlog_rec *rec, size_t at)
{
	int64_t v;
	memcpy(&v, (const char *)rec->payload + at, 8);
	return v;
}

/* the step in force at one (realtime, monotonic) pair: its own jump
 * from the first record's base, 0 within SW_CLOCK_STEP_MIN_NS */
static int64_t pair_shift(const struct sw_obs_base *b, int64_t re, int64_t mo)
{
	int64_t d = ss(ss(re, mo), b->off0_ns);
	/* a damaged time is left to the passes' own checks */
	return (d > SW_CLOCK_STEP_MIN_NS || d < -SW_CLOCK_STEP_MIN_NS) && d < SW_WEV_SANE_NS &&
		       d > -SW_WEV_SANE_NS ? d : 0;
}

/* Each pair is put back on its own: a probe's request sent before a step
 * may be logged, with its reply, after one sent after it.  The last pair
 * (the reply, the read's return, the gap's end) is in log order: its
 * shift is the one in force (returned). */
int64_t sw_obs_rebase(struct sw_obs_base *b, struct swlog_rec *rec)
{
	size_t at[2];
	int n = pairs(rec, at);
	if (!n)
		return b->shift_ns;
	if (get(rec, at[0] + 8) <= 0) /* (a synthetic log may leave it 0) */
		return b->shift_ns;
	if (!b->set) {
		b->off0_ns = ss(get(rec, at[0]), get(rec, at[0] + 8));
		b->set = 1;
	}
	for (int i = 0; i < n; i++) {
		int64_t d = pair_shift(b, get(rec, at[i]), get(rec, at[i] + 8));
		if (d) {
			int64_t v = ss(get(rec, at[i]), d);
			memcpy((char *)(uintptr_t)rec->payload + at[i], &v, 8);
		}
		b->shift_ns = d;
	}
	return b->shift_ns;
}

int sw_obs_next(struct swlog_reader *r, struct sw_obs_base *b, struct swlog_rec *rec)
{
	int st = swlog_next(r, rec);
	if (st == SWLOG_OK)
		sw_obs_rebase(b, rec);
	return st;
}

int sw_obs_steps_scan(struct sw_summary *S, const char *path, const char *name)
{
	struct swlog_reader *r;
	struct swlog_rec rec;
	struct sw_obs_base b = { 0 };
	char err[SWLOG_ERRLEN];
	int64_t level = 0;

	S->nobs_steps = 0;
	snprintf(S->obs_step_log, sizeof(S->obs_step_log), "%s", name);
	if (swlog_open(&r, path, err))
		return -1;
	while (swlog_next(r, &rec) == SWLOG_OK && rec.type != SW_REC_END) {
		size_t at[2];
		int n = pairs(&rec, at);
		if (!n)
			continue;
		int64_t mo = get(&rec, at[n - 1] + 8), s = sw_obs_rebase(&b, &rec), d = ss(s, level);
		/* (each record's shift is its own, to the ns: a step is a new
		 * level, not the clock reads' jitter) */
		if (d <= SW_CLOCK_STEP_MIN_NS && d >= -SW_CLOCK_STEP_MIN_NS)
			continue;
		if (S->nobs_steps < SW_MAX_CLOCK_STEPS) /* when: on the first base */
			S->obs_step[S->nobs_steps] = (struct sw_clock_step){
				.t_ns = sa(mo, b.off0_ns), .step_ns = d };
		S->nobs_steps++;
		level = s;
	}
	swlog_reader_close(r);
	return 0;
}
