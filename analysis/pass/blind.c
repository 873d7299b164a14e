/* SPDX-License-Identifier: MIT */
/* blind.c - a native writer that never looked at its file during the run.
 *
 * A native run learns when the kernel updated the file's times only from
 * the writer's own looks: an fstat around each store, else one every
 * --native-poll-ms between stores.  On a multigrain kernel (6.13+) each
 * look is a query of ctime that makes the next stamp fine-grained, so a
 * run that measures what NFS queries do there turns them off
 * (--native-poll-only with a look an hour apart).  Its writer then sees
 * every update at its one look at the end: W_truth would be "time to the
 * end of the run", the client replays (which replay the updates the
 * writer saw) and the observers' consistency check against W_truth the
 * same.  Those figures are left out, and the report says why; what the
 * observers and the kernel readers saw, and the server's own traces,
 * stay. */
#include <stdio.h>
#include <string.h>

#include "report.h"

static void blank(struct sw_fig *f)
{
	f->n = f->unresolved = 0;
	sw_hist_init(&f->h);
}

void sw_blind_finish(struct sw_summary *S)
{
	int64_t span = S->t_end_ns - S->t_start_ns;
	if (S->attrs.writer_stats != 0 || S->writer_look_ms < 0 || span <= 0 ||
	    (double)S->writer_look_ms * 1e6 < (double)span)
		return;
	S->updates_unseen = 1;
	snprintf(S->updates_unseen_why, sizeof(S->updates_unseen_why),
		 "the native writer looked at its file only every %.0f s (--native-poll-only), the run lasted %.1f s: it saw no update until its end",
		 S->writer_look_ms / 1e3, span / 1e9);
	blank(&S->truth);
	for (int i = 0; i < S->nprof && i < SW_MAX_PROFILES; i++)
		blank(&S->replay[i]);
	for (int j = 0; j < S->nkread && j < SW_MAX_KREAD; j++)
		blank(&S->kr[j].replay);
	for (int i = 0; i < S->nobs; i++) {
		struct sw_observer *O = &S->obs[i];
		O->checked = O->consistent = O->low = O->high = 0;
		memset(O->exc, 0, sizeof(O->exc));
	}
}
