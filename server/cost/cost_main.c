/* SPDX-License-Identifier: MIT */
/*
 * stalewin-cost - what each mtime/ctime policy costs, measured in the
 * kernel (docs/cost.md).
 *
 *   stalewin-cost measure --dir DIR --fs FS --policy P [--kernel LABEL]
 *                 [--threads T] [--pages M] [--repeats R]
 *                 [--query none|statx|nfs] [--spaced] [--no-trace]
 *                 [--pressure] [--poll PATH] [--tcg]
 *       sets vm.mmap_cmtime_policy to P (eager, deferred, lang; stock on a
 *       kernel without the sysctl), measures (measure.h) and prints one
 *       JSON row on stdout.  --poll PATH: a thread statx()es PATH (the
 *       file through an NFS mount, --query nfs) every ms meanwhile.
 *       --client-poll DIR --query-rate N: the client guest polls the file
 *       (stalewin-cost poll there; clientpoll.h), in step through DIR.
 *   stalewin-cost poll --path FILE --rate N --ctl DIR [--max-s S]
 *       in the client guest: statx FILE (through its NFS mount) N times a
 *       second, counting from DIR/start to DIR/stop (clientpoll.h).
 *   stalewin-cost table [--json] FILE...
 *       rows (JSON, one a line) side by side with their ratios to eager
 *       and the findings; --json: {"rows": [...], "findings": [...]}.
 * Exit 0; 1 a runtime error; 2 bad input (a policy the kernel does not
 * offer, an unknown fs, threads outside 1..64), each said on stderr.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clientpoll.h"
#include "measure.h"
#include "row.h"

#define SYSCTL "/proc/sys/vm/mmap_cmtime_policy"

static int usage(const char *msg)
{
	fprintf(stderr, "stalewin-cost: %s\nusage: stalewin-cost measure --dir DIR --fs "
		"ext4|ext4-lazytime|xfs|btrfs|tmpfs --policy eager|deferred|lang|stock\n"
		"         [--kernel LABEL] [--threads 1..64] [--pages M] [--repeats R]\n"
		"         [--query none|statx|nfs] [--spaced] [--no-trace] [--pressure]\n"
		"         [--poll PATH] [--client-poll DIR --query-rate N] [--tcg]\n"
		"       stalewin-cost poll --path FILE --rate N --ctl DIR [--max-s S]\n"
		"       stalewin-cost table [--json] FILE...\n", msg);
	return 2;
}

/* The policy into the kernel: 0, 2 the kernel does not offer it, 1 error. */
static int set_policy(const char *p)
{
	int patched = access(SYSCTL, F_OK) == 0;
	char back[64] = "";
	FILE *f;

	if (strcmp(p, "eager") && strcmp(p, "deferred") && strcmp(p, "lang") &&
	    strcmp(p, "stock")) {
		fprintf(stderr, "stalewin-cost: --policy: expected eager, deferred, lang "
			"or stock, saw '%s'\n", p);
		return 2;
	}
	if (!strcmp(p, "stock") || !patched) {
		if (!strcmp(p, "stock") && !patched)
			return 0;
		fprintf(stderr, "stalewin-cost: --policy %s: this kernel offers %s, "
			"saw %s\n", p, patched ? "eager, deferred, lang (its eager is "
			"the stock behaviour)" : "only stock (no vm.mmap_cmtime_policy)", p);
		return 2;
	}
	f = fopen(SYSCTL, "w");
	if (!f || fputs(p, f) < 0 || fclose(f)) {
		fprintf(stderr, "stalewin-cost: cannot write %s to " SYSCTL ": %s\n", p,
			strerror(errno));
		return 1;
	}
	f = fopen(SYSCTL, "r");
	if (!f || !fgets(back, sizeof(back), f) || strncmp(back, p, strlen(p))) {
		fprintf(stderr, "stalewin-cost: " SYSCTL " reads '%s' after writing %s\n",
			back, p);
		if (f)
			fclose(f);
		return 1;
	}
	fclose(f);
	return 0;
}

static long number(const char *opt, const char *s, long lo, long hi, int *bad)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == 0 || *end || v < lo || v > hi) {
		fprintf(stderr, "stalewin-cost: %s: expected a number %ld..%ld, saw '%s'\n",
			opt, lo, hi, s);
		*bad = 1;
	}
	return v;
}

static int cmd_measure(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' }, { "fs", required_argument, NULL, 'f' },
		{ "policy", required_argument, NULL, 'p' }, { "kernel", required_argument, NULL, 'k' },
		{ "threads", required_argument, NULL, 't' }, { "pages", required_argument, NULL, 'm' },
		{ "repeats", required_argument, NULL, 'r' }, { "query", required_argument, NULL, 'q' },
		{ "spaced", no_argument, NULL, 's' }, { "no-trace", no_argument, NULL, 'n' },
		{ "tcg", no_argument, NULL, 'g' }, { "pressure", no_argument, NULL, 'P' },
		{ "poll", required_argument, NULL, 'o' },
		{ "client-poll", required_argument, NULL, 'c' },
		{ "query-rate", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	struct sw_cost_cfg cfg = { .kernel = "this", .threads = 1, .pages = 1000,
				   .repeats = 1, .trace = 1 };
	struct sw_cost_result res;
	const char *query = "none";
	int c, bad = 0, tcg = 0, rc;
	char err[512];
	json_t *row;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd': cfg.dir = optarg; break;
		case 'f': cfg.fs = optarg; break;
		case 'p': cfg.policy = optarg; break;
		case 'k': cfg.kernel = optarg; break;
		case 't': cfg.threads = (int)number("--threads", optarg, 1, SW_COST_MAX_THREADS, &bad); break;
		case 'm': cfg.pages = number("--pages", optarg, 1, 1 << 20, &bad); break;
		case 'r': cfg.repeats = (int)number("--repeats", optarg, 1, 1000, &bad); break;
		case 'q': query = optarg; break;
		case 's': cfg.spaced = 1; break;
		case 'n': cfg.trace = 0; break;
		case 'g': tcg = 1; break;
		case 'P': cfg.pressure = 1; break;
		case 'o': cfg.poll = optarg; break;
		case 'c': cfg.client_ctl = optarg; break;
		case 'R': cfg.query_rate = (double)number("--query-rate", optarg, 1, 10000, &bad); break;
		default: return usage("unknown option");
		}
	}
	if (bad)
		return 2;
	if (!cfg.dir || !cfg.fs || !cfg.policy)
		return usage("measure needs --dir, --fs and --policy");
	if (!cfg.client_ctl != !(cfg.query_rate > 0) || (cfg.client_ctl && cfg.poll)) {
		fprintf(stderr, "stalewin-cost: expected --client-poll DIR with --query-rate N "
			"and without --poll, saw %s\n", cfg.client_ctl ? (cfg.poll ? "--poll too" :
			"no --query-rate") : "--query-rate alone");
		return 2;
	}
	if (strcmp(query, "none") && strcmp(query, "statx") && strcmp(query, "nfs")) {
		fprintf(stderr, "stalewin-cost: --query: expected none, statx or nfs, saw '%s'\n",
			query);
		return 2;
	}
	/* nfs: a client polls the file from outside (stalewin-cost poll);
	 * the measurer itself does not query */
	cfg.query_statx = !strcmp(query, "statx");
	cfg.query = query;
	rc = set_policy(cfg.policy);
	if (rc)
		return rc;
	if (sw_cost_measure(&cfg, &res, err, sizeof(err))) {
		fprintf(stderr, "stalewin-cost: %s\n", err);
		return strstr(err, "expected") ? 2 : 1;
	}
	row = sw_cost_row(&cfg, &res, tcg);
	if (!row || json_dumpf(row, stdout, JSON_COMPACT) || putchar('\n') == EOF) {
		json_decref(row);
		return 1;
	}
	json_decref(row);
	return fflush(stdout) ? 1 : 0;
}

static int cmd_poll(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "path", required_argument, NULL, 'p' }, { "rate", required_argument, NULL, 'r' },
		{ "ctl", required_argument, NULL, 'c' }, { "max-s", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = NULL, *ctl = NULL;
	long rate = 0, max_s = 3600;
	int c, bad = 0;
	char err[512];

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p': path = optarg; break;
		case 'c': ctl = optarg; break;
		case 'r': rate = number("--rate", optarg, 1, 10000, &bad); break;
		case 'm': max_s = number("--max-s", optarg, 1, 86400, &bad); break;
		default: return usage("unknown option");
		}
	}
	if (bad)
		return 2;
	if (!path || !ctl || !rate)
		return usage("poll needs --path, --rate and --ctl");
	if (sw_cost_client_poll(path, (double)rate, ctl, (double)max_s, err, sizeof(err))) {
		fprintf(stderr, "stalewin-cost poll: %s\n", err);
		return 1;
	}
	return 0;
}

static int cmd_table(int argc, char **argv)
{
	json_t *rows = json_array(), *findings, *out;
	int i, as_json = 0, files = 0;
	char err[512];

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			as_json = 1;
			continue;
		}
		files++;
		if (sw_cost_rows_load(argv[i], rows, err, sizeof(err))) {
			fprintf(stderr, "stalewin-cost: %s\n", err);
			json_decref(rows);
			return 2;
		}
	}
	if (!files) {
		json_decref(rows);
		return usage("table needs at least one FILE of rows");
	}
	findings = sw_cost_findings(rows);
	if (as_json) {
		out = json_pack("{s:O, s:O}", "rows", rows, "findings", findings);
		json_dumpf(out, stdout, JSON_INDENT(1));
		putchar('\n');
		json_decref(out);
	} else {
		sw_cost_text(stdout, rows, findings);
	}
	json_decref(findings);
	json_decref(rows);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage("expected a subcommand, measure, poll or table");
	if (!strcmp(argv[1], "measure"))
		return cmd_measure(argc - 1, argv + 1);
	if (!strcmp(argv[1], "table"))
		return cmd_table(argc - 1, argv + 1);
	if (!strcmp(argv[1], "poll"))
		return cmd_poll(argc - 1, argv + 1);
	return usage("expected a subcommand, measure, poll or table");
}
