/* SPDX-License-Identifier: MIT */
/* runload.h - find and check a run folder's logs before the pass. */
#ifndef STALEWIN_RUNLOAD_H
#define STALEWIN_RUNLOAD_H

#include "nfstrace.h"
#include "observer.h"
#include "swlog.h"
#include "report.h"

#define SW_MAX_PROBES SW_MAX_OBS /* probe logs: probe-0 .. probe-127 */

struct sw_input {
	char writer[SW_PATHLEN];
	struct swlog_reader *writer_r;       /* the writer log, open once for
						the pass (its header checked);
						the pass takes it */
	int nprobe;
	char probe[SW_MAX_PROBES][SW_PATHLEN];
	int probe_ok[SW_MAX_PROBES];        /* 1: used */
	struct sw_obs_scan scan[SW_MAX_PROBES];
	int nkread;                          /* kread-0 .. kread-<n-1> */
	char kread[SW_MAX_KREAD][SW_PATHLEN];
	int64_t kread_period_ns[SW_MAX_KREAD]; /* the reader's --every-ms */
	int kread_cto[SW_MAX_KREAD];          /* open/read/close mode */
	int64_t ctick_ns;       /* the readers' client: jiffy length (meta
				   client_tick.tick_ns; 0: not recorded) */
	int64_t ctick_phase_ns; /* a jiffy boundary mod ctick_ns, the
				   client's CLOCK_MONOTONIC */
	struct sw_nfstrace nt;  /* client/trace.txt: the client's own RPC
				   times (vm run); the pass frees it */
	int nt_ok;              /* 1: loaded with nfs events */
};

/* Returns 0, or 2 when there is nothing to report (S->prob says why).
 * On 0 in->writer_r is open: the caller closes it. */
int sw_input_load(const char *dir, struct sw_summary *S, struct sw_input *in);
/* The probe logs' first-pass figures (in->scan[k].t) freed; again is a
 * no-op. */
void sw_input_free_scans(struct sw_input *in);

#endif
