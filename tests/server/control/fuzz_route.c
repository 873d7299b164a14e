/* SPDX-License-Identifier: MIT */
/*
 * Description: libFuzzer target for the control API's routing itself
 * (server/control/route.c: what http.c hands every request to, without
 * libmicrohttpd).  The input is a request as lines:
 *     METHOD \n PATH \n AUTHORIZATION \n CONTENT-LENGTH \n BODY...
 * an empty header line is an absent header; AUTHORIZATION "T" stands for
 * "Bearer <the right token>" (so the fuzzer gets past the token).  It runs
 * ctl_route_head, then (when that lets the body through) ctl_route, over a
 * run manager whose writer cannot start (nothing runs; POST bodies' sizes
 * are clamped to 64 KiB), and checks every answer:
 *   - the head answers exactly when the token is wrong (401) or
 *     Content-Length is over SW_CTL_MAX_BODY (413);
 *   - a status code is one of common/control.h's;
 *   - a reply is either one JSON object (an "error" string when >= 400,
 *     and it serialises) or a file, and a file only for 200 on
 *     /v1/runs/<id>/log|stderr, inside the runs folder.
 * A crash, a sanitizer report or a broken rule (abort) is a bug.
 * Build: `cmake --build B --target fuzz_route` (clang); run:
 * tests/analysis/pass/test_fuzz.sh fuzz_route
 * tests/server/control/corpus/route.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "control.h"
#include "control_route.h"
#include "control_runs.h"
#include "fuzz_runs.h"

#define TOKEN "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

__attribute__((noreturn))
static void bug(const char *what, const struct ctl_request *rq, const struct ctl_reply *rp)
{
	fprintf(stderr, "%s: %s %s -> %u\n", what, rq->method, rq->url, rp->code);
	abort();
}

/* the next line of [*p, end) as a NUL-terminated copy in buf */
static const char *line(const char **p, const char *end, char *buf, size_t n)
{
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	size_t len = (size_t)((nl ? nl : end) - *p);
	if (len >= n)
		len = n - 1;
	memcpy(buf, *p, len);
	buf[len] = 0;
	*p = nl ? nl + 1 : end;
	return buf;
}

/* POST bodies: sizes clamped (prepare would make files that large) */
static char *clamped_body(const char *body, size_t len, size_t *out_len)
{
	json_t *j = json_loadb(body, len, 0, NULL), *v;
	const char *k;
	char *s;
	if (!json_is_object(j)) {
		json_decref(j);
		return NULL;
	}
	json_object_foreach(j, k, v)
		if (json_is_integer(v) && json_integer_value(v) > 65536)
			json_integer_set(v, 65536);
	s = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	*out_len = s ? strlen(s) : 0;
	return s;
}

static int known_code(unsigned c)
{
	static const unsigned codes[] = {
		SW_CTL_HTTP_OK, SW_CTL_HTTP_CREATED, SW_CTL_HTTP_BAD_REQUEST,
		SW_CTL_HTTP_UNAUTHORIZED, SW_CTL_HTTP_NOT_FOUND, SW_CTL_HTTP_BAD_METHOD,
		SW_CTL_HTTP_CONFLICT, SW_CTL_HTTP_TOO_LARGE, SW_CTL_HTTP_INTERNAL,
	};
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (c == codes[i])
			return 1;
	return 0;
}

static void check(const struct ctl_request *rq, struct ctl_reply *rp)
{
	if (!known_code(rp->code))
		bug("status code not in common/control.h", rq, rp);
	if (rp->json) {
		json_t *e = json_object_get(rp->json, SW_CTL_F_ERROR);
		char *s = json_dumps(rp->json, JSON_COMPACT);
		if (!json_is_object(rp->json) || !s)
			bug("reply is not one JSON object", rq, rp);
		if (rp->code >= 400 && !json_is_string(e))
			bug("error reply without an \"error\" string", rq, rp);
		free(s);
		json_decref(rp->json);
		return;
	}
	size_t n = strlen(runs);
	if (!rp->file[0] || !rp->ctype)
		bug("reply with neither JSON nor a file", rq, rp);
	if (rp->code != SW_CTL_HTTP_OK || strncmp(rq->url, SW_CTL_ROUTE_RUNS "/", 9))
		bug("a file for another route than GET /v1/runs/<id>/log|stderr", rq, rp);
	if (strncmp(rp->file, runs, n) || rp->file[n] != '/' || strstr(rp->file + n, "/../"))
		bug("a file outside the runs folder", rq, rp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char method[64], url[1024], auth[256], cl[64];
	const char *p = (const char *)data, *end = p + size;
	struct ctl_request rq = { 0 };
	struct ctl_reply rp;
	char *body = NULL, *clamped = NULL;
	size_t clen = 0;

	if (!R)
		fuzz_runs_setup("route");
	rq.method = line(&p, end, method, sizeof(method));
	rq.url = line(&p, end, url, sizeof(url));
	line(&p, end, auth, sizeof(auth));
	rq.authorization = !strcmp(auth, "T") ? "Bearer " TOKEN : auth[0] ? auth : NULL;
	line(&p, end, cl, sizeof(cl));
	rq.content_length = cl[0] ? cl : NULL;
	body = malloc((size_t)(end - p) + 1);
	if (!body)
		return 0;
	memcpy(body, p, (size_t)(end - p));
	body[end - p] = 0;
	rq.body = body;
	rq.len = (size_t)(end - p);
	if (!strcmp(method, "POST") && (clamped = clamped_body(body, rq.len, &clen))) {
		rq.body = clamped;
		rq.len = clen;
	}
	rq.too_large = rq.len > SW_CTL_MAX_BODY;

	int wrong_token = !rq.authorization || strcmp(rq.authorization, "Bearer " TOKEN);
	int big = rq.content_length && strtoull(rq.content_length, NULL, 10) > SW_CTL_MAX_BODY;
	memset(&rp, 0, sizeof(rp));
	if (ctl_route_head(TOKEN, &rq, &rp)) {
		if (!(wrong_token || big))
			bug("the head refused a request with the right token and size", &rq, &rp);
		if (rp.code != (wrong_token ? SW_CTL_HTTP_UNAUTHORIZED : SW_CTL_HTTP_TOO_LARGE))
			bug("the head refused with the wrong code", &rq, &rp);
		check(&rq, &rp);
	} else {
		if (wrong_token || big)
			bug("the head let a wrong token or an oversized body through", &rq, &rp);
		memset(&rp, 0, sizeof(rp));
		ctl_route(R, &rq, &rp);
		if (rq.too_large && rp.code != SW_CTL_HTTP_TOO_LARGE)
			bug("an oversized body was routed", &rq, &rp);
		check(&rq, &rp);
	}
	free(clamped);
	free(body);
	return 0;
}
