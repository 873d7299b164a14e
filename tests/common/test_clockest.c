/* SPDX-License-Identifier: MIT */
/*
 * Description: the minimum-round-trip clock-offset estimate
 * (common/clockest.c) on exchanges with a known offset: it must keep the
 * exchange with the least round trip, and that exchange's offset must be
 * within half its round trip of the truth.  A broken estimator shows as the
 * last or a slow exchange kept, or the offset's sign flipped.
 */
#include <stdint.h>

#include "clockest.h"
#include "check.h"

int main(void)
{
	const int64_t off = 123456789; /* peer = ours + off */
	/* (out, hold, back) ns; round trips 1 ms, 450 us, 50 us, 1.5 ms */
	const int64_t ex[][3] = { { 900000, 1000, 100000 }, { 50000, 2000, 400000 },
				  { 30000, 500, 20000 }, { 700000, 100, 800000 } };
	struct sw_clockest e;
	int64_t t = 1000000000000ll;

	sw_clockest_init(&e);
	for (unsigned i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		int64_t t1 = t, t2 = t1 + ex[i][0] + off, t3 = t2 + ex[i][1];
		int64_t t4 = t3 - off + ex[i][2];
		int best = sw_clockest_add(&e, t1, t2, t3, t4, (t4 - t1) - (t3 - t2));
		CHECK(best == (i < 3), "exchange %u: expected best=%d, saw %d",
		      i, i < 3, best);
		t += 10000000;
	}
	CHECK(e.samples == 4, "expected 4 samples, saw %u", e.samples);
	CHECK(e.rtt_min_ns == 50000, "expected rtt_min 50000 ns, saw %lld",
	      (long long)e.rtt_min_ns);
	int64_t d = e.offset_ns - off;
	CHECK(d <= e.rtt_min_ns / 2 && -d <= e.rtt_min_ns / 2,
	      "expected offset %lld +- %lld ns, saw %lld", (long long)off,
	      (long long)(e.rtt_min_ns / 2), (long long)e.offset_ns);
	if (failures)
		return 1;
	printf("PASS: clockest offset %lld (true %lld), rtt_min %lld\n",
	       (long long)e.offset_ns, (long long)off, (long long)e.rtt_min_ns);
	return 0;
}
