/* SPDX-License-Identifier: MIT */
/* fmt.h - the sinks of a finished summary (text, csv, json, plot) and the
 * number formats they share (table.c). */
#ifndef STALEWIN_FMT_H
#define STALEWIN_FMT_H
#include <jansson.h>
#include <stdio.h>

#include "figstats.h"
#include "report.h"

/* CSV: one row per store of S->rows (a header only without the table). */
int sw_fmt_csv(FILE *f, const struct sw_summary *S);
/* One step of kernel reader j's replay as a line (report --replay-log):
 * ctx is the FILE.  A header first: sw_fmt_replay_step_head. */
void sw_fmt_replay_step_head(FILE *f);
void sw_fmt_replay_step(void *ctx, int j, const struct sw_replay_step *s);
/* Plots into dir (made if missing): the CDF of each figure and the
 * timeline of the first SW_PLOT_POINTS stores and updates of S->rows,
 * through gnuplot.  Returns 0 or -1 with err filled. */
#define SW_PLOT_POINTS 20000
int sw_fmt_plots(const char *dir, const struct sw_summary *S, char *err, int errlen);
/* One cell of a study's query_rate axis (study.c): its rate, truth p50
 * and shares of its faults, summed over its runs; -1: none */
struct sw_obs_row {
	char id[128], rate[16];
	double truth_p50_s;
	double equal_share;       /* faults that left ctime equal */
	double queried_changed;   /* of those after a query, changed it */
	double unqueried_changed; /* of those with none since, changed it */
	long long faults, queried, unqueried;
};
/* DIR/observer.dat, observer.gp and observer.svg (and .png where gnuplot
 * has it): the rows' shares (%) and truth p50 (s, right axis) by cell.
 * Returns 0 or -1 with err filled. */
int sw_fmt_observer_plot(const char *dir, const struct sw_obs_row *r, int n, char *err, int errlen);
/* "1.23s", "850us", "-" for < 0 */
void sw_fmt_dur(char *buf, int len, int64_t ns);
/* a quantile value as the table prints it: "-", ">end" or a duration */
void sw_fmt_qv(char *buf, int len, int64_t v);
void sw_fmt_q(char *buf, int len, const struct sw_fig *f, double q);
/* a share as the table prints it: "0", "<.1%", "2.5%", "40%" */
void sw_fmt_pct(char *buf, int len, double share);
/* the table row "name n p50 p90 p99 max >1s >5s >30s uncov" */
void sw_fmt_fig_row(FILE *f, const char *label, const struct sw_figstats *st);
/* "mtime+ctime" for a SW_ATTR_* mask */
void sw_mask_name(char *buf, int len, uint32_t m);
/* stores, unresolved, p50_ns..max_ns (null: "> run end"), share_gt_* */
void sw_figstats_json(json_t *o, const struct sw_figstats *st);
json_t *sw_fig_json(const struct sw_fig *g, enum sw_fig_kind kind);
json_t *sw_summary_json(const struct sw_summary *S, int exit_code);
/* summary.c: `stalewin summary` rows (pass/runrow.h), text <= 72 columns
 * (dims: the mask sw_runrow_label returned) and JSON */
struct sw_runrow;
void sw_fmt_summary_row(FILE *f, const struct sw_runrow *r);
void sw_fmt_summary_text(FILE *f, const struct sw_runrow *rows, int n, unsigned dims);
json_t *sw_summary_rows_json(const struct sw_runrow *rows, int n);
/* mail.c: a plain-text mail of runs (pass/mailfacts.h), every line of the
 * body <= 72 columns; sw_fmt_wrap wraps text at 72 after lead/indent */
struct sw_runfacts;
struct sw_findings;
/* the boundary between a mail's MIME parts: in no text part, since its
 * lines start with "--=_" only here, and not in base64 */
#define SW_MIME_BOUNDARY "=_stalewin_part_boundary"
struct sw_mail_hdr {
	const char *from, *to, *subject, *date; /* header values as given */
	const char *cc, *in_reply_to; /* NULL: no such header */
	const char *const *attach; /* files to attach (MIME parts, attach.c) */
	int nattach;
	const struct sw_findings *sketch; /* why it is a sketch (n 0: not one) */
	const struct sw_findings *caveats; /* what the reports caveat */
	/* a study's mail (stalewin mail DIR with a study.json): set, these
	 * texts (lines of at most 72 columns) replace the per-run table and
	 * findings, and the study's commands replace the runs' */
	const char *study_name;  /* the study folder's name, NULL: runs */
	const char *study_dir;   /* the study folder as given */
	const char *tldr, *verdict, *cells, *plan; /* plan.ini as run */
	const char *cost; /* the Cost section (costfmt.c), NULL: none */
};
void sw_fmt_wrap(FILE *f, const char *lead, const char *indent, const char *cont,
		 const char *text);
/* The truth windows' CDF of the runs with fa[i].plot, as text (asciicdf.c). */
void sw_fmt_ascii_cdf(FILE *f, const struct sw_runrow *rows, const struct sw_runfacts *fa, int n);
void sw_fmt_mail(FILE *f, const struct sw_mail_hdr *h, const struct sw_runrow *rows,
		 const struct sw_runfacts *fa, int n, unsigned dims,
		 const struct sw_findings *fi);
/* The Cost section (costfmt.c) of a cost.json read by pass/costload.h:
 * text under the heading "Cost" (source names the file, NULL: its path),
 * and the same as JSON (new reference). */
struct sw_costsec;
void sw_fmt_costsec(FILE *f, const struct sw_costsec *cs, const char *source);
json_t *sw_costsec_json(const struct sw_costsec *cs);
#endif
