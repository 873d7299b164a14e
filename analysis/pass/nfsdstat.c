/* SPDX-License-Identifier: MIT */
/* nfsdstat.c - vm run: what the clients asked of knfsd over the run.  The
 * server guest samples, once when the file is set up and once when the
 * writer ended (server/nfsd-before.txt, nfsd-after.txt), "uptime S", the
 * lines of /proc/net/rpc/nfsd as the kernel gives them, and one
 * "auth.unix.ip CLASS ADDRESS DOMAIN" per entry of knfsd's export cache.
 * From /proc/net/rpc/nfsd: "th N ..." (threads), "rpc CALLS ...",
 * "proc3 N null getattr ..." (v3 GETATTRs, the 2nd procedure) and
 * "proc4ops N op0 op1 ..." (v4 GETATTR operations, op 9). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

struct nfsd_sample {
	double up;
	int threads;
	uint64_t calls, ga3, ga4;
	int seen;                /* fields found: 1 uptime, 2 rpc, 4 proc3 */
	int nclients;
	char client[16][48];     /* distinct nfsd-class addresses */
};

/* the n-th number after the tag (n 0: the first), 0 if none */
static uint64_t field(const char *line, int n)
{
	const char *p = strchr(line, ' ');
	for (int i = 0; p && i < n; i++)
		p = strchr(p + 1, ' ');
	return p ? strtoull(p + 1, NULL, 10) : 0;
}

static int sample(const char *path, struct nfsd_sample *s)
{
	char line[2048];
	FILE *f = fopen(path, "r");
	memset(s, 0, sizeof(*s));
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char cls[16], addr[48];
		if (sscanf(line, "uptime %lf", &s->up) == 1)
			s->seen |= 1;
		else if (!strncmp(line, "th ", 3))
			s->threads = (int)field(line, 0);
		else if (!strncmp(line, "rpc ", 4)) {
			s->calls = field(line, 0);
			s->seen |= 2;
		} else if (!strncmp(line, "proc3 ", 6)) {
			s->ga3 = field(line, 2); /* count, null, getattr */
			s->seen |= 4;
		} else if (!strncmp(line, "proc4ops ", 9))
			s->ga4 = field(line, 10); /* count, op0 .. op9 */
		else if (sscanf(line, "auth.unix.ip %15s %47s", cls, addr) == 2 &&
			 !strcmp(cls, "nfsd") && s->nclients < 16) {
			int dup = 0;
			for (int i = 0; i < s->nclients && !dup; i++)
				dup = !strcmp(s->client[i], addr);
			if (!dup)
				snprintf(s->client[s->nclients++], sizeof(s->client[0]), "%s", addr);
		}
	}
	fclose(f);
	return 0;
}

void sw_nfsd_load(struct sw_summary *S, const char *dir)
{
	char pb[SW_PATHLEN + 40], pa[SW_PATHLEN + 40];
	struct nfsd_sample *b = malloc(sizeof(*b)), *a = malloc(sizeof(*a));
	snprintf(pb, sizeof(pb), "%s/server/nfsd-before.txt", dir);
	snprintf(pa, sizeof(pa), "%s/server/nfsd-after.txt", dir);
	if (!a || !b || sample(pb, b) || sample(pa, a))
		goto out;
	if (b->seen != 7 || a->seen != 7 || a->up <= b->up || a->calls < b->calls ||
	    a->ga3 < b->ga3 || a->ga4 < b->ga4) {
		sw_problem(S, pa, -1, 0,
			   "expected uptime, rpc and proc3 lines, later and not smaller than in nfsd-before.txt, saw %s; knfsd's load left out",
			   b->seen != 7 || a->seen != 7 ? "some missing" : "counters going back (knfsd restarted?)");
		goto out;
	}
	S->nfsd.have = 1;
	S->nfsd.threads = a->threads;
	S->nfsd.secs = a->up - b->up;
	S->nfsd.calls = a->calls - b->calls;
	S->nfsd.getattr3 = a->ga3 - b->ga3;
	S->nfsd.getattr4 = a->ga4 - b->ga4;
	S->nfsd.clients = a->nclients;
out:
	free(a);
	free(b);
}
