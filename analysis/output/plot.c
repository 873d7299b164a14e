/* SPDX-License-Identifier: MIT */
/* plot.c - plots through gnuplot: CDF of windows per figure and a
 * timeline of stores, updates and observations.  SVG always, PNG when
 * gnuplot has the png terminal.  The data files stay beside the plots. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "fmt.h"
#include "satmath.h"

#define TL_MAX 20000 /* timeline points kept (first stores of the run) */

struct sw_plot {
	char dir[SW_PATHLEN];
	FILE *tl, *up;          /* timeline.dat, updates.dat */
	uint64_t ntl, nup;
	int64_t t0;
};

struct sw_plot *sw_plot_new(const char *dir, char *err, int errlen)
{
	struct sw_plot *p = calloc(1, sizeof(*p));
	char path[SW_PATHLEN + 32];
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(p->dir, sizeof(p->dir), "%.1000s", dir);
	if (mkdir(dir, 0777) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
		free(p);
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/timeline.dat", p->dir);
	p->tl = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/updates.dat", p->dir);
	p->up = fopen(path, "w");
	if (!p->tl || !p->up) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		if (p->tl)
			fclose(p->tl);
		if (p->up)
			fclose(p->up);
		free(p);
		return NULL;
	}
	fputs("# t_s_s w_truth_s(-1 uncovered) w_obs0_s(-1 none) page\n", p->tl);
	fputs("# t_s cause\n", p->up);
	return p;
}

static void row(void *ctx, const struct sw_summary *S, const struct sw_store_row *r)
{
	struct sw_plot *p = ctx;
	(void)S;
	if (!p->t0)
		p->t0 = r->t_s_ns;
	if (p->ntl++ >= TL_MAX)
		return;
	double wo = r->nobs && r->obs[0].status == SW_OBS_OK ? r->obs[0].w_ns / 1e9 : -1;
	fprintf(p->tl, "%.9f %.9f %.9f %llu\n", ss(r->t_s_ns, p->t0) / 1e9,
		r->w_truth_ns >= 0 ? r->w_truth_ns / 1e9 : -1, wo,
		(unsigned long long)r->page);
}

static void update(void *ctx, const struct sw_summary *S, int64_t t, uint32_t cause)
{
	struct sw_plot *p = ctx;
	(void)S;
	if (!p->t0)
		p->t0 = t;
	if (p->nup++ >= TL_MAX)
		return;
	fprintf(p->up, "%.9f %s\n", ss(t, p->t0) / 1e9, sw_cause_name(cause));
}

struct sw_row_sink sw_plot_sink(struct sw_plot *p)
{
	return (struct sw_row_sink){ .row = row, .update = update, .ctx = p };
}

int sw_plot_finish(struct sw_plot *p, const struct sw_summary *S, char *err, int errlen)
{
	char path[2 * SW_PATHLEN + 64];
	enum sw_fig_kind kind;
	int nf = 0, rc = 0;
	const struct sw_fig *g;
	fclose(p->tl);
	fclose(p->up);
	snprintf(path, sizeof(path), "%s/cdf.dat", p->dir);
	FILE *f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		free(p);
		return -1;
	}
	/* one gnuplot data block per figure: window_s share */
	for (int i = 0; (g = sw_fig_at(S, i, &kind)); i++, nf++) {
		fprintf(f, "# %s\n", g->name);
		for (int x = 0; x <= 240; x++) {
			double ns = pow(10, 3 + x / 24.0);
			fprintf(f, "%.9g %.6f\n", ns / 1e9, sw_fig_cdf(g, (int64_t)ns));
		}
		fputs("\n\n", f);
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/plots.gp", p->dir);
	f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		free(p);
		return -1;
	}
	fprintf(f, "cd '%s'\n", p->dir);
	fputs("do for [t in 'svg png'] {\n"
	      " if (strstrt(GPVAL_TERMINALS, t.' ') > 0 || strstrt(GPVAL_TERMINALS, ' '.t) > 0) {\n"
	      "  if (t eq 'svg') { set terminal svg size 900,500 } else { set terminal png size 900,500 }\n", f);
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
	snprintf(path, sizeof(path), "gnuplot '%s/plots.gp' 2>'%s/gnuplot.err'", p->dir, p->dir);
	int st = system(path);
	if (st != 0) {
		snprintf(err, errlen, "gnuplot failed (status %d): see %s/gnuplot.err", st, p->dir);
		rc = -1;
	}
	(void)nf;
	free(p);
	return rc;
}
