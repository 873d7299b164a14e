/* SPDX-License-Identifier: MIT */
/* ktrace.c - see ktrace.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktrace.h"
#include "swtime.h"

/* A timer_start of writeout_period with timeout D (jiffies) at a tick of
 * J ns: writeout_period() re-arming itself (a firing, at that line's
 * time) or wb_domain_writeout_add() arming the stopped timer.  The arming
 * is wp_next_time(jiffies): timeout 3*HZ exactly.  The re-arm is
 * wp_next_time(period_time + miss_periods * 3*HZ), run no sooner than the
 * bucket after period_time (calc_index rounds up): timeout below 3*HZ. */
static int period_firing(long long timeout, int64_t J)
{
	return J > 0 && timeout < 3000000000ll / J;
}

/* A trace line's timestamp (s, to ns): the field before the event at
 * "at" (": name: ..."); 0 if at is NULL or no number is there. */
/* whether the trace line was logged by a task named comm (its first field,
 * "comm-pid", right-aligned) */
static int by_task(const char *line, const char *comm)
{
	return !strncmp(line + strspn(line, " "), comm, strlen(comm));
}

static int line_ts(const char *line, const char *at, int64_t *t)
{
	double ts;
	if (!at)
		return 0;
	while (at > line && at[-1] != ' ')
		at--;
	if (sscanf(at, "%lf", &ts) != 1)
		return 0;
	*t = (int64_t)(ts * 1e9 + 0.5);
	return 1;
}

void ktrace_free(struct ktrace *kt)
{
	free(kt->js);
	kt->js = NULL;
	kt->jn = kt->jcap = 0;
}

int ktrace_read(const char *path, const char *bdi, long long ino, int64_t t_first,
		int64_t t_created, int64_t J, struct ktrace *kt, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[1024], key[96];

	memset(kt, 0, sizeof(*kt));
	kt->t_run_mono_ns = kt->t_run_created_mono_ns = -1;
	kt->file_dirtied_when = -1;
	if (!f) {
		snprintf(err, errlen, "cannot open the kernel trace %s", path);
		return -1;
	}
	/* jiffies: each writeback_queue_io says older=J0 age=MS, J0 being
	 * jiffies - msecs_to_jiffies(MS) when it was logged at t, and each
	 * timer_start says expires=E [timeout=D], jiffies = E - D; jiffy j
	 * began at or before t */
	char ckey[64], ekey[64], dev[32], akey[96], wkey[96], kkey[64], mkey[96];
	snprintf(key, sizeof(key), ": writeback_start: bdi %s: ", bdi);
	snprintf(dev, sizeof(dev), "%s", bdi);
	char *colon = strchr(dev, ':');
	if (colon) /* the bdi's MAJ:MIN is jbd2's "dev MAJ,MIN" */
		*colon = ',';
	snprintf(ckey, sizeof(ckey), ": jbd2_start_commit: dev %s ", dev);
	snprintf(ekey, sizeof(ekey), ": jbd2_end_commit: dev %s ", dev);
	snprintf(akey, sizeof(akey), ": ext4_allocate_blocks: dev %s ino %lld ", dev, ino);
	snprintf(wkey, sizeof(wkey), ": writeback_single_inode: bdi %s: ino=", bdi);
	snprintf(kkey, sizeof(kkey), " ino=%lld\n", ino);
	snprintf(mkey, sizeof(mkey), ": writeback_mark_inode_dirty: bdi %s: ino=%lld ", bdi, ino);
	size_t armed = (size_t)-1; /* the writer's dirtying its timer was taken for */
	while (fgets(line, sizeof(line), f)) {
		int64_t t = 0; /* set by line_ts() where it returns 1 */
		if (ino >= 0 && !strcmp(line, "# enabled: writeback:writeback_mark_inode_dirty\n"))
			kt->atime_traced = 1;
		/* knfsd's atime handles on the file (touch_atime ->
		 * generic_update_time -> __mark_inode_dirty(I_DIRTY_SYNC));
		 * the writer's dirtying of the clean inode (state= empty)
		 * in a store's fault: its page (folio_mark_dirty ->
		 * I_DIRTY_PAGES) or, under eager, its timestamp update
		 * (ext4_dirty_inode -> I_DIRTY_SYNC), each of which puts
		 * the inode on the wb's dirty list and arms the flusher
		 * (wb_wakeup_delayed) */
		char *m = ino >= 0 ? strstr(line, mkey) : NULL;
		if (m) {
			if (by_task(line, "nfsd") &&
			    strstr(m, " flags=I_DIRTY_SYNC\n") && line_ts(line, m, &t) &&
			    kt->atimes < KT_MAX_BIG)
				kt->atime_mono_ns[kt->atimes++] = t;
			else if (by_task(line, "stalewin-writer") &&
				 (strstr(m, " state= flags=I_DIRTY_PAGES\n") ||
				  strstr(m, " state= flags=I_DIRTY_SYNC\n")) && line_ts(line, m, &t) &&
				 kt->dirties < KT_MAX_BIG)
				kt->dirty_mono_ns[kt->dirties++] = t;
			continue;
		}
		if (line_ts(line, strstr(line, ckey), &t)) {
			if (kt->commits < KT_MAX)
				kt->commit_mono_ns[kt->commits++] = t;
			continue;
		}
		if (line_ts(line, strstr(line, ekey), &t)) {
			if (kt->commit_ends < KT_MAX)
				kt->commit_end_mono_ns[kt->commit_ends++] = t;
			continue;
		}
		if (ino >= 0 && line_ts(line, strstr(line, akey), &t)) {
			if (kt->allocs < KT_MAX)
				kt->alloc_mono_ns[kt->allocs++] = t;
			continue;
		}
		char *k = ino >= 0 ? strstr(line, ": folio_clear_dirty_for_io: ") : NULL;
		if (k) {
			if (strstr(k, kkey) && line_ts(line, k, &t) && kt->clears < KT_MAX)
				kt->clear_mono_ns[kt->clears++] = t;
			continue;
		}
		char *w = ino >= 0 ? strstr(line, wkey) : NULL;
		if (w) {
			/* the file's: its first dirtied_when, every end; another
			 * inode's (the bdev inode) with pages written: when, how
			 * many */
			long long wi, wn;
			const char *wr = strstr(w, " wrote=");
			const char *dw = strstr(w, " dirtied_when=");
			int timed = line_ts(line, w, &t);
			if (sscanf(w + strlen(wkey), "%lld", &wi) != 1)
				continue;
			if (wi == ino) {
				if (kt->file_dirtied_when < 0 && dw &&
				    sscanf(dw, " dirtied_when=%lld", &kt->file_dirtied_when) != 1)
					kt->file_dirtied_when = -1;
				if (timed && kt->file_wbs < KT_MAX_BIG)
					kt->file_wb_mono_ns[kt->file_wbs++] = t;
			} else if (timed && wr && sscanf(wr, " wrote=%lld", &wn) == 1 && wn > 0 &&
				   kt->bdev_wbs < KT_MAX) {
				kt->bdev_wb_mono_ns[kt->bdev_wbs] = t;
				kt->bdev_wb_pages[kt->bdev_wbs++] = wn;
			}
			continue;
		}
		/* the wb_wakeup_delayed() that dirtying armed, after it in
		 * the writer's fault: this line's jiffy (expires - timeout)
		 * is known, the mark's may be the one before.  Right after
		 * it, or later when the writer was preempted in between
		 * (traced in the patched 6.1 guest at host load 7: the
		 * dirtying at 37.4018 s, the writer's timer_start, "dN",
		 * at 37.4288 s; the flusher ran on that one's expiry): the
		 * writer's first delayed work after its dirtying, within
		 * 100 ms */
		char *dq = kt->dirties ? strstr(line, ": timer_start: ") : NULL;
		if (dq && armed != kt->dirties - 1 && strstr(dq, " function=delayed_work_timer_fn ") &&
		    by_task(line, "stalewin-writer") && line_ts(line, dq, &t) &&
		    t >= kt->dirty_mono_ns[kt->dirties - 1] &&
		    t - kt->dirty_mono_ns[kt->dirties - 1] < 100 * SW_NS_PER_MS) {
			kt->dirty_mono_ns[kt->dirties - 1] = t; /* and the jiffy anchor below */
			armed = kt->dirties - 1;
		}
		char *p = strstr(line, key);
		char *qi = strstr(line, ": writeback_queue_io: bdi ");
		if (!qi)
			qi = strstr(line, ": timer_start: ");
		if (!p && !qi)
			continue;
		if (p && strstr(p, "reason=background")) {
			if (line_ts(line, p, &t) && kt->bg_passes < KT_MAX_BIG)
				kt->bg_pass_mono_ns[kt->bg_passes++] = t;
			continue;
		}
		if (p && !strstr(p, "reason=periodic"))
			continue;
		if (!line_ts(line, p ? p : qi, &t))
			continue;
		if (qi) {
			const char *o = strstr(qi, " older="), *a = strstr(qi, " age=");
			const char *e = strstr(qi, " expires="), *d = strstr(qi, " [timeout=");
			long long x, y;
			int64_t j;
			if (J <= 0)
				continue;
			if (o && a && sscanf(o, " older=%lld", &x) == 1 &&
			    sscanf(a, " age=%lld", &y) == 1)
				j = x + (y * SW_NS_PER_MS + J - 1) / J;
			else if (e && d && sscanf(e, " expires=%lld", &x) == 1 &&
				 sscanf(d, " [timeout=%lld", &y) == 1)
				j = x - y;
			else
				continue;
			if (strstr(qi, " function=writeout_period ")) {
				kt->period_lines++;
				if (period_firing(y, J) && kt->periods < KT_MAX) {
					kt->period_expires[kt->periods] = x; /* its re-arm target */
					kt->period_mono_ns[kt->periods++] = t;
				}
			}
			if (kt->jn == kt->jcap) {
				size_t cap = kt->jcap ? 2 * kt->jcap : 1024;
				struct sw_jiffy_anchor *np = realloc(kt->js, cap * sizeof(*np));
				if (!np)
					break;
				kt->js = np;
				kt->jcap = cap;
			}
			kt->js[kt->jn++] = (struct sw_jiffy_anchor){ .t_mono_ns = t, .j = j };
			continue;
		}
		kt->runs++;
		if (kt->t_run_mono_ns < 0 || kt->t_run_mono_ns < t_first)
			kt->t_run_mono_ns = t;
		if (t_created >= 0 && t > t_created && kt->t_run_created_mono_ns < 0)
			kt->t_run_created_mono_ns = t;
	}
	fclose(f);
	if (kt->t_run_mono_ns < t_first) {
		snprintf(err, errlen,
			 "expected a periodic writeback run of bdi %s after the first store (%.6f s, mono) in %s, saw %ld periodic runs, none after it",
			 bdi, (double)t_first / 1e9, path, kt->runs);
		return -1;
	}
	return 0;
}
