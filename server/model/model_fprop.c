/* SPDX-License-Identifier: MIT */
/* model_fprop.c - the wb's writeout share (fprop) and the writeout_period
 * timer that ages it (see model.h, model_int.h). */
#include "model.h"
#include "model_int.h"

/* percpu_counter_add_batch() on one CPU: the CPU's delta folds into the
 * shared count once it reaches the batch */
static void pcpu_add(struct sw_pcpu *c, int64_t amount, int64_t batch)
{
	int64_t count = c->local + amount;
	if (count >= batch || count <= -batch) {
		c->fold += count;
		c->local = 0;
	} else {
		c->local = count;
	}
}

#define FPROP_PERIOD_NS 3000000000ll /* VM_COMPLETIONS_PERIOD_LEN, 3*HZ */
#define PROP_BATCH 8                 /* 8*(1+ilog2(nr_cpu_ids)), one CPU */
#define PCPU_BATCH 32                /* percpu_counter_batch, one CPU */

/* The writeout_period timer's expiries are in jiffies when the wheel is
 * modelled (period_expires), else in mono ns; its period in those units. */
static int period_in_jiffies(const struct sw_model *m)
{
	return m->cfg.jiffy_ns > 0 && !m->cfg.period_exact;
}

static int64_t period_len(const struct sw_model *m)
{
	return period_in_jiffies(m) ? FPROP_PERIOD_NS / m->cfg.jiffy_ns : FPROP_PERIOD_NS;
}

/* When the timer set at t_arm to expire at period_expires runs: mod_timer
 * -> calc_wheel_index(), at its bucket's end (a 3 s timeout: level 2, 64
 * jiffies); a deferrable timer (wb_domain_init: TIMER_DEFERRABLE) on an
 * idle NOHZ CPU runs at a later tick, so a traced firing at or after that
 * (half a jiffy of slack for the fitted clock) is the kernel's own; but
 * not one half a period or more after it.  A firing that stops the timer
 * (writeout_period() with one event or none left) re-arms nothing and
 * leaves no timer_start line, so the next traced one belongs to a timer
 * a later writeout armed again: taking it for this one skips the stop
 * and counts the idle seconds as missed periods (traced in the patched
 * 6.1 guest, a file settled 25 s before its first store: the stop at
 * 19.9 s, re-armed by the writeout at 30.15 s, fired at 33.2 s with one
 * period where the model aged the wb's share by five, and its background
 * writeback ran a second early). */
static int64_t period_fires_at(struct sw_model *m, int64_t t_arm)
{
	int64_t due = m->period_expires;
	if (period_in_jiffies(m))
		due = swm_jiffy_start(m, swm_wheel_fires(swm_jiffies_at(m, t_arm), m->period_expires));
	const int64_t *f = m->cfg.period_fire_mono_ns;
	int64_t slack = swm_jiffy_len(m) / 2;
	m->period_fire_expires = 0;
	m->period_fire_traced = 0;
	while (f && m->period_fire_i < m->cfg.period_fires && f[m->period_fire_i] < due - slack)
		m->period_fire_i++;
	if (f && m->period_fire_i < m->cfg.period_fires &&
	    f[m->period_fire_i] < due + FPROP_PERIOD_NS / 2) {
		if (m->cfg.period_fire_expires && period_in_jiffies(m))
			m->period_fire_expires = m->cfg.period_fire_expires[m->period_fire_i];
		m->period_fire_traced = 1;
		return f[m->period_fire_i++];
	}
	return due;
}

/* wb_domain_writeout_add(): the first writeout with the timer stopped
 * arms it at wp_next_time(jiffies) = jiffies + VM_COMPLETIONS_PERIOD_LEN */
static void period_arm(struct sw_model *m, int64_t t)
{
	m->period_expires = (period_in_jiffies(m) ? swm_jiffies_at(m, t) : t) + period_len(m);
	m->t_period_mono_ns = period_fires_at(m, t);
}

/* Whether the kernel's timer fired on the grid expiry after the one
 * that fired at tf (re-armed at next): the kernel's own firings list one
 * within the bucket's end jiffy.  Then it had not stopped: the domain
 * counts every wb's writeouts (the guest's 9p writeback too), and the
 * model's count of the file's and the journal's alone left too few
 * (traced in the patched 6.1 guest: the model's timer stopped at
 * 15.385 s, the kernel's fired at 18.201 s, and the wb's share read 0 at
 * 18.49 s: background writeback 2 s before the model's expiry). */
static int kernel_kept_period(const struct sw_model *m, int64_t tf, int64_t next)
{
	const int64_t *f = m->cfg.period_fire_mono_ns;
	if (!f)
		return 0;
	int64_t due = next;
	if (period_in_jiffies(m))
		due = swm_jiffy_start(m, swm_wheel_fires(swm_jiffies_at(m, tf), next));
	int64_t lo = due - swm_jiffy_len(m) / 2, hi = due + swm_jiffy_len(m);
	for (size_t i = m->period_fire_i; i < m->cfg.period_fires && f[i] <= hi; i++)
		if (f[i] >= lo)
			return 1;
	return 0;
}

/* writeout_period() timers due by t: fprop_new_period() ages the
 * domain's events (their exact sum) by the periods since period_time
 * (miss_periods + 1; events >> periods are kept) and the timer is re-armed
 * at wp_next_time(period_time + miss_periods * LEN), on the grid of its
 * expiries, not from its late firing; with one event or none left it
 * stops (dom->period_time = 0), unless the kernel's did not: a traced
 * firing is the kernel's re-arm (mod_timer() from writeout_period(), so
 * fprop_new_period() found more than one event: the domain counts every
 * wb's pages, the guest's 9p root's too), or a firing on the next grid
 * expiry (kernel_kept_period).  The second alone missed a re-armed timer
 * that stopped at its next firing: that firing leaves no line (traced in
 * the patched 6.1 guest at load 9.5: re-armed at 28.37 s, stopped at
 * 31.4 s; the model stopped at 28.37 s, its wb's share a period younger
 * than the kernel's, and it wrote the file at 13 runs where the kernel
 * wrote it at 19, p50 1.35 s against 0.78 s) */
static void fprop_periods(struct sw_model *m, int64_t t)
{
	while (m->t_period_mono_ns && m->t_period_mono_ns <= t) {
		int64_t tf = m->t_period_mono_ns, len = period_len(m);
		if (m->period_log && m->period_log_n < m->period_log_cap)
			m->period_log[m->period_log_n++] = tf;
		int64_t ev = m->dom_events.fold + m->dom_events.local;
		int64_t late = (period_in_jiffies(m) ? swm_jiffies_at(m, tf) : tf) - m->period_expires;
		int64_t periods = (late > 0 ? late / len : 0) + 1;
		if (ev <= 1 && !m->period_fire_traced &&
		    !kernel_kept_period(m, tf, m->period_expires + periods * len)) {
			m->t_period_mono_ns = 0;
			break;
		}
		pcpu_add(&m->dom_events, -ev + (periods < 64 ? ev >> periods : 0), PCPU_BATCH);
		m->dom_period += (uint32_t)periods;
		m->period_expires += periods * len;
		/* the kernel's own grid, where this firing was the kernel's
		 * (traced: firings 2.816 s apart where the model's grid,
		 * armed 60 jiffies later, said 3.072 s) */
		if (m->period_fire_expires)
			m->period_expires = m->period_fire_expires;
		m->t_period_mono_ns = period_fires_at(m, tf);
	}
}

/* fprop_reflect_period_percpu(): the wb's events age by the periods it
 * missed, from the folded count, or the exact sum below the batch */
static void fprop_reflect(struct sw_model *m)
{
	uint32_t d = m->dom_period - m->wb_period;
	if (!d)
		return;
	int64_t val = m->wb_events.fold;
	if (val < PROP_BATCH)
		val = m->wb_events.fold + m->wb_events.local;
	pcpu_add(&m->wb_events, -val + (d < 63 ? val >> d : 0), PROP_BATCH);
	m->wb_period = m->dom_period;
}

/* __wb_writeout_add() -> __fprop_add_percpu_max(): n pages written back
 * at t; wb_domain_writeout_add() arms the period timer 3 s ahead */
void swm_fprop_writeout(struct sw_model *m, int64_t t, int64_t n)
{
	int64_t late = m->late_events; /* a run's late pages (run_end) first */
	if (late && m->t_late_mono_ns <= t) {
		m->late_events = 0;
		swm_fprop_writeout(m, m->t_late_mono_ns, late);
	}
	if (m->cfg.bg_share != SW_BG_FPROP || n <= 0)
		return;
	fprop_periods(m, t);
	fprop_reflect(m);
	/* one call per folio as each completes (__folio_end_writeback), so
	 * the wb's count folds at exactly the batch, never past it: 7 + 2
	 * pages fold 8 and leave 1, not fold 9 */
	for (int64_t i = 0; i < n; i++) {
		pcpu_add(&m->wb_events, 1, PROP_BATCH);
		pcpu_add(&m->dom_events, 1, PCPU_BATCH);
	}
	if (!m->t_period_mono_ns)
		period_arm(m, t);
}

/* wb_over_bg_thresh() at t for a wb with dirty pages: wb_calc_thresh()
 * scales the background threshold by fprop_fraction_percpu(), whose
 * numerator is percpu_counter_read_positive() of the wb's events; with a
 * numerator of 0 the share is 0 pages and one dirty page is over it (a
 * non-zero share on a wb doing all the writeout is most of the threshold:
 * thousands of pages, never reached by these workloads) */
int swm_bg_over(struct sw_model *m, int64_t t)
{
	switch (m->cfg.bg_share) {
	case SW_BG_ZERO:
		return 1;
	case SW_BG_FPROP:
		swm_fprop_writeout(m, t, 0);
		fprop_periods(m, t);
		fprop_reflect(m);
		return m->wb_events.fold <= 0;
	default:
		return 0;
	}
}
