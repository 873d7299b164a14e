/* SPDX-License-Identifier: MIT */
/* stalewin-synth: write a synthetic run folder (see synth.h).
 *   stalewin-synth --out DIR [--policy P] [--duration S] ... (--help) */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "parse.h"
#include "synth.h"

static void usage(FILE *f)
{
	fputs("usage: stalewin-synth --out DIR [options]\n"
	      "  writer: --policy eager|deferred|lang|none --duration S --interval-us N\n"
	      "          --pages N --random --seed N --trap-us N --upd-lead-us N\n"
	      "          --writeback-ms N --expire-ms N --msync-async-ms N --msync-sync-ms N\n"
	      "          --gran-ns N --no-munmap --no-end --run-id HEX\n"
	      "  probe:  --no-probe --vers 3|4 --poll-us N --rtt-us N --lag-ms N\n"
	      "          --probe-start-ms N --probe-end-ms N --lost MS-MS --gap MS-MS\n"
	      "          --stall MS-MS (sends nothing) --slow MS-MS --slow-rtt-us N\n"
	      "          --read-every K --read-page N --probe-run-id HEX\n"
	      "  clock:  --offset-ns N --err-ns N --offset-bias-ns N (clock.json states\n"
	      "          offset + bias: a wrong estimate) (writes clock.json)\n"
	      "  kread:  --kread-ms N --kread-page N --kread-lag-ms N --mount-options S\n", f);
}

static int num(const char *s, double *v)
{
	return sw_parse_double(s, -HUGE_VAL, HUGE_VAL, v);
}

static int win(const char *s, struct sw_synth_win *w)
{
	double a, b;
	if (sw_parse_range(s, &a, &b))
		return 1;
	w->from_ns = (int64_t)(a * 1e6);
	w->to_ns = (int64_t)(b * 1e6);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "out", 1, 0, 'o' }, { "policy", 1, 0, 'p' }, { "duration", 1, 0, 'd' },
		{ "interval-us", 1, 0, 'i' }, { "pages", 1, 0, 'n' }, { "random", 0, 0, 'r' },
		{ "seed", 1, 0, 's' }, { "trap-us", 1, 0, 't' }, { "upd-lead-us", 1, 0, 'L' },
		{ "writeback-ms", 1, 0, 'w' }, { "expire-ms", 1, 0, 'e' },
		{ "msync-async-ms", 1, 0, 'a' }, { "msync-sync-ms", 1, 0, 'S' },
		{ "gran-ns", 1, 0, 'g' }, { "no-munmap", 0, 0, 'M' }, { "no-end", 0, 0, 'E' },
		{ "run-id", 1, 0, 'R' }, { "no-probe", 0, 0, 'P' }, { "vers", 1, 0, 'v' },
		{ "poll-us", 1, 0, 'u' }, { "rtt-us", 1, 0, 'T' }, { "lag-ms", 1, 0, 'l' },
		{ "probe-start-ms", 1, 0, 1 }, { "probe-end-ms", 1, 0, 2 },
		{ "lost", 1, 0, 3 }, { "gap", 1, 0, 4 }, { "read-every", 1, 0, 5 },
		{ "read-page", 1, 0, 6 }, { "probe-run-id", 1, 0, 7 },
		{ "offset-ns", 1, 0, 8 }, { "err-ns", 1, 0, 9 }, { "kread-ms", 1, 0, 10 },
		{ "kread-page", 1, 0, 11 }, { "kread-lag-ms", 1, 0, 12 },
		{ "mount-options", 1, 0, 13 }, { "stall", 1, 0, 14 }, { "slow", 1, 0, 15 },
		{ "slow-rtt-us", 1, 0, 16 }, { "offset-bias-ns", 1, 0, 17 },
		{ "help", 0, 0, 'h' }, { 0, 0, 0, 0 }
	};
	struct sw_synth_cfg c;
	const char *out = NULL;
	char err[512];
	double v = 0;
	int o;

	sw_synth_defaults(&c);
	while ((o = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		const char *a = optarg;
		if (a && o != 'o' && o != 'p' && o != 'R' && o != 3 && o != 4 && o != 14 && o != 15 &&
		    o != 7 && o != 13 && num(a, &v)) {
			fprintf(stderr, "stalewin-synth: expected a number, saw '%s'\n", a);
			return 2;
		}
		switch (o) {
		case 'o': out = a; break;
		case 'p': c.policy = a; break;
		case 'd': c.duration_ns = (int64_t)(v * 1e9); break;
		case 'i': c.store_interval_ns = (int64_t)(v * 1e3); break;
		case 'n': c.pages = (uint64_t)v; break;
		case 'r': c.random = 1; break;
		case 's': c.seed = (uint64_t)v; break;
		case 't': c.trap_ns = (int64_t)(v * 1e3); break;
		case 'L': c.upd_lead_ns = (int64_t)(v * 1e3); break;
		case 'w': c.writeback_ns = (int64_t)(v * 1e6); break;
		case 'e': c.expire_ns = (int64_t)(v * 1e6); break;
		case 'a': c.msync_async_ns = (int64_t)(v * 1e6); break;
		case 'S': c.msync_sync_ns = (int64_t)(v * 1e6); break;
		case 'g': c.stamp_gran_ns = (int64_t)v; break;
		case 'M': c.no_munmap = 1; break;
		case 'E': c.no_end = 1; break;
		case 'R': c.run_id = strtoull(a, NULL, 16); break;
		case 'P': c.probe = 0; break;
		case 'v': c.vers = (int)v; break;
		case 'u': c.poll_ns = (int64_t)(v * 1e3); break;
		case 'T': c.rtt_ns = (int64_t)(v * 1e3); break;
		case 'l': c.server_lag_ns = (int64_t)(v * 1e6); break;
		case 1: c.probe_start_ns = (int64_t)(v * 1e6); break;
		case 2: c.probe_end_ns = (int64_t)(v * 1e6); break;
		case 3:
		case 4:
		case 14:
		case 15: {
			struct sw_synth_win *w = o == 3 ? &c.lost[c.nlost] : o == 4 ? &c.gaps[c.ngaps]
					       : o == 14 ? &c.stall[c.nstall] : &c.slow[c.nslow];
			int *n = o == 3 ? &c.nlost : o == 4 ? &c.ngaps : o == 14 ? &c.nstall : &c.nslow;
			if (*n == SW_SYNTH_MAX_WIN || win(a, w)) {
				fprintf(stderr, "stalewin-synth: expected FROM_MS-TO_MS (at most %d), saw '%s'\n",
					SW_SYNTH_MAX_WIN, a);
				return 2;
			}
			(*n)++;
			break;
		}
		case 5: c.read_every = (int)v; break;
		case 6: c.read_page = (uint64_t)v; break;
		case 7: c.probe_run_id = strtoull(a, NULL, 16); break;
		case 8: c.offset_ns = (int64_t)v; c.clock_json = 1; break;
		case 9: c.err_ns = (int64_t)v; c.clock_json = 1; break;
		case 10: c.kread_ns = (int64_t)(v * 1e6); break;
		case 11: c.kread_page = (uint64_t)v; break;
		case 12: c.kread_lag_ns = (int64_t)(v * 1e6); break;
		case 13: c.kread_mount_options = a; break;
		case 16: c.slow_rtt_ns = (int64_t)(v * 1e3); break;
		case 17: c.offset_bias_ns = (int64_t)v; c.clock_json = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!out || optind != argc) {
		fprintf(stderr, "stalewin-synth: expected --out DIR and no other arguments\n");
		return 2;
	}
	if (mkdir(out, 0777) && errno != EEXIST) {
		fprintf(stderr, "stalewin-synth: cannot create %s: %s\n", out, strerror(errno));
		return 1;
	}
	int64_t n = sw_synth_run(&c, out, err, sizeof(err));
	if (n < 0) {
		fprintf(stderr, "stalewin-synth: %s\n", err);
		return n == -EINVAL ? 2 : 1;
	}
	printf("%lld\n", (long long)n);
	return 0;
}
