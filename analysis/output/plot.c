/* SPDX-License-Identifier: MIT */
/* plot.c - plots through gnuplot, from the finished summary: CDF of
 * windows per figure and a timeline of stores, updates and observations.
 * SVG always, PNG when gnuplot has the png terminal.  The data files stay
 * beside the plots. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "fmt.h"
#include "satmath.h"

/* a plot script's loop over the terminals gnuplot has (SVG always, PNG
 * where built in); the script closes it with " }\n}\n" */
static const char gp_terminals[] =
	"do for [t in 'svg png'] {\n"
	" if (strstrt(GPVAL_TERMINALS, t.' ') > 0 || strstrt(GPVAL_TERMINALS, ' '.t) > 0) {\n"
	"  if (t eq 'svg') { set terminal svg size 900,500 } else { set terminal png size 900,500 }\n";

/* gnuplot on DIR/SCRIPT, its errors into DIR/gnuplot.err */
static int gp_run(const char *dir, const char *script, char *err, int errlen)
{
	char cmd[2 * SW_PATHLEN + 64];
	snprintf(cmd, sizeof(cmd), "gnuplot '%s/%s' 2>'%s/gnuplot.err'", dir, script, dir);
	int st = system(cmd);
	if (st != 0) {
		snprintf(err, errlen, "gnuplot failed (status %d): see %s/gnuplot.err", st, dir);
		return -1;
	}
	return 0;
}

/* timeline.dat and updates.dat: the first SW_PLOT_POINTS stores and
 * updates of the per-store table, times from its first event */
static int timeline(const char *dir, const struct sw_summary *S, char *err, int errlen)
{
	char path[2 * SW_PATHLEN + 64];
	struct sw_store_row r;
	int64_t t0 = sw_rows_t0(S->rows), t;
	uint32_t cause;
	uint64_t n = sw_rows_n(S->rows), nu = sw_rows_nupdates(S->rows);
	FILE *tl, *up;

	snprintf(path, sizeof(path), "%s/timeline.dat", dir);
	tl = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/updates.dat", dir);
	up = fopen(path, "w");
	if (!tl || !up) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		if (tl)
			fclose(tl);
		if (up)
			fclose(up);
		return -1;
	}
	fputs("# t_s_s w_truth_s(-1 uncovered) w_obs0_s(-1 none) page\n", tl);
	fputs("# t_s cause\n", up);
	for (uint64_t i = 0; i < n && i < SW_PLOT_POINTS; i++) {
		sw_rows_get(S->rows, i, &r);
		double wo = r.nobs && r.obs[0].status == SW_OBS_OK ? r.obs[0].w_ns / 1e9 : -1;
		fprintf(tl, "%.9f %.9f %.9f %llu\n", ss(r.t_s_ns, t0) / 1e9,
			r.w_truth_ns >= 0 ? r.w_truth_ns / 1e9 : -1, wo,
			(unsigned long long)r.page);
	}
	for (uint64_t i = 0; i < nu && i < SW_PLOT_POINTS; i++) {
		sw_rows_update(S->rows, i, &t, &cause);
		fprintf(up, "%.9f %s\n", ss(t, t0) / 1e9, sw_cause_name(cause));
	}
	fclose(tl);
	fclose(up);
	return 0;
}

int sw_fmt_plots(const char *dir, const struct sw_summary *S, char *err, int errlen)
{
	char path[2 * SW_PATHLEN + 64];
	enum sw_fig_kind kind;
	const struct sw_fig *g;
	if (mkdir(dir, 0777) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	if (timeline(dir, S, err, errlen))
		return -1;
	snprintf(path, sizeof(path), "%s/cdf.dat", dir);
	FILE *f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	/* one gnuplot data block per figure: window_s share */
	for (int i = 0; (g = sw_fig_at(S, i, &kind)); i++) {
		fprintf(f, "# %s\n", g->name);
		for (int x = 0; x <= 240; x++) {
			double ns = pow(10, 3 + x / 24.0);
			fprintf(f, "%.9g %.6f\n", ns / 1e9, sw_fig_cdf(g, (int64_t)ns));
		}
		fputs("\n\n", f);
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/plots.gp", dir);
	f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	fprintf(f, "cd '%s'\n%s", dir, gp_terminals);
	fprintf(f, "  set output 'cdf.'.t\n  set format x '%%g'\n  set title 'stalewin: staleness windows, policy %s'\n"
		   "  set logscale x\n  set xlabel 'window (s)'\n  set ylabel 'share of stores'\n"
		   "  set key bottom right\n  set yrange [0:1]\n  plot ", S->policy);
	for (int i = 0; (g = sw_fig_at(S, i, &kind)); i++)
		fprintf(f, "%s'cdf.dat' index %d with steps title '%s'", i ? ", " : "", i, g->name);
	fputs("\n  unset logscale x\n  set output 'timeline.'.t\n"
	      "  set title 'stores, timestamp updates, observations'\n"
	      "  set xlabel 'time since the first event (s)'\n  set ylabel ''\n"
	      "  set yrange [-0.5:2.5]\n  set ytics ('store' 0, 'update' 1, 'observed' 2)\n"
	      "  set key off\n"
	      "  plot 'timeline.dat' using 1:(0) with points pt 1, "
	      "'updates.dat' using 1:(1) with points pt 2, "
	      "'timeline.dat' using ($3 >= 0 ? $1 + $3 : 1/0):(2) with points pt 6\n"
	      "  unset ytics\n  set ytics\n  set yrange [*:*]\n"
	      " }\n}\n", f);
	fclose(f);
	return gp_run(dir, "plots.gp", err, errlen);
}

/* the observer effect over a study's query_rate axis: one point per cell
 * (x: the cells in the plan's order, labelled by their id in the group) */
int sw_fmt_observer_plot(const char *dir, const struct sw_obs_row *r, int n, char *err, int errlen)
{
	char path[2 * SW_PATHLEN + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/observer.dat", dir);
	if (!(f = fopen(path, "w"))) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	fputs("# cell rate truth_p50_s equal_ctime_pct changed_after_query_pct "
	      "changed_with_none_pct (-: none)\n", f);
	for (int i = 0; i < n; i++) {
		double v[4] = { r[i].truth_p50_s, 100 * r[i].equal_share,
				100 * r[i].queried_changed, 100 * r[i].unqueried_changed };
		const char *tail = strrchr(r[i].id, '/');
		fprintf(f, "%s %s", tail ? tail + 1 : r[i].id, r[i].rate);
		for (int k = 0; k < 4; k++)
			fprintf(f, v[k] < 0 ? " -" : " %.6g", v[k]);
		fputc('\n', f);
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/observer.gp", dir);
	if (!(f = fopen(path, "w"))) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	int truth = 0; /* gnuplot fails on a series with no point */
	for (int i = 0; i < n; i++)
		truth |= r[i].truth_p50_s >= 0;
	fprintf(f, "cd '%s'\nset datafile missing '-'\n%s", dir, gp_terminals);
	fputs("  set output 'observer.'.t\n  set termoption noenhanced\n"
	      "  set title 'stalewin: the observer effect by query rate (GETATTRs/s per probe target)'\n"
	      "  set xlabel 'cell (its query rate: -qN)'\n  set ylabel 'share of faulting stores (%)'\n"
	      "  set y2label 'truth p50 (s)'\n  set yrange [0:100]\n  set y2range [0:*]\n"
	      "  set ytics nomirror\n  set y2tics\n  set xtics rotate by -30\n  set offsets 0.5, 0.5, 0, 0\n"
	      "  set key outside bottom center horizontal\n"
	      "  plot 'observer.dat' using 0:4:xtic(1) with linespoints pt 7 title 'equal ctimes', "
	      "'' using 0:5 with linespoints pt 5 title 'changed after a query', "
	      "'' using 0:6 with linespoints pt 9 title 'changed with none since'", f);
	fputs(truth ? ", '' using 0:3 axes x1y2 with linespoints pt 1 dt 2 title 'truth p50'\n }\n}\n"
		    : "\n }\n}\n", f);
	fclose(f);
	return gp_run(dir, "observer.gp", err, errlen);
}
