/* SPDX-License-Identifier: MIT */
/* costfmt.c - the Cost section of summary, verdict and mail (fmt.h):
 * what each policy costs in the kernel, from a cost.json
 * (pass/costload.h).  Counts per 1000 stores and ratios to eager as they
 * are; a latency in us only for a row that is not a TCG guest's, whose
 * group says "TCG: ratio only" and gives the fault p50 and p99 as ratios
 * to eager.  The emulator's trap (emul-trap) is no kernel cost and is not
 * here.  72 columns. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "costload.h"
#include "fmt.h"

static void cell(FILE *f, double v, int w, int prec)
{
	if (isnan(v))
		fprintf(f, " %*s", w, "-");
	else
		fprintf(f, " %*.*f", w, prec, v);
}

/* every row of group g prints its latency in us (else: ratios only) */
static int group_abs(const struct sw_costsec *cs, int g)
{
	for (int i = 0; i < cs->n; i++)
		if (cs->rows[i].group == g && !cs->rows[i].abs_latency)
			return 0;
	return 1;
}

static void group_head(FILE *f, const struct sw_costsec *cs, const struct sw_costsec_row *r)
{
	int abs = group_abs(cs, r->group), unknown = 0;

	for (int i = 0; i < cs->n; i++)
		unknown |= cs->rows[i].group == r->group && cs->rows[i].tcg == -1;
	char line[512];

	snprintf(line, sizeof(line), "%s (%s), %s, %d thread(s), query %s%s%s", r->kernel,
		 r->release, r->fs, r->threads, r->query, r->spaced ? ", spaced" : "",
		 r->pressure ? ", fsync writer beside" : "");
	fputc('\n', f);
	sw_fmt_wrap(f, "  ", "    ", NULL, line);
	if (!isnan(r->polls_per_s))
		fprintf(f, "  an NFS client polled the file: %.0f GETATTR/s%s%s\n", r->polls_per_s,
			r->query_from[0] ? " from the " : "", r->query_from);
	if (!abs)
		fputs("  TCG: ratio only (fault p50, p99 as ratios to eager)\n", f);
	else if (unknown)
		fputs("  tcg not recorded: latencies as the file gives them\n", f);
	fprintf(f, "  %-8s %6s %6s %6s %6s", "policy", "hdl/1k", "cmt/1k", "upd/1k", "dir/1k");
	if (abs)
		fprintf(f, " %7s %4s %7s %4s\n", "p50us", "x", "p99us", "x");
	else
		fprintf(f, " %7s %7s\n", "p50 x", "p99 x");
}

void sw_fmt_costsec(FILE *f, const struct sw_costsec *cs, const char *source)
{
	int prev = -1;

	fputs("\nCost (stalewin cost: the kernel's work per policy)\n", f);
	sw_fmt_wrap(f, "  from ", "    ", NULL, source ? source : cs->path);
	fputs("  Counts per 1000 stores, as they are; x: the ratio to eager (else\n"
	      "  stock) of the same kernel, fs, threads and query; -: not measured.\n", f);
	for (int i = 0; i < cs->n; i++) {
		const struct sw_costsec_row *r = &cs->rows[i];
		int abs = group_abs(cs, r->group);

		if (r->group != prev)
			group_head(f, cs, r);
		prev = r->group;
		fprintf(f, "  %-8s", r->policy);
		cell(f, r->handles, 6, 1);
		cell(f, r->commits, 6, 1);
		cell(f, r->updates, 6, 1);
		cell(f, r->dirtied, 6, 1);
		if (abs) {
			cell(f, r->p50_us, 7, 1);
			cell(f, r->p50_x, 4, 2);
			cell(f, r->p99_us, 7, 1);
			cell(f, r->p99_x, 4, 2);
		} else {
			cell(f, r->p50_x, 7, 2);
			cell(f, r->p99_x, 7, 2);
		}
		fputc('\n', f);
	}
	if (cs->findings.n)
		fputs("\n  What each policy saves:\n", f);
	for (int i = 0; i < cs->findings.n; i++)
		sw_fmt_wrap(f, "  - ", "    ", NULL, cs->findings.text[i]);
}

static json_t *jnum(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

json_t *sw_costsec_json(const struct sw_costsec *cs)
{
	json_t *rows = json_array(), *fi = json_array();

	for (int i = 0; i < cs->n; i++) {
		const struct sw_costsec_row *r = &cs->rows[i];
		int abs = group_abs(cs, r->group);
		json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:i,s:s,s:b,s:b,s:i,s:o,s:s}", "kernel",
				      r->kernel, "kernel_release", r->release, "policy", r->policy,
				      "fs", r->fs, "threads", r->threads, "query", r->query,
				      "spaced", r->spaced, "pressure", r->pressure, "group", r->group,
				      "tcg", r->tcg < 0 ? json_null() : json_boolean(r->tcg),
				      "latency", abs ? "us" : "TCG: ratio only");

		json_object_set_new(o, "handles_per_1k", jnum(r->handles));
		json_object_set_new(o, "commits_per_1k", jnum(r->commits));
		json_object_set_new(o, "updates_per_1k", jnum(r->updates));
		json_object_set_new(o, "dirty_inode_per_1k", jnum(r->dirtied));
		json_object_set_new(o, "fault_p50_vs_base", jnum(r->p50_x));
		json_object_set_new(o, "fault_p99_vs_base", jnum(r->p99_x));
		if (abs) {
			json_object_set_new(o, "fault_p50_us", jnum(r->p50_us));
			json_object_set_new(o, "fault_p99_us", jnum(r->p99_us));
		}
		if (!isnan(r->polls_per_s))
			json_object_set_new(o, "polls_per_s", json_real(r->polls_per_s));
		json_array_append_new(rows, o);
	}
	for (int i = 0; i < cs->findings.n; i++)
		json_array_append_new(fi, json_string(cs->findings.text[i]));
	return json_pack("{s:s,s:o,s:o}", "source", cs->path, "rows", rows, "findings", fi);
}
