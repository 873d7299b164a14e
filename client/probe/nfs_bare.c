/* SPDX-License-Identifier: MIT */
/*
 * stalewin-nfs-bare: the bench's reference -- the smallest libnfs raw-async
 * NFSv3 GETATTR loop (no logging, no clocks per request, no timeouts), kept
 * `depth` requests in flight for `duration` seconds.  Prints one JSON line:
 *   {"rate_per_s":F,"replies":N,"errors":N,"depth":N,"duration_s":F}
 * usage: stalewin-nfs-bare URL DEPTH DURATION_S   (URL as for the probe, v3)
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-nfs.h>

#include "nfs_url.h"
#include "swtime.h"

struct fh_mirror { int len; char *val; }; /* libnfs 4.0 private struct nfs_fh */

static unsigned long long replies, errors;
static unsigned inflight;

static void cb(struct rpc_context *rpc, int status, void *data, void *priv)
{
	(void)rpc; (void)priv;
	inflight--;
	if (status == RPC_STATUS_SUCCESS && ((GETATTR3res *)data)->status == NFS3_OK)
		replies++;
	else
		errors++;
}

int main(int argc, char **argv)
{
	struct sw_nfs_url u;
	char err[512];
	struct nfsfh *f;
	if (argc != 4) {
		fprintf(stderr, "usage: stalewin-nfs-bare URL DEPTH DURATION_S\n");
		return 2;
	}
	if (sw_nfs_url_parse(argv[1], &u, err, sizeof(err)) || u.version != 3) {
		fprintf(stderr, "stalewin-nfs-bare: %s\n", u.version != 3 ? "expected an NFSv3 URL" : err);
		return 2;
	}
	unsigned depth = (unsigned)atoi(argv[2]);
	double dur = atof(argv[3]);
	if (!depth || dur <= 0) {
		fprintf(stderr, "stalewin-nfs-bare: expected DEPTH >= 1 and DURATION_S > 0\n");
		return 2;
	}
	struct nfs_context *nfs = nfs_init_context();
	struct nfs_url *nu = nfs_parse_url_full(nfs, argv[1]);
	if (!nu || nfs_mount(nfs, nu->server, nu->path) || nfs_open(nfs, nu->file, O_RDONLY, &f)) {
		fprintf(stderr, "stalewin-nfs-bare: %s\n", nfs_get_error(nfs));
		return 1;
	}
	struct fh_mirror *m = (struct fh_mirror *)nfs_get_fh(f);
	GETATTR3args a = { .object.data = { (u_int)m->len, m->val } };
	struct rpc_context *rpc = nfs_get_rpc_context(nfs);
	int64_t t0 = sw_mono_ns(), tend = t0 + (int64_t)(dur * 1e9), now;
	while ((now = sw_mono_ns()) < tend) {
		while (inflight < depth) {
			if (rpc_nfs3_getattr_async(rpc, cb, &a, NULL)) {
				fprintf(stderr, "stalewin-nfs-bare: %s\n", rpc_get_error(rpc));
				return 1;
			}
			inflight++;
		}
		struct pollfd p = { .fd = rpc_get_fd(rpc), .events = (short)rpc_which_events(rpc) };
		if (poll(&p, 1, 100) > 0 && rpc_service(rpc, p.revents) < 0) {
			fprintf(stderr, "stalewin-nfs-bare: %s\n", rpc_get_error(rpc));
			return 1;
		}
	}
	double el = (double)(now - t0) / 1e9;
	printf("{\"rate_per_s\":%.1f,\"replies\":%llu,\"errors\":%llu,\"depth\":%u,\"duration_s\":%.3f}\n",
	       (double)replies / el, replies, errors, depth, el);
	nfs_close(nfs, f);
	nfs_destroy_context(nfs);
	return 0;
}
