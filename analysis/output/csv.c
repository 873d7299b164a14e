/* SPDX-License-Identifier: MIT */
/* csv.c - one row per store, from the finished summary's per-store table
 * (S->rows).  Units are in the column names; an empty cell means "no end
 * in the logs" (uncovered / unseen), never a made-up number. */
#include <ctype.h>
#include <string.h>

#include "fmt.h"

static void colname(char *dst, size_t n, const char *name)
{
	size_t j = 0;
	for (size_t i = 0; name[i] && j + 1 < n; i++)
		dst[j++] = isalnum((unsigned char)name[i]) ? (char)tolower((unsigned char)name[i]) : '_';
	dst[j] = 0;
}

static void header(FILE *f, const struct sw_summary *S)
{
	char n[64];
	fputs("store_index,page,gen,t_s_real_ns,trap_ns,flags,own_update,race_gap_ns,"
	      "w_truth_ns,uncovered,w_truth_lower_bound_ns,truth_cause", f);
	for (int i = 0; i < sw_fig_nobs(S); i++) /* the rows' observers */
		fprintf(f, ",obs%d_status,obs%d_w_ns,obs%d_revealed_by,obs%d_exception",
			i, i, i, i);
	for (int i = 0; i < S->nprof; i++) {
		colname(n, sizeof(n), S->prof[i].name);
		fprintf(f, ",replay_%s_w_ns", n);
	}
	for (int j = 0; j < S->nkread; j++)
		fprintf(f, ",kread%d_w_ns,kread%d_replay_w_ns", j, j);
	fputc('\n', f);
}

static void cell(FILE *f, int64_t v)
{
	if (v >= 0)
		fprintf(f, ",%lld", (long long)v);
	else
		fputc(',', f);
}

/* blind: the native writer saw no update (blind.c): no truth, no replay */
static void row(FILE *f, const struct sw_store_row *r, int blind)
{
	static const char *st[] = { "ok", "no-reference", "unseen" };
	char m[64];
	fprintf(f, "%llu,%llu,%llu,%lld,%lld,%u,%d,",
		(unsigned long long)r->index, (unsigned long long)r->page,
		(unsigned long long)r->gen, (long long)r->t_s_ns,
		(long long)r->trap_ns, r->flags, r->own_update);
	if (r->own_update)
		fprintf(f, "%lld", (long long)r->race_gap_ns);
	if (blind)
		fputs(",,,,", f);
	else {
		cell(f, r->w_truth_ns);
		fprintf(f, ",%d", r->w_truth_ns < 0);
		cell(f, r->w_truth_ns < 0 ? r->w_truth_lb_ns : -1);
		fprintf(f, ",%s", r->w_truth_ns < 0 ? "" : sw_cause_name(r->truth_cause));
	}
	for (int i = 0; i < r->nobs; i++) {
		sw_mask_name(m, sizeof(m), r->obs[i].revealed);
		fprintf(f, ",%s", st[r->obs[i].status % 3]);
		cell(f, r->obs[i].status == SW_OBS_OK ? r->obs[i].w_ns : -1);
		fprintf(f, ",%s,%s", m,
			r->obs[i].exc ? sw_exc_name(r->obs[i].exc) : "");
	}
	for (int i = 0; i < r->nprof; i++)
		cell(f, blind ? -1 : r->replay_ns[i]);
	for (int j = 0; j < r->nkread; j++) {
		cell(f, r->kr[j].seen == 1 ? r->kr[j].w_ns : -1);
		cell(f, r->kr[j].seen && !blind ? r->kr[j].replay_ns : -1);
	}
	fputc('\n', f);
}

int sw_fmt_csv(FILE *f, const struct sw_summary *S)
{
	struct sw_store_row r;
	uint64_t n = sw_rows_n(S->rows);

	header(f, S);
	for (uint64_t i = 0; i < n; i++) {
		sw_rows_get(S->rows, i, &r);
		row(f, &r, S->updates_unseen);
	}
	return ferror(f) ? -1 : 0;
}
