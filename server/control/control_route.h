/* SPDX-License-Identifier: MIT */
/* control_route.h - the control API's routes (common/control.h) apart from
 * HTTP: a request (method, path, the two headers that matter, body) to a
 * reply (status code and one JSON object, or a file to send).  http.c feeds
 * it from libmicrohttpd; tests/server/control/fuzz_route.c calls it
 * directly.  Library code: no exits, no output. */
#ifndef STALEWIN_CONTROL_ROUTE_H
#define STALEWIN_CONTROL_ROUTE_H

#include <jansson.h>
#include <limits.h>
#include <stddef.h>

#include "control_runs.h"

struct ctl_request {
	const char *method;         /* "GET", "POST", ... */
	const char *url;            /* the path, e.g. /v1/status */
	const char *authorization;  /* header value, NULL when absent */
	const char *content_length; /* header value, NULL when absent */
	const char *client;         /* header SW_CTL_HDR_CLIENT, NULL when absent */
	const char *body;           /* the upload, NUL-terminated (or NULL) */
	size_t len;                 /* bytes in body */
	int too_large;              /* the upload went over SW_CTL_MAX_BODY */
};

struct ctl_reply {
	unsigned code;        /* SW_CTL_HTTP_* */
	json_t *json;         /* the body (owned by the caller), or NULL: */
	char file[PATH_MAX];  /* send this file (GET /v1/runs/<id>/log|stderr) */
	const char *ctype;    /* its Content-Type */
};

/* Before the body is read: the bearer token (constant-time compare with
 * token) and Content-Length.  Returns 0 to go on (read the body, then
 * ctl_route), 1 when *out is the answer already (401, 413, or 400 for a
 * malformed client name). */
int ctl_route_head(const char *token, const struct ctl_request *rq, struct ctl_reply *out);

/* The name a request gives its client, for its own token bucket
 * (control_guard.h): rq->client when the request carries the right
 * token and the name is well formed (sw_ctl_client_name_ok,
 * common/control.h), else NULL. */
const char *ctl_route_client(const char *token, const struct ctl_request *rq);

/* The whole request: the answer in *out (out->json or out->file). */
void ctl_route(struct ctl_runs *runs, const struct ctl_request *rq, struct ctl_reply *out);

#endif
