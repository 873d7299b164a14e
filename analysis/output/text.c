/* SPDX-License-Identifier: MIT */
/* text.c - the plain-text report: fits 72 columns, for mailing lists. */
#include <math.h>
#include <string.h>

#include "fmt.h"

#define W 72

/* "key : value", value wrapped at W with continuation indented */
static void kv(FILE *f, const char *k, const char *v)
{
	int ind = 11, col;
	size_t n = strlen(v), i = 0;
	fprintf(f, "%-9s: ", k);
	col = ind;
	if (!n) {
		fputs("-\n", f);
		return;
	}
	while (i < n) {
		size_t room = (size_t)(W - col), take = n - i;
		if (take > room) {
			take = room;
			size_t j = take;
			while (j > 0 && v[i + j] != ' ')
				j--;
			if (j > 0)
				take = j;
		}
		fwrite(v + i, 1, take, f);
		i += take;
		while (i < n && v[i] == ' ')
			i++;
		if (i < n)
			fprintf(f, "\n%*s", ind, "");
	}
	fputc('\n', f);
}

static void fig_row(FILE *f, const struct sw_fig *g)
{
	struct sw_figstats st;
	sw_figstats(g, &st);
	sw_fmt_fig_row(f, g->name, &st);
}

static void cdf(FILE *f, const struct sw_summary *S)
{
	/* x: log10 from 1 us to 100 s, 8 columns a decade; y: 0..100 % */
	enum { COLS = 64, ROWS = 10 };
	char grid[ROWS + 1][COLS + 1];
	const char *marks = "T123456789";
	const char *rmarks = "abcdefghijklmnop";
	memset(grid, ' ', sizeof(grid));
	enum sw_fig_kind kind;
	int nfig = 0;
	const struct sw_fig *g;
	while (sw_fig_at(S, nfig, &kind))
		nfig++;
	/* replays first, truth last: the truth stays visible on top */
	for (int i = nfig - 1; i >= 0; i--) {
		g = sw_fig_at(S, i, &kind);
		if (!g->n || kind == SW_FIG_KREAD)
			continue;
		int oi = i - 1, ri = i - 1 - sw_fig_nobs(S);
		char m = kind == SW_FIG_TRUTH ? 'T' : kind == SW_FIG_OBSERVED ? marks[1 + oi % 9] : rmarks[ri % 16];
		for (int x = 0; x < COLS; x++) {
			double ns = pow(10, 3 + x / 8.0);
			double y = sw_fig_cdf(g, (int64_t)ns);
			int r = (int)lround(y * ROWS);
			if (r > 0)
				grid[ROWS - r][x] = m;
		}
	}
	fputs("CDF of windows (share of stores with window <= x)\n", f);
	for (int r = 0; r < ROWS; r++)
		fprintf(f, "%4d%% |%.*s\n", (ROWS - r) * 100 / ROWS, COLS, grid[r]);
	char axis[COLS + 1], lab[COLS + 16];
	static const char *dec[8] = { "1us", "10us", "100us", "1ms", "10ms",
				      "100ms", "1s", "10s" };
	for (int x = 0; x < COLS; x++)
		axis[x] = x % 8 ? '-' : '+';
	axis[COLS] = 0;
	memset(lab, ' ', sizeof(lab));
	for (int d = 0; d < 8; d++)
		memcpy(lab + d * 8, dec[d], strlen(dec[d]));
	lab[COLS + 2] = 0;
	for (int x = COLS + 1; x >= 0 && lab[x] == ' '; x--)
		lab[x] = 0;
	fprintf(f, "      |%s\n       %s\n", axis, lab);
	fputs("       T truth", f);
	int col = 13;
	for (int i = 0; i < sw_fig_nobs(S); i++) {
		char b[64];
		int n = snprintf(b, sizeof(b), "  %c %s", marks[1 + i % 9], S->obs[i].name);
		if (col + n > W - 1) {
			fputs("\n      ", f);
			col = 6;
		}
		fputs(b, f);
		col += n;
	}
	for (int i = 0; i < S->nprof; i++) {
		char b[64];
		int n = snprintf(b, sizeof(b), "  %c %s", rmarks[i % 16], S->prof[i].name);
		if (col + n > W - 1) {
			fputs("\n      ", f);
			col = 6;
		}
		fputs(b, f);
		col += n;
	}
	fputc('\n', f);
}

/* The header: what ran, where, with which clock and resolution. */
static void header(FILE *f, const struct sw_summary *S)
{
	char b[1024], d1[16], d2[16], d3[16], d4[16];

	sw_status_line(S, b, sizeof(b));
	fprintf(f, "stalewin report  run %016llx  %s%s\n",
		(unsigned long long)S->run_id, b,
		S->synthetic ? "  [synthetic logs]" : "");
	kv(f, "command", S->cmdline);
	snprintf(b, sizeof(b), "%s%s%s", S->kernel, S->trap[0] ? "  trap " : "", S->trap);
	kv(f, "kernel", b);
	snprintf(b, sizeof(b), "%s (%s)", S->fs[0] ? S->fs : "?", S->fs_opts);
	kv(f, "fs", b);
	if (S->file_changed_ns >= 0) {
		sw_fmt_dur(d1, sizeof(d1), S->file_changed_ns);
		sw_fmt_dur(d2, sizeof(d2), S->file_read_ns);
		int o = snprintf(b, sizeof(b), "ctime %s before the writer's set-up%s%s%s", d1,
				 S->file_read_ns >= 0 ? ", read " : "", S->file_read_ns >= 0 ? d2 : "",
				 S->file_read_ns >= 0 ? " before" : "");
		/* how long before picks the writeback's phase and state at
		 * the first store (server/README.md): say whether that is
		 * over, so a figure is not compared across regimes unknowingly */
		if (S->settle_ns >= 0 && o > 0 && (size_t)o < sizeof(b)) {
			sw_fmt_dur(d3, sizeof(d3), S->settle_ns);
			if (S->file_changed_ns >= S->settle_ns)
				snprintf(b + o, sizeof(b) - o,
					 "; settled (%s = 2 expire + 10 writeback + commit)", d3);
			else
				snprintf(b + o, sizeof(b) - o,
					 "; NOT settled (that takes %s = 2 expire + 10 writeback + commit): the writeback's phase and state at the first store depend on how long before (vm run --lead, writer --lead-ms)",
					 d3);
		}
		kv(f, "file", b);
	}
	kv(f, "sysctls", S->sysctls);
	kv(f, "libnfs", S->libnfs);
	snprintf(b, sizeof(b), "%s  workload %s", S->policy, S->workload);
	kv(f, "policy", b);
	kv(f, "model", S->valid_wb);
	if (S->model_profile[0])
		kv(f, "profile", S->model_profile);
	kv(f, "replay", S->valid_replay);
	if (S->updates_unseen) {
		snprintf(b, sizeof(b), "not measured: %s; truth, the client replays and the consistency check are left out",
			 S->updates_unseen_why);
		kv(f, "truth", b);
	}
	if (S->clock_file) {
		sw_fmt_dur(d1, sizeof(d1), S->err_ns);
		snprintf(b, sizeof(b), "offset %lld ns +- %s (clock.json)",
			 (long long)S->offset_ns, d1);
	} else
		snprintf(b, sizeof(b), "same host: offset 0 exactly (no clock.json)");
	for (int i = 0; i < S->nclock_steps && i < SW_MAX_CLOCK_STEPS; i++) {
		size_t u = strlen(b);
		snprintf(b + u, sizeof(b) - u, "; writer realtime stepped %+.3f s at %.2f s%s",
			 S->clock_step[i].step_ns / 1e9,
			 (double)(S->clock_step[i].t_ns - S->t_start_ns) / 1e9,
			 S->clock_after_raw_ns ? " (estimate after it corrected)" : "");
	}
	for (int i = 0; i < S->nobs_steps && i < SW_MAX_CLOCK_STEPS; i++) {
		size_t u = strlen(b);
		snprintf(b + u, sizeof(b) - u, "; client realtime stepped %+.3f s at %.2f s (%s)%s",
			 S->obs_step[i].step_ns / 1e9,
			 (double)(S->obs_step[i].t_ns + S->offset_ns - S->t_start_ns) / 1e9,
			 S->obs_step_log, S->clock_after_raw_ns ? ", estimate after it corrected" : "");
	}
	if (S->clock_file && S->clock_interval_ns && S->clock_moved_ns) {
		/* after the steps: what the estimates show beyond them */
		size_t u = strlen(b);
		snprintf(b + u, sizeof(b) - u,
			 "; moved %+lld ns in %.1f s (%.1f ppm drift), half of it in the error",
			 (long long)S->clock_moved_ns, S->clock_interval_ns / 1e9,
			 (double)S->clock_moved_ns * 1e6 / (double)S->clock_interval_ns);
	}
	kv(f, "clock", b);
	for (int j = 0; j < S->nkread; j++) {
		char m[1024]; /* mode, mount, namespace, address: never cut (-O0 checks it) */
		snprintf(m, sizeof(m), "kread-%d %s: %s%s%s%s%s", j,
			 S->kr[j].mode[0] ? S->kr[j].mode : "?", S->kr[j].mount,
			 S->kr[j].netns[0] ? "; namespace client " : "", S->kr[j].netns,
			 S->kr[j].netns[0] ? " " : "", S->kr[j].addr);
		kv(f, "mount", m);
	}
	if (S->ns_clients) {
		snprintf(b, sizeof(b),
			 "%d of the kreads each a kernel NFS client of its own network namespace, in one guest: they share its clock (one estimate, its error applies to every client)",
			 S->ns_clients);
		kv(f, "ns-clients", b);
	}
	if (S->nfsd.have) {
		uint64_t ga = S->nfsd.getattr3 + S->nfsd.getattr4;
		snprintf(b, sizeof(b),
			 "%d threads; %llu RPCs, %llu GETATTRs (v3 %llu, v4 %llu) in %.1f s from the file's set-up to the writer's end: %.0f GETATTRs/s; %d client addresses in its export cache",
			 S->nfsd.threads, (unsigned long long)S->nfsd.calls, (unsigned long long)ga,
			 (unsigned long long)S->nfsd.getattr3, (unsigned long long)S->nfsd.getattr4,
			 S->nfsd.secs, ga / S->nfsd.secs, S->nfsd.clients);
		kv(f, "nfsd", b);
	}
	for (int i = 0; i < sw_fig_nobs(S); i++) {
		const struct sw_observer *O = &S->obs[i];
		sw_fmt_dur(d1, sizeof(d1), O->resolution_ns);
		sw_fmt_dur(d2, sizeof(d2), O->poll_p99_ns);
		sw_fmt_dur(d3, sizeof(d3), O->rtt_p99_ns);
		sw_fmt_dur(d4, sizeof(d4), S->err_ns);
		snprintf(b, sizeof(b), "%s %s = poll p99 %s + rtt p99 %s + clock %s",
			 O->name, d1, d2, d3, d4);
		kv(f, "resolution", b);
	}
}

/* Per probe target: how its observations compare with the truth. */
static void consistency(FILE *f, const struct sw_summary *S)
{
	char b[1024], d1[16];

	if (S->nobs)
		fputs("Consistency: W_obs - W_truth in [-clock err, resolution + err]\n", f);
	for (int i = 0; i < sw_fig_nobs(S); i++) {
		const struct sw_observer *O = &S->obs[i];
		fprintf(f, "      %s: %llu checked, %llu ok, %llu early, %llu late\n",
			O->name, (unsigned long long)O->checked,
			(unsigned long long)O->consistent, (unsigned long long)O->low,
			(unsigned long long)O->high);
		for (int e = 1; e < SW_EXC_N; e++)
			if (O->exc[e])
				fprintf(f, "        %-18s %llu\n", sw_exc_name(e),
					(unsigned long long)O->exc[e]);
		fprintf(f, "        not judged: %llu before the first reply, %llu unseen\n",
			(unsigned long long)O->no_ref, (unsigned long long)O->ended);
		fprintf(f, "        replies %llu, failed %llu, gaps %llu (", 
			(unsigned long long)O->replies, (unsigned long long)O->failures,
			(unsigned long long)O->gaps);
		sw_fmt_dur(d1, sizeof(d1), O->gap_ns);
		fprintf(f, "%s)\n        revealed by:", d1);
		for (int m = 1; m < 16; m++)
			if (O->revealed[m]) {
				sw_mask_name(b, sizeof(b), (uint32_t)m);
				fprintf(f, " %s %llu", b, (unsigned long long)O->revealed[m]);
			}
		fputc('\n', f);
	}
}

/* a reader's mount options as "vers=V" (the rest is in its kernel mount
 * section and report.json) */
static const char *mount_vers(const char *mount, char *out, size_t n)
{
	const char *v = strstr(mount, "vers=");
	snprintf(out, n, "%.*s", v ? (int)strcspn(v, ",") : 0, v ? v : "");
	return out[0] ? out : "?";
}

/* Each grant and recall nfsd traced with its time, the recall's
 * latency, and when each reader first read new data after the first
 * recall (deleg.c).  Every figure names its clock and resolution. */
static void deleg_times(FILE *f, const struct sw_summary *S)
{
	const struct sw_deleg *D = &S->deleg;
	char b[1024], k[24], d1[32], d2[32];
	if (D->ngrant_all > D->ngrant || D->nrecall_all > D->nrecall) {
		snprintf(b, sizeof(b), "the first %d of %lld grants and %d of %lld recalls "
			 "are given below", D->ngrant, (long long)D->ngrant_all, D->nrecall,
			 (long long)D->nrecall_all);
		kv(f, "deleg", b);
	}
	for (int i = 0; i < D->ngrant; i++) {
		snprintf(k, sizeof(k), "grant %d", i + 1);
		snprintf(b, sizeof(b), "%s at %.6f s (server CLOCK_MONOTONIC, nfsd's trace "
			 "clock mono, 1 us)", D->grant[i].event, D->grant[i].t_srv_mono_ns / 1e9);
		kv(f, k, b);
	}
	for (int i = 0; i < D->nrecall; i++) {
		const struct sw_deleg_recall *R = &D->recall[i];
		int n;
		snprintf(k, sizeof(k), "recall %d", i + 1);
		n = snprintf(b, sizeof(b), "%s at %.6f s (server CLOCK_MONOTONIC, 1 us)%s%s%s",
			     R->event, R->t_srv_mono_ns / 1e9, R->task[0] ? ", fired by the open of " : "",
			     R->task, R->task[0] ? " (its lease break)" : "");
		if (R->t_cb_done_srv_mono_ns >= 0) {
			sw_fmt_dur(d1, sizeof(d1), R->t_cb_done_srv_mono_ns - R->t_srv_mono_ns);
			n += snprintf(b + n, sizeof(b) - (size_t)n, "; the client's CB_RECALL reply +%s", d1);
		}
		if (R->t_return_srv_mono_ns >= 0) {
			sw_fmt_dur(d1, sizeof(d1), R->t_return_srv_mono_ns - R->t_srv_mono_ns);
			n += snprintf(b + n, sizeof(b) - (size_t)n, "; DELEGRETURN +%s: the recall's latency "
				      "(open -> delegreturn, server CLOCK_MONOTONIC, 1 us)", d1);
		} else
			n += snprintf(b + n, sizeof(b) - (size_t)n, "; no DELEGRETURN traced after it");
		if (i == 0 && D->t_open_done_srv_mono_ns >= 0 && D->t_open_done_srv_mono_ns >= R->t_srv_mono_ns) {
			sw_fmt_dur(d1, sizeof(d1), D->t_open_done_srv_mono_ns - R->t_srv_mono_ns);
			n += snprintf(b + n, sizeof(b) - (size_t)n, "; the writer's open had returned by +%s "
				      "(its SETUP record, server CLOCK_MONOTONIC, 1 ns)", d1);
		}
		if (i == 0 && D->t_first_store_srv_mono_ns >= R->t_srv_mono_ns) {
			sw_fmt_dur(d1, sizeof(d1), D->t_first_store_srv_mono_ns - R->t_srv_mono_ns);
			snprintf(b + n, sizeof(b) - (size_t)n, ", its first store +%s", d1);
		}
		kv(f, k, b);
	}
	if (!D->nreader)
		return;
	int n = 0;
	sw_fmt_dur(d2, sizeof(d2), S->err_ns);
	for (int i = 0; i < D->nreader; i++) {
		const struct sw_deleg_reader *E = &D->reader[i];
		const struct sw_kread *K = &S->kr[E->j];
		char mv[32];
		if (!E->judged)
			n += snprintf(b + n, sizeof(b) - (size_t)n, "%sreader %d (%s, %s): no read before the recall",
				      i ? "; " : "", E->j, K->mode, mount_vers(K->mount, mv, sizeof(mv)));
		else if (E->after_recall_ns < 0)
			n += snprintf(b + n, sizeof(b) - (size_t)n, "%sreader %d (%s, %s): read no new data after "
				      "it (%llu reads of the old)", i ? "; " : "", E->j, K->mode,
				      mount_vers(K->mount, mv, sizeof(mv)), (unsigned long long)E->stale_reads);
		else {
			sw_fmt_dur(d1, sizeof(d1), E->after_recall_ns);
			n += snprintf(b + n, sizeof(b) - (size_t)n, "%sreader %d (%s, %s): new data read by +%s, "
				      "after %llu reads of the old", i ? "; " : "", E->j, K->mode,
				      mount_vers(K->mount, mv, sizeof(mv)), d1,
				      (unsigned long long)E->stale_reads);
		}
		if (n >= (int)sizeof(b))
			break;
	}
	if (n < (int)sizeof(b))
		snprintf(b + n, sizeof(b) - (size_t)n, " (after recall 1: each read's end in its "
			 "CLOCK_REALTIME plus the run's offset, +-%s, against the recall in the "
			 "server's CLOCK_REALTIME by the writer's %s record)", d2, D->srv_clock_from);
	kv(f, "refetch", b);
}

/* The scenario and the delegations nfsd traced: a scenario's reason
 * rather than a row of zeros; a contradiction said as one. */
static void deleg_text(FILE *f, const struct sw_summary *S)
{
	const struct sw_deleg *D = &S->deleg;
	char b[512], c[128] = "nfsd's delegation events not traced";
	if (!D->scenario[0] && !D->traced)
		return;
	if (D->traced)
		snprintf(c, sizeof(c), "nfsd traced %lld grants, %lld recalls, %lld returns",
			 (long long)D->granted, (long long)D->recalls, (long long)D->returns);
	if (!strcmp(D->scenario, "deleg-none") && D->traced && D->granted)
		snprintf(b, sizeof(b), "scenario deleg-none expected no delegation (%s), saw one: %s",
			 D->note, c);
	else if (!strcmp(D->scenario, "deleg-recall") && (!D->traced || !D->granted || !D->recalls))
		snprintf(b, sizeof(b), "scenario deleg-recall expected a grant and a recall (%s), "
			 "saw %s", D->note, D->traced ? c : "none: nfsd's delegation events not traced");
	else if (D->scenario[0])
		snprintf(b, sizeof(b), "scenario %s: %s; %s", D->scenario, D->note, c);
	else
		snprintf(b, sizeof(b), "%s", c);
	kv(f, "deleg", b);
	deleg_times(f, S);
}

/* What revealed the stores (the v4 target: ctime and the change
 * attribute in one reply), the equal ctimes, the queries of the file. */
static void attrs_text(FILE *f, const struct sw_summary *S)
{
	const struct sw_reveal *A = &S->attrs;
	char b[1024], r[160], w[64];
	if (A->obs >= 0)
		snprintf(b, sizeof(b), "of %llu stores %s revealed: the change attribute only "
			 "%llu (%llu of them torn: a reply caught a racing update half made), "
			 "ctime only %llu, both %llu, neither %llu",
			 (unsigned long long)A->revealed, S->obs[A->obs].name,
			 (unsigned long long)A->change_only, (unsigned long long)A->change_only_torn,
			 (unsigned long long)A->ctime_only,
			 (unsigned long long)A->both, (unsigned long long)A->other);
	else
		snprintf(b, sizeof(b), "no v4 target: the change attribute was not asked for");
	kv(f, "reveal", b);
	if (A->equal_ctime < 0)
		snprintf(b, sizeof(b), "%s", A->equal_how);
	else if (A->faults >= 0)
		snprintf(b, sizeof(b), "%lld of %lld faulting stores left ctime as it was (%s)",
			 (long long)A->equal_ctime, (long long)A->faults, A->equal_how);
	else
		snprintf(b, sizeof(b), "%lld (%s)", (long long)A->equal_ctime, A->equal_how);
	kv(f, "eq ctime", b);
	if (A->by_query.known) {
		const struct sw_queried *Q = &A->by_query;
		snprintf(b, sizeof(b), "after a query of ctime %lld of %lld faults changed it; "
			 "with none since its last change %lld of %lld; a query during the fault "
			 "%lld of %lld (%s)",
			 (long long)Q->queried_changed, (long long)Q->queried,
			 (long long)Q->unqueried_changed, (long long)Q->unqueried,
			 (long long)Q->during_changed, (long long)Q->during, Q->how);
		kv(f, "by query", b);
	}
	if (A->query_hz == -1)
		snprintf(b, sizeof(b), "not recorded");
	else {
		if (A->probe_hz >= 0)
			snprintf(r, sizeof(r), "%g/s per target (every %g ms: the floor of its "
				 "resolution)", A->probe_hz, 1e3 / A->probe_hz);
		else
			snprintf(r, sizeof(r), "%s", A->probe_hz == -2 ? "wire speed" : "none");
		snprintf(w, sizeof(w), A->query_hz >= 0 ? "%.1f/s" : "wire speed", A->query_hz);
		snprintf(b, sizeof(b), "%s planned: probe %s x %d, kernel readers %.1f/s",
			 w, r, A->probe_targets, A->readers_hz);
	}
	if (A->probe_achieved_hz >= 0) {
		size_t n = strlen(b);
		snprintf(b + n, sizeof(b) - n, "; %s replied %.1f/s", S->obs[0].name,
			 A->probe_achieved_hz);
	}
	if (A->writer_stats == 1) {
		size_t n = strlen(b);
		snprintf(b + n, sizeof(b) - n, "; the writer stat-ed the file after every store");
	}
	kv(f, "queries", b);
	if (A->multigrain >= 0) {
		snprintf(b, sizeof(b), "%s (%s)", A->multigrain ? "yes" : "no", A->multigrain_how);
		kv(f, "multigr", b);
	}
	deleg_text(f, S);
}

/* a quantile of the spread as the table shows it: ">end", "-" none */
static const char *spread_dur(char *b, size_t n, int64_t q)
{
	if (q == -1)
		snprintf(b, n, ">end");
	else if (q < 0)
		snprintf(b, n, "-");
	else
		sw_fmt_dur(b, n, q);
	return b;
}

/* More observers than the table's rows: the table above holds the first
 * SW_ROWS_OBS; all of them in a few lines (figstats.h sw_obs_spread),
 * every one's own figures in report.json. */
static void many_observers(FILE *f, const struct sw_summary *S)
{
	struct sw_obs_spread sp;
	char b[1024], d[6][16], w[16];
	if (S->nobs <= SW_ROWS_OBS)
		return;
	snprintf(b, sizeof(b), "%d probe targets: the table, resolution, race, consistency "
		 "and CDF lines, the CSV's columns and the plots hold the first %d; each "
		 "one's figures are in report.json (results.observers); all are timed on "
		 "the one client clock of the clock line: its error applies to each",
		 S->nobs, SW_ROWS_OBS);
	kv(f, "observers", b);
	if (sw_obs_spread(S, &sp)) {
		kv(f, "spread", "not computed: no memory");
		return;
	}
	if (!sp.judged) {
		snprintf(b, sizeof(b), "none of the %d observers judged a store", sp.nobs);
		kv(f, "spread", b);
	} else {
		const struct sw_observer *O = &S->obs[sp.worst];
		snprintf(b, sizeof(b), "W_obs over the %d observers that judged a store "
			 "(min / median / max): p50 %s / %s / %s, p99 %s / %s / %s; worst %s "
			 "(p99 %s)", sp.judged, spread_dur(d[0], 16, sp.p50[0]),
			 spread_dur(d[1], 16, sp.p50[1]), spread_dur(d[2], 16, sp.p50[2]),
			 spread_dur(d[3], 16, sp.p99[0]), spread_dur(d[4], 16, sp.p99[1]),
			 spread_dur(d[5], 16, sp.p99[2]), O->name,
			 spread_dur(w, sizeof(w), sw_fig_quantile(&O->fig, 0.99)));
		kv(f, "spread", b);
	}
	int n = snprintf(b, sizeof(b), "all %d: %llu checked, %llu ok, %llu early, %llu late",
			 sp.nobs, (unsigned long long)sp.checked, (unsigned long long)sp.consistent,
			 (unsigned long long)sp.low, (unsigned long long)sp.high);
	const char *sep = "; explained:";
	for (int e = 1; e < SW_EXC_N && n > 0 && (size_t)n < sizeof(b); e++)
		if (sp.exc[e]) {
			n += snprintf(b + n, sizeof(b) - (size_t)n, "%s %s %llu", sep,
				      sw_exc_name(e), (unsigned long long)sp.exc[e]);
			sep = ",";
		}
	if (sp.hz[0] >= 0 && n > 0 && (size_t)n < sizeof(b))
		snprintf(b + n, sizeof(b) - (size_t)n, "; replies %.1f / %.1f / %.1f per s "
			 "(min / median / max over their spans)", sp.hz[0], sp.hz[1], sp.hz[2]);
	kv(f, "observed", b);
}

int sw_fmt_text(FILE *f, const struct sw_summary *S)
{
	char d1[16], d2[16];

	header(f, S);
	fputc('\n', f);
	fprintf(f, "Windows, policy %s: %llu stores; percentiles over all stores,\n",
		S->policy, (unsigned long long)S->stores);
	fputs("uncov = no end in the logs (\"> run end\", counted as longest)\n", f);
	fprintf(f, "%-16s%6s%7s%7s%7s%7s%5s%5s%5s%6s\n", "figure", "n", "p50",
		"p90", "p99", "max", ">1s", ">5s", ">30s", "uncov");
	enum sw_fig_kind kind;
	const struct sw_fig *g;
	for (int i = 0; (g = sw_fig_at(S, i, &kind)); i++) {
		if (i == 1 + sw_fig_nobs(S) && S->nprof)
			fputs("client replay (Linux NFS client rules):\n", f);
		fig_row(f, g);
	}
	many_observers(f, S);
	fputc('\n', f);
	sw_fmt_dur(d1, sizeof(d1), sw_hist_quantile(&S->trap_ns, 0.5));
	sw_fmt_dur(d2, sizeof(d2), sw_hist_quantile(&S->trap_ns, 0.99));
	fprintf(f, "Cost: updates %llu (", (unsigned long long)S->updates);
	int first = 1;
	for (int c = 0; c < 10; c++)
		if (S->upd_cause[c]) {
			fprintf(f, "%s%s %llu", first ? "" : ", ", sw_cause_name((uint32_t)c),
				(unsigned long long)S->upd_cause[c]);
			first = 0;
		}
	fprintf(f, ")\n      spurious %llu, equal-timestamp pairs %llu\n",
		(unsigned long long)S->spurious, (unsigned long long)S->collisions);
	fprintf(f, "      traps %llu, trap latency p50 %s p99 %s\n",
		(unsigned long long)S->traps, d1, d2);
	sw_fmt_dur(d1, sizeof(d1), sw_hist_quantile(&S->race_gap_ns, 0.5));
	sw_fmt_dur(d2, sizeof(d2), S->race_gap_ns.count ? S->race_gap_ns.max : 0);
	fprintf(f, "Race: %llu stores after their own trap's update (gap p50 %s\n"
		   "      max %s)\n", (unsigned long long)S->race_stores, d1, d2);
	for (int i = 0; i < sw_fig_nobs(S); i++) {
		const struct sw_observer *O = &S->obs[i];
		sw_fmt_dur(d1, sizeof(d1), O->race_stale_ns.count
						   ? sw_hist_quantile(&O->race_stale_ns, 0.5) : -1);
		fprintf(f, "      %s: reference reply in a gap %llu, READ old\n"
			   "      data under new attrs %llu (stale p50 %s)\n",
			O->name, (unsigned long long)O->race_attr_hits,
			(unsigned long long)O->race_read_hits, d1);
	}
	attrs_text(f, S);
	consistency(f, S);
	for (int j = 0; j < S->nkread; j++) {
		fprintf(f, "Kernel mount kread-%d: %llu reads of page %llu (stores to it\n"
			   "      only); replay of its options: %s\n", j,
			(unsigned long long)S->kr[j].reads, (unsigned long long)S->kr[j].page,
			S->kr[j].replay.desc);
		if (S->kread_rpc_trace)
			fprintf(f, "      %llu of its %llu revalidations at the client's traced RPC times\n",
				(unsigned long long)S->kr[j].replay_traced,
				(unsigned long long)S->kr[j].replay_revals);
		if (S->kr[j].replay_undetermined)
			fprintf(f, "      %llu changes inside a traced GETATTR's window at the server (either\n"
				   "      order possible): the client's own outcome taken, %llu against the\n"
				   "      replay's send-time rule\n",
				(unsigned long long)S->kr[j].replay_undetermined,
				(unsigned long long)S->kr[j].replay_undet_flipped);
		if (S->kr[j].replay_undet_stores)
			fprintf(f, "      %llu stores made while the READ that could serve them was on its\n"
				   "      way (either answer possible): the client's taken for %llu\n",
				(unsigned long long)S->kr[j].replay_undet_stores,
				(unsigned long long)S->kr[j].replay_undet_taken);
		if (S->kread_rpc_trace)
			fprintf(f, "      %llu of its %llu stores served by the same read by the replay\n",
				(unsigned long long)S->kr[j].replay_same_read,
				(unsigned long long)S->kr[j].fig.n);
		const struct sw_revalmatch_out *m = &S->kr[j].match;
		if (m->compared)
			fprintf(f, "      GETATTRs: the replay's %llu, the client's %llu, at the same read %llu%s\n",
				(unsigned long long)m->replay, (unsigned long long)m->client,
				(unsigned long long)m->matched,
				m->side == SW_PART_REPLAY ? "; first apart: the replay's alone"
				: m->side == SW_PART_CLIENT ? "; first apart: the client's alone" : "");
	}
	fputc('\n', f);
	cdf(f, S);
	if (S->nprob) {
		fputs("\nProblems:\n", f);
		for (int i = 0; i < S->nprob; i++) {
			const struct sw_problem *p = &S->prob[i];
			char pb[sizeof(p->file) + sizeof(p->msg) + 32];
			if (p->record >= 0)
				snprintf(pb, sizeof(pb), "%s: record %lld: %s", p->file,
					 (long long)p->record, p->msg);
			else
				snprintf(pb, sizeof(pb), "%s: %s", p->file, p->msg);
			kv(f, p->partial ? "partial" : "note", pb);
		}
		if (S->nprob_total > (uint64_t)S->nprob)
			fprintf(f, "(%llu more)\n", (unsigned long long)(S->nprob_total - S->nprob));
	}
	return ferror(f) ? -1 : 0;
}

void sw_fmt_replay_step_head(FILE *f)
{
	fputs("# reader kind t_writer_ns tb_mono_ns ga_send_mono_ns rd_send_mono_ns changed"
	      " t_last_change_ns t_seen_ns timeo_ms read_cache_jiffies attrtimeo_timestamp\n"
	      "# writer realtime (ns), the reader's CLOCK_MONOTONIC (ns, 0: not traced),"
	      " jiffies on the client's grid\n", f);
}

void sw_fmt_replay_step(void *ctx, int j, const struct sw_replay_step *s)
{
	static const char *kinds[] = { "?", "reval", "refresh", "late", "open" };
	fprintf((FILE *)ctx, "kread-%d %s %lld %lld %lld %lld %d %lld %lld %lld %lld %lld\n", j,
		kinds[s->kind >= 1 && s->kind <= 4 ? s->kind : 0], (long long)s->t_ns,
		(long long)s->tb_mono_ns, (long long)s->ga_send_mono_ns,
		(long long)s->rd_send_mono_ns, s->changed, (long long)s->t_upd_ns,
		(long long)s->t_seen_ns, (long long)(s->timeo_ns / 1000000), (long long)s->rcj,
		(long long)s->ts_j);
}
