/* SPDX-License-Identifier: MIT */
/*
 * Description: the one reader of a writer log (analysis/pass/
 * writer_events.c) must give each STORE the UPDATE of its own trap: by the
 * STORE's upd_seq when the writer logged one (also with another record in
 * between), by the last unclaimed trap UPDATE of the same page in a log
 * without upd_seq, and none when upd_seq names another UPDATE; an
 * out-of-time record is flagged, not used (short records are
 * tests/analysis/pass/test_mutate.c's).  A broken pairing shows as a
 * store owning the wrong update (its window would start at another trap's
 * time) or a race pair lost.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "writer_events.h"
#include "check.h"

#define T0 1700000000000000000ll

static void upd(struct swlog_writer *w, int64_t t, uint64_t page)
{
	struct sw_rec_update u = { .t_real_ns = t, .mtime_ns = t, .ctime_ns = t,
				   .page = page, .cause = SW_CAUSE_TRAP };
	CHECK(swlog_append(w, SW_REC_UPDATE, &u, sizeof(u)) == 0, "append UPDATE");
}

static void store(struct swlog_writer *w, int64_t t, uint64_t page,
		  uint32_t flags, uint32_t upd_seq)
{
	struct sw_rec_store s = { .page = page, .gen = 1, .t_before_real_ns = t,
				  .t_after_real_ns = t + 10, .flags = flags,
				  .upd_seq = upd_seq };
	CHECK(swlog_append(w, SW_REC_STORE, &s, sizeof(s)) == 0, "append STORE");
}

int main(void)
{
	char path[] = "/tmp/sw-wev-XXXXXX", err[SWLOG_ERRLEN];
	const uint32_t TU = SW_STORE_TRAPPED | SW_STORE_UPDATED;
	struct swlog_writer *w;
	int fd = mkstemp(path);
	if (fd < 0 || close(fd) ||
	    swlog_create(&w, path, 1, SWLOG_KIND_WRITER, 1, "{}", 0, err)) {
		fprintf(stderr, "FAIL: cannot create %s: %s\n", path, err);
		return 1;
	}
	upd(w, T0 + 100, 0);           /* seq 1 */
	store(w, T0 + 101, 0, TU, 1);  /* own: seq 1 */
	upd(w, T0 + 200, 1);           /* seq 2 */
	swlog_note(w, SW_NOTE_INFO, "another thread's record");
	store(w, T0 + 201, 1, TU, 2);  /* own: seq 2, a NOTE between */
	upd(w, T0 + 300, 0);           /* seq 3 */
	store(w, T0 + 301, 0, TU, 0);  /* old log: the last trap update, page 0 */
	upd(w, T0 + 400, 2);           /* seq 4 */
	store(w, T0 + 401, 2, TU, 9);  /* upd_seq names another update: none */
	store(w, T0 + 500, 3, 0, 0);   /* no trap */
	upd(w, T0 + 2000000000000000ll, 4); /* out of time: skipped */
	if (swlog_close(w)) {
		fprintf(stderr, "FAIL: close %s\n", path);
		return 1;
	}

	/* per record: type, skip, own, own_seq (STORE) or upd_seq (UPDATE) */
	static const struct { uint16_t type; int skip, own; uint64_t seq; } want[] = {
		{ SW_REC_UPDATE, SW_WEV_OK, 0, 1 }, { SW_REC_STORE, SW_WEV_OK, 1, 1 },
		{ SW_REC_UPDATE, SW_WEV_OK, 0, 2 }, { SW_REC_NOTE, SW_WEV_OK, 0, 0 },
		{ SW_REC_STORE, SW_WEV_OK, 1, 2 },  { SW_REC_UPDATE, SW_WEV_OK, 0, 3 },
		{ SW_REC_STORE, SW_WEV_OK, 1, 3 },  { SW_REC_UPDATE, SW_WEV_OK, 0, 4 },
		{ SW_REC_STORE, SW_WEV_OK, 0, 0 },  { SW_REC_STORE, SW_WEV_OK, 0, 0 },
		{ SW_REC_UPDATE, SW_WEV_INSANE, 0, 0 },
	};
	struct sw_wev_reader r;
	struct sw_wev ev;
	unsigned i = 0;
	if (sw_wev_open(&r, path, err)) {
		fprintf(stderr, "FAIL: open %s: %s\n", path, err);
		return 1;
	}
	while (sw_wev_next(&r, &ev) == SWLOG_OK) {
		if (i >= sizeof(want) / sizeof(want[0])) {
			CHECK(0, "record %u: expected the end of the log, saw type %u", i,
			      ev.rec.type);
			break;
		}
		CHECK(ev.rec.type == want[i].type, "record %u: expected type %u, saw %u", i,
		      want[i].type, ev.rec.type);
		CHECK((int)ev.skip == want[i].skip, "record %u: expected skip %d, saw %d", i,
		      want[i].skip, (int)ev.skip);
		if (!ev.skip && ev.rec.type == SW_REC_STORE) {
			CHECK(ev.own == want[i].own, "record %u: expected own %d, saw %d", i,
			      want[i].own, ev.own);
			if (ev.own)
				CHECK(ev.own_seq == want[i].seq &&
				      ev.own_upd.t_real_ns == ev.store.t_before_real_ns - 1,
				      "record %u: expected update %llu at t-1, saw %llu at %lld",
				      i, (unsigned long long)want[i].seq,
				      (unsigned long long)ev.own_seq,
				      (long long)(ev.own_upd.t_real_ns - T0));
		}
		if (!ev.skip && ev.rec.type == SW_REC_UPDATE)
			CHECK(ev.upd_seq == want[i].seq, "record %u: expected update %llu, saw %llu",
			      i, (unsigned long long)want[i].seq, (unsigned long long)ev.upd_seq);
		i++;
	}
	CHECK(i == sizeof(want) / sizeof(want[0]), "expected %zu records, saw %u",
	      sizeof(want) / sizeof(want[0]), i);
	sw_wev_close(&r);
	unlink(path);
	if (failures)
		return 1;
	printf("PASS: writer events: stores paired with their own trap's update\n");
	return 0;
}
