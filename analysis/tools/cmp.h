/* SPDX-License-Identifier: MIT */
/* cmp.h - a run reduced to its table rows: what compare prints and the
 * archive stores.  Window values: ns, -1 = "> run end", -2 = no stores. */
#ifndef STALEWIN_CMP_H
#define STALEWIN_CMP_H
#include <stdio.h>
#include "fmt.h"

#define SW_CMP_MAX_FIG 40

struct sw_cmp_fig {
	char name[48];
	int kind;              /* enum sw_fig_kind (an INTEGER in the archive) */
	struct sw_figstats s;  /* the row (fmt.h) */
};

struct sw_cmp_run {
	char label[4];         /* A, B, ... */
	char run_id[20], dir[SW_PATHLEN], policy[32], kernel[160], fs[64];
	char workload[32];     /* "" when loaded from an archive */
	int partial;
	uint64_t stores, updates, spurious, collisions, traps;
	int64_t trap_p50_ns, trap_p99_ns, resolution_ns;
	int nfig;
	struct sw_cmp_fig fig[SW_CMP_MAX_FIG];
};

void sw_cmp_from_summary(const struct sw_summary *S, struct sw_cmp_run *r);
void sw_cmp_print_text(FILE *f, struct sw_cmp_run *runs, int n);
int sw_cmp_print_json(FILE *f, struct sw_cmp_run *runs, int n);
/* archive.c: load a run stored in an archive (by run id prefix). */
int sw_archive_load(const char *db, const char *id, struct sw_cmp_run *r, char *err, int errlen);
#endif
