/* SPDX-License-Identifier: MIT */
/*
 * Description: the stock ext4 run's submission of never-written pages
 * (server/model/model.c submit_at/submit_now; model.h run_submit_ns,
 * submit_mono_ns).  Stock ext4 write-protects a page only as it submits
 * it (ext4_writepages -> mpage_map_and_submit_extent -> mpage_submit_page
 * -> clear_page_dirty_for_io), and a page with no block yet is submitted
 * only after its delalloc allocation (traced in the stock 6.1 guest:
 * ext4_allocate_blocks 5-12 ms into the run).  A store in between lands
 * on the still writable page without a fault; one after it faults.  A
 * broken model shows as a trap during the allocation (the page
 * write-protected at the run's start), no trap after the submission (the
 * page left writable), a page already written kept writable into its
 * run, or a traced time more than 100 ms after the run taken for it.
 */
#include <inttypes.h>
#include <stdio.h>

#include "check.h"
#include "model.h"
#include "records.h"

#define MS ((int64_t)1000000)

static const struct submit {
	const char *name, *what;
	int64_t submit_ms;     /* cfg.run_submit_ns, ms */
	int64_t traced_ms;     /* one traced submission, 0: none */
	int64_t store_ms[4];   /* page-0 stores after the first at 0 ms, -1 ends */
	int64_t trap_ms[5];    /* expected traps (eager: updates), -1 ends */
} cases[] = {
	{ .name = "no-delay",
	  .what = "no submission delay: the run at 1000 ms write-protects the fresh page at once, the store at 1005 ms traps",
	  .store_ms = { 1005, 1015, -1 }, .trap_ms = { 0, 1005, -1 } },
	{ .name = "delay-10ms",
	  .what = "10 ms to the submission: the store at 1005 ms lands on the writable page, the one at 1015 ms traps",
	  .submit_ms = 10, .store_ms = { 1005, 1015, -1 }, .trap_ms = { 0, 1015, -1 } },
	{ .name = "traced",
	  .what = "the kernel's own submission at 1008 ms (traced): a store at 1005 ms does not trap, one at 1009 ms does",
	  .traced_ms = 1008, .store_ms = { 1005, 1009, -1 }, .trap_ms = { 0, 1009, -1 } },
	{ .name = "traced-other-run",
	  .what = "a traced allocation 200 ms after the run is another run's: this run submits at once",
	  .submit_ms = 50, .traced_ms = 1200, .store_ms = { 1005, -1 }, .trap_ms = { 0, 1005, -1 } },
	{ .name = "written-page",
	  .what = "a page already written is write-protected at its run's start (it has its block): the store at 1500 ms re-dirties it, the run at 2500 ms write-protects it at once, the store at 2505 ms traps",
	  .submit_ms = 10, .store_ms = { 1500, 2505, -1 }, .trap_ms = { 0, 1500, 2505, -1 } },
};

static void run(const struct submit *c)
{
	int64_t traced = c->traced_ms * MS;
	/* every flusher run writes the page (background share 0),
	 * 1 s after the trap that dirtied it */
	struct sw_model_cfg cfg = {
		.npages = 16, .page_size = 4096, .writeback_ns = 1000 * MS,
		.expire_ns = 5000 * MS, .bg_share = SW_BG_ZERO,
		.run_submit_ns = c->submit_ms * MS,
		.submit_mono_ns = traced ? &traced : NULL,
		.submits = traced ? 1 : 0,
	};
	struct sw_model m;
	struct sw_decision d;
	char err[256];
	int64_t got[8];
	int ngot = 0, ns = 1;
	int64_t stores[5] = { 0 };
	for (int i = 0; i < 4 && c->store_ms[i] >= 0; i++)
		stores[ns++] = c->store_ms[i] * MS;
	if (sw_model_init(&m, &cfg, sw_policy_find("eager"), 0, err, sizeof(err))) {
		CHECK(0, "%s: init: %s", c->what, err);
		return;
	}
	for (int i = 0; i < ns; i++) {
		sw_model_advance(&m, stores[i], NULL);
		if (sw_model_writable(&m, 0))
			continue;
		sw_model_trap(&m, 0, stores[i], &d);
		if (ngot < 8)
			got[ngot++] = stores[i];
	}
	int ok = 1, k = 0;
	for (; c->trap_ms[k] >= 0; k++)
		if (k >= ngot || got[k] != c->trap_ms[k] * MS)
			ok = 0;
	if (k != ngot)
		ok = 0;
	CHECK(ok, "%s", c->what);
	if (!ok) {
		printf("  expected traps at:");
		for (int j = 0; c->trap_ms[j] >= 0; j++)
			printf(" %" PRId64 " ms", c->trap_ms[j]);
		printf("\n  saw traps at:     ");
		for (int j = 0; j < ngot; j++)
			printf(" %" PRId64 " ms", (int64_t)(got[j] / MS));
		printf("\n");
	}
	sw_model_free(&m);
}
SW_VARIANTS(submit, cases, run)

SW_MAIN()
