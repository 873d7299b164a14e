/* SPDX-License-Identifier: MIT */
/*
 * Description: `stalewin summary`'s repeats (pass/runrow.c): runs of one
 * command, --out, --log and --seed aside, grouped with the median and the
 * range of their truth p50 and update rate.  A broken grouping shows as
 * two policies counted as one command (a command that does not name its
 * policy), a run folder or a seed keeping repeats apart, "> run end"
 * sorted as zero (the median of >end, 0.5 s and 0.9 s is 0.9 s, not
 * 0.5 s), or the upper middle of an even count taken.  The patched
 * kernel's deferred p50 drew 1.39-1.70 s over seven runs of one command:
 * one run's figure is one draw, and the summary says so.
 */
#include <stdio.h>
#include <string.h>

#include "runrow.h"

#include "check.h"

static void key(const char *cmd, const char *want)
{
	char k[256];
	sw_runrow_command_key(cmd, k, sizeof(k));
	CHECK(!strcmp(k, want), "command key of '%s': expected '%s', saw '%s'", cmd, want, k);
}

static void row(struct sw_runrow *r, const char *pol, const char *cmd, double p50_s, double upd)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->policy, sizeof(r->policy), "%s", pol);
	snprintf(r->label, sizeof(r->label), "%s", pol);
	int w = snprintf(r->same, sizeof(r->same), "%s|rewrite|ext4|6.1|", pol);
	sw_runrow_command_key(cmd, r->same + w, sizeof(r->same) - (size_t)w);
	r->truth_p50_ns = p50_s < 0 ? -1 : (int64_t)(p50_s * 1e9);
	r->updates_per_1k = upd;
}

int main(void)
{
	key("vm/run.sh --policy deferred --out /tmp/a --lead 25", "vm/run.sh --policy deferred --lead 25");
	key("stalewin-run --out=/tmp/b --seed 7 --policy eager", "stalewin-run --policy eager");
	key("stalewin-writer --file f --log l1 --seed=3", "stalewin-writer --file f");
	key("x --outer 1", "x --outer 1");

	struct sw_runrow r[8];
	struct sw_repeat g[4];
	/* 1.70, 1.39, 1.49 s of one command (other folders): median 1.49 */
	row(&r[0], "deferred", "run.sh --policy deferred --out d1", 1.70, 43);
	row(&r[1], "eager", "run.sh --policy eager --out e1", 0.60, 160);
	row(&r[2], "deferred", "run.sh --policy deferred --out d2", 1.39, 57);
	row(&r[3], "deferred", "run.sh --policy deferred --out d3", 1.49, 40);
	/* one command that does not name its policy (synth): not one group */
	row(&r[4], "lang", "stalewin-synth", -1, 80);
	row(&r[5], "none", "stalewin-synth", 0.5, 100);
	int n = sw_runrow_repeats(r, 6, g, 4);
	CHECK(n == 1 && g[0].first == 0 && g[0].n == 3,
	      "expected one group of the three deferred runs from row 0, saw %d groups (first %d, n %d)",
	      n, n ? g[0].first : -1, n ? g[0].n : -1);
	CHECK(n && g[0].p50_med_ns == 1490000000 && g[0].p50_min_ns == 1390000000 &&
	      g[0].p50_max_ns == 1700000000,
	      "expected p50 1.49 s (1.39..1.70), saw %lld (%lld..%lld)", (long long)g[0].p50_med_ns,
	      (long long)g[0].p50_min_ns, (long long)g[0].p50_max_ns);
	CHECK(n && g[0].upd_med == 43 && g[0].upd_min == 40 && g[0].upd_max == 57,
	      "expected updates/1k 43 (40..57), saw %.0f (%.0f..%.0f)", g[0].upd_med, g[0].upd_min,
	      g[0].upd_max);
	/* >end above every figure; an even count: the lower middle */
	row(&r[0], "lang", "run.sh --policy lang --out l1", -1, 1);
	row(&r[1], "lang", "run.sh --policy lang --out l2", 0.5, 1);
	row(&r[2], "lang", "run.sh --policy lang --out l3", 0.9, 1);
	row(&r[3], "eager", "run.sh --policy eager --seed 1", 0.8, 1);
	row(&r[4], "eager", "run.sh --policy eager --seed 2", 1.2, 1);
	row(&r[5], "eager", "run.sh --policy eager --seed 3", 1.0, 1);
	row(&r[6], "eager", "run.sh --policy eager --seed 4", 1.4, 1);
	n = sw_runrow_repeats(r, 7, g, 4);
	CHECK(n == 2 && g[0].p50_med_ns == 900000000 && g[0].p50_max_ns == -1,
	      "lang >end/0.5/0.9 s: expected the median 0.9 s and the max >end, saw %lld and %lld",
	      n ? (long long)g[0].p50_med_ns : 0, n ? (long long)g[0].p50_max_ns : 0);
	CHECK(n == 2 && g[1].n == 4 && g[1].p50_med_ns == 1000000000,
	      "eager 0.8/1.2/1.0/1.4 s (seeds aside): expected 4 runs, median 1.0 s, saw %d, %lld",
	      n > 1 ? g[1].n : -1, n > 1 ? (long long)g[1].p50_med_ns : 0);
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	else
		printf("runrow: all checks passed\n");
	return failures ? 1 : 0;
}
