/* SPDX-License-Identifier: MIT */
/* srvtrace.c - a server guest's server/trace.txt (vm/guest/trace.sh):
 * the kernel's timestamp and knfsd delegation events, counted.  The
 * report (equal ctimes) and the vm matrix read it. */
#include "srvtrace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t sw_srvtrace_line(const char *line, int64_t *ns, const char **ev)
{
	const char *p = strstr(line, ": "), *q = p;
	if (line[0] == '#' || !p)
		return 0;
	while (q > line && q[-1] != ' ')
		q--;
	*ns = (int64_t)llround(strtod(q, NULL) * 1e6) * 1000;
	*ev = p + 2;
	return strcspn(*ev, ": \n");
}

/* server/trace.txt: the guest's /sys/kernel/tracing/trace lines
 * ("TASK-PID [CPU] FLAGS SECONDS: EVENT: fields", trace_clock mono),
 * after a "# enabled: SYSTEM:EVENT..." line per enabled event.  Only
 * events within [lo_ns, hi_ns] count (hi_ns 0: all).  0, or -1: no file. */
int sw_srvtrace_load(const char *path, int64_t lo_ns, int64_t hi_ns, struct sw_srvtrace *t)
{
	char line[1024];
	int64_t rec[3] = { 0, 0, 0 };
	memset(t, 0, sizeof(*t));
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "# enabled: ", 11)) {
			t->ts_traced |= !!strstr(line, "timestamp:");
			t->nfsd_traced |= !!strstr(line, "nfsd:");
			continue;
		}
		int64_t ns;
		const char *p;
		size_t len = sw_srvtrace_line(line, &ns, &p);
		if (!len || (hi_ns && (ns < lo_ns || ns > hi_ns)))
			continue;
		char ev[64];
		snprintf(ev, sizeof(ev), "%.*s", (int)len, p);
		if (!strcmp(ev, "ctime_ns_xchg") || !strcmp(ev, "inode_set_ctime_to_ts"))
			t->ctime_sets++;
		else if (!strcmp(ev, "ctime_xchg_skip"))
			t->ctime_skip++;
		else if (!strcmp(ev, "fill_mg_cmtime"))
			t->queries++;
		else if (!strncmp(ev, "nfsd_", 5)) {
			/* one recall may fire nfsd_cb_recall and nfsd_deleg_recall
			 * (or the older nfsd_deleg_break): the largest count is it */
			if (strstr(ev, "deleg_read") || strstr(ev, "deleg_write") ||
			    strstr(ev, "deleg_open"))
				t->deleg_granted++;
			else if (!strcmp(ev, "nfsd_cb_recall"))
				rec[0]++;
			else if (!strcmp(ev, "nfsd_deleg_recall"))
				rec[1]++;
			else if (!strcmp(ev, "nfsd_deleg_break"))
				rec[2]++;
			else if (strstr(ev, "deleg_return"))
				t->deleg_returns++;
			else
				continue;
			t->deleg_recalls = rec[0] > rec[1] ? rec[0] : rec[1];
			if (rec[2] > t->deleg_recalls)
				t->deleg_recalls = rec[2];
			size_t used = strlen(t->nfsd_events);
			if (!strstr(t->nfsd_events, ev) &&
			    used + strlen(ev) + 2 < sizeof(t->nfsd_events))
				snprintf(t->nfsd_events + used, sizeof(t->nfsd_events) - used,
					 "%s%s", used ? "," : "", ev);
		}
	}
	fclose(f);
	return 0;
}
