/* SPDX-License-Identifier: MIT */
#ifndef STALEWIN_FMT_CSV_H
#define STALEWIN_FMT_CSV_H
#include <stdio.h>
#include "report.h"
struct sw_csv {
	FILE *f;  /* destination (not owned) */
	int hdr;  /* header written */
};
struct sw_row_sink sw_csv_sink(struct sw_csv *c);
int sw_csv_finish(struct sw_csv *c, const struct sw_summary *S);
#endif
