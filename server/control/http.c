/* SPDX-License-Identifier: MIT */
/*
 * control/http.c - `stalewin-writer serve`: the control API (common/control.h)
 * over HTTP with libmicrohttpd, one thread per connection (a start request
 * waits for its child while clock and status requests keep being answered).
 * What each request means is route.c's (control_route.h); this file moves
 * requests and replies between libmicrohttpd and it.
 *
 *   stalewin-writer serve --token-file F --root DIR --runs DIR
 *       [--listen HOST:PORT] [--tls | --insecure-private-link] [--allow CIDR]...
 *       [--url-file F] [--writer EXE]
 *
 * Off loopback TLS is required (common/control.h "Off loopback"; the rule
 * is guard.c's ctl_listen_rule, the certificate tls.c's), clients outside
 * --allow are refused at accept and each client is rate-limited (guard.c).
 * --listen defaults to 127.0.0.1:0 (any free port); the URL actually bound is
 * printed on stderr and, with --url-file, written there (atomically) once the
 * server answers, so a script can wait for that file.  The token file is
 * created fresh (0600) with 32 random bytes in hex, and removed at exit.
 * SIGINT/SIGTERM: stop the active run (SIGTERM, wait), then exit 0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "control.h"
#include "parse.h"
#include "control_guard.h"
#include "control_http.h"
#include "control_route.h"
#include "control_runs.h"
#include "control_tls.h"
#include "swtime.h"

#define PROG "stalewin-writer serve"
#define SERVE_MAX_ALLOW 32 /* --allow networks */

struct srv {
	char token[2 * SW_CTL_TOKEN_BYTES + 1]; /* hex */
	struct ctl_runs *runs;
	struct ctl_guard *guard;               /* allow-list, rate per client */
	struct ctl_tls tls;                    /* --tls: certificate, key, pin */
	int quiet;                             /* no access log */
};

/* per-request state, kept in *con_cls */
struct req {
	char *body;     /* accumulated upload, NUL-terminated */
	size_t len;     /* bytes in body */
	int too_large;  /* upload exceeded SW_CTL_MAX_BODY */
	int seen;       /* first call done (auth checked) */
};

/* j (consumed) as the body; hdr: one more header, or NULL */
static enum MHD_Result send_json_hdr(struct MHD_Connection *c, unsigned code, json_t *j,
				     const char *hdr, const char *val)
{
	char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	struct MHD_Response *r;
	enum MHD_Result ret;

	json_decref(j);
	if (!s)
		return MHD_NO;
	size_t n = strlen(s);
	s[n] = '\n'; /* replace the NUL: one line per reply */
	r = MHD_create_response_from_buffer(n + 1, s, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(s);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
	if (hdr)
		MHD_add_response_header(r, hdr, val);
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result send_json(struct MHD_Connection *c, unsigned code, json_t *j)
{
	return send_json_hdr(c, code, j, NULL, NULL);
}

static enum MHD_Result send_err(struct MHD_Connection *c, unsigned code,
				const char *msg)
{
	return send_json(c, code, json_pack("{s:s}", SW_CTL_F_ERROR, msg));
}

static enum MHD_Result send_file(struct MHD_Connection *c, const char *path,
				 const char *ctype)
{
	struct MHD_Response *r;
	struct stat st;
	enum MHD_Result ret;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st)) {
		char m[PATH_MAX + 64];
		snprintf(m, sizeof(m), "cannot open %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return send_err(c, SW_CTL_HTTP_INTERNAL, m);
	}
	r = MHD_create_response_from_fd((uint64_t)st.st_size, fd); /* owns fd */
	if (!r) {
		close(fd);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	ret = MHD_queue_response(c, SW_CTL_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/* A route's answer (control_route.h): its JSON object or its file. */
static enum MHD_Result send_reply(struct MHD_Connection *c, struct ctl_reply *rp)
{
	if (rp->json)
		return send_json(c, rp->code, rp->json);
	return send_file(c, rp->file, rp->ctype);
}

/* The allow-list, at accept: an outsider never reaches TLS or HTTP. */
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *sa, socklen_t len)
{
	struct srv *S = cls;
	const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
	unsigned long more = 0;
	char a[INET_ADDRSTRLEN] = "?";

	if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(*in) &&
	    ctl_guard_allowed(S->guard, ntohl(in->sin_addr.s_addr)))
		return MHD_YES;
	if (ctl_guard_outsider_log(S->guard, sw_mono_ns(), &more)) {
		if (sa->sa_family == AF_INET)
			inet_ntop(AF_INET, &in->sin_addr, a, sizeof(a));
		fprintf(stderr, PROG ": %s: connection refused: not on the --allow list "
			"(%lu more refused since the last line)\n", a, more);
	}
	return MHD_NO;
}

/* The client's token bucket: 1 when answered 429 already. */
static int over_rate(struct srv *S, struct MHD_Connection *c, const struct ctl_request *rq,
		     enum MHD_Result *ret)
{
	const char *method = rq->method, *url = rq->url, *name = ctl_route_client(S->token, rq);
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr_in *in = ci ? (const struct sockaddr_in *)ci->client_addr : NULL;
	unsigned long more;
	char a[INET_ADDRSTRLEN] = "?", m[200], ra[16];
	int log, retry;

	if (!in || in->sin_family != AF_INET)
		return 0;
	retry = ctl_guard_take(S->guard, ntohl(in->sin_addr.s_addr), name, sw_mono_ns(), &log, &more);
	if (!retry)
		return 0;
	inet_ntop(AF_INET, &in->sin_addr, a, sizeof(a));
	if (log)
		fprintf(stderr, PROG ": %s%s%s: %s %.200s: 429, over %d requests/s (burst %d); %lu "
			"more refused since the last line\n", a, name ? " client " : "",
			name ? name : "", method, url, SW_CTL_RATE_PER_S, SW_CTL_RATE_BURST, more);
	snprintf(m, sizeof(m), "expected at most %d requests/s from one client (burst %d), saw "
		 "more from %s%s%s: retry after %d s", SW_CTL_RATE_PER_S, SW_CTL_RATE_BURST, a,
		 name ? " client " : "", name ? name : "", retry);
	snprintf(ra, sizeof(ra), "%d", retry);
	*ret = send_json_hdr(c, SW_CTL_HTTP_TOO_MANY,
			     json_pack("{s:s}", SW_CTL_F_ERROR, m), MHD_HTTP_HEADER_RETRY_AFTER, ra);
	return 1;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c,
			       const char *url, const char *method,
			       const char *version, const char *upload,
			       size_t *upload_size, void **con_cls)
{
	struct srv *S = cls;
	struct req *q = *con_cls;
	struct ctl_reply rp;
	(void)version;

	if (!q) {
		enum MHD_Result ret;
		struct ctl_request rq = {
			.method = method, .url = url,
			.authorization = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
								     MHD_HTTP_HEADER_AUTHORIZATION),
			.content_length = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
								      MHD_HTTP_HEADER_CONTENT_LENGTH),
			.client = MHD_lookup_connection_value(c, MHD_HEADER_KIND, SW_CTL_HDR_CLIENT),
		};
		if (over_rate(S, c, &rq, &ret))
			return ret;
		q = calloc(1, sizeof(*q));
		if (!q)
			return MHD_NO;
		*con_cls = q;
		q->seen = 1;
		if (ctl_route_head(S->token, &rq, &rp)) {
			if (!S->quiet && rp.code == SW_CTL_HTTP_UNAUTHORIZED)
				fprintf(stderr, PROG ": %s %s: 401 (bad or missing token)\n", method, url);
			return send_reply(c, &rp);
		}
		return MHD_YES;
	}
	if (*upload_size) {
		if (!q->too_large && q->len + *upload_size <= SW_CTL_MAX_BODY) {
			char *b = realloc(q->body, q->len + *upload_size + 1);
			if (!b)
				return MHD_NO;
			memcpy(b + q->len, upload, *upload_size);
			q->body = b;
			q->len += *upload_size;
			b[q->len] = 0;
		} else {
			q->too_large = 1;
		}
		*upload_size = 0;
		return MHD_YES;
	}
	struct ctl_request rq = { .method = method, .url = url, .body = q->body, .len = q->len,
				  .too_large = q->too_large };
	ctl_route(S->runs, &rq, &rp);
	enum MHD_Result r = send_reply(c, &rp);
	if (!S->quiet && strcmp(url, SW_CTL_ROUTE_CLOCK))
		fprintf(stderr, PROG ": %s %s\n", method, url);
	return r;
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
		      enum MHD_RequestTerminationCode toe)
{
	struct req *q = *con_cls;
	(void)cls;
	(void)c;
	(void)toe;
	if (q) {
		free(q->body);
		free(q);
		*con_cls = NULL;
	}
}

/* ------------------------------------------------------------------ */

static int write_file_atomic(const char *path, const char *text, mode_t mode,
			     char *err, size_t errlen)
{
	char tmp[PATH_MAX + 32];
	int fd;
	size_t n = strlen(text);

	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0 || fchmod(fd, mode) || write(fd, text, n) != (ssize_t)n ||
	    fsync(fd) || close(fd) || rename(tmp, path)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* The token file (common/control.h): the token, then the lines a client
 * needs to trust the URL: the TLS pin, or the private link's address. */
static int make_token(struct srv *S, const char *path, const char *pin, const char *plain,
		      char *err, size_t errlen)
{
	unsigned char b[SW_CTL_TOKEN_BYTES];
	char text[sizeof(S->token) + 200];
	size_t got = 0;

	while (got < sizeof(b)) {
		ssize_t n = getrandom(b + got, sizeof(b) - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "getrandom failed: %s", strerror(errno));
			return -1;
		}
		got += (size_t)n;
	}
	for (size_t i = 0; i < sizeof(b); i++)
		snprintf(S->token + 2 * i, 3, "%02x", b[i]);
	snprintf(text, sizeof(text), "%s\n%s%s%s%s%s%s", S->token, pin ? SW_CTL_TOKFILE_PIN " " : "",
		 pin ? pin : "", pin ? "\n" : "", plain ? SW_CTL_TOKFILE_PLAIN " " : "",
		 plain ? plain : "", plain ? "\n" : "");
	return write_file_atomic(path, text, 0600, err, errlen);
}

/* --listen IPV4:PORT: *addr (host order) and *port, or -1 */
static int parse_listen(const char *spec, uint32_t *addr, uint16_t *port, char *host,
			size_t hostlen, char *err, size_t errlen)
{
	const char *colon = strrchr(spec, ':');
	struct in_addr ia;
	char *end;
	long p;

	if (!colon || (size_t)(colon - spec) >= hostlen) {
		snprintf(err, errlen, "expected --listen HOST:PORT (IPv4), saw '%s'", spec);
		return -1;
	}
	snprintf(host, hostlen, "%.*s", (int)(colon - spec), spec);
	p = strtol(colon + 1, &end, 10);
	if (!colon[1] || *end || p < 0 || p > 65535 || inet_pton(AF_INET, host, &ia) != 1) {
		snprintf(err, errlen, "expected --listen IPV4:PORT (port 0..65535), saw '%s'", spec);
		return -1;
	}
	*addr = ntohl(ia.s_addr);
	*port = (uint16_t)p;
	return 0;
}

static int listen_socket(const char *spec, const char *host, uint32_t addr, uint16_t port,
			 int tls, int *out_fd, char *url, size_t urllen, char *err, size_t errlen)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(addr) };
	socklen_t sl = sizeof(sa);
	int fd, one = 1;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 32) ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl)) {
		snprintf(err, errlen, "cannot listen on %s: %s", spec, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	snprintf(url, urllen, "%s://%s:%u", tls ? "https" : "http", host, ntohs(sa.sin_port));
	*out_fd = fd;
	return 0;
}

static void serve_usage(FILE *f)
{
	fprintf(f,
"usage: stalewin-writer serve --token-file F --root DIR --runs DIR\n"
"           [--listen HOST:PORT] [--tls | --insecure-private-link]\n"
"           [--allow CIDR]... [--url-file F] [--writer EXE] [--quiet]\n"
"  --listen    IPv4 address and port (default 127.0.0.1:0 = any free port)\n"
"  --tls       HTTPS with a certificate made fresh for this serve (EC P-256,\n"
"              self-signed, %d days); its key's pin goes into the token file.\n"
"              Required off loopback\n"
"  --insecure-private-link  plain HTTP off loopback, only on a private address\n"
"              (10/8, 172.16/12, 192.168/16) of a link no other host shares\n"
"              (the qemu guests' socket link); written into the token file\n"
"  --allow     client network IPV4[/BITS], repeatable; off loopback at least\n"
"              one is required and every other client is refused at connect\n"
"  --token-file  written fresh (0600): the bearer token every request needs,\n"
"              and the TLS pin (common/control.h, \"The token file\")\n"
"  --root      every run's \"file\" must lie under this folder\n"
"  --runs      run folders (writer.swlog, status.json, stderr.txt) go here\n"
"  --url-file  the URL bound, written once the server answers\n"
"  --writer    executable a run starts (default: this one, /proc/self/exe)\n"
"  Each client address may send %d requests at once and %d a second after\n"
"  that; more are answered 429 (Retry-After) and logged.\n"
"  API: see common/control.h (GET /v1/clock, POST /v1/runs, GET /v1/status,\n"
"       POST /v1/stop, GET /v1/runs/<id>/log, GET /v1/info)\n",
		CTL_TLS_VALID_DAYS, SW_CTL_RATE_BURST, SW_CTL_RATE_PER_S);
}

struct serve_opts {
	const char *listen, *token_file, *root, *runs, *url_file, *writer;
	int tls, plain_private, quiet;
	struct ctl_cidr allow[SERVE_MAX_ALLOW];
	size_t n_allow;
};

/* 0 to serve, else the exit code (after --help: 0 through *done) */
static int serve_opts(int argc, char **argv, struct serve_opts *o, int *done)
{
	static const struct option lo[] = {
		SW_OPT_ARG("listen", 'L'),
		SW_OPT_ARG("token-file", 't'),
		SW_OPT_ARG("root", 'r'),
		SW_OPT_ARG("runs", 'R'),
		SW_OPT_ARG("url-file", 'u'),
		SW_OPT_ARG("writer", 'w'),
		SW_OPT_FLAG("tls", 'T'),
		SW_OPT_FLAG("insecure-private-link", 'I'),
		SW_OPT_ARG("allow", 'A'),
		SW_OPT_FLAG("quiet", 'q'),
		SW_OPT_FLAG("help", 'h'),
		SW_OPT_END,
	};
	char err[300];
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case 'L': o->listen = optarg; break;
		case 't': o->token_file = optarg; break;
		case 'r': o->root = optarg; break;
		case 'R': o->runs = optarg; break;
		case 'u': o->url_file = optarg; break;
		case 'w': o->writer = optarg; break;
		case 'T': o->tls = 1; break;
		case 'I': o->plain_private = 1; break;
		case 'A':
			if (o->n_allow == SERVE_MAX_ALLOW) {
				fprintf(stderr, PROG ": expected at most %d --allow, saw more\n",
					SERVE_MAX_ALLOW);
				return 2;
			}
			if (ctl_cidr_parse(optarg, &o->allow[o->n_allow++], err, sizeof(err))) {
				fprintf(stderr, PROG ": %s\n", err);
				return 2;
			}
			break;
		case 'q': o->quiet = 1; break;
		case 'h': serve_usage(stdout); *done = 1; return 0;
		case ':':
			fprintf(stderr, PROG ": option %s needs a value\n", argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, PROG ": unknown option '%s' (see --help)\n", argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!o->token_file || !o->root || !o->runs) {
		fprintf(stderr, PROG ": expected --token-file, --root and --runs (see --help)\n");
		return 2;
	}
	return 0;
}

/* The listen rule, the socket, the certificate, the guard, the token:
 * 0, or the exit code with everything made so far undone. */
static int serve_setup(struct srv *S, const struct serve_opts *o, int *fd, char *url,
		       size_t urllen)
{
	char err[1024], host[64], ahost[64];
	uint32_t addr;
	uint16_t port;

	if (parse_listen(o->listen, &addr, &port, host, sizeof(host), err, sizeof(err)) ||
	    ctl_listen_rule(addr, o->tls, o->plain_private, o->n_allow, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 2;
	}
	if (o->tls && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		fprintf(stderr, PROG ": expected a libmicrohttpd with TLS (GnuTLS) for --tls, saw "
			"one without\n");
		return 1;
	}
	if (o->tls && ctl_tls_make(&S->tls, addr, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	S->guard = ctl_guard_new(o->allow, o->n_allow, SW_CTL_RATE_PER_S, SW_CTL_RATE_BURST,
				 SW_CTL_CLIENTS_PER_ADDR);
	if (!S->guard) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	if (listen_socket(o->listen, host, addr, port, o->tls, fd, url, urllen, err,
			  sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return errno == EADDRINUSE ? 1 : 2;
	}
	snprintf(ahost, sizeof(ahost), "%s", host);
	if (make_token(S, o->token_file, o->tls ? S->tls.pin : NULL,
		       o->plain_private ? ahost : NULL, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		close(*fd);
		return 1;
	}
	return 0;
}

static void serve_free(struct srv *S)
{
	ctl_guard_free(S->guard);
	ctl_tls_free(&S->tls);
	ctl_runs_shutdown(S->runs);
}

int sw_control_main(int argc, char **argv)
{
	struct serve_opts o = { .listen = "127.0.0.1:0" };
	struct srv S = { .quiet = 0 };
	struct MHD_Daemon *d;
	char err[1024], url[128], line[160];
	sigset_t set;
	int fd, sig, rc, done = 0;

	if ((rc = serve_opts(argc, argv, &o, &done)) || done)
		return rc;
	S.quiet = o.quiet;
	if (ctl_runs_init(&S.runs, o.root, o.runs, o.writer, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 2;
	}
	if ((rc = serve_setup(&S, &o, &fd, url, sizeof(url)))) {
		serve_free(&S);
		return rc;
	}
	/* every thread (MHD's and the reapers) inherits this mask; children
	 * get an empty one (control/runs.c) */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);

	struct MHD_OptionItem tls_opts[] = { /* the certificate, or nothing */
		{ o.tls ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, S.tls.key_pem },
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, S.tls.cert_pem },
		{ MHD_OPTION_END, 0, NULL },
	};
	d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
			     MHD_USE_ERROR_LOG | (o.tls ? MHD_USE_TLS : 0), 0, accept_policy, &S,
			     handler, &S,
			     MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)64, /* a thread each */
			     MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)SW_CTL_CONN_PER_CLIENT,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(SW_CTL_MAX_BODY * 4),
			     MHD_OPTION_ARRAY, tls_opts,
			     MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, PROG ": libmicrohttpd could not start on %s\n", url);
		close(fd);
		unlink(o.token_file);
		serve_free(&S);
		return 1;
	}
	fprintf(stderr, PROG ": listening on %s (token%s in %s, root %s; %s)\n", url,
		o.tls ? " and TLS pin" : "", o.token_file, o.root,
		o.n_allow ? "clients outside the --allow list refused" : "any local client");
	snprintf(line, sizeof(line), "%s\n", url);
	if (o.url_file && write_file_atomic(o.url_file, line, 0644, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		rc = 1;
	}
	while (!rc) {
		if (sigwait(&set, &sig) == 0) {
			fprintf(stderr, PROG ": %s: stopping\n", strsignal(sig));
			break;
		}
	}
	{ /* the active run first, so its log is whole */
		json_t *resp = NULL;
		json_decref((ctl_runs_stop(S.runs, &resp), resp));
	}
	MHD_stop_daemon(d); /* joins the connection threads, closes fd */
	serve_free(&S);
	unlink(o.token_file);
	if (o.url_file)
		unlink(o.url_file);
	return rc;
}
