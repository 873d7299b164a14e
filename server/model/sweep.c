/* SPDX-License-Identifier: MIT */
/* sweep.c - see sweep.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "records.h"
#include "sweep.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

void sw_sweep_sort(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_i64);
}

struct upds {
	int64_t *t; /* update times, mono ns, non-decreasing */
	size_t n, cap;
};

static int upd_add(struct upds *u, const struct sw_decision *d, int64_t t)
{
	if (!d->update)
		return 0;
	if (u->n == u->cap) {
		size_t cap = u->cap ? 2 * u->cap : 256;
		int64_t *p = realloc(u->t, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		u->t = p;
		u->cap = cap;
	}
	u->t[u->n++] = t;
	return 0;
}

/* Every flusher run due by t, each an update at its own time. */
static int ticks_until(struct sw_model *m, struct upds *u, int64_t t)
{
	struct sw_decision d;
	while (sw_model_next_tick(m) <= t) {
		int64_t tt = sw_model_next_tick(m);
		sw_model_tick(m, tt, NULL, &d);
		if (upd_add(u, &d, tt))
			return -ENOMEM;
	}
	return 0;
}

static int drive(struct sw_model *m, struct upds *u,
		 const struct sw_sweep_ev *e, char *err, size_t errlen)
{
	struct sw_decision d;
	int64_t t = e->t_mono_ns;

	if (ticks_until(m, u, t))
		return -ENOMEM;
	switch (e->cause) {
	case 0:
		if (e->page >= m->cfg.npages) {
			snprintf(err, errlen,
				 "expected stores to pages below %llu, saw page %llu",
				 (unsigned long long)m->cfg.npages,
				 (unsigned long long)e->page);
			return -EINVAL;
		}
		if (sw_model_writable(m, e->page))
			return 0;
		sw_model_trap(m, e->page, t, &d);
		break;
	case SW_CAUSE_MSYNC_ASYNC:
		sw_model_msync_async(m, t, NULL, &d);
		break;
	case SW_CAUSE_MSYNC_SYNC:
		sw_model_msync_sync(m, t, NULL, &d);
		break;
	case SW_CAUSE_FSYNC:
		sw_model_fsync(m, t, NULL, &d);
		break;
	case SW_CAUSE_MUNMAP:
		sw_model_munmap(m, t, &d);
		break;
	default:
		snprintf(err, errlen,
			 "expected a store or an msync/fsync/munmap event, saw cause %u",
			 e->cause);
		return -EINVAL;
	}
	return upd_add(u, &d, t) ? -ENOMEM : 0;
}

/* Truth windows (semantics.md): store to the first update at or after its
 * trap (t_mono_ns: the trap's own update counts); uncovered stores sort
 * last as INT64_MAX. */
static void figures(const struct sw_sweep_ev *ev, size_t n,
		    const struct upds *u, int64_t *w, struct sw_sweep_out *out)
{
	size_t j = 0, nw = 0;
	for (size_t i = 0; i < n; i++) {
		if (ev[i].cause)
			continue;
		while (j < u->n && u->t[j] < ev[i].t_mono_ns)
			j++;
		if (j < u->n) {
			int64_t x = u->t[j] - ev[i].t_after_mono_ns;
			w[nw++] = x < 0 ? 0 : x;
		} else {
			w[nw++] = INT64_MAX;
			out->uncovered++;
		}
	}
	out->stores = nw;
	out->p50_ns = out->p90_ns = out->max_ns = -1;
	if (!nw)
		return;
	sw_sweep_sort(w, nw);
	/* nearest rank: the smallest window with at least q of the stores */
	int64_t p50 = w[(nw + 1) / 2 - 1], p90 = w[(9 * nw + 9) / 10 - 1];
	out->p50_ns = p50 == INT64_MAX ? -1 : p50;
	out->p90_ns = p90 == INT64_MAX ? -1 : p90;
	out->max_ns = out->uncovered ? -1 : w[nw - 1];
}

int sw_sweep_run(const struct sw_model_cfg *cfg,
		 const struct sw_policy_ops *pol, const struct sw_sweep_ev *ev,
		 size_t n, int64_t t_create_mono_ns, int64_t t_end_mono_ns,
		 struct sw_sweep_out *out, char *err, size_t errlen)
{
	return sw_sweep_run_from(cfg, pol, ev, n, t_create_mono_ns, 0,
				 t_end_mono_ns, out, err, errlen);
}

int sw_sweep_run_from(const struct sw_model_cfg *cfg,
		      const struct sw_policy_ops *pol,
		      const struct sw_sweep_ev *ev, size_t n,
		      int64_t t_create_mono_ns, int64_t t_first_run_mono_ns,
		      int64_t t_end_mono_ns, struct sw_sweep_out *out,
		      char *err, size_t errlen)
{
	struct sw_model m;
	struct upds u = { 0 };
	int64_t *w = NULL;
	int rc;

	int64_t *upd_t = out->upd_t, *period_t = out->period_t, *commit_t = out->commit_t;
	size_t upd_cap = out->upd_cap, period_cap = out->period_cap;
	size_t commit_cap = out->commit_cap;
	*out = (struct sw_sweep_out){ .upd_t = upd_t, .upd_cap = upd_cap,
				      .period_t = period_t, .period_cap = period_cap,
				      .commit_t = commit_t, .commit_cap = commit_cap };
	if (n && ev[0].t_mono_ns < t_create_mono_ns) {
		snprintf(err, errlen,
			 "expected the file created before its first store, saw creation at %lld ns after it",
			 (long long)(t_create_mono_ns - ev[0].t_mono_ns));
		return -EINVAL;
	}
	rc = sw_model_init(&m, cfg, pol, t_create_mono_ns, err, errlen);
	if (rc)
		return rc;
	sw_model_start(&m, t_create_mono_ns);
	m.period_log = period_t;
	m.period_log_cap = period_t ? period_cap : 0;
	m.commit_log = commit_t;
	m.commit_log_cap = commit_t ? commit_cap : 0;
	if (t_first_run_mono_ns > t_create_mono_ns)
		m.t_next_tick_mono_ns = t_first_run_mono_ns;
	for (size_t i = 0; i < n && !rc; i++)
		rc = drive(&m, &u, &ev[i], err, errlen);
	if (!rc)
		rc = ticks_until(&m, &u, t_end_mono_ns);
	if (!rc) {
		out->updates = u.n;
		out->period_n = m.period_log_n;
		out->commit_n = m.commit_log_n;
		for (size_t i = 0; upd_t && i < u.n && i < upd_cap; i++)
			upd_t[i] = u.t[i];
		w = malloc((n ? n : 1) * sizeof(*w));
		if (!w)
			rc = -ENOMEM;
		else
			figures(ev, n, &u, w, out);
	}
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory for %zu events", n);
	free(w);
	free(u.t);
	sw_model_free(&m);
	return rc;
}
