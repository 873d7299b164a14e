/* SPDX-License-Identifier: MIT */
/* test_cleanedge.c - the (flusher pass, page) pairs whose trap count
 * moves with a pass's time (analysis/pass/cleanedge.c), each case a known
 * answer worked by hand from "traps = [f < C] + [l > C]" (f, l: the
 * page's first and last store between the passes around C):
 *   near_first  a page stored 3 ms before a pass and again after it:
 *               a pair from the 4 ms window on, none at 1 or 2 ms;
 *   near_last   a page stored before a pass and last 7 ms after it: from
 *               8 ms on;
 *   once        a page stored once between two passes: never a pair (one
 *               trap wherever the pass falls);
 *   rewrite     one page every 100 ms, passes every 1 s at 50 ms between
 *               two stores: no pair up to 512 ms (every move of a pass
 *               leaves one trap after it), one a pass at 1024 ms (its
 *               first store after the pass before is 950 ms from it);
 *   late_record a store logged after a pass it preceded counts before it;
 *   no_pass     stores without a flusher pass: nothing counted. */
#include "check.h"
#include "cleanedge.h"

#define MS 1000000ll

static int win(int ms)
{
	for (int k = 0; k < SW_EDGE_WINDOWS; k++)
		if (sw_edge_window_ms[k] == ms)
			return k;
	CHECK(0, "no window of %d ms", ms);
	return 0;
}

/* passes at 0, 1 and 2 s; store A in the first interval, B logged after
 * the pass at 1 s (before it in time for a late record) */
static void two_stores(struct sw_cleanedge *e, uint64_t pa, int64_t ta_ms, uint64_t pb,
		       int64_t tb_ms)
{
	sw_edge_init(e);
	sw_edge_clean(e, 0);
	sw_edge_store(e, pa, ta_ms * MS);
	sw_edge_clean(e, 1000 * MS);
	sw_edge_store(e, pb, tb_ms * MS);
	sw_edge_clean(e, 2000 * MS);
	CHECK(sw_edge_finish(e) == 0);
	CHECK(e->ncleans == 3);
}

SW_CASE(near_first)
{
	struct sw_cleanedge e;
	two_stores(&e, 7, 997, 7, 1500); /* f: 3 ms before the pass at 1 s */
	CHECK(e.pairs[win(1)] == 0 && e.pairs[win(2)] == 0, "1, 2 ms: %llu %llu",
	      (unsigned long long)e.pairs[win(1)], (unsigned long long)e.pairs[win(2)]);
	CHECK(e.pairs[win(4)] == 1 && e.pairs[win(1024)] == 1, "4 ms, 1 s: %llu %llu",
	      (unsigned long long)e.pairs[win(4)], (unsigned long long)e.pairs[win(1024)]);
	sw_edge_free(&e);
}

SW_CASE(near_last)
{
	struct sw_cleanedge e;
	two_stores(&e, 3, 400, 3, 1007); /* l: 7 ms after the pass at 1 s */
	CHECK(e.pairs[win(4)] == 0, "4 ms: %llu", (unsigned long long)e.pairs[win(4)]);
	CHECK(e.pairs[win(8)] == 1, "8 ms: %llu", (unsigned long long)e.pairs[win(8)]);
	sw_edge_free(&e);
}

SW_CASE(once)
{
	struct sw_cleanedge e;
	two_stores(&e, 1, 999, 2, 1001);
	for (int k = 0; k < SW_EDGE_WINDOWS; k++)
		CHECK(e.pairs[k] == 0, "window %d ms: %llu", sw_edge_window_ms[k],
		      (unsigned long long)e.pairs[k]);
	sw_edge_free(&e);
}

SW_CASE(rewrite)
{
	struct sw_cleanedge e;
	sw_edge_init(&e);
	for (int t = 0; t < 10000; t += 100) {
		if (t % 1000 == 0 && t)
			sw_edge_clean(&e, (t - 50) * MS);
		sw_edge_store(&e, 0, t * MS);
	}
	CHECK(sw_edge_finish(&e) == 0);
	CHECK(e.ncleans == 9);
	/* every pass has its f 50 ms after the one before, 950 ms before it,
	 * and its l 50 ms before the next, 950 ms after it: none within 512
	 * ms, both within 1024 */
	for (int k = 0; k < SW_EDGE_WINDOWS && sw_edge_window_ms[k] <= 512; k++)
		CHECK(e.pairs[k] == 0, "window %d ms: %llu", sw_edge_window_ms[k],
		      (unsigned long long)e.pairs[k]);
	CHECK(e.pairs[win(1024)] == 9, "1024 ms: %llu", (unsigned long long)e.pairs[win(1024)]);
	sw_edge_free(&e);
}

SW_CASE(late_record)
{
	struct sw_cleanedge e;
	two_stores(&e, 5, 500, 5, 999); /* 999: logged after the pass it preceded */
	/* f 500, l 999: both before the pass, l 1 ms from it: a pass moved
	 * by 2 ms falls before l (two traps) or after it (one) */
	CHECK(e.pairs[win(1)] == 0 && e.pairs[win(2)] == 1, "1, 2 ms: %llu %llu",
	      (unsigned long long)e.pairs[win(1)], (unsigned long long)e.pairs[win(2)]);
	sw_edge_free(&e);
}

SW_CASE(no_pass)
{
	struct sw_cleanedge e;
	sw_edge_init(&e);
	sw_edge_store(&e, 1, 1 * MS);
	sw_edge_store(&e, 1, 2 * MS);
	CHECK(sw_edge_finish(&e) == 0);
	CHECK(e.ncleans == 0 && e.pairs[SW_EDGE_WINDOWS - 1] == 0);
	sw_edge_free(&e);
}

SW_MAIN()
