/* SPDX-License-Identifier: MIT */
/* matrix_check.c - `stalewin-matrix OUT --check`: what the quick matrix
 * test (tests/vm/test_vm_matrix.sh) asserts about real kernels, on every
 * kernel x fs x workload asked.  Each failure is one "FAIL: ..." line
 * naming the cell, what was expected and what was seen. */
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "matrix.h"

struct chk {
	FILE *f;
	int bad;
};

static void __attribute__((format(printf, 3, 4))) check(struct chk *C, int ok, const char *fmt, ...)
{
	va_list ap;
	if (ok)
		return;
	C->bad++;
	fputs("FAIL: ", C->f);
	va_start(ap, fmt);
	vfprintf(C->f, fmt, ap);
	va_end(ap);
	fputc('\n', C->f);
}

static int disk_fs(const char *fs)
{
	return !strcmp(fs, "ext4") || !strcmp(fs, "xfs") || !strcmp(fs, "btrfs");
}

static long long ll(int64_t x)
{
	return (long long)x;
}

static void check_cell(struct chk *C, const struct sw_matrix *M, const struct sw_mx_cell *c)
{
	char pre[64], p[4600];
	const char *k = c->kernel_name;
	snprintf(pre, sizeof(pre), "%s.", k);
	check(C, !strcmp(k, "stock") || !strncmp(c->kernel, pre, strlen(pre)),
	      "cell %s %s v%d: expected a kernel release starting with '%s', saw '%s'", k, c->fs,
	      c->vers, pre, c->kernel);
	check(C, c->stores != SW_MX_NONE && c->stores > 0, "cell %s %s v%d: expected stores, saw %lld",
	      k, c->fs, c->vers, ll(c->stores));
	check(C, c->complete, "cell %s %s v%d: expected a complete report, saw a partial one", k,
	      c->fs, c->vers);
	snprintf(p, sizeof(p), "%s/%s/report.json", M->out, c->run);
	check(C, access(p, R_OK) == 0, "cell %s %s: expected its run folder %s, saw none", k, c->fs, p);
}

static void check_pair(struct chk *C, const struct sw_mx_cell *c3, const struct sw_mx_cell *c4)
{
	const char *k = c3->kernel_name, *fs = c3->fs;
	if (disk_fs(fs)) {
		int64_t bad = c3->checked - c3->consistent - sw_mx_explained_known(c3);
		check(C, c3->checked > 0, "%s %s: expected the v3 probe to check stores, saw %lld", k, fs,
		      ll(c3->checked));
		check(C, bad == 0, "%s %s: expected the v3 probe consistent with the writer's truth, "
		      "saw %lld of %lld checked outside resolution and unexplained", k, fs, ll(bad),
		      ll(c3->checked));
		check(C, !isnan(c3->first_store_truth_s) && c3->first_store_truth_s <= c3->resolution_s,
		      "%s %s: expected eager semantics (the first store's truth window <= the probe's "
		      "resolution %.6f s), saw %.6f s", k, fs, c3->resolution_s, c3->first_store_truth_s);
		check(C, c3->updates_per_1k > 0, "%s %s: expected timestamp updates, saw %.1f per 1000 "
		      "stores", k, fs, c3->updates_per_1k);
	} else if (!strcmp(fs, "tmpfs")) {
		check(C, c3->updates_per_1k == 0 && c3->uncovered == c3->stores,
		      "%s tmpfs: expected pre-mapped pages written silently (0 updates, every store "
		      "uncovered), saw %.1f updates per 1000 stores, %lld of %lld uncovered", k,
		      c3->updates_per_1k, ll(c3->uncovered), ll(c3->stores));
	}
	const char *key;
	json_t *v;
	/* the change attribute moves whenever ctime moves (a reply that saw
	 * mtime alone move is a finding, not a failure: 7.2 xfs did once) */
	json_object_foreach(c4->revealed_by, key, v) {
		check(C, !strstr(key, "ctime") || strstr(key, "change"), "%s %s: expected the change "
		      "attribute to move whenever ctime moves, saw %lld v4 replies revealing by '%s'",
		      k, fs, (long long)json_integer_value(v), key);
	}
	/* (one store at the log's end may be seen by one target only) */
	check(C, c4->observed_unseen <= c3->observed_unseen + 1,
	      "%s %s: expected the v4 target (change) to miss no more stores than v3 (ctime), saw "
	      "%lld against %lld", k, fs, ll(c4->observed_unseen), ll(c3->observed_unseen));
	/* delegations: the trace and nfsd's state list must agree */
	const struct sw_srvtrace *t = &c4->trace;
	check(C, t->nfsd_traced, "%s %s: expected nfsd's delegation events traced in the server "
	      "guest (server/trace.txt), saw none enabled", k, fs);
	if (t->nfsd_traced && c4->has_deleg && c4->deleg.with_delegation)
		check(C, t->deleg_granted > 0, "%s %s: nfsd's state list held a delegation; expected "
		      "its grant traced, saw 0 grant events", k, fs);
}

static void check_quiet(struct chk *C, const struct sw_matrix *M, const char *k, const char *fs)
{
	const struct sw_mx_quiet *q = NULL, *n = NULL;
	for (int i = 0; i < M->nquiet; i++)
		if (!strcmp(M->quiet[i].kernel_name, k) && !strcmp(M->quiet[i].fs, fs)) {
			if (!strcmp(M->quiet[i].mode, "query"))
				q = &M->quiet[i];
			else
				n = &M->quiet[i];
		}
	check(C, q && n, "%s %s: expected the quiet runs (query, noquery) in %s/quiet/, saw %s", k,
	      fs, k, q ? "only query" : n ? "only noquery" : "none");
	if (!q || !n || !disk_fs(fs))
		return;
	check(C, q->faulting_stores > 0 && n->faulting_stores > 0, "%s %s quiet: expected faulting "
	      "stores, saw %lld (query) and %lld (noquery)", k, fs, ll(q->faulting_stores),
	      ll(n->faulting_stores));
	check(C, !n->trace.ts_traced || n->trace.queries == 0, "%s %s: expected no query at all in "
	      "the noquery run, saw %lld traced (fill_mg_cmtime)", k, fs, ll(n->trace.queries));
	if (n->trace.ts_traced) /* multigrain: a query between stores gives each its own stamp */
		check(C, n->equal_stamps > q->equal_stamps, "%s %s: expected more equal stamps with no "
		      "query than with a stat after every store (multigrain), saw %lld of %lld against "
		      "%lld of %lld", k, fs, ll(n->equal_stamps), ll(n->faulting_stores),
		      ll(q->equal_stamps), ll(q->faulting_stores));
	else /* coarse: one stamp per jiffy, queried or not */
		check(C, q->equal_stamps > 0, "%s %s: expected coarse stamps (faults within one jiffy "
		      "sharing a stamp) despite the stat after every store, saw 0 of %lld", k, fs,
		      ll(q->faulting_stores));
}

int sw_matrix_check(const struct sw_matrix *M, FILE *f)
{
	struct chk C = { f, 0 };
	for (int k = 0; k < M->nk; k++)
		for (int i = 0; i < M->nf; i++) {
			for (int w = 0; w < M->nw; w++) {
				const struct sw_mx_cell *c[5] = { 0 };
				for (int v = 3; v <= 4; v++) {
					c[v] = sw_matrix_cell(M, M->kernels[k], M->fs[i], M->workloads[w], v);
					check(&C, c[v] != NULL, "expected a cell for kernel %s %s %s v%d, saw none",
					      M->kernels[k], M->fs[i], M->workloads[w], v);
					if (c[v])
						check_cell(&C, M, c[v]);
				}
				if (c[3] && c[4])
					check_pair(&C, c[3], c[4]);
			}
			check_quiet(&C, M, M->kernels[k], M->fs[i]);
		}
	return C.bad;
}
