/* SPDX-License-Identifier: MIT */
/* matrix.h - `stalewin vm matrix`'s table and findings (stalewin-matrix).
 *
 * The inputs are the matrix's output folder OUT (vm/matrix.sh):
 * OUT/<kernel>/<run>/{meta.json,report.json,report.csv,server/...} and
 * OUT/<kernel>/vm/kernel-release.txt, OUT/<kernel>/quiet/<fs>-<mode>/.
 * matrix_load.c reads them into cells (one per kernel, fs, NFS version,
 * workload), matrix.c computes the findings and the checks of the quick
 * test, matrix_fmt.c prints the text tables and the JSON object.
 *
 * Cell definitions (vers 3: truth = the writer's own stat on the server,
 * exact; observed = the probe's v3 target.  vers 4: truth = observed =
 * the probe's v4 target, the change attribute as knfsd serves it:
 * nothing local can read i_version).  uncovered = stores with no end in
 * the logs.  Absent figures are NAN (doubles) or SW_MX_NONE (counts) and
 * print as "-" / null. */
#ifndef STALEWIN_MATRIX_H
#define STALEWIN_MATRIX_H
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "srvtrace.h"

#define SW_MX_NONE INT64_MIN
#define SW_MX_MAX 16 /* kernels, fs, workloads given */


/* server/nfsd-states.txt, sampled ~1 s apart (samples < 0: no file) */
struct sw_mx_deleg {
	int samples, with_delegation;
	double first_uptime_s, last_uptime_s, next_sample_without_s; /* NAN = none */
};

struct sw_mx_cell {
	char kernel[96], kernel_name[32], fs[16], workload[16], run[256];
	int vers, complete;
	int64_t stores, uncovered, observed_unseen, equal_stamps, kclient_unresolved;
	int64_t faulting_stores; /* writer STORE records flagged TRAPPED */
	double truth_p50_s, truth_p99_s, truth_max_s, observed_p50_s, resolution_s;
	double updates_per_1k, first_store_truth_s, kclient_p50_s;
	int64_t checked, consistent, early, late; /* consistency */
	json_t *explained, *revealed_by;          /* owned copies */
	int64_t change_only_torn; /* of revealed_by's change without ctime,
				     by a torn reply; SW_MX_NONE unknown */
	int has_deleg;
	struct sw_mx_deleg deleg;
	struct sw_srvtrace trace; /* server/trace.txt */
};

/* One writer run with no NFS client at all (before knfsd serves anyone):
 * mode "query" stats after every store, "noquery" never stats. */
struct sw_mx_quiet {
	char kernel[96], kernel_name[32], fs[16], mode[16], workload[16], run[256];
	int64_t stores, faulting_stores, stat_updates;
	struct sw_srvtrace trace; /* server/trace.txt */
	int64_t equal_stamps; /* faults that left ctime as it was, SW_MX_NONE unknown */
	const char *how;      /* how equal_stamps was counted */
};

struct sw_matrix {
	char out[4096];
	int nk, nf, nw;
	char kernels[SW_MX_MAX][32], fs[SW_MX_MAX][16], workloads[SW_MX_MAX][16];
	char sysctls[512], writer_args[256], duration[32], wall[32];
	struct sw_mx_cell *cells;
	int ncells, capcells;
	struct sw_mx_quiet *quiet;
	int nquiet, capquiet;
	char **findings, **missing, **problems;
	int nfindings, nmissing, nproblems;
};

/* matrix_load.c: parse the lists ("6.1,7.2") and read OUT.  0, or -1 with
 * the reason in err (a list too long, out of memory). */
int sw_matrix_init(struct sw_matrix *M, const char *out, const char *kernels,
		   const char *fs, const char *workloads, char *err, size_t n);
int sw_matrix_load(struct sw_matrix *M, char *err, size_t n);
void sw_matrix_free(struct sw_matrix *M);
int sw_matrix_addstr(char ***v, int *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* matrix.c */
const struct sw_mx_cell *sw_matrix_cell(const struct sw_matrix *M, const char *kname,
					const char *fs, const char *wl, int vers);
int sw_matrix_findings(struct sw_matrix *M);
/* consistency exceptions explained by a known cause (not "unexplained",
 * not "clock") */
int64_t sw_mx_explained_known(const struct sw_mx_cell *c);
/* The quick test's assertions (tests/vm/test_vm_matrix.sh) on every
 * kernel x fs x workload asked: one "FAIL: ..." line each on f; the
 * number of failures. */
int sw_matrix_check(const struct sw_matrix *M, FILE *f);

/* matrix_fmt.c */
json_t *sw_matrix_json(const struct sw_matrix *M);
void sw_matrix_text(FILE *f, const struct sw_matrix *M);
#endif
