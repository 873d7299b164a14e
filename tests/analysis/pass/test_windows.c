/* SPDX-License-Identifier: MIT */
/*
 * Description: the window computation on scripted timelines with known
 * answers (synthetic logs written through the real log framing).  A broken
 * analysis shows as: the eager first store not ~0 or later stores not
 * ending at the next cleaning's trap; deferred stores not ending at the
 * flush; uncovered stores dropped or given a number; a lost reply or a gap
 * not explaining a late observation; the race (reply between a trap's
 * update and its data) not counted; spurious updates or equal-timestamp
 * collisions miscounted; a clock offset not applied; a probe of another
 * run accepted; deferred stores not ending at the next msync(MS_ASYNC); or
 * the kernel reader's first read of a generation (and its mount options
 * for the replay) taken wrongly; or the writer's set-up stamp not a change
 * for a reader that opened the file before it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"
#include "synth.h"

#include "check.h"

#define SEC 1000000000ll
#define MSEC 1000000ll
#define MAXROWS 4096

static struct sw_store_row rows[MAXROWS];
static int nrows;
static struct sw_summary S;
static char base[] = "/tmp/sw-test-windows-XXXXXX";

/* the pass over dir, its first MAXROWS stores into rows[] (the per-store
 * table the CSV is written from) */
static int analyze(const char *dir)
{
	struct sw_analyze_opts o = { .keep_rows = MAXROWS };
	sw_summary_free(&S);
	int rc = sw_analyze(dir, &o, &S);
	nrows = (int)sw_rows_n(S.rows);
	for (int i = 0; i < nrows; i++)
		sw_rows_get(S.rows, (uint64_t)i, &rows[i]);
	return rc;
}

static int run(const char *name, const struct sw_synth_cfg *c)
{
	char dir[256], err[512];
	snprintf(dir, sizeof(dir), "%s/%s", base, name);
	if (mkdir(dir, 0777)) {
		perror(dir);
		exit(1);
	}
	if (sw_synth_run(c, dir, err, sizeof(err)) < 0) {
		fprintf(stderr, "synth %s: %s\n", name, err);
		exit(1);
	}
	return analyze(dir);
}

static int prof_idx(const char *name)
{
	for (int i = 0; i < S.nprof; i++)
		if (!strcmp(S.prof[i].name, name))
			return i;
	return -1;
}

/* eager rewrite of one page every 100 ms, kupdate 5 s / 30 s: store 0
 * traps (own update, window 0); stores 1..300 stay until the trap of
 * store 301 (at 30.1 s, after the cleaning at 30 s); 302.. uncovered. */
static void eager_rewrite(void)
{
	struct sw_synth_cfg c;
	sw_synth_defaults(&c);
	c.duration_ns = 40 * SEC;
	CHECK(run("eager", &c) == 0, "eager: expected a complete report");
	CHECK(nrows == 400, "eager: expected 400 stores, saw %d", nrows);
	int64_t t_u = c.t0_real_ns + 30100 * MSEC - c.upd_lead_ns;
	int bad = 0;
	for (int i = 0; i < nrows; i++) {
		const struct sw_store_row *r = &rows[i];
		int64_t want = i == 0 || i == 301 ? 0 : i <= 300 ? t_u - r->t_s_ns : -1;
		if (r->w_truth_ns != want && bad++ < 5)
			CHECK(0, "eager store %d: expected W_truth %lld, saw %lld", i,
			      (long long)want, (long long)r->w_truth_ns);
		if ((i == 0 || i == 301) && !r->own_update)
			CHECK(0, "eager store %d: expected covered by its own trap update", i);
		if (i > 301 && (r->w_truth_lb_ns <= 0 || r->w_truth_lb_ns > 10 * SEC))
			CHECK(0, "eager store %d: expected lower bound to run end, saw %lld", i,
			      (long long)r->w_truth_lb_ns);
	}
	CHECK(S.truth.unresolved == 98, "eager: expected 98 uncovered, saw %llu",
	      (unsigned long long)S.truth.unresolved);
	CHECK(S.updates == 2 && S.upd_cause[SW_CAUSE_TRAP] == 2 && S.spurious == 0,
	      "eager: expected 2 trap updates, 0 spurious; saw %llu/%llu/%llu",
	      (unsigned long long)S.updates, (unsigned long long)S.upd_cause[SW_CAUSE_TRAP],
	      (unsigned long long)S.spurious);
	CHECK(S.traps == 2 && sw_hist_quantile(&S.trap_ns, 0.5) == c.trap_ns,
	      "eager: expected 2 traps of %lld ns", (long long)c.trap_ns);
	CHECK(S.nobs == 1, "eager: expected one observer, saw %d", S.nobs);
	const struct sw_observer *O = &S.obs[0];
	CHECK(O->resolution_ns == c.poll_ns + c.rtt_ns,
	      "eager: expected resolution poll+rtt = %lld, saw %lld",
	      (long long)(c.poll_ns + c.rtt_ns), (long long)O->resolution_ns);
	/* every judged store consistent; W_obs of store 5 = t_u to the first
	 * poll after it plus the RTT */
	CHECK(O->checked > 290 && O->consistent == O->checked,
	      "eager: expected all checked stores consistent, saw %llu of %llu",
	      (unsigned long long)O->consistent, (unsigned long long)O->checked);
	CHECK(rows[5].obs[0].status == SW_OBS_OK &&
	      rows[5].obs[0].w_ns - rows[5].w_truth_ns > 0 &&
	      rows[5].obs[0].w_ns - rows[5].w_truth_ns <= O->resolution_ns,
	      "eager: store 5 observed %lld vs truth %lld", (long long)rows[5].obs[0].w_ns,
	      (long long)rows[5].w_truth_ns);
	CHECK(rows[5].obs[0].revealed == (SW_ATTR_MTIME | SW_ATTR_CTIME),
	      "eager: expected mtime+ctime to reveal, saw mask %u", rows[5].obs[0].revealed);
	CHECK(O->ended == 98, "eager: the 98 uncovered stores are never seen, saw %llu",
	      (unsigned long long)O->ended);
	/* replay: noac sees the update at 30.1 s at the next 100 ms read */
	int n = prof_idx("v3-noac");
	CHECK(n >= 0 && rows[5].replay_ns[n] >= rows[5].w_truth_ns &&
	      rows[5].replay_ns[n] <= rows[5].w_truth_ns + 100 * MSEC,
	      "eager: noac replay %lld not within a read period of truth %lld",
	      n >= 0 ? (long long)rows[5].replay_ns[n] : -1LL, (long long)rows[5].w_truth_ns);
}

/* deferred: no update at the trap; all stores until the flush at 30 s */
static void deferred(void)
{
	struct sw_synth_cfg c;
	sw_synth_defaults(&c);
	c.policy = "deferred";
	c.duration_ns = 40 * SEC;
	CHECK(run("deferred", &c) == 0, "deferred: expected a complete report");
	int bad = 0;
	for (int i = 0; i <= 300 && i < nrows; i++) {
		int64_t want = c.t0_real_ns + 30 * SEC - rows[i].t_s_ns;
		if (rows[i].w_truth_ns != want && bad++ < 5)
			CHECK(0, "deferred store %d: expected %lld, saw %lld", i, (long long)want,
			      (long long)rows[i].w_truth_ns);
	}
	CHECK(rows[0].w_truth_ns == 30 * SEC && !rows[0].own_update,
	      "deferred: first store must wait 30 s for the flush, saw %lld",
	      (long long)rows[0].w_truth_ns);
	/* stores 301..399 are covered by the munmap flush at the run end */
	CHECK(S.truth.unresolved == 0 && S.upd_cause[SW_CAUSE_KUPDATE] == 1 &&
	      S.upd_cause[SW_CAUSE_MUNMAP] == 1,
	      "deferred: expected kupdate + munmap updates and nothing uncovered");
	CHECK(S.race_stores == 0, "deferred: no trap updates, so no race");
}

/* uncovered at run end: eager for 20 s, no cleaning before the end */
static void uncovered(void)
{
	struct sw_synth_cfg c;
	sw_synth_defaults(&c);
	c.duration_ns = 20 * SEC;
	CHECK(run("uncovered", &c) == 0, "uncovered: expected complete");
	CHECK(S.truth.n == 200 && S.truth.unresolved == 199,
	      "uncovered: expected 199 of 200 stores uncovered, saw %llu of %llu",
	      (unsigned long long)S.truth.unresolved, (unsigned long long)S.truth.n);
	CHECK(rows[199].w_truth_ns == -1 && rows[199].w_truth_lb_ns > 0,
	      "uncovered: last store must be -1 with a lower bound");
}

/* lost replies around the update at 30.1 s, then a gap: both explained */
static void lost_and_gap(void)
{
	struct sw_synth_cfg c;
	sw_synth_defaults(&c);
	c.duration_ns = 31 * SEC;
	c.lost[c.nlost++] = (struct sw_synth_win){ 30050 * MSEC, 30400 * MSEC };
	CHECK(run("lost", &c) == 3 || S.partial == 0, "lost: unexpected partial");
	const struct sw_observer *O = &S.obs[0];
	CHECK(O->failures == 350, "lost: expected 350 failed GETATTRs, saw %llu",
	      (unsigned long long)O->failures);
	/* stores 1..300 (closed by the update at 30.1 s) and store 301 (its
	 * own trap's update) are seen late */
	CHECK(O->high == 301 && O->exc[SW_EXC_LOST] == 301,
	      "lost: expected 301 late stores explained as lost replies, saw %llu late, %llu lost",
	      (unsigned long long)O->high, (unsigned long long)O->exc[SW_EXC_LOST]);
	CHECK(rows[10].obs[0].exc == SW_EXC_LOST, "lost: store 10 exception %s",
	      sw_exc_name(rows[10].obs[0].exc));
	CHECK(O->exc[SW_EXC_UNEXPLAINED] == 0, "lost: nothing unexplained");

	sw_synth_defaults(&c);
	c.duration_ns = 31 * SEC;
	c.gaps[c.ngaps++] = (struct sw_synth_win){ 29 * SEC, 30500 * MSEC };
	run("gap", &c);
	O = &S.obs[0];
	CHECK(O->gaps == 1, "gap: expected one gap record, saw %llu", (unsigned long long)O->gaps);
	CHECK(O->exc[SW_EXC_GAP] == 301 && O->exc[SW_EXC_UNEXPLAINED] == 0,
	      "gap: expected 301 stores explained by the gap, saw %llu (unexplained %llu)",
	      (unsigned long long)O->exc[SW_EXC_GAP], (unsigned long long)O->exc[SW_EXC_UNEXPLAINED]);
}

/* race: the trap's update precedes its data by 3 ms, polls every 1 ms:
 * the reference reply of the trapping store already has the new stamps */
static void race(void)
{
	struct sw_synth_cfg c;
	sw_synth_defaults(&c);
	c.duration_ns = 40 * SEC;
	c.first_store_ns = 1 * SEC;
	c.upd_lead_ns = 3 * MSEC;
	c.read_every = 1;
	c.read_page = 0;
	run("race", &c);
	const struct sw_observer *O = &S.obs[0];
	CHECK(S.race_stores == 2 && sw_hist_quantile(&S.race_gap_ns, 1.0) >= 3 * MSEC - 30000,
	      "race: expected 2 stores 3 ms after their update, saw %llu",
	      (unsigned long long)S.race_stores);
	CHECK(O->race_attr_hits == 2, "race: expected 2 reference replies in the gap, saw %llu",
	      (unsigned long long)O->race_attr_hits);
	CHECK(rows[0].obs[0].exc == SW_EXC_RACE,
	      "race: first store exception expected race, saw %s", sw_exc_name(rows[0].obs[0].exc));
	CHECK(O->race_read_hits >= 2, "race: expected READs of old data under new attrs, saw %llu",
	      (unsigned long long)O->race_read_hits);
}

/* equal timestamps (10 s granularity): v3 misses updates v4 sees */
static void collisions(void)
{
	struct sw_synth_cfg c;
	sw_synth_defaults(&c);
	c.duration_ns = 20 * SEC;
	c.writeback_ns = SEC;
	c.expire_ns = SEC;
	c.stamp_gran_ns = 10 * SEC;
	run("collide", &c);
	/* updates at -2us, 1.1, 3.1, .. 19.1 s; stamps floor to 10 s: pairs
	 * (1.1,3.1) .. (7.1,9.1) and (11.1,13.1) .. (17.1,19.1) */
	CHECK(S.collisions == 8, "collide: expected 8 equal-stamp pairs, saw %llu",
	      (unsigned long long)S.collisions);
	CHECK(S.obs[0].exc[SW_EXC_COLLISION] > 0, "collide: expected late stores explained by equal stamps");
	int v3 = prof_idx("v3-noac"), d3 = prof_idx("v3-default"), d4 = prof_idx("v4-default");
	CHECK(v3 >= 0 && d3 >= 0 && d4 >= 0 &&
	      sw_hist_quantile(&S.replay[d4].h, 0.5) < sw_hist_quantile(&S.replay[d3].h, 0.5),
	      "collide: v4 (change attribute) must serve stale data shorter than v3 (ctime)");
}

/* lang: a lone first-fault store, then the writeback update: spurious */
static void spurious(void)
{
	struct sw_synth_cfg c;
	sw_synth_defaults(&c);
	c.policy = "lang";
	c.duration_ns = 40 * SEC;
	c.store_interval_ns = 100 * SEC;
	run("lang", &c);
	CHECK(S.stores == 1 && S.updates == 2 && S.spurious == 1,
	      "lang: expected 1 store, 2 updates, 1 spurious; saw %llu/%llu/%llu",
	      (unsigned long long)S.stores, (unsigned long long)S.updates,
	      (unsigned long long)S.spurious);
	c.policy = "eager";
	run("eager-lone", &c);
	CHECK(S.updates == 1 && S.spurious == 0, "eager lone store: 1 update, 0 spurious");
}

/* a run across two hosts: the probe's clock offset_ns behind, clock.json
 * stating it +- err_ns */
static void two_hosts(struct sw_synth_cfg *c, int64_t duration_ns, int64_t offset_ns, int64_t err_ns)
{
	sw_synth_defaults(c);
	c->duration_ns = duration_ns;
	c->offset_ns = offset_ns;
	c->err_ns = err_ns;
	c->clock_json = 1;
}

/* clock offset 5 ms (+- 100 us) between hosts: same answers as one host */
static void clock_offset(void)
{
	struct sw_synth_cfg c;
	two_hosts(&c, 35 * SEC, 5 * MSEC, 100000);
	CHECK(run("offset", &c) == 0, "offset: expected complete");
	const struct sw_observer *O = &S.obs[0];
	CHECK(S.offset_ns == 5 * MSEC && S.err_ns == 100000, "offset: clock.json not applied");
	CHECK(O->checked > 290 && O->consistent == O->checked,
	      "offset: expected all consistent, saw %llu of %llu",
	      (unsigned long long)O->consistent, (unsigned long long)O->checked);
	CHECK(O->resolution_ns == c.poll_ns + c.rtt_ns + c.err_ns, "offset: resolution must add err");
}

/* the offset moves 655 us between estimates +- 332 / 305 us: over 61 s
 * (10.7 ppm) that is two guests' clocks drifting apart, the run complete
 * with the error widened by half of it; over 0.5 s, or with no time of
 * the estimates to tell, it is a step: partial */
static int moved(const char *name, long long tb, long long ta)
{
	char dir[256], path[300];
	struct sw_synth_cfg c;
	two_hosts(&c, 5 * SEC, 47 * MSEC, 330000);
	run(name, &c);
	snprintf(dir, sizeof(dir), "%s/%s", base, name);
	snprintf(path, sizeof(path), "%s/clock.json", dir);
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fprintf(f, "{\"before\":{\"offset_ns\":47622641,\"err_ns\":332104%s%lld},"
		"\"after\":{\"offset_ns\":46967916,\"err_ns\":305369%s%lld}}\n",
		tb ? ",\"t_real_ns\":" : ",\"x\":", tb, ta ? ",\"t_real_ns\":" : ",\"x\":", ta);
	fclose(f);
	return analyze(dir);
}

static void clock_drift(void)
{
	const long long t0 = 1796686157921646571LL;
	CHECK(moved("drift", t0, t0 + 60924562107LL) == 0,
	      "drift: 655 us in 61 s is drift, expected complete; problem: %s",
	      S.nprob ? S.prob[0].msg : "none");
	CHECK(S.offset_ns == 47295279 && S.err_ns == 332104 + 327362,
	      "drift: expected offset 47295279 +- 659466 ns, saw %lld +- %lld",
	      (long long)S.offset_ns, (long long)S.err_ns);
	CHECK(S.clock_moved_ns == -654725 && S.clock_interval_ns == 60924562107LL,
	      "drift: expected moved -654725 ns in 60924562107 ns, saw %lld in %lld",
	      (long long)S.clock_moved_ns, (long long)S.clock_interval_ns);
	CHECK(moved("step", t0, t0 + 500 * MSEC) == 3 && S.nprob &&
	      strstr(S.prob[0].msg, "faster than a free clock drifts"),
	      "step: 655 us in 0.5 s is a step, expected partial naming it; problem: %s",
	      S.nprob ? S.prob[0].msg : "none");
	CHECK(moved("untimed", 0, 0) == 3 && S.nprob && strstr(S.prob[0].msg, "no t_real_ns"),
	      "untimed: no interval to tell drift from a step, expected partial; problem: %s",
	      S.nprob ? S.prob[0].msg : "none");
}

/* a native writer that looks at its file once an hour (--native-poll-only
 * --native-poll-ms 3600000: on a multigrain kernel each look is a query)
 * sees no update during the run: truth, the replays and the consistency
 * check are left out and the report says why; a look every 10 ms keeps
 * them (the synthetic writer's meta says so). */
static int native_look(const char *name, long long look_ms)
{
	struct sw_synth_cfg c;
	sw_synth_defaults(&c);
	c.duration_ns = 10 * SEC;
	c.native_look_ms = look_ms;
	return run(name, &c);
}

static void blind(void)
{
	CHECK(native_look("blind", 3600000) == 0, "blind: expected complete");
	CHECK(S.updates_unseen && strstr(S.updates_unseen_why, "every 3600 s"),
	      "blind: expected the truth not measured, naming the look, saw %d '%s'",
	      S.updates_unseen, S.updates_unseen_why);
	CHECK(S.truth.n == 0 && S.nprof > 0 && S.replay[0].n == 0 && S.nobs > 0 && S.obs[0].checked == 0,
	      "blind: expected no truth, replay or consistency figure, saw truth n %llu, replay n %llu, checked %llu",
	      (unsigned long long)S.truth.n, (unsigned long long)(S.nprof ? S.replay[0].n : 0),
	      (unsigned long long)(S.nobs ? S.obs[0].checked : 0));
	CHECK(S.nobs > 0 && S.obs[0].fig.n > 0, "blind: the probe's own windows must stay");
	CHECK(native_look("looks", 10) == 0 && !S.updates_unseen && S.truth.n > 0,
	      "looks: a look every 10 ms measures truth, saw unseen %d, truth n %llu", S.updates_unseen,
	      (unsigned long long)S.truth.n);
}

/* a probe log of another run is left out, the report is partial */
static void mixed(void)
{
	struct sw_synth_cfg c;
	sw_synth_defaults(&c);
	c.duration_ns = 5 * SEC;
	c.probe_run_id = 0xdeadbeefull;
	CHECK(run("mixed", &c) == 3, "mixed: expected partial (3)");
	CHECK(S.nobs == 0, "mixed: the other run's probe must be left out");
	int found = 0;
	for (int i = 0; i < S.nprob; i++)
		found |= strstr(S.prob[i].msg, "two runs mixed") && strstr(S.prob[i].file, "probe-0.swlog");
	CHECK(found, "mixed: expected a problem naming probe-0.swlog and 'two runs mixed'");
}

/* deferred with msync(MS_ASYNC) every 1 s: each store waits for the next
 * msync's update (the deferred patch's 5/5), never longer than 1 s */
static void msync_async(void)
{
	struct sw_synth_cfg c;
	sw_synth_defaults(&c);
	c.policy = "deferred";
	c.duration_ns = 10 * SEC;
	c.msync_async_ns = SEC;
	c.first_store_ns = 50 * MSEC;
	run("msync", &c);
	int bad = 0;
	for (int i = 0; i < nrows; i++) {
		int64_t rel = rows[i].t_s_ns - c.t0_real_ns;
		int64_t want = (rel / SEC + 1) * SEC - rel; /* to the next msync */
		if (rel / SEC + 1 >= 10)
			want = c.duration_ns + 10000 - rel; /* munmap flush */
		if (rows[i].w_truth_ns != want && bad++ < 5)
			CHECK(0, "msync store %d: expected %lld, saw %lld", i, (long long)want,
			      (long long)rows[i].w_truth_ns);
	}
	CHECK(S.upd_cause[SW_CAUSE_MSYNC_ASYNC] == 9, "msync: expected 9 MS_ASYNC updates, saw %llu",
	      (unsigned long long)S.upd_cause[SW_CAUSE_MSYNC_ASYNC]);
}

/* kernel-mount reader reading page 0 every 500 ms (fresh, +300 us): each
 * store is seen at the next read; its replay uses the mount's options.
 * Then a second reader log (a copy: kread-1) must get a row of its own
 * with the same answers: a VM run has one reader per mount and mode. */
static void check_kread(const struct sw_synth_cfg *c, int j)
{
	const struct sw_kread *K = &S.kr[j];
	CHECK(K->prof.vers == 4 && K->prof.acregmin_ns == 2 * SEC && K->prof.cto &&
		      K->prof.period_ns == 500 * MSEC,
	      "kread-%d: mount options / period / mode not taken into the replay profile", j);
	int bad = 0;
	for (int i = 0; i < nrows && i < 99; i++) {
		int64_t rel = rows[i].t_s_ns - c->t0_real_ns;
		/* reads at 0.5 s, 1.0 s, ... 9.5 s; one at the store's instant
		 * sees it; after 9.5 s nothing reads: not seen (unresolved) */
		int64_t next = (rel + 500 * MSEC - 1) / (500 * MSEC) * (500 * MSEC);
		if (next < 500 * MSEC)
			next = 500 * MSEC;
		int64_t want = next + 300000 - rel;
		int seen = next < c->duration_ns ? 1 : 2;
		if ((rows[i].kr[j].seen != seen || (seen == 1 && rows[i].kr[j].w_ns != want)) &&
		    bad++ < 5)
			CHECK(0, "kread-%d store %d: expected %lld, saw %d/%lld", j, i,
			      (long long)want, rows[i].kr[j].seen, (long long)rows[i].kr[j].w_ns);
	}
	CHECK(K->fig.n == 100 && K->fig.unresolved == 4,
	      "kread-%d: expected 100 stores to page 0, 4 never read; saw %llu, %llu", j,
	      (unsigned long long)K->fig.n, (unsigned long long)K->fig.unresolved);
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[700];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0, "cannot write %s", path);
}

/* vm run --ns-clients: client/ns-clients.txt flags each kread as the
 * client of a namespace; two kreads of one namespace are not two clients
 * (a note, the second unflagged).  And knfsd's counters (nfsdstat.c). */
static void ns_clients(const char *dir)
{
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/client' '%s/server'", dir, dir);
	CHECK(system(cmd) == 0, "%s", cmd);
	put(dir, "client/ns-clients.txt", "# kread netns address\n0 sw-ns0 10.77.0.10\n1 sw-ns1 10.77.0.11\n");
	put(dir, "server/nfsd-before.txt", "uptime 100.5\nth 8 0 0\nrpc 100 0 0 0 0\n"
	    "proc3 22 1 40 0 0\nproc4ops 72 0 0 0 0 0 0 0 0 0 5 0\nauth.unix.ip nfsd 10.77.0.2 *\n");
	put(dir, "server/nfsd-after.txt", "uptime 110.5\nth 8 0 0\nrpc 1100 0 0 0 0\n"
	    "proc3 22 1 540 0 0\nproc4ops 72 0 0 0 0 0 0 0 0 0 105 0\nauth.unix.ip nfsd 10.77.0.2 *\n"
	    "auth.unix.ip nfsd 10.77.0.10 *\nauth.unix.ip nfsd 10.77.0.11 *\nauth.unix.ip nfsd 10.77.0.11 *\n");
	CHECK(analyze(dir) == 0, "ns-clients: expected complete");
	CHECK(S.ns_clients == 2 && !strcmp(S.kr[0].netns, "sw-ns0") && !strcmp(S.kr[1].addr, "10.77.0.11"),
	      "ns-clients: expected kread-0 sw-ns0, kread-1 10.77.0.11, saw %d: '%s' '%s'",
	      S.ns_clients, S.kr[0].netns, S.kr[1].addr);
	CHECK(S.nfsd.have && S.nfsd.threads == 8 && S.nfsd.calls == 1000 && S.nfsd.getattr3 == 500 &&
	      S.nfsd.getattr4 == 100 && S.nfsd.clients == 3 && S.nfsd.secs > 9.9 && S.nfsd.secs < 10.1,
	      "nfsd: expected 8 threads, 1000 calls, 500 + 100 GETATTRs, 3 clients in 10 s, saw %d %llu %llu %llu %d %.1f",
	      S.nfsd.threads, (unsigned long long)S.nfsd.calls, (unsigned long long)S.nfsd.getattr3,
	      (unsigned long long)S.nfsd.getattr4, S.nfsd.clients, S.nfsd.secs);
	put(dir, "client/ns-clients.txt", "0 sw-ns0 10.77.0.10\n1 sw-ns0 10.77.0.10\n");
	put(dir, "server/nfsd-after.txt", "uptime 90\n");
	CHECK(analyze(dir) == 0, "ns-clients, one namespace twice: expected complete (a note)");
	int noted = 0;
	for (int i = 0; i < S.nprob; i++)
		noted += strstr(S.prob[i].msg, "not a client of its own") != NULL;
	CHECK(S.ns_clients == 1 && !S.kr[1].netns[0] && noted == 1,
	      "ns-clients, one namespace twice: expected 1 flagged and 1 note, saw %d, '%s', %d",
	      S.ns_clients, S.kr[1].netns, noted);
	CHECK(!S.nfsd.have, "nfsd: expected no load from an after sample without counters");
}

static void kread(void)
{
	struct sw_synth_cfg c;
	sw_synth_defaults(&c);
	c.duration_ns = 10 * SEC;
	c.kread_ns = 500 * MSEC;
	c.kread_mount_options = "rw,vers=4.2,actimeo=2";
	CHECK(run("kread", &c) == 0, "kread: expected complete");
	CHECK(S.has_kread && S.nkread == 1, "kread: expected 1 reader, saw %d", S.nkread);
	check_kread(&c, 0);

	char src[300], dst[300], cmd[700];
	snprintf(src, sizeof(src), "%s/kread/kread-0.swlog", base);
	snprintf(dst, sizeof(dst), "%s/kread/kread-1.swlog", base);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", src, dst);
	CHECK(system(cmd) == 0, "copy %s", src);
	char dir[300];
	snprintf(dir, sizeof(dir), "%s/kread", base);
	CHECK(analyze(dir) == 0, "kread x2: expected complete");
	CHECK(S.nkread == 2, "kread x2: expected 2 readers, saw %d", S.nkread);
	check_kread(&c, 0);
	check_kread(&c, 1);
	ns_clients(dir);
}

/* the writer's set-up stamp (SETUP record): a v3 kept-open reader
 * (acregmin 1 s, acregmax 10 s) reading every 100 ms from 0.1 s, the
 * first store at 1.5 s.  The first read's attributes are newer than its
 * start (its open), so the first revalidation is the read at 1.2 s.  With
 * the set-up's change at 0.15 s, after the reader's open, it finds a
 * change and keeps acregmin; the refetch's READ stamps the cache after
 * the 1.2 s read began, so the next check is at 2.3 s (the store seen
 * 0.8 s after).  Without it, or with the set-up before the open, the 1.2 s
 * revalidation finds nothing, the timeout doubles and the store waits for
 * 3.2 s (1.7 s); as with a set-up that stamped the file before the open
 * and ended after it. */
static void setup_stamp(void)
{
	static const struct {
		const char *name;
		int64_t setup_ns, setup_len_ns, want_ns;
	} t[] = {
		{ "setup-after-open", 150 * MSEC, 0, 800 * MSEC },
		{ "setup-none", 0, 0, 1700 * MSEC },
		{ "setup-before-open", 50 * MSEC, 0, 1700 * MSEC },
		/* a long set-up (its self-check) that stamped the file at
		 * 51 ms, before the open, and ended at 250 ms, after it: the
		 * stamp's time decides, not the set-up's end */
		{ "setup-stamp-before-open", 250 * MSEC, 200 * MSEC, 1700 * MSEC },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct sw_synth_cfg c;
		sw_synth_defaults(&c);
		c.duration_ns = 10 * SEC;
		c.first_store_ns = 1500 * MSEC;
		c.store_interval_ns = 1 * SEC;
		c.writeback_ns = 500 * MSEC;
		c.expire_ns = 1500 * MSEC;
		c.kread_ns = 100 * MSEC;
		c.kread_kept_open = 1;
		c.kread_mount_options = "rw,vers=3,acregmin=1,acregmax=10";
		c.setup_ns = t[i].setup_ns;
		c.setup_len_ns = t[i].setup_len_ns;
		CHECK(run(t[i].name, &c) == 0, "%s: expected complete", t[i].name);
		CHECK(S.nkread == 1 && !S.kr[0].prof.cto, "%s: expected 1 kept-open reader",
		      t[i].name);
		int64_t w = nrows > 0 ? rows[0].kr[0].replay_ns : -2;
		CHECK(w > t[i].want_ns - 10 * MSEC && w < t[i].want_ns + 10 * MSEC,
		      "%s: expected the first store's replay at %.3f s, saw %.3f s", t[i].name,
		      t[i].want_ns / 1e9, w / 1e9);
	}
}

int main(void)
{
	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	eager_rewrite();
	deferred();
	uncovered();
	lost_and_gap();
	race();
	collisions();
	spurious();
	clock_offset();
	clock_drift();
	blind();
	mixed();
	msync_async();
	kread();
	setup_stamp();
	sw_summary_free(&S);
	return check_finish(base, "windows: all checks passed");
}
