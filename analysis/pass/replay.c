/* SPDX-License-Identifier: MIT */
/* replay.c - the Linux NFS client's cache rules as a small state machine. */
#include <stdint.h>

#include "replay.h"

/* First read time >= x (reads at t0 + k * period). */
/* int128 inside: times from damaged logs must not overflow into loops */
static int64_t sat(__int128 v)
{
	return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

static int64_t grid_ceil(const struct sw_replay *r, int64_t x)
{
	__int128 P = r->p->period_ns > 0 ? r->p->period_ns : 1;
	if (x <= r->t0_ns)
		return r->t0_ns;
	__int128 k = ((__int128)x - r->t0_ns + P - 1) / P;
	return sat(r->t0_ns + k * P);
}

static int every_read(const struct sw_replay *r)
{
	return r->p->noac || r->p->cto || r->timeo_ns <= 0;
}

void sw_replay_init(struct sw_replay *r, const struct sw_profile *p,
		    int64_t t0_ns, uint64_t key)
{
	r->p = p;
	r->t0_ns = t0_ns;
	r->t_attr_ns = t0_ns;
	r->timeo_ns = p->noac ? 0 : p->acregmin_ns;
	r->key = key;
	r->srv_key = key;
	r->t_fill_ns = t0_ns;
	r->revals = 1;
	r->fills = 1;
}

int64_t sw_replay_next_reval(const struct sw_replay *r)
{
	if (every_read(r))
		return grid_ceil(r, sat((__int128)r->t_attr_ns + 1));
	/* nfs_attribute_timeout(): the cache is valid while
	 * time_in_range_open(jiffies, read_cache_jiffies, read_cache_jiffies +
	 * attrtimeo), and read_cache_jiffies is the GETATTR's send time
	 * (fattr->time_start, nfs_update_inode), a little after the read
	 * that sent it started: a read exactly attrtimeo after that read is
	 * still inside, the first read strictly after revalidates (VM trace,
	 * v3 default kept-open: revalidations 3.1 s apart with reads every
	 * 100 ms, not 3.0 s). */
	return grid_ceil(r, sat((__int128)r->t_attr_ns + r->timeo_ns + 1));
}

static void reval_at(struct sw_replay *r, int64_t t)
{
	r->t_attr_ns = t;
	r->revals++;
	if (r->srv_key != r->key) {
		r->key = r->srv_key;
		r->t_fill_ns = t;
		r->fills++;
		r->timeo_ns = r->p->noac ? 0 : r->p->acregmin_ns;
	} else if (!r->p->noac) {
		int64_t n = r->timeo_ns * 2;
		r->timeo_ns = n > r->p->acregmax_ns ? r->p->acregmax_ns : n;
	}
}

void sw_replay_advance(struct sw_replay *r, int64_t t_ns)
{
	for (;;) {
		int64_t nx = sw_replay_next_reval(r);
		if (nx >= t_ns || nx <= r->t_attr_ns) /* saturated: stop */
			return;
		if (r->srv_key == r->key &&
		    (every_read(r) || r->timeo_ns >= r->p->acregmax_ns)) {
			/* constant step from here on: jump in closed form */
			__int128 step = (__int128)nx - r->t_attr_ns;
			if (step > 0) {
				__int128 n = ((__int128)t_ns - 1 - nx) / step;
				if (n > 0) {
					r->t_attr_ns = sat(nx + (n - 1) * step);
					r->revals += (uint64_t)n;
					continue;
				}
			}
		}
		reval_at(r, nx);
	}
}

void sw_replay_update(struct sw_replay *r, int64_t t_ns, uint64_t key)
{
	sw_replay_advance(r, t_ns);
	r->srv_key = key;
}

int64_t sw_replay_pending_fill(const struct sw_replay *r)
{
	if (r->srv_key == r->key)
		return -1;
	return sw_replay_next_reval(r);
}
