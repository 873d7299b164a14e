/* SPDX-License-Identifier: MIT */
/* model_clock.c - the model's kernel clock: jiffies and the timer wheel
 * (see model.h, model_int.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "model.h"
#include "model_int.h"

int64_t swm_floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* The kernel's jiffies at t, and when jiffy j begins (jiffy_origin_*,
 * jiffy_mono_ns; by default mono / jiffy_ns; with cfg.jiffy_map, from
 * the anchor before: the jiffies between two anchors are jiffy_mono_ns
 * long, but never reach the next anchor's before its time, and when the
 * kernel's jiffies jumped (a tick catching up) the skipped ones begin
 * with the next anchor's). */
static int64_t cfg_jiffy_len(const struct sw_model_cfg *c)
{
	return c->jiffy_mono_ns > 0 ? c->jiffy_mono_ns : c->jiffy_ns;
}

int64_t swm_jiffy_len(const struct sw_model *m)
{
	return cfg_jiffy_len(&m->cfg);
}

/* The last anchor at or before t (by_time) or jiffy j; 0 if none. */
static size_t anchor_before(const struct sw_model_cfg *c, int64_t v, int by_time)
{
	const struct sw_jiffy_anchor *a = c->jiffy_map;
	size_t lo = 0, hi = c->jiffy_anchors;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if ((by_time ? a[mid].t_mono_ns : a[mid].j) <= v)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

int64_t swm_jiffies_at(const struct sw_model *m, int64_t t)
{
	if (!m->cfg.jiffy_map || !m->cfg.jiffy_anchors)
		return swm_floor_div(t - m->cfg.jiffy_origin_ns, swm_jiffy_len(m)) +
		       m->cfg.jiffy_origin_count;
	const struct sw_jiffy_anchor *a = m->cfg.jiffy_map;
	size_t i = anchor_before(&m->cfg, t, 1);
	int64_t j = a[i].j + swm_floor_div(t - a[i].t_mono_ns, swm_jiffy_len(m));
	if (i + 1 < m->cfg.jiffy_anchors && t >= a[i].t_mono_ns && j >= a[i + 1].j)
		j = a[i + 1].j - 1;
	return j;
}

int64_t sw_model_cfg_jiffy_start(const struct sw_model_cfg *c, int64_t j)
{
	if (!c->jiffy_map || !c->jiffy_anchors)
		return c->jiffy_origin_ns + (j - c->jiffy_origin_count) * cfg_jiffy_len(c);
	const struct sw_jiffy_anchor *a = c->jiffy_map;
	size_t i = anchor_before(c, j, 0);
	int64_t t = a[i].t_mono_ns + (j - a[i].j) * cfg_jiffy_len(c);
	if (i + 1 < c->jiffy_anchors && j >= a[i].j && t > a[i + 1].t_mono_ns)
		t = a[i + 1].t_mono_ns;
	return t;
}

int64_t swm_jiffy_start(const struct sw_model *m, int64_t j)
{
	return sw_model_cfg_jiffy_start(&m->cfg, j);
}

/*
 * wb_wakeup_delayed() (mm/backing-dev.c) queues wb->dwork with
 * msecs_to_jiffies(dirty_writeback_interval * 10) (rounded up to whole
 * jiffies); the timer wheel (kernel/time/timer.c calc_wheel_index,
 * calc_index) files a timer of delta jiffies in level L, the smallest with
 * delta < LVL_START(L + 1) = 63 << (3 * L), and fires it at
 * ((expires >> 3L) + 1) << 3L: never early, up to one level granularity
 * late.  Measured on this host (HZ=250, bench/validate_trace.sh): a 1 s
 * interval runs every 256 jiffies = 1.024 s.  Jiffies are taken as
 * CLOCK_MONOTONIC / jiffy_ns, or from jiffy_origin_ns/_count when the
 * kernel's own phase and count are known: the writer reads them from
 * /proc/timer_list (sw_model_host_jiffy_origin, --jiffies host), a
 * replay from a trace.  Without them the error is below one granularity,
 * 32 ms, per arming, and one run draws it (seen on this host: the
 * emulated flusher 2-42 ms before the kernel's, a few of 4000 random
 * stores trapping on one side only: docs/validation-log.md).
 */
int64_t swm_wheel_fires(int64_t now, int64_t expires)
{
	int64_t delta = expires - now;
	int lvl = 0;
	while (lvl < 8 && delta >= ((int64_t)63 << (3 * lvl)))
		lvl++;
	return ((expires >> (3 * lvl)) + 1) << (3 * lvl);
}

/* Whether interval_ns passed from since to now as the kernel counts it:
 * in jiffies (wb_check_old_data_flush's last_old_flush +
 * msecs_to_jiffies(), wb_writeback's dirtied_before = jiffies -
 * msecs_to_jiffies(expire), inode_dirtied_after), whose mono length a
 * guest may not keep (traced: 3.906 ms a jiffy in one boot of the patched
 * 6.1 guest, 4.000 ms in the others: a 5 s expiry came 0.12 s sooner than
 * 5 s of CLOCK_MONOTONIC) */
int swm_passed(const struct sw_model *m, int64_t since, int64_t now, int64_t interval_ns)
{
	int64_t J = m->cfg.jiffy_ns;
	if (J <= 0)
		return now - since >= interval_ns;
	return swm_jiffies_at(m, now) - swm_jiffies_at(m, since) >= (interval_ns + J - 1) / J;
}

int64_t sw_model_wake_after(const struct sw_model *m, int64_t t_mono_ns)
{
	int64_t J = m->cfg.jiffy_ns, wb = m->cfg.writeback_ns;

	if (wb <= 0)
		return INT64_MAX;
	if (J <= 0)
		return t_mono_ns + wb;
	int64_t delta = (wb + J - 1) / J; /* msecs_to_jiffies rounds up */
	int64_t now = swm_jiffies_at(m, t_mono_ns);
	return swm_jiffy_start(m, swm_wheel_fires(now, now + delta));
}

int64_t sw_model_host_jiffy_ns(void)
{
	struct utsname u;
	char path[320], line[256];
	long hz = 0;
	FILE *f;

	if (uname(&u) != 0)
		return 4000000;
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	f = fopen(path, "r");
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "CONFIG_HZ=%ld", &hz) == 1)
				break;
		fclose(f);
	}
	return hz >= 24 && hz <= 10000 ? 1000000000 / hz : 4000000;
}

/* One read of a timer_list: now, jiffies and the earliest tick-timer
 * expiry after now (tick_nohz_handler, or tick_sched_timer before 6.x);
 * 0 when all three were found. */
static int timer_list_read(const char *path, int64_t *now, int64_t *jif, int64_t *next,
			   char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[256];
	int tick = 0, have_now = 0, have_jif = 0;
	int64_t e0, e1;

	if (!f) {
		snprintf(err, errlen, "expected a readable %s (root), saw: %s", path, strerror(errno));
		return -1;
	}
	*next = INT64_MAX;
	while (fgets(line, sizeof(line), f)) {
		if (!have_now && sscanf(line, "now at %" SCNd64 " nsecs", now) == 1)
			have_now = 1;
		else if (!have_jif && sscanf(line, "jiffies: %" SCNd64, jif) == 1)
			have_jif = 1;
		else if (strstr(line, "tick_nohz_handler") || strstr(line, "tick_sched_timer"))
			tick = 1;
		else if (tick && sscanf(line, " # expires at %" SCNd64 "-%" SCNd64, &e0, &e1) == 2) {
			if (have_now && e0 > *now && e0 < *next)
				*next = e0;
			tick = 0;
		} else
			tick = 0;
	}
	fclose(f);
	if (!have_now || !have_jif || *next == INT64_MAX) {
		snprintf(err, errlen, "expected \"now at\", \"jiffies:\" and a tick timer's expiry in %s, saw %s%s%s",
			 path, have_now ? "" : "no now ", have_jif ? "" : "no jiffies ",
			 *next == INT64_MAX ? "no tick timer after now" : "");
		return -1;
	}
	return 0;
}

int sw_model_host_jiffy_origin(const char *path, int64_t jiffy_ns, int64_t *origin_ns,
			       int64_t *count, char *err, size_t errlen)
{
	int64_t now = 0, jif = 0, next = 0;

	if (jiffy_ns <= 0) {
		snprintf(err, errlen, "expected a tick length above 0, saw %" PRId64 " ns", jiffy_ns);
		return -1;
	}
	for (int i = 0; i < 50; i++) {
		if (timer_list_read(path, &now, &jif, &next, err, errlen))
			return -1;
		int64_t left = next - now;
		/* the middle of a jiffy: its tick ran, the next has not */
		if (left >= jiffy_ns / 4 && left <= 3 * jiffy_ns / 4)
			break;
	}
	/* the tick at next starts jiffy jif + 1; jif began one tick before */
	*origin_ns = next - jiffy_ns;
	*count = jif;
	return 0;
}
