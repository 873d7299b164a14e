/* SPDX-License-Identifier: MIT */
/*
 * control/route.c - the control API's routes below HTTP (control_route.h):
 * authentication, body limits, and each route of common/control.h to the
 * run manager (runs.c).  http.c only moves bytes between libmicrohttpd and
 * these two functions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "control.h"
#include "control_attach.h"
#include "control_route.h"
#include "swtime.h"

#ifndef STALEWIN_VERSION
#define STALEWIN_VERSION "unknown"
#endif

static void reply(struct ctl_reply *out, unsigned code, json_t *j)
{
	if (!j) { /* jansson refused the text: it quoted non-UTF-8 bytes */
		j = json_pack("{s:s}", SW_CTL_F_ERROR, "expected UTF-8 in the request's path "
			      "and values, saw other bytes (the answer quoting them cannot be JSON)");
		code = code >= 400 ? code : SW_CTL_HTTP_BAD_REQUEST;
	}
	out->code = code;
	out->json = j;
	out->file[0] = 0;
	out->ctype = "application/json";
}

static void err(struct ctl_reply *out, unsigned code, const char *msg)
{
	reply(out, code, json_pack("{s:s}", SW_CTL_F_ERROR, msg));
}

/* Constant-time comparison of the presented token. */
static int token_ok(const char *token, const char *hdr)
{
	static const char pfx[] = "Bearer ";
	size_t n = strlen(token), i;
	unsigned diff = 0;

	if (!hdr || strncmp(hdr, pfx, sizeof(pfx) - 1))
		return 0;
	hdr += sizeof(pfx) - 1;
	if (strlen(hdr) != n)
		return 0;
	for (i = 0; i < n; i++)
		diff |= (unsigned)(hdr[i] ^ token[i]);
	return diff == 0;
}

const char *ctl_route_client(const char *token, const struct ctl_request *rq)
{
	if (!rq->client || !sw_ctl_client_name_ok(rq->client) || !token_ok(token, rq->authorization))
		return NULL;
	return rq->client;
}

int ctl_route_head(const char *token, const struct ctl_request *rq, struct ctl_reply *out)
{
	const char *cl = rq->content_length;

	if (!token_ok(token, rq->authorization)) {
		err(out, SW_CTL_HTTP_UNAUTHORIZED,
		    "expected header 'Authorization: Bearer TOKEN' with the token "
		    "of the server's --token-file");
		return 1;
	}
	if (rq->client && !sw_ctl_client_name_ok(rq->client)) {
		char m[300];
		snprintf(m, sizeof(m), "expected header '" SW_CTL_HDR_CLIENT ": NAME' with 1 to %d "
			 "characters of A-Z a-z 0-9 . _ : -, saw '%.80s'", SW_CTL_CLIENT_MAX,
			 rq->client);
		err(out, SW_CTL_HTTP_BAD_REQUEST, m);
		return 1;
	}
	if (cl && strtoull(cl, NULL, 10) > SW_CTL_MAX_BODY) {
		char m[200];
		snprintf(m, sizeof(m), "expected a request body of at most %d bytes, saw "
			 "Content-Length %.30s", SW_CTL_MAX_BODY, cl);
		err(out, SW_CTL_HTTP_TOO_LARGE, m);
		return 1;
	}
	return 0;
}

static void route_info(struct ctl_runs *runs, struct ctl_reply *out)
{
	struct utsname u;
	char host[256] = "";

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	json_t *o = json_pack("{s:s,s:i,s:s,s:s,s:s,s:I}", "version", STALEWIN_VERSION,
			      "api", SW_CTL_API_VERSION, "hostname", host, "kernel", u.release,
			      "machine", u.machine, "pid", (json_int_t)getpid());
	ctl_runs_info(runs, o);
	reply(out, SW_CTL_HTTP_OK, o);
}

/* POST /v1/runs (start) and POST /v1/files (prepare): a JSON object body */
static void route_post_json(struct ctl_runs *runs, const struct ctl_request *rq, int files,
			    struct ctl_reply *out)
{
	json_error_t je;
	json_t *args = json_loadb(rq->body ? rq->body : "", rq->body ? rq->len : 0, 0, &je);
	json_t *resp = NULL;
	int code;

	if (!args) {
		char m[400];
		snprintf(m, sizeof(m), "expected a JSON object body, saw invalid JSON "
			 "(%s at line %d column %d)", je.text, je.line, je.column);
		err(out, SW_CTL_HTTP_BAD_REQUEST, m);
		return;
	}
	code = files ? ctl_runs_prepare(runs, args, &resp) : ctl_runs_start(runs, args, &resp);
	json_decref(args);
	reply(out, (unsigned)code, resp);
}

/* POST /v1/runs/<id>/clients: a client joins the run (attach.c) */
static void route_join(struct ctl_runs *runs, const char *id, const struct ctl_request *rq,
		       struct ctl_reply *out)
{
	json_t *args = json_loadb(rq->body ? rq->body : "", rq->body ? rq->len : 0, 0, NULL);
	json_t *resp = NULL;
	int code = ctl_board_join(runs, ctl_runs_board(runs), id, args, &resp);
	json_decref(args);
	reply(out, (unsigned)code, resp);
}

/* GET /v1/runs/<id>[/log|/stderr], POST /v1/runs/<id>/clients; 0 when
 * the path is not one of them */
static int route_run(struct ctl_runs *runs, const struct ctl_request *rq, struct ctl_reply *out)
{
	const char *url = rq->url;
	int get = !strcmp(rq->method, "GET");
	char id[64];
	const char *rest = url + sizeof(SW_CTL_ROUTE_RUNS);
	const char *slash = strchr(rest, '/');
	size_t idlen = slash ? (size_t)(slash - rest) : strlen(rest);
	const char *what = slash ? slash + 1 : "";
	json_t *resp = NULL;
	int code;

	if (idlen >= sizeof(id)) {
		err(out, SW_CTL_HTTP_NOT_FOUND, "expected a run id of 16 hex digits");
		return 1;
	}
	memcpy(id, rest, idlen);
	id[idlen] = 0;
	if (slash && !strcmp(what, "clients")) {
		if (strcmp(rq->method, "POST"))
			err(out, SW_CTL_HTTP_BAD_METHOD, "expected POST /v1/runs/<id>/clients");
		else
			route_join(runs, id, rq, out);
		return 1;
	}
	if (!get) {
		err(out, SW_CTL_HTTP_BAD_METHOD, "expected GET on /v1/runs/<id>[/log|/stderr]");
		return 1;
	}
	if (!slash) {
		code = ctl_board_status(runs, ctl_runs_board(runs), id, &resp);
		reply(out, (unsigned)code, resp);
		return 1;
	}
	if (strcmp(what, "log") && strcmp(what, "stderr"))
		return 0;
	int log = what[0] == 'l';
	code = ctl_runs_file(runs, id, log ? SW_CTL_RUN_LOG : SW_CTL_RUN_STDERR, out->file,
			     sizeof(out->file), &resp);
	if (code != SW_CTL_HTTP_OK) {
		reply(out, (unsigned)code, resp);
		return 1;
	}
	json_decref(resp);
	out->code = SW_CTL_HTTP_OK;
	out->json = NULL;
	out->ctype = log ? "application/octet-stream" : "text/plain; charset=utf-8";
	return 1;
}

/* 405 unless the method is want; 1 when answered */
static int wrong_method(const char *method, const char *want, const char *route,
			struct ctl_reply *out)
{
	char m[100];
	if (!strcmp(method, want))
		return 0;
	snprintf(m, sizeof(m), "expected %s %s", want, route);
	err(out, SW_CTL_HTTP_BAD_METHOD, m);
	return 1;
}

void ctl_route(struct ctl_runs *runs, const struct ctl_request *rq, struct ctl_reply *out)
{
	const char *url = rq->url, *method = rq->method;
	json_t *resp = NULL;
	char m[700];

	if (rq->too_large) {
		snprintf(m, sizeof(m), "expected a request body of at most %d bytes", SW_CTL_MAX_BODY);
		err(out, SW_CTL_HTTP_TOO_LARGE, m);
	} else if (!strcmp(url, SW_CTL_ROUTE_CLOCK)) {
		if (!wrong_method(method, "GET", url, out)) {
			/* as late as possible: nothing but formatting after this */
			int64_t r = sw_real_ns(), mo = sw_mono_ns();
			reply(out, SW_CTL_HTTP_OK, json_pack("{s:I,s:I}", SW_CTL_F_T_REAL, (json_int_t)r,
							     SW_CTL_F_T_MONO, (json_int_t)mo));
		}
	} else if (!strcmp(url, SW_CTL_ROUTE_INFO)) {
		if (!wrong_method(method, "GET", url, out))
			route_info(runs, out);
	} else if (!strcmp(url, SW_CTL_ROUTE_STATUS)) {
		if (!wrong_method(method, "GET", url, out)) {
			unsigned code = (unsigned)ctl_runs_status(runs, NULL, &resp);
			reply(out, code, resp);
		}
	} else if (!strcmp(url, SW_CTL_ROUTE_STOP)) {
		if (!wrong_method(method, "POST", url, out)) {
			unsigned code = (unsigned)ctl_runs_stop(runs, &resp);
			reply(out, code, resp);
		}
	} else if (!strcmp(url, SW_CTL_ROUTE_RUNS) || !strcmp(url, SW_CTL_ROUTE_FILES)) {
		if (!wrong_method(method, "POST", url, out))
			route_post_json(runs, rq, !strcmp(url, SW_CTL_ROUTE_FILES), out);
	} else if (strncmp(url, SW_CTL_ROUTE_RUNS "/", sizeof(SW_CTL_ROUTE_RUNS)) ||
		   !route_run(runs, rq, out)) {
		snprintf(m, sizeof(m), "unknown operation %.20s %.400s (expected one of GET %s, "
			 "GET %s, POST %s, POST %s, GET %s, POST %s, GET %s/<id>[/log], "
			 "POST %s/<id>/clients)", method, url,
			 SW_CTL_ROUTE_CLOCK, SW_CTL_ROUTE_INFO, SW_CTL_ROUTE_FILES, SW_CTL_ROUTE_RUNS,
			 SW_CTL_ROUTE_STATUS, SW_CTL_ROUTE_STOP, SW_CTL_ROUTE_RUNS, SW_CTL_ROUTE_RUNS);
		err(out, SW_CTL_HTTP_NOT_FOUND, m);
	}
}
