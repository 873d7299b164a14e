/* SPDX-License-Identifier: MIT */
/*
 * control/http.c - `stalewin-writer serve`: the control API (common/control.h)
 * over HTTP with libmicrohttpd, one thread per connection (a start request
 * waits for its child while clock and status requests keep being answered).
 * What each request means is route.c's (control_route.h); this file moves
 * requests and replies between libmicrohttpd and it.
 *
 *   stalewin-writer serve --token-file F --root DIR --runs DIR
 *       [--listen HOST:PORT] [--url-file F] [--writer EXE]
 *
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
#include "control_http.h"
#include "control_route.h"
#include "control_runs.h"

#define PROG "stalewin-writer serve"

struct srv {
	char token[2 * SW_CTL_TOKEN_BYTES + 1]; /* hex */
	struct ctl_runs *runs;
	int quiet;                             /* no access log */
};

/* per-request state, kept in *con_cls */
struct req {
	char *body;     /* accumulated upload, NUL-terminated */
	size_t len;     /* bytes in body */
	int too_large;  /* upload exceeded SW_CTL_MAX_BODY */
	int seen;       /* first call done (auth checked) */
};

static enum MHD_Result send_json(struct MHD_Connection *c, unsigned code,
				 json_t *j)
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
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
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
		struct ctl_request rq = {
			.method = method, .url = url,
			.authorization = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
								     MHD_HTTP_HEADER_AUTHORIZATION),
			.content_length = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
								      MHD_HTTP_HEADER_CONTENT_LENGTH),
		};
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

static int make_token(struct srv *S, const char *path, char *err, size_t errlen)
{
	unsigned char b[SW_CTL_TOKEN_BYTES];
	char line[sizeof(S->token) + 1];
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
	snprintf(line, sizeof(line), "%s\n", S->token);
	return write_file_atomic(path, line, 0600, err, errlen);
}

static int listen_socket(const char *spec, int *out_fd, char *url, size_t urllen,
			 char *err, size_t errlen)
{
	char host[64];
	const char *colon = strrchr(spec, ':');
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	char *end;
	long port;
	int fd, one = 1;

	if (!colon || (size_t)(colon - spec) >= sizeof(host)) {
		snprintf(err, errlen, "expected --listen HOST:PORT (IPv4), saw '%s'", spec);
		return -1;
	}
	snprintf(host, sizeof(host), "%.*s", (int)(colon - spec), spec);
	port = strtol(colon + 1, &end, 10);
	if (!colon[1] || *end || port < 0 || port > 65535 ||
	    inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
		snprintf(err, errlen, "expected --listen IPV4:PORT (port 0..65535), saw '%s'", spec);
		return -1;
	}
	sa.sin_port = htons((uint16_t)port);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 32) ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl)) {
		snprintf(err, errlen, "cannot listen on %s: %s", spec, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	snprintf(url, urllen, "http://%s:%u", host, ntohs(sa.sin_port));
	*out_fd = fd;
	return 0;
}

static void serve_usage(FILE *f)
{
	fprintf(f,
"usage: stalewin-writer serve --token-file F --root DIR --runs DIR\n"
"           [--listen HOST:PORT] [--url-file F] [--writer EXE] [--quiet]\n"
"  --listen    IPv4 address and port (default 127.0.0.1:0 = any free port)\n"
"  --token-file  written fresh (0600) with the bearer token every request needs\n"
"  --root      every run's \"file\" must lie under this folder\n"
"  --runs      run folders (writer.swlog, status.json, stderr.txt) go here\n"
"  --url-file  the URL bound, written once the server answers\n"
"  --writer    executable a run starts (default: this one, /proc/self/exe)\n"
"  API: see common/control.h (GET /v1/clock, POST /v1/runs, GET /v1/status,\n"
"       POST /v1/stop, GET /v1/runs/<id>/log, GET /v1/info)\n");
}

int sw_control_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "listen", required_argument, NULL, 'L' },
		{ "token-file", required_argument, NULL, 't' },
		{ "root", required_argument, NULL, 'r' },
		{ "runs", required_argument, NULL, 'R' },
		{ "url-file", required_argument, NULL, 'u' },
		{ "writer", required_argument, NULL, 'w' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *listen_spec = "127.0.0.1:0", *token_file = NULL, *root = NULL;
	const char *runs = NULL, *url_file = NULL, *writer = NULL;
	struct srv S = { .quiet = 0 };
	struct MHD_Daemon *d;
	char err[1024], url[128], line[160];
	sigset_t set;
	int c, fd, sig, rc = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case 'L': listen_spec = optarg; break;
		case 't': token_file = optarg; break;
		case 'r': root = optarg; break;
		case 'R': runs = optarg; break;
		case 'u': url_file = optarg; break;
		case 'w': writer = optarg; break;
		case 'q': S.quiet = 1; break;
		case 'h': serve_usage(stdout); return 0;
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
	if (!token_file || !root || !runs) {
		fprintf(stderr, PROG ": expected --token-file, --root and --runs (see --help)\n");
		return 2;
	}
	if (ctl_runs_init(&S.runs, root, runs, writer, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return 2;
	}
	if (listen_socket(listen_spec, &fd, url, sizeof(url), err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		ctl_runs_shutdown(S.runs);
		return errno == EADDRINUSE ? 1 : 2;
	}
	if (make_token(&S, token_file, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		close(fd);
		ctl_runs_shutdown(S.runs);
		return 1;
	}
	/* every thread (MHD's and the reapers) inherits this mask; children
	 * get an empty one (control/runs.c) */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);

	d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
			     MHD_USE_ERROR_LOG, 0, NULL, NULL, handler, &S,
			     MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)64, /* a thread each */
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(SW_CTL_MAX_BODY * 4),
			     MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, PROG ": libmicrohttpd could not start on %s\n", url);
		close(fd);
		unlink(token_file);
		ctl_runs_shutdown(S.runs);
		return 1;
	}
	fprintf(stderr, PROG ": listening on %s (token in %s, root %s)\n", url, token_file, root);
	snprintf(line, sizeof(line), "%s\n", url);
	if (url_file && write_file_atomic(url_file, line, 0644, err, sizeof(err))) {
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
	ctl_runs_shutdown(S.runs);
	unlink(token_file);
	if (url_file)
		unlink(url_file);
	return rc;
}
