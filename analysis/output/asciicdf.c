/* SPDX-License-Identifier: MIT */
/* asciicdf.c - the mail's inline plot: the truth windows' CDF of the runs
 * it shows (struct sw_runfacts.plot), one letter a run, on a log time axis
 * from 1 ms to 100 s, 10 rows of share, within 72 columns: what a list
 * reader sees without an attachment. */
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "mailfacts.h"
#include "runrow.h"

#define ROWS 10
#define MAXS 26 /* letters */

void sw_fmt_ascii_cdf(FILE *f, const struct sw_runrow *rows, const struct sw_runfacts *fa, int n)
{
	char grid[ROWS + 1][SW_CDF_X + 1];
	int ix[MAXS], ns = 0;
	for (int i = 0; i < n && ns < MAXS; i++)
		if (fa[i].plot)
			ix[ns++] = i;
	if (!ns)
		return;
	memset(grid, ' ', sizeof(grid));
	for (int s = 0; s < ns; s++)
		for (int x = 0; x < SW_CDF_X; x++) {
			int y = (int)(fa[ix[s]].truth_cdf[x] * ROWS + 0.5f);
			if (y > 0) /* 0 is the axis: a curve shows once it rises */
				grid[y][x] = (char)('a' + s);
		}
	fputs("\nTruth windows, CDF (share of stores stale at most x; letters below)\n", f);
	for (int y = ROWS; y >= 1; y--) {
		int end = SW_CDF_X;
		while (end > 0 && grid[y][end - 1] == ' ')
			end--;
		fprintf(f, "  %s |%.*s\n", y == ROWS ? "1.0" : y == ROWS / 2 ? "0.5" : "   ", end, grid[y]);
	}
	fputs("      +", f);
	for (int x = 0; x < SW_CDF_X; x++)
		fputc(x % 12 ? '-' : '+', f);
	fputs("\n      1ms         10ms        100ms       1s          10s         100s\n", f);
	for (int s = 0; s < ns; s++) {
		char lead[16];
		snprintf(lead, sizeof(lead), "  %c: ", 'a' + s);
		sw_fmt_wrap(f, lead, "     ", NULL, rows[ix[s]].label[0] ? rows[ix[s]].label : rows[ix[s]].dir);
	}
	fputs("  a later letter hides an earlier one where curves meet; a curve\n"
	      "  below 1.0 at the right: stores no update followed before the end.\n", f);
}
