/* SPDX-License-Identifier: MIT */
/* trap.c - what every trap mechanism shares: the policy step. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "parse.h"
#include "swtime.h"
#include "trap.h"

const struct sw_trap_ops *const sw_traps[] = {
	&sw_trap_mprotect,
	&sw_trap_uffd,
	&sw_trap_uffd_sigbus,
	NULL,
};

/* sw_trap_find, sw_trap_names */
SW_PARSE_LIST_FNS(struct sw_trap_ops, sw_traps, sw_trap_find, sw_trap_names)

int sw_trap_rearm_page(struct sw_mapping *mp, uint64_t page)
{
	return mp->trap->rearm(mp, mp->base + page * mp->page_size, mp->page_size);
}

int sw_trap_rearm_all(struct sw_mapping *mp)
{
	return mp->trap->rearm(mp, mp->base, mp->len);
}

void sw_trap_act(struct sw_mapping *mp, uint64_t page)
{
	struct sw_trap_slot *s = &mp->slot;
	struct sw_decision d = { 0 };

	s->page = page;
	s->t_enter_mono_ns = sw_mono_ns();
	s->updated = 0;
	s->background_due = 0;
	s->model_err = 0;
	s->upd_err = 0;
	if (!atomic_load_explicit(&mp->policy_active, memory_order_acquire))
		return;
	int64_t t_model = atomic_load_explicit(&s->t_store_mono_ns, memory_order_acquire);
	s->model_err = sw_model_trap(mp->model, page,
				     t_model ? t_model : s->t_enter_mono_ns, &d);
	s->background_due = d.background_due;
	if (s->model_err || !d.update)
		return;
	s->t_upd_real_ns = sw_real_ns();
	s->t_upd_mono_ns = sw_mono_ns();
	if (futimens(mp->fd, NULL) != 0)
		s->upd_err = errno;
	s->t_upd_done_real_ns = sw_real_ns();
	s->upd_cost_ns = sw_mono_ns() - s->t_upd_mono_ns;
	s->updated = 1;
}

void sw_map_lock(struct sw_mapping *mp)
{
	if (mp->use_lock)
		pthread_mutex_lock(&mp->lock);
}

void sw_map_unlock(struct sw_mapping *mp)
{
	if (mp->use_lock)
		pthread_mutex_unlock(&mp->lock);
}

static void rp_page(void *ctx, uint64_t page)
{
	struct sw_mapping *mp = ctx;
	sw_trap_rearm_page(mp, page);
}

static void rp_all(void *ctx)
{
	struct sw_mapping *mp = ctx;
	sw_trap_rearm_all(mp);
}

struct sw_reprotect sw_map_reprotect(struct sw_mapping *mp)
{
	return (struct sw_reprotect){ .page = rp_page, .all = rp_all, .ctx = mp };
}

static long read_long(const char *path, long dflt)
{
	FILE *f = fopen(path, "r");
	long v = dflt;
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = dflt;
		fclose(f);
	}
	return v;
}

int sw_trap_mprotect_fits(uint64_t npages, long *max_map_count,
			  long *maps_in_use)
{
	long max = read_long("/proc/sys/vm/max_map_count", 65530);
	long used = 0;
	FILE *f = fopen("/proc/self/maps", "r");
	if (f) {
		int c;
		while ((c = getc(f)) != EOF)
			if (c == '\n')
				used++;
		fclose(f);
	}
	if (max_map_count)
		*max_map_count = max;
	if (maps_in_use)
		*maps_in_use = used;
	/* worst case: alternate clean/dirty pages, one VMA per page, plus
	 * room for the libraries, threads and the log */
	return (long long)npages + used + 1024 <= (long long)max;
}
