/* SPDX-License-Identifier: MIT */
/* model.c - see model.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "records.h"

size_t sw_model_bytes_per_page(void)
{
	return sizeof(uint8_t) + sizeof(uint32_t);
}

int sw_model_init(struct sw_model *m, const struct sw_model_cfg *cfg,
		  const struct sw_policy_ops *pol, int64_t t_start_mono_ns,
		  char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	if (cfg->npages == 0 || cfg->npages > SW_MODEL_MAX_PAGES) {
		snprintf(err, errlen,
			 "expected 1..%llu pages in the model, saw %llu",
			 (unsigned long long)SW_MODEL_MAX_PAGES,
			 (unsigned long long)cfg->npages);
		return -EINVAL;
	}
	if (cfg->writeback_ns < 0 || cfg->expire_ns < 0) {
		snprintf(err, errlen, "expected writeback and expire >= 0");
		return -EINVAL;
	}
	m->cfg = *cfg;
	m->pol = pol;
	m->flags = calloc(cfg->npages, sizeof(*m->flags));
	m->cdirty = malloc(cfg->npages * sizeof(*m->cdirty));
	if (!m->flags || !m->cdirty) {
		snprintf(err, errlen, "cannot allocate the model of %llu pages",
			 (unsigned long long)cfg->npages);
		sw_model_free(m);
		return -ENOMEM;
	}
	m->t_next_tick_mono_ns = cfg->writeback_ns > 0
					 ? t_start_mono_ns + cfg->writeback_ns
					 : INT64_MAX;
	return 0;
}

void sw_model_free(struct sw_model *m)
{
	free(m->flags);
	free(m->cdirty);
	m->flags = NULL;
	m->cdirty = NULL;
}

static void decision_init(struct sw_decision *d, uint32_t cause)
{
	memset(d, 0, sizeof(*d));
	d->cause = cause;
}

static void count_update(struct sw_model *m, struct sw_decision *d, int upd)
{
	d->update = upd ? 1 : 0;
	if (upd)
		m->updates++;
}

int sw_model_trap(struct sw_model *m, uint64_t page, int64_t t_mono_ns,
		  struct sw_decision *d)
{
	decision_init(d, SW_CAUSE_TRAP);
	if (page >= m->cfg.npages || (m->flags[page] & SW_PG_WRITABLE))
		return -EINVAL;
	if (!(m->flags[page] & SW_PG_CDIRTY)) {
		m->cdirty[m->ndirty++] = (uint32_t)page;
		m->flags[page] |= SW_PG_CDIRTY;
	}
	m->flags[page] |= SW_PG_WRITABLE;
	m->nwritable++;
	if (!m->inode_dirty) {
		m->inode_dirty = 1;
		m->t_dirtied_when_mono_ns = t_mono_ns;
	}
	m->traps++;
	count_update(m, d, m->pol->on_trap(&m->ps));
	if (m->cfg.background_bytes &&
	    m->ndirty * (uint64_t)m->cfg.page_size > m->cfg.background_bytes)
		d->background_due = 1;
	return 0;
}

/* Write-protect every writable page; with clean=1 also clean every page and
 * the inode.  Returns pages write-protected. */
static uint64_t wrprotect(struct sw_model *m, const struct sw_reprotect *rp,
			  int clean)
{
	uint64_t n = m->nwritable;
	int whole = n > m->cfg.npages / 32;

	if (whole && n && rp && rp->all)
		rp->all(rp->ctx);
	for (uint64_t i = 0; i < m->ndirty; i++) {
		uint32_t p = m->cdirty[i];
		if ((m->flags[p] & SW_PG_WRITABLE) && !whole && rp && rp->page)
			rp->page(rp->ctx, p);
		m->flags[p] &= clean ? 0 : (uint8_t)~SW_PG_WRITABLE;
	}
	m->nwritable = 0;
	if (clean) {
		m->ndirty = 0;
		m->inode_dirty = 0;
	}
	return n;
}

/* A flush of the inode: writeback, msync(MS_SYNC), fsync. */
static void flush(struct sw_model *m, uint32_t cause,
		  const struct sw_reprotect *rp, struct sw_decision *d)
{
	decision_init(d, cause);
	if (m->inode_dirty) {
		m->flushes++;
		d->flushed = 1;
	}
	d->cleaned = wrprotect(m, rp, 1);
	count_update(m, d, m->pol->on_flush(&m->ps));
}

int64_t sw_model_next_tick(const struct sw_model *m)
{
	return m->t_next_tick_mono_ns;
}

int sw_model_tick(struct sw_model *m, int64_t t_mono_ns,
		  const struct sw_reprotect *rp, struct sw_decision *d)
{
	int ran = 0;

	decision_init(d, SW_CAUSE_KUPDATE);
	while (m->t_next_tick_mono_ns <= t_mono_ns) {
		int64_t tick = m->t_next_tick_mono_ns;
		ran++;
		/* a caller far behind (stopped process) catches up in one go */
		if (t_mono_ns - tick > m->cfg.writeback_ns)
			tick = t_mono_ns;
		m->t_next_tick_mono_ns = tick + m->cfg.writeback_ns;
		if (m->inode_dirty &&
		    tick - m->t_dirtied_when_mono_ns >= m->cfg.expire_ns)
			flush(m, SW_CAUSE_KUPDATE, rp, d);
		else
			decision_init(d, SW_CAUSE_KUPDATE);
	}
	return ran;
}

void sw_model_background(struct sw_model *m, int64_t t_mono_ns,
			 const struct sw_reprotect *rp, struct sw_decision *d)
{
	(void)t_mono_ns;
	flush(m, SW_CAUSE_BACKGROUND, rp, d);
}

void sw_model_msync_async(struct sw_model *m, int64_t t_mono_ns,
			  const struct sw_reprotect *rp, struct sw_decision *d)
{
	int wrp = 0;
	(void)t_mono_ns;
	decision_init(d, SW_CAUSE_MSYNC_ASYNC);
	int upd = m->pol->on_msync_async(&m->ps, &wrp);
	if (wrp)
		d->cleaned = wrprotect(m, rp, 0);
	count_update(m, d, upd);
}

void sw_model_msync_sync(struct sw_model *m, int64_t t_mono_ns,
			 const struct sw_reprotect *rp, struct sw_decision *d)
{
	(void)t_mono_ns;
	flush(m, SW_CAUSE_MSYNC_SYNC, rp, d);
}

void sw_model_fsync(struct sw_model *m, int64_t t_mono_ns,
		    const struct sw_reprotect *rp, struct sw_decision *d)
{
	(void)t_mono_ns;
	flush(m, SW_CAUSE_FSYNC, rp, d);
}

void sw_model_munmap(struct sw_model *m, int64_t t_mono_ns,
		     struct sw_decision *d)
{
	(void)t_mono_ns;
	decision_init(d, SW_CAUSE_MUNMAP);
	count_update(m, d, m->pol->on_munmap(&m->ps));
}
