/* SPDX-License-Identifier: MIT */
/*
 * stalewin-probe: poll the attributes (and optionally stamped pages) of files
 * on NFS servers through libnfs' raw async API and log every observation.
 * See client/README.md and probe.h.
 */
#include "probe.h"

#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>

#include "parse.h"
#include "swtime.h"

static volatile sig_atomic_t got_signal;
static void on_signal(int sig) { got_signal = sig; }

static void usage(FILE *f)
{
	fputs("usage: stalewin-probe --url URL [--url URL ...] --log PATH [options]\n"
	      "  URL: nfs://HOST/EXPORT/FILE?version=3|4&nfsport=N&mountport=M\n"
	      "  --duration SEC        run length (default 10; 0 = until SIGINT/SIGTERM)\n"
	      "  --rate N|wire         GETATTRs/s per target, above 0 and at most 1000 (default\n"
	      "                        100: every 10 ms, the floor of its resolution),\n"
	      "                        or wire: flat out (on a multigrain server every query\n"
	      "                        makes the next ctime fine-grained: it changes what it sees)\n"
	      "  --depth N             GETATTRs in flight per target (default 1)\n"
	      "  --read-page N[,N...]  pages to READ (stamp at offset 0 decoded)\n"
	      "  --read-every K        one READ every K GETATTRs (default 1 with --read-page)\n"
	      "  --page-size BYTES     page size of the stamped file (default: this host's)\n"
	      "  --timeout-ms N        request timeout before a gap opens (default 1000)\n"
	      "  --connect-timeout-ms N  first connect, and each mount/look-up (default 5000)\n"
	      "  --backoff-max-ms N    reconnect back-off cap (default 500)\n"
	      "  --run-id HEX          64-bit run id of this log (default random)\n"
	      "  --writer-run-id HEX   flag stamps of another run (SW_READ_OTHERRUN)\n"
	      "  --force               overwrite an existing log\n"
	      "  --quiet | --status    live status line (default: on iff stderr is a tty)\n", f);
}

#define BAD(...) do { fprintf(stderr, "stalewin-probe: " __VA_ARGS__); fputc('\n', stderr); exit(2); } while (0)

/* After the options: what is missing, defaults that depend on others, and
 * every target's host resolvable (exits 2 with a message otherwise). */
static void check_args(int argc, char **argv, struct probe_opts *o)
{
	if (optind < argc)
		BAD("unexpected argument '%s' (targets are given with --url)", argv[optind]);
	if (!o->nurl)
		BAD("expected at least one --url nfs://HOST/EXPORT/FILE");
	if (!o->log_path)
		BAD("expected --log PATH");
	if (o->read_every && !o->nread_page)
		BAD("--read-every needs --read-page N[,N...]");
	if (o->nread_page && !o->read_every)
		o->read_every = 1;
	if (o->status < 0)
		o->status = isatty(2);
	if (!o->run_id)
		while (!o->run_id)
			if (getrandom(&o->run_id, sizeof(o->run_id), 0) != sizeof(o->run_id))
				o->run_id = (uint64_t)sw_real_ns() ^ ((uint64_t)getpid() << 32);
	for (unsigned i = 0; i < o->nurl; i++) {
		struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL;
		const char *h = o->url[i].host;
		char hb[256];
		if (h[0] == '[') { /* [v6] */
			snprintf(hb, sizeof(hb), "%s", h + 1);
			hb[strcspn(hb, "]")] = 0;
			h = hb;
		}
		int rc = getaddrinfo(h, NULL, &hints, &res);
		if (rc)
			BAD("target %u %s: unknown host '%s' (%s)", i, o->url[i].url, h,
			    gai_strerror(rc));
		freeaddrinfo(res);
	}
}

static void parse_args(int argc, char **argv, struct probe_opts *o)
{
	enum { O_TIMEOUT = 256, O_CTIMEOUT, O_BACKOFF, O_RUNID, O_WRUNID, O_PAGESZ,
	       O_FORCE, O_QUIET, O_STATUS, O_READPAGE, O_READEVERY };
	static const struct option lo[] = {
		{ "url", required_argument, 0, 'u' },
		{ "log", required_argument, 0, 'l' },
		{ "duration", required_argument, 0, 'd' },
		{ "rate", required_argument, 0, 'r' },
		{ "depth", required_argument, 0, 'D' },
		{ "read-page", required_argument, 0, O_READPAGE },
		{ "read-every", required_argument, 0, O_READEVERY },
		{ "page-size", required_argument, 0, O_PAGESZ },
		{ "timeout-ms", required_argument, 0, O_TIMEOUT },
		{ "connect-timeout-ms", required_argument, 0, O_CTIMEOUT },
		{ "backoff-max-ms", required_argument, 0, O_BACKOFF },
		{ "run-id", required_argument, 0, O_RUNID },
		{ "writer-run-id", required_argument, 0, O_WRUNID },
		{ "force", no_argument, 0, O_FORCE },
		{ "quiet", no_argument, 0, O_QUIET },
		{ "status", no_argument, 0, O_STATUS },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	uint64_t v;
	char err[512];
	int c;

	memset(o, 0, sizeof(*o));
	o->duration_s = 10;
	o->rate = PROBE_RATE_DEFAULT;
	o->depth = 1;
	o->timeout_ms = 1000;
	o->connect_timeout_ms = 5000;
	o->backoff_max_ms = 500;
	o->status = -1;
	o->page_size = (unsigned)sysconf(_SC_PAGESIZE);
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'u':
			if (o->nurl == PROBE_MAX_TARGETS)
				BAD("--url: at most %d targets", PROBE_MAX_TARGETS);
			if (sw_nfs_url_parse(optarg, &o->url[o->nurl], err, sizeof(err)))
				BAD("--url: %s", err);
			o->nurl++;
			break;
		case 'l': o->log_path = optarg; break;
		case 'd':
			if (sw_parse_double(optarg, 0, 1e9, &o->duration_s))
				BAD("--duration: expected seconds >= 0, saw '%s'", optarg);
			break;
		case 'r':
			if (!strcmp(optarg, "wire"))
				o->rate = 0;
			else if (sw_parse_double(optarg, 0, 1e300, &o->rate) || !(o->rate > 0) ||
				 o->rate > PROBE_RATE_MAX)
				BAD("--rate: expected GETATTRs/s per target above 0 and at most %d (it paces "
				    "with poll()'s 1 ms: faster is 'wire'), or 'wire' (flat out), saw '%s'",
				    PROBE_RATE_MAX, optarg);
			break;
		case 'D':
			if (sw_parse_u64(optarg, 10, 0, 1, 1024, &v))
				BAD("--depth: expected 1..1024, saw '%s'", optarg);
			o->depth = (unsigned)v;
			break;
		case O_READPAGE: {
			char buf[1024], *save = NULL, *tok;
			snprintf(buf, sizeof(buf), "%s", optarg);
			for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				if (o->nread_page == PROBE_MAX_PAGES)
					BAD("--read-page: at most %d pages", PROBE_MAX_PAGES);
				if (sw_parse_u64(tok, 10, 0, 0, 1ull << 40, &v))
					BAD("--read-page: expected page numbers N[,N...], saw '%s'", tok);
				o->read_page[o->nread_page++] = v;
			}
			if (!o->nread_page)
				BAD("--read-page: expected page numbers N[,N...], saw '%s'", optarg);
			break;
		}
		case O_READEVERY:
			if (sw_parse_u64(optarg, 10, 0, 1, 1u << 30, &v))
				BAD("--read-every: expected K >= 1, saw '%s'", optarg);
			o->read_every = (unsigned)v;
			break;
		case O_PAGESZ:
			if (sw_parse_u64(optarg, 10, 0, 64, 1u << 24, &v))
				BAD("--page-size: expected 64..16M bytes, saw '%s'", optarg);
			o->page_size = (unsigned)v;
			break;
		case O_TIMEOUT:
		case O_CTIMEOUT:
		case O_BACKOFF:
			if (sw_parse_u64(optarg, 10, 0, 1, 3600000, &v))
				BAD("--%s: expected 1..3600000 ms, saw '%s'",
				    c == O_TIMEOUT ? "timeout-ms" : c == O_CTIMEOUT ?
				    "connect-timeout-ms" : "backoff-max-ms", optarg);
			*(c == O_TIMEOUT ? &o->timeout_ms : c == O_CTIMEOUT ?
			  &o->connect_timeout_ms : &o->backoff_max_ms) = (unsigned)v;
			break;
		case O_RUNID:
		case O_WRUNID:
			if (sw_parse_u64(optarg, 16, 0, 1, UINT64_MAX, &v))
				BAD("--%s: expected a non-zero 64-bit hex number, saw '%s'",
				    c == O_RUNID ? "run-id" : "writer-run-id", optarg);
			*(c == O_RUNID ? &o->run_id : &o->writer_run_id) = v;
			break;
		case O_FORCE: o->force = 1; break;
		case O_QUIET: o->status = 0; break;
		case O_STATUS: o->status = 1; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	check_args(argc, argv, o);
}

static void status_line(struct probe *p, double dt_s, int final)
{
	char line[1024];
	size_t n = 0;
	int64_t now = sw_real_ns();
	for (unsigned i = 0; i < p->nt && n < sizeof(line) - 200; i++) {
		struct probe_target *t = &p->t[i];
		const struct sw_hist *h = final ? t->rtt_all : t->rtt_win;
		double rate = final ? (double)t->replies / dt_s : (double)t->win_replies / dt_s;
		char chg[64] = "never";
		if (t->t_last_change_real_ns)
			snprintf(chg, sizeof(chg), "%.1fs ago",
				 (double)(now - t->t_last_change_real_ns) / 1e9);
		n += (size_t)snprintf(line + n, sizeof(line) - n,
			"%st%u v%d %s %.0f/s rtt p50 %.0fus p99 %.0fus chg %s err %llu gaps %llu%s",
			i ? " | " : "", i, t->u->version,
			final || t->state == TS_READY ? "" : t->in_gap ? "GAP" : "wait", rate,
			(double)sw_hist_quantile(h, 0.5) / 1e3,
			(double)sw_hist_quantile(h, 0.99) / 1e3, chg,
			(unsigned long long)t->errors, (unsigned long long)t->gaps,
			t->in_gap ? " (open)" : "");
		sw_hist_init(t->rtt_win);
		t->win_replies = 0;
	}
	fprintf(stderr, final ? "\r%s\033[K\n" : "\r%s\033[K", line);
}

/* Stop with an error: NOTE + END(ERROR) in the log, one line on stderr. */
static void die_run(struct probe *p, int code, int err, const char *msg)
{
	fprintf(stderr, "%sstalewin-probe: %s\n", p->o->status ? "\n" : "", msg);
	if (p->log) {
		p->stopping = 1;
		for (unsigned i = 0; i < p->nt; i++)
			probe_target_teardown(&p->t[i], -ECANCELED);
		if (!p->log_err)
			swlog_note(p->log, SW_NOTE_ERROR, "%s", msg);
		probe_log_end(p, SW_END_ERROR, err < 0 ? -err : err);
		swlog_close(p->log);
	}
	exit(code);
}

/* One target's turn in the event loop: tear down what failed, give up on
 * a target that never answered, send what its rate allows; *wake is
 * lowered to when it next needs the loop. */
static void target_step(struct probe *p, unsigned i, int64_t now, int64_t t0,
			int64_t period, int64_t *wake)
{
	const struct probe_opts *o = p->o;
	struct probe_target *t = &p->t[i];
	char msg[1024];

	if (t->want_teardown) {
		if (!t->ever_ready && t->last_err_fatal) {
			snprintf(msg, sizeof(msg), "target %u %s: %s", i, t->u->url, t->why);
			die_run(p, 2, t->want_teardown, msg);
		}
		probe_target_teardown(t, t->want_teardown);
	}
	if (!t->ever_ready && now - t0 > (int64_t)o->connect_timeout_ms * SW_NS_PER_MS) {
		snprintf(msg, sizeof(msg), "target %u %s: no usable answer from %s within %.1f s (%s%s)",
			 i, t->u->url, t->u->host, o->connect_timeout_ms / 1000.0,
			 t->last_err[0] ? "last error: " : "still waiting for the reply to the ",
			 t->last_err[0] ? t->last_err :
			 t->state == TS_MOUNTING ? (t->u->version == 3 ? "mount" : "connect") : "look-up");
		die_run(p, 1, ETIMEDOUT, msg);
	}
	probe_target_tick(t, now);
	if (t->state == TS_READY && !p->stopping && !t->want_teardown) {
		while (t->inflight_attr < o->depth && !t->want_teardown &&
		       t->state == TS_READY && (!period || now >= t->t_next_send_mono_ns)) {
			if (probe_target_send_attr(t))
				break;
			if (o->read_every && t->attrs_sent % o->read_every == 0)
				probe_target_send_read(t);
			if (period) {
				t->t_next_send_mono_ns += period;
				if (t->t_next_send_mono_ns < now - period)
					t->t_next_send_mono_ns = now; /* fell behind: no burst */
			}
		}
		if (period && t->t_next_send_mono_ns < *wake && t->inflight_attr < o->depth)
			*wake = t->t_next_send_mono_ns;
	}
	if ((t->state == TS_BACKOFF || t->state == TS_LOOKUP_WAIT) && t->t_next_mono_ns < *wake)
		*wake = t->t_next_mono_ns;
}

/* The end of a run: tear every target down, close open gaps, log END,
 * close the log.  The exit code. */
static int probe_finish(struct probe *p, uint32_t reason, int64_t t0)
{
	int rc;

	for (unsigned i = 0; i < p->nt; i++) {
		struct probe_target *t = &p->t[i];
		probe_target_teardown(t, -ECANCELED);
		if (t->in_gap) { /* still open: t_end 0 (documented in the meta) */
			probe_log_gap(p, &t->gap);
			t->gaps++;
		}
	}
	if (p->o->status)
		status_line(p, (double)(sw_mono_ns() - t0) / 1e9, 1);
	probe_log_end(p, reason, 0);
	rc = swlog_close(p->log);
	for (unsigned i = 0; i < p->nt; i++)
		probe_target_free(&p->t[i]);
	if (rc || p->log_err) {
		fprintf(stderr, "stalewin-probe: closing the log %s failed: %s\n", p->o->log_path,
			strerror(-(rc ? rc : p->log_err)));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct probe_opts o;
	static struct probe p;
	struct sigaction sa = { .sa_handler = on_signal };
	struct pollfd pfd[PROBE_MAX_TARGETS];
	int pidx[PROBE_MAX_TARGETS];
	char err[SWLOG_ERRLEN], msg[1024];
	uint32_t reason = SW_END_DONE;
	char *meta;
	int rc;

	parse_args(argc, argv, &o);
	p.o = &o;
	p.nt = o.nurl;
	meta = probe_meta_json(&o, argc, argv);
	rc = swlog_create(&p.log, o.log_path, o.force, SWLOG_KIND_PROBE, o.run_id, meta, 0, err);
	free(meta);
	if (rc) {
		fprintf(stderr, "stalewin-probe: %s%s\n", err,
			rc == -EEXIST ? " (use --force to overwrite)" : "");
		return rc == -EEXIST ? 2 : 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	for (unsigned i = 0; i < p.nt; i++) {
		if (probe_target_init(&p, &p.t[i], i))
			die_run(&p, 1, ENOMEM, "out of memory");
		probe_target_connect(&p.t[i]);
	}

	const int64_t t0 = sw_mono_ns();
	const int64_t t_end = o.duration_s > 0 ? t0 + (int64_t)(o.duration_s * 1e9) : INT64_MAX;
	const int64_t period = o.rate > 0 ? (int64_t)(1e9 / o.rate) : 0;
	const int64_t tick = (int64_t)(o.timeout_ms < 400 ? o.timeout_ms / 4 + 1 : 100) * SW_NS_PER_MS;
	int64_t t_status = t0 + 500 * SW_NS_PER_MS, t_drain = 0, t_last_status = t0;
	int all_ready_once = 0;

	for (;;) {
		int64_t now = sw_mono_ns(), wake = now + tick;
		unsigned inflight = 0, np = 0;

		if (!p.stopping && (got_signal || now >= t_end)) {
			p.stopping = 1;
			reason = got_signal ? SW_END_SIGNAL : SW_END_DONE;
			t_drain = now + (int64_t)(o.timeout_ms < 1000 ? o.timeout_ms : 1000) * SW_NS_PER_MS;
		}
		all_ready_once = 1;
		for (unsigned i = 0; i < p.nt; i++) {
			struct probe_target *t = &p.t[i];
			target_step(&p, i, now, t0, period, &wake);
			if (!t->ever_ready)
				all_ready_once = 0;
			inflight += t->inflight;
			if (t->rpc && !t->want_teardown) { /* never service a failed context */
				int fd = rpc_get_fd(t->rpc);
				if (fd >= 0) {
					pfd[np].fd = fd;
					pfd[np].events = (short)rpc_which_events(t->rpc);
					pfd[np].revents = 0;
					pidx[np++] = (int)i;
				}
			}
		}
		if (p.log_err) {
			snprintf(msg, sizeof(msg), "writing the log %s failed: %s", o.log_path,
				 swlog_strerror(p.log));
			die_run(&p, 1, p.log_err, msg);
		}
		for (unsigned i = 0; p.stopping && reason == SW_END_DONE && i < p.nt; i++)
			if (!p.t[i].ever_ready) {
				snprintf(msg, sizeof(msg), "target %u %s: no usable answer from %s during the run's %.1f s (last error: %s)",
					 i, p.t[i].u->url, p.t[i].u->host, (double)(now - t0) / 1e9,
					 p.t[i].last_err[0] ? p.t[i].last_err : "none");
				die_run(&p, 1, ETIMEDOUT, msg);
			}
		if (p.stopping && (inflight == 0 || now >= t_drain))
			break;
		if (o.status && all_ready_once && now >= t_status) {
			status_line(&p, (double)(now - t_last_status) / 1e9, 0);
			t_last_status = now;
			t_status = now + 500 * SW_NS_PER_MS;
		}
		if (!p.stopping && t_end < wake)
			wake = t_end;
		int ms = wake > now ? (int)((wake - now + SW_NS_PER_MS - 1) / SW_NS_PER_MS) : 0;
		rc = poll(pfd, np, ms);
		if (rc < 0 && errno != EINTR)
			die_run(&p, 1, errno, "poll failed");
		for (unsigned k = 0; rc > 0 && k < np; k++) {
			struct probe_target *t = &p.t[pidx[k]];
			if (!pfd[k].revents || !t->rpc || t->want_teardown)
				continue;
			if (rpc_service(t->rpc, pfd[k].revents) < 0)
				probe_target_fail(t, -ECONNRESET, "connection to %s lost: %s", t->u->host,
					    rpc_get_error(t->rpc) ? rpc_get_error(t->rpc) :
					    "closed by the server");
		}
	}

	return probe_finish(&p, reason, t0);
}
