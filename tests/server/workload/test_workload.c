/* SPDX-License-Identifier: MIT */
/*
 * Description: unit test of the writer's workloads (server/workload/<name>.c).  The
 * random workload must be reproducible (same seed, same pages), differ
 * with another seed, stay inside the working set and send about
 * --hot-share of its stores into the hot set; stream walks pages in order
 * and wraps; rewrite keeps one page at a fixed period; burst spaces its
 * bursts by the silence; bad parameters are refused with "expected".  A
 * broken workload shows as irreproducible runs or pages outside the file.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "swtime.h"
#include "workload.h"

/* p's own options: the workload's defaults, then opts ("name=value ...",
 * as --name value would set them) */
static int own(const char *name, struct sw_wl_params *p, const char *opts, char *err,
	       size_t errlen)
{
	const struct sw_workload_ops *ops = sw_workload_find(name);
	char buf[256], *save, *kv;
	int rc = sw_wl_own_defaults(ops, &p->own, err, errlen);

	snprintf(buf, sizeof(buf), "%s", opts);
	for (kv = strtok_r(buf, " ", &save); !rc && kv; kv = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(kv, '=');
		const struct sw_wl_opt *o;
		*eq = 0;
		CHECK((o = sw_wl_opt_find(ops, kv)), "%s has no option --%s", name, kv);
		if (o)
			rc = sw_wl_opt_set(o, &p->own, eq + 1, err, errlen);
	}
	return rc;
}

static void init(struct sw_wl *w, const char *name, struct sw_wl_params p, const char *opts)
{
	char err[256];
	CHECK(!own(name, &p, opts, err, sizeof(err)), "options of %s: %s", name, err);
	CHECK(!sw_wl_init(w, sw_workload_find(name), &p, err, sizeof(err)), "init %s: %s", name, err);
}

SW_CASE(random)
{
	struct sw_wl a, b, c;
	uint64_t pa, pb, pc;
	int64_t ta, tb, tc;
	struct sw_wl_params p = { .npages = 1000, .rate = 1000 };

	init(&a, "random", p, "seed=42");
	init(&b, "random", p, "seed=42");
	init(&c, "random", p, "seed=43");
	int same = 1, diff = 0;
	for (int i = 0; i < 10000; i++) {
		sw_wl_next(&a, &pa, &ta);
		sw_wl_next(&b, &pb, &tb);
		sw_wl_next(&c, &pc, &tc);
		same &= pa == pb && ta == tb;
		diff += pa != pc;
		CHECK(pa < 1000, "random page %llu outside 1000 pages", (unsigned long long)pa);
		CHECK(ta == (int64_t)i * SW_NS_PER_MS, "random store %d planned at %lld ns", i, (long long)ta);
	}
	CHECK(same, "random: same seed gave different sequences");
	CHECK(diff > 9000, "random: seeds 42 and 43 agree on %d of 10000", 10000 - diff);
}

SW_CASE(hot_set)
{
	struct sw_wl a;
	uint64_t pa;
	int64_t ta;
	struct sw_wl_params p = { .npages = 1000, .pages = 500 };
	init(&a, "random", p, "hot-pages=10 hot-share=0.9 seed=7");
	int hot = 0;
	for (int i = 0; i < 100000; i++) {
		sw_wl_next(&a, &pa, &ta);
		hot += pa < 10;
		CHECK(pa < 500, "hot-set page %llu outside the 500-page working set", (unsigned long long)pa);
	}
	CHECK(hot > 89000 && hot < 91000, "hot share 0.9: %d of 100000 stores hot", hot);
}

SW_CASE(stream)
{
	struct sw_wl a;
	uint64_t pa;
	int64_t ta;
	init(&a, "stream", (struct sw_wl_params){ .npages = 4, .rate = 10 }, "");
	for (int i = 0; i < 9; i++) {
		sw_wl_next(&a, &pa, &ta);
		CHECK(pa == (uint64_t)(i % 4) && ta == (int64_t)i * 100 * SW_NS_PER_MS,
		      "stream store %d: page %llu at %lld", i, (unsigned long long)pa, (long long)ta);
	}
}

SW_CASE(rewrite)
{
	struct sw_wl a;
	uint64_t pa;
	int64_t ta;
	init(&a, "rewrite", (struct sw_wl_params){ .npages = 4 }, "page=3 interval-ms=100");
	for (int i = 0; i < 5; i++) {
		sw_wl_next(&a, &pa, &ta);
		CHECK(pa == 3 && ta == (int64_t)i * 100 * SW_NS_PER_MS, "rewrite store %d", i);
	}
}

SW_CASE(burst)
{
	struct sw_wl a;
	uint64_t pa;
	int64_t ta;
	init(&a, "burst", (struct sw_wl_params){ .npages = 100 }, "burst-stores=3 silence-ms=1000");
	int64_t want[] = { 0, 0, 0, SW_NS_PER_S, SW_NS_PER_S, SW_NS_PER_S, 2 * SW_NS_PER_S };
	for (int i = 0; i < 7; i++) {
		sw_wl_next(&a, &pa, &ta);
		CHECK(ta == want[i] && pa == (uint64_t)i, "burst store %d: page %llu at %lld",
		      i, (unsigned long long)pa, (long long)ta);
	}
}

SW_CASE(bad_params)
{
	struct sw_wl a;
	char err[256];
	struct { const char *wl; struct sw_wl_params p; const char *opts; } bad[] = {
		{ "rewrite", { .npages = 4 }, "page=4 interval-ms=1" },
		{ "rewrite", { .npages = 4 }, "interval-ms=0" },
		{ "random", { .npages = 4, .pages = 5 }, "" },
		{ "random", { .npages = 4 }, "hot-pages=4" },
		{ "random", { .npages = 4 }, "hot-pages=1 hot-share=2" },
		{ "burst", { .npages = 4 }, "burst-stores=0" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		CHECK(!own(bad[i].wl, &bad[i].p, bad[i].opts, err, sizeof(err)), "options of %s: %s",
		      bad[i].wl, err);
		int rc = sw_wl_init(&a, sw_workload_find(bad[i].wl), &bad[i].p, err, sizeof(err));
		CHECK(rc != 0 && strstr(err, "expected"), "bad %s case %zu accepted (%s)",
		      bad[i].wl, i, err);
	}
}

/* an own option's value that does not read: the writer's message */
SW_CASE(bad_text)
{
	struct sw_wl_params p = { .npages = 4 };
	char err[256];
	struct { const char *wl, *opts, *want; } bad[] = {
		{ "rewrite", "page=-1", "expected a non-negative integer for --page, saw '-1'" },
		{ "rewrite", "interval-ms=x", "expected milliseconds (integer >= 0) for --interval-ms, saw 'x'" },
		{ "random", "hot-share=x", "expected --hot-share as a number in [0,1], saw 'x'" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		CHECK(own(bad[i].wl, &p, bad[i].opts, err, sizeof(err)) && !strcmp(err, bad[i].want),
		      "%s %s: expected '%s', saw '%s'", bad[i].wl, bad[i].opts, bad[i].want, err);
	}
}

SW_MAIN()
