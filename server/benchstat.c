/* SPDX-License-Identifier: MIT */
/*
 * benchstat.c - stalewin-writer-benchstat LOG: the trap figures of
 * one writer log as one JSON object (bench/writer.sh).
 *   trapped store latency (STORE with SW_STORE_TRAPPED: t_after - t_before
 *   mono, ns) p50/p99/max from the common histogram (< 0.8 % error), traps
 *   per second of run time (first to last store), stores, updates,
 *   the writer's RssAnon from its closing NOTE is not parsed here.
 * Exit 0, 1 unreadable log, 2 usage.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hist.h"
#include "swlog.h"

int main(int argc, char **argv)
{
	struct swlog_reader *r;
	struct swlog_rec rec;
	char err[SWLOG_ERRLEN];
	static struct sw_hist h;
	uint64_t stores = 0, traps = 0, updates = 0;
	int64_t t_first = 0, t_last = 0;
	int st, torn = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: stalewin-writer-benchstat WRITER.swlog\n");
		return 2;
	}
	if (swlog_open(&r, argv[1], err)) {
		fprintf(stderr, "stalewin-writer-benchstat: %s\n", err);
		return 1;
	}
	sw_hist_init(&h);
	while ((st = swlog_next(r, &rec)) == SWLOG_OK) {
		if (rec.type == SW_REC_STORE) {
			const struct sw_rec_store *s = rec.payload;
			if (!stores)
				t_first = s->t_before_mono_ns;
			t_last = s->t_after_mono_ns;
			stores++;
			if (s->flags & SW_STORE_TRAPPED) {
				traps++;
				sw_hist_add(&h, s->t_after_mono_ns - s->t_before_mono_ns);
			}
		} else if (rec.type == SW_REC_UPDATE) {
			updates++;
		}
	}
	if (st != SWLOG_EOF)
		torn = 1;
	double span = (double)(t_last - t_first) / 1e9;
	printf("{\"stores\":%" PRIu64 ",\"traps\":%" PRIu64 ",\"updates\":%" PRIu64
	       ",\"span_s\":%.6f,\"traps_per_s\":%.1f,\"trap_p50_ns\":%" PRId64
	       ",\"trap_p99_ns\":%" PRId64 ",\"trap_max_ns\":%" PRId64
	       ",\"log_complete\":%s}\n",
	       stores, traps, updates, span, span > 0 ? (double)traps / span : 0.0,
	       sw_hist_quantile(&h, 0.5), sw_hist_quantile(&h, 0.99),
	       traps ? h.max : 0, torn ? "false" : "true");
	swlog_reader_close(r);
	return 0;
}
