/* SPDX-License-Identifier: MIT */
/*
 * Description: the consistency classifier (windows.c `observe`), one
 * synthetic run per exception class, table-driven.  Each row is a synth
 * configuration that produces that class and nothing unexplained: a server
 * that shows changes late (server-lag), a probe that sends nothing for a
 * while (probe-stall), one slow reply (slow-reply), a clock.json whose
 * offset is wrong by more than its error (clock), the server down (gap),
 * replies lost (lost-reply), the trap's update reaching the server well
 * before the data (race), and a deferred flush that a lagging server shows
 * only after the next store (early-update).  A row fails when its class
 * counts none (the class mislabelled as another or as unexplained), when
 * another class takes its side (early/clock are "low", the rest "high")
 * where the row says it must not, or when anything is unexplained.  The
 * first row, no fault at all, must count no exception.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"
#include "synth.h"

#include "check.h"

#define MSEC 1000000ll
#define WIN(a, b) ((struct sw_synth_win){ (a) * MSEC, (b) * MSEC })

static char base[] = "/tmp/sw-test-classes-XXXXXX";

static void cfg_none(struct sw_synth_cfg *c) { (void)c; }
static void cfg_lag(struct sw_synth_cfg *c) { c->server_lag_ns = 20 * MSEC; }
static void cfg_stall(struct sw_synth_cfg *c) { c->stall[c->nstall++] = WIN(2000, 2500); }
static void cfg_slow(struct sw_synth_cfg *c)
{
	/* the one request sent right after the 2.1 s and 5.1 s updates */
	c->slow[c->nslow++] = WIN(2100, 2101);
	c->slow[c->nslow++] = WIN(5100, 5101);
	c->slow_rtt_ns = 30 * MSEC;
}
static void cfg_clock(struct sw_synth_cfg *c)
{
	c->offset_bias_ns = -5 * MSEC; /* clock.json: 5 ms off, claims +-100 us */
	c->err_ns = 100000;
	c->clock_json = 1;
}
static void cfg_gap(struct sw_synth_cfg *c) { c->gaps[c->ngaps++] = WIN(2000, 2500); }
static void cfg_lost(struct sw_synth_cfg *c) { c->lost[c->nlost++] = WIN(2000, 2500); }
static void cfg_race(struct sw_synth_cfg *c) { c->upd_lead_ns = 3 * MSEC; }
static void cfg_early(struct sw_synth_cfg *c)
{
	c->policy = "deferred";
	c->server_lag_ns = 150 * MSEC;
}

static const struct row {
	const char *name;
	void (*cfg)(struct sw_synth_cfg *c);
	int exc;           /* the class this run must produce */
	uint64_t min;      /* at least this many */
	int side_only;     /* 1: the only class on its side (low or high) */
} rows[] = {
	{ "none", cfg_none, SW_EXC_NONE, 0, 1 },
	{ "server-lag", cfg_lag, SW_EXC_SERVER_LAG, 90, 1 },
	{ "probe-stall", cfg_stall, SW_EXC_STALL, 3, 1 },
	{ "slow-reply", cfg_slow, SW_EXC_SLOW, 2, 0 },
	{ "clock", cfg_clock, SW_EXC_CLOCK, 40, 1 },
	{ "gap", cfg_gap, SW_EXC_GAP, 3, 1 },
	{ "lost-reply", cfg_lost, SW_EXC_LOST, 3, 1 },
	{ "race", cfg_race, SW_EXC_RACE, 10, 1 },
	{ "early-update", cfg_early, SW_EXC_EARLY, 10, 1 },
};

static int is_low(int e) { return e == SW_EXC_EARLY || e == SW_EXC_CLOCK; }

static void one(const struct row *r)
{
	static struct sw_summary S;
	struct sw_synth_cfg c;
	char dir[256], err[512];

	/* eager, one page rewritten every 100 ms for 10 s, flushed every
	 * 200 ms: ~100 covered stores; probe v3 every 1 ms, RTT 200 us */
	sw_synth_defaults(&c);
	c.duration_ns = 10000 * MSEC;
	c.writeback_ns = 200 * MSEC;
	c.expire_ns = 100 * MSEC;
	r->cfg(&c);
	snprintf(dir, sizeof(dir), "%s/%s", base, r->name);
	if (mkdir(dir, 0777) || sw_synth_run(&c, dir, err, sizeof(err)) < 0) {
		fprintf(stderr, "synth %s: %s\n", r->name, err);
		exit(1);
	}
	struct sw_analyze_opts o = { 0 };
	sw_summary_free(&S);
	int rc = sw_analyze(dir, &o, &S);
	CHECK(rc == 0, "%s: expected sw_analyze 0, saw %d", r->name, rc);
	CHECK(S.nobs == 1, "%s: expected one observer, saw %d", r->name, S.nobs);
	if (S.nobs != 1)
		return;
	const struct sw_observer *O = &S.obs[0];
	CHECK(O->checked >= 90, "%s: expected >= 90 stores checked, saw %llu", r->name,
	      (unsigned long long)O->checked);
	CHECK(O->exc[SW_EXC_UNEXPLAINED] == 0, "%s: expected nothing unexplained, saw %llu",
	      r->name, (unsigned long long)O->exc[SW_EXC_UNEXPLAINED]);
	if (r->exc == SW_EXC_NONE) {
		CHECK(O->low + O->high == 0, "%s: expected no exception, saw %llu low, %llu high",
		      r->name, (unsigned long long)O->low, (unsigned long long)O->high);
		return;
	}
	CHECK(O->exc[r->exc] >= r->min, "%s: expected >= %llu stores labelled %s, saw %llu (low %llu, high %llu)",
	      r->name, (unsigned long long)r->min, sw_exc_name(r->exc),
	      (unsigned long long)O->exc[r->exc], (unsigned long long)O->low,
	      (unsigned long long)O->high);
	if (r->side_only)
		for (int e = 1; e < SW_EXC_N; e++)
			CHECK(e == r->exc || is_low(e) != is_low(r->exc) || !O->exc[e],
			      "%s: expected every %s exception labelled %s, saw %llu labelled %s",
			      r->name, is_low(r->exc) ? "low" : "high", sw_exc_name(r->exc),
			      (unsigned long long)O->exc[e], sw_exc_name(e));
	printf("%-13s %llu of %llu checked labelled %s (low %llu, high %llu)\n", r->name,
	       (unsigned long long)O->exc[r->exc], (unsigned long long)O->checked,
	       sw_exc_name(r->exc), (unsigned long long)O->low, (unsigned long long)O->high);
}

int main(void)
{
	if (!mkdtemp(base)) {
		perror(base);
		return 1;
	}
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		one(&rows[i]);
	return check_finish(base, "classes: every exception class produced and labelled");
}
