/* SPDX-License-Identifier: MIT */
/*
 * progress_main.c - stalewin-progress: one live progress line for a run
 * that is under way.
 *
 *   stalewin-progress --watch DIR [--duration SEC] [--experiments N]
 *       [--url http://H:P --token-file F] [--every SEC] [--tty auto|yes|no]
 *       [--until-file F] [--pid P] [--prefix TEXT] [--since UNIX_S] [--once]
 *
 * DIR is a run folder, or a folder of run folders (vm run, vm matrix: two
 * levels down); the run whose logs changed last is the current one.  The
 * line: time since start (the tool's, or UNIX_S: the caller's start), the current run (of N) and its writer time
 * against SEC, stores/s, timestamp updates, probe replies/s over the last
 * interval, outages (the probes' GAP records, plus control API outages).
 * With --url the writer's own status gives time, stores and updates (its
 * log may be on another host).  On a terminal (stderr, or --tty yes) the
 * line is rewritten in place every second (--every); otherwise a plain
 * line every 10 s, after TEXT: when given.  Ends when F exists, when PID is gone, on SIGINT or
 * SIGTERM, when the N runs of --experiments all have their writer's END,
 * or after one line (--once).  Exit 0, 2 bad input.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "control_client.h"
#include "parse.h"
#include "progress.h"
#include "swtime.h"

#define PROG "stalewin-progress"

struct pg_opts {
	const char *watch, *url, *token_file, *until_file, *prefix;
	double total_s, every_s, since_s;
	int nexp, tty, once;
	long pid;
};

struct pg_state {
	struct swctl *ctl;
	char cur[SW_PG_PATHLEN];  /* current run folder */
	uint64_t prev_replies;    /* of cur, at the last line */
	int64_t prev_t_ns;
	uint64_t api_outages;
	int api_down;
};

static volatile sig_atomic_t stop_sig;
static void on_signal(int s) { stop_sig = s; }

static int bad(const char *opt, const char *want, const char *saw)
{
	fprintf(stderr, PROG ": expected %s %s, saw '%s'\n", opt, want, saw);
	return 2;
}

static int parse_args(int argc, char **argv, struct pg_opts *o)
{
	static const struct option lo[] = {
		{ "watch", 1, 0, 'w' }, { "duration", 1, 0, 'd' }, { "experiments", 1, 0, 'n' },
		{ "url", 1, 0, 'u' }, { "token-file", 1, 0, 't' }, { "every", 1, 0, 'e' },
		{ "tty", 1, 0, 'T' }, { "until-file", 1, 0, 'f' }, { "pid", 1, 0, 'p' },
		{ "prefix", 1, 0, 'x' }, { "once", 0, 0, '1' }, { "help", 0, 0, 'h' },
		{ "since", 1, 0, 's' },
		{ 0, 0, 0, 0 },
	};
	uint64_t v;
	int c;
	memset(o, 0, sizeof(*o));
	o->tty = -1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'w': o->watch = optarg; break;
		case 'u': o->url = optarg; break;
		case 't': o->token_file = optarg; break;
		case 'f': o->until_file = optarg; break;
		case 'x': o->prefix = optarg; break;
		case '1': o->once = 1; break;
		case 'd':
			if (sw_parse_double(optarg, 0, 1e7, &o->total_s))
				return bad("--duration", "seconds >= 0", optarg);
			break;
		case 's':
			if (sw_parse_double(optarg, 0, 1e11, &o->since_s))
				return bad("--since", "a UNIX time in seconds", optarg);
			break;
		case 'e':
			if (sw_parse_double(optarg, 0.1, 3600, &o->every_s))
				return bad("--every", "0.1..3600 seconds", optarg);
			break;
		case 'n':
			if (sw_parse_u64(optarg, 10, 0, 1, 100000, &v))
				return bad("--experiments", "1..100000", optarg);
			o->nexp = (int)v;
			break;
		case 'p':
			if (sw_parse_u64(optarg, 10, 0, 1, 1u << 30, &v))
				return bad("--pid", "a process id", optarg);
			o->pid = (long)v;
			break;
		case 'T':
			o->tty = !strcmp(optarg, "yes") ? 1 : !strcmp(optarg, "no") ? 0 :
				 !strcmp(optarg, "auto") ? -1 : -2;
			if (o->tty == -2)
				return bad("--tty", "auto, yes or no", optarg);
			break;
		case 'h':
			printf("usage: " PROG " --watch DIR [--duration SEC] [--experiments N]\n"
			       "       [--url http://H:P --token-file F] [--every SEC] [--tty auto|yes|no]\n"
			       "       [--until-file F] [--pid P] [--prefix TEXT] [--since UNIX_S] [--once]\n");
			exit(0);
		default:
			fprintf(stderr, PROG ": unknown option or missing value (see --help)\n");
			return 2;
		}
	}
	if (!o->watch)
		return bad("--watch", "a run folder", "nothing");
	if (!!o->url != !!o->token_file)
		return bad("--url with --token-file", "both or neither", o->url ? o->url : o->token_file);
	if (o->tty < 0)
		o->tty = isatty(STDERR_FILENO);
	if (o->every_s <= 0)
		o->every_s = o->tty ? 1 : 10;
	return 0;
}

/* The writer's status through the control API into l; the API's outages
 * counted in S (one per stretch of failed polls). */
static void api_status(struct pg_state *S, struct sw_pg_line *l)
{
	char err[SWCTL_ERRLEN], *reply = NULL;
	if (swctl_status(S->ctl, &reply, err, sizeof(err))) {
		if (!S->api_down)
			S->api_outages++;
		S->api_down = 1;
		free(reply);
		return;
	}
	S->api_down = 0;
	json_t *j = json_loads(reply, 0, NULL), *st = json_object_get(j, "status");
	free(reply);
	json_t *e = json_object_get(st, "elapsed_s"), *n = json_object_get(st, "stores"),
	       *u = json_object_get(st, "updates");
	if (json_is_number(e))
		l->elapsed_s = json_number_value(e);
	if (json_is_integer(u))
		l->updates = (uint64_t)json_integer_value(u);
	if (json_is_integer(n) && l->elapsed_s > 0)
		l->stores_per_s = (double)json_integer_value(n) / l->elapsed_s;
	json_decref(j);
}

/* One line's figures: the current run (newest logs) of the watched folder.
 * Returns 1 when --experiments runs are there and every writer log ended. */
static int compute(const struct pg_opts *o, struct pg_state *S, int64_t t0, struct sw_pg_line *l)
{
	static char dirs[SW_PG_MAX_EXPS][SW_PG_PATHLEN];
	struct sw_pg_counts c, best = { 0 };
	int64_t now = sw_mono_ns();
	int n = sw_pg_find(o->watch, dirs, SW_PG_MAX_EXPS), cur = -1, started = 0, ended = 0;
	uint64_t gaps = 0, replies = 0;
	int first = 0; /* the current run is seen for the first time */

	memset(l, 0, sizeof(*l));
	for (int i = 0; i < n; i++) {
		if (sw_pg_scan(dirs[i], &c))
			continue;
		gaps += c.gaps;
		started++; /* runs go one after the other: the newest is number `started` */
		ended += c.writer_end;
		if (cur < 0 || c.newest_mtime_ns >= best.newest_mtime_ns) {
			cur = i;
			best = c;
		}
	}
	l->wall_s = o->since_s > 0 ? (int64_t)((double)sw_real_ns() / 1e9 - o->since_s)
				    : (now - t0) / 1000000000;
	l->total_s = o->total_s;
	l->nexp = o->nexp;
	l->exp = started;
	l->outages = gaps + S->api_outages;
	snprintf(l->name, sizeof(l->name), "waiting");
	if (cur >= 0) {
		const char *b = strrchr(dirs[cur], '/');
		snprintf(l->name, sizeof(l->name), "%s", b ? b + 1 : dirs[cur]);
		double el = (double)(best.last_mono_ns - best.first_mono_ns) / 1e9;
		l->elapsed_s = el > 0 ? el : 0;
		l->updates = best.updates;
		l->stores_per_s = el > 0 ? (double)best.stores / el : 0;
		first = strcmp(S->cur, dirs[cur]) != 0;
		snprintf(S->cur, sizeof(S->cur), "%s", dirs[cur]);
		replies = best.replies;
	}
	if (S->ctl) {
		api_status(S, l);
		l->outages = gaps + S->api_outages;
		l->api_down = S->api_down;
	}
	/* replies/s: over the last interval; a run first seen: its mean so far */
	double dt = (double)(now - S->prev_t_ns) / 1e9;
	if (cur >= 0 && first)
		l->replies_per_s = l->elapsed_s > 0 ? (double)replies / l->elapsed_s : 0;
	else if (cur >= 0 && dt > 0 && replies >= S->prev_replies)
		l->replies_per_s = (double)(replies - S->prev_replies) / dt;
	S->prev_replies = replies;
	S->prev_t_ns = now;
	return o->nexp > 0 && ended >= o->nexp;
}

static int should_stop(const struct pg_opts *o)
{
	if (stop_sig)
		return 1;
	if (o->until_file && access(o->until_file, F_OK) == 0)
		return 1;
	return o->pid && kill((pid_t)o->pid, 0) && errno == ESRCH;
}

static void emit(const struct pg_opts *o, const struct sw_pg_line *l)
{
	char line[512];
	sw_pg_format(l, line, sizeof(line));
	/* no prefix on a terminal: the line stays within 80 columns; the
	 * cursor goes back to its start, so that another process's message
	 * overwrites it rather than being appended to it */
	if (o->tty)
		fprintf(stderr, "\r\033[K%s\r", line);
	else
		fprintf(stderr, "%s%s%s\n", o->prefix ? o->prefix : "", o->prefix ? ": " : "", line);
	fflush(stderr);
}

int main(int argc, char **argv)
{
	struct pg_opts o;
	struct pg_state S;
	struct sw_pg_line l;
	char err[SWCTL_ERRLEN];
	struct swctl_tokfile tf;
	int rc = parse_args(argc, argv, &o);

	if (rc)
		return rc;
	memset(&S, 0, sizeof(S));
	if (o.url && (swctl_read_tokfile(o.token_file, &tf, err, sizeof(err)) ||
		      swctl_open(&S.ctl, o.url, &tf, 2000, err, sizeof(err)))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 2;
	}
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	int64_t t0 = sw_mono_ns(), next = t0 + (o.once ? 0 : (int64_t)(o.every_s * 1e9));
	int printed = 0;
	while (!should_stop(&o)) {
		int64_t now = sw_mono_ns();
		if (now >= next) {
			int done = compute(&o, &S, t0, &l);
			emit(&o, &l);
			printed = 1;
			if (o.once || done)
				break;
			next = now + (int64_t)(o.every_s * 1e9);
		}
		struct timespec ts = { 0, 200 * 1000000 };
		nanosleep(&ts, NULL);
	}
	if (o.tty && printed && !o.once)
		fputs("\r\033[K", stderr);
	else if (o.tty && o.once)
		fputc('\n', stderr);
	if (S.ctl)
		swctl_close(S.ctl);
	return 0;
}
