/* SPDX-License-Identifier: MIT */
/*
 * Description: a step of the writer's realtime clock (vm run --fault
 * clock-step, an NTP step) must not move a window: the writer-log reader
 * (analysis/pass/writer_events.c) gives every record its realtime on the
 * first record's base (its monotonic time + the first offset) once the
 * offset has moved more than 100 ms, NOTEs (no monotonic time) with the
 * step in force; clockstep.c finds the step once, also when a record read
 * before the step is logged after one read after it (threads), and a
 * jitter under 100 ms is no step.  A reader that used the realtime as
 * logged gives times 30 s late after the step; a scan without the
 * confirmation counts the out-of-order record as two more steps.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "report.h"
#include "writer_events.h"

#define T0 1700000000000000000ll
#define S 1000000000ll
#define STEP (30 * S)

/* a record whose clocks are read at monotonic m with realtime T0 + m + off */
static void upd(struct swlog_writer *w, int64_t m, int64_t off)
{
	struct sw_rec_update u = { .t_real_ns = T0 + m + off, .t_mono_ns = m,
				   .t_done_real_ns = T0 + m + off + 5, .mtime_ns = T0 + m + off,
				   .ctime_ns = T0 + m + off, .page = 0, .cause = SW_CAUSE_TRAP };
	CHECK(swlog_append(w, SW_REC_UPDATE, &u, sizeof(u)) == 0, "append UPDATE");
}

static void store(struct swlog_writer *w, int64_t m, int64_t off)
{
	struct sw_rec_store s = { .page = 0, .gen = 1, .t_before_real_ns = T0 + m + off,
				  .t_before_mono_ns = m, .t_after_real_ns = T0 + m + off + 10,
				  .t_after_mono_ns = m + 10 };
	CHECK(swlog_append(w, SW_REC_STORE, &s, sizeof(s)) == 0, "append STORE");
}

static void write_log(const char *path, int out_of_order)
{
	struct swlog_writer *w;
	char err[SWLOG_ERRLEN];
	if (swlog_create(&w, path, 1, SWLOG_KIND_WRITER, 1, "{}", 0, err)) {
		fprintf(stderr, "FAIL: cannot create %s: %s\n", path, err);
		exit(1);
	}
	upd(w, 1 * S, 0);
	store(w, 1 * S + 100, 3000);      /* jitter of 3 us: no step */
	store(w, 2 * S, 50000000);        /* 50 ms: under the threshold */
	store(w, 3 * S, STEP);            /* the step, at 3 s */
	if (out_of_order)
		store(w, 3 * S - 1000, 0); /* read before it, logged after */
	{ /* a NOTE has no monotonic time: the step in force */
		struct { struct sw_rec_note n; char text[8]; } n = {
			.n = { .t_real_ns = T0 + 3 * S + 500 + STEP, .level = SW_NOTE_INFO, .len = 5 },
			.text = "after" };
		CHECK(swlog_append(w, SW_REC_NOTE, &n, sizeof(n.n) + 5) == 0, "append NOTE");
	}
	upd(w, 4 * S, STEP);
	store(w, 5 * S, STEP);
	if (swlog_close(w)) {
		fprintf(stderr, "FAIL: close %s\n", path);
		exit(1);
	}
}

static void check_reader(const char *path, int out_of_order)
{
	struct sw_wev_reader r;
	struct sw_wev ev;
	char err[SWLOG_ERRLEN];
	if (sw_wev_open(&r, path, err)) {
		fprintf(stderr, "FAIL: open %s: %s\n", path, err);
		exit(1);
	}
	while (sw_wev_next(&r, &ev) == SWLOG_OK) {
		CHECK(!ev.skip, "record %llu skipped (%d)", (unsigned long long)ev.rec.index, ev.skip);
		if (ev.rec.type == SW_REC_STORE) {
			int64_t want = T0 + ev.store.t_before_mono_ns;
			int64_t d = ev.store.t_before_real_ns - want;
			/* kept as logged below 100 ms, else on the first base */
			CHECK(d >= 0 && d <= 50000000 && ev.store.t_after_real_ns - ev.store.t_before_real_ns == 10,
			      "STORE at mono %.3f s: expected realtime T0 + mono (+ < 100 ms), saw %+lld ns",
			      ev.store.t_before_mono_ns / 1e9, (long long)d);
		} else if (ev.rec.type == SW_REC_UPDATE) {
			CHECK(ev.upd.t_real_ns == T0 + ev.upd.t_mono_ns &&
			      ev.upd.t_done_real_ns == ev.upd.t_real_ns + 5 && ev.t_real_ns == ev.upd.t_real_ns,
			      "UPDATE at mono %.3f s: expected realtime T0 + mono, saw %+lld ns",
			      ev.upd.t_mono_ns / 1e9, (long long)(ev.upd.t_real_ns - T0 - ev.upd.t_mono_ns));
		} else if (ev.rec.type == SW_REC_NOTE && !out_of_order) {
			/* (after a record read before the step, a NOTE takes that
			 * record's offset: NOTEs only say things, no window uses them) */
			CHECK(ev.t_real_ns == T0 + 3 * S + 500, "the NOTE after the step: expected it on the first base, at 3 s, saw %+.3f s",
			      (ev.t_real_ns - T0) / 1e9);
		}
	}
	sw_wev_close(&r);
}

static void check_scan(const char *path, const char *what)
{
	struct sw_summary *Sm = calloc(1, sizeof(*Sm));
	struct swlog_reader *r;
	char err[SWLOG_ERRLEN];
	if (!Sm || swlog_open(&r, path, err)) {
		fprintf(stderr, "FAIL: open %s\n", path);
		exit(1);
	}
	CHECK(sw_clock_steps_scan(Sm, r) == 0, "%s: scan failed", what);
	CHECK(Sm->nclock_steps == 1, "%s: expected one step, saw %d", what, Sm->nclock_steps);
	if (Sm->nclock_steps >= 1)
		CHECK(Sm->clock_step[0].step_ns == STEP && Sm->clock_step[0].t_ns == T0 + 3 * S,
		      "%s: expected +30 s at 3 s, saw %+.3f s at %.3f s", what,
		      Sm->clock_step[0].step_ns / 1e9, (Sm->clock_step[0].t_ns - T0) / 1e9);
	swlog_reader_close(r);
	free(Sm);
}

int main(void)
{
	char path[] = "/tmp/sw-clockstep-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0 || close(fd))
		return 1;
	write_log(path, 0);
	check_reader(path, 0);
	check_scan(path, "in order");
	write_log(path, 1);
	check_reader(path, 1);
	check_scan(path, "a record out of order");
	unlink(path);
	if (failures)
		return 1;
	printf("PASS: clock step: records on the first base, one step found\n");
	return 0;
}
