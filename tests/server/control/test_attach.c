/* SPDX-License-Identifier: MIT */
/*
 * Description: many clients on one writer run, on the server's side
 * (server/control/attach.c through ctl_route, no HTTP, no writer child):
 * a run announced with its file is "pending" and clients may join it, a
 * name joins once, another announcement starts a new count, an unknown
 * id is 404 naming the ids the server knows, an ended run (its status
 * file in --runs) is 409 "ended", a body without "client" is 400.  A
 * board that counted a retrying client twice would let a lead start
 * before its N clients were ready.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "control.h"
#include "control_route.h"

static struct ctl_runs *R;

/* METHOD URL BODY -> the reply's code; *j the reply (caller frees) */
static unsigned call(const char *method, const char *url, const char *body, json_t **j)
{
	struct ctl_request rq = { .method = method, .url = url, .body = body,
				  .len = body ? strlen(body) : 0 };
	static struct ctl_reply rp;
	memset(&rp, 0, sizeof(rp));
	ctl_route(R, &rq, &rp);
	*j = rp.json;
	return rp.code;
}

static long long clients_of(json_t *j)
{
	return json_integer_value(json_object_get(j, "clients"));
}

static const char *str(json_t *j, const char *k)
{
	const char *s = json_string_value(json_object_get(j, k));
	return s ? s : "";
}

#define X "a0000000000000b1"
#define Y "a0000000000000b2"
#define OLD "a0000000000000c3"

SW_CASE(pending_join_once)
{
	json_t *j;
	unsigned c = call("POST", "/v1/files", "{\"file\":\"x.dat\",\"size\":4096,\"run-id\":\"" X "\"}", &j);
	CHECK(c == 200, "announce: expected 200, saw %u %s", c, str(j, "error"));
	json_decref(j);
	c = call("GET", "/v1/runs/" X, NULL, &j);
	CHECK(c == 200 && !strcmp(str(j, "state"), "pending") && clients_of(j) == 0 &&
	      strstr(str(j, "file"), "/x.dat"),
	      "expected 200 pending, 0 clients, file x.dat; saw %u %s %lld %s", c, str(j, "state"),
	      clients_of(j), str(j, "file"));
	json_decref(j);
	c = call("POST", "/v1/runs/" X "/clients", "{\"client\":\"c1\"}", &j);
	CHECK(c == 200 && clients_of(j) == 1, "join c1: expected 200 and 1, saw %u %lld", c, clients_of(j));
	json_decref(j);
	c = call("POST", "/v1/runs/" X "/clients", "{\"client\":\"c1\"}", &j);
	CHECK(c == 200 && clients_of(j) == 1 && json_is_true(json_object_get(j, "joined_before")),
	      "c1 again: expected 1 client (joined before), saw %u %lld", c, clients_of(j));
	json_decref(j);
	c = call("POST", "/v1/runs/" X "/clients", "{\"client\":\"c2\"}", &j);
	CHECK(c == 200 && clients_of(j) == 2, "join c2: expected 2, saw %u %lld", c, clients_of(j));
	json_decref(j);
	c = call("GET", "/v1/runs/" X "/clients", NULL, &j);
	CHECK(c == 405, "GET .../clients: expected 405, saw %u", c);
	json_decref(j);
	c = call("POST", "/v1/runs/" X "/clients", "{\"name\":\"c3\"}", &j);
	CHECK(c == 400, "a body without client: expected 400, saw %u", c);
	json_decref(j);
}

SW_CASE(new_announcement)
{
	json_t *j;
	unsigned c = call("POST", "/v1/files", "{\"file\":\"y.dat\",\"run-id\":\"" Y "\"}", &j);
	CHECK(c == 200, "announce Y: expected 200, saw %u", c);
	json_decref(j);
	c = call("GET", "/v1/runs/" Y, NULL, &j);
	CHECK(c == 200 && clients_of(j) == 0, "a new run: expected 0 clients, saw %u %lld", c, clients_of(j));
	json_decref(j);
	c = call("POST", "/v1/files", "{\"file\":\"z.dat\",\"run-id\":\"nothex\"}", &j);
	CHECK(c == 400, "a bad run-id: expected 400, saw %u", c);
	json_decref(j);
}

SW_CASE(unknown_and_ended)
{
	json_t *j;
	unsigned c = call("POST", "/v1/runs/0123456789abcdef/clients", "{\"client\":\"c1\"}", &j);
	CHECK(c == 404 && strstr(str(j, "error"), "0123456789abcdef") &&
	      strstr(str(j, "error"), "no such run"),
	      "unknown: expected 404 naming the id, saw %u %s", c, str(j, "error"));
	json_decref(j);
	c = call("POST", "/v1/runs/" OLD "/clients", "{\"client\":\"c1\"}", &j);
	CHECK(c == 409 && strstr(str(j, "error"), "ended"),
	      "ended: expected 409 'ended', saw %u %s", c, str(j, "error"));
	json_decref(j);
	c = call("GET", "/v1/runs/" OLD, NULL, &j);
	CHECK(c == 200 && !strcmp(str(j, "state"), "ended"), "expected state ended, saw %u %s", c,
	      str(j, "state"));
	json_decref(j);
}

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/sw-attach-XXXXXX", p[PATH_MAX], err[1024];
	if (!mkdtemp(tmpl)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(p, sizeof(p), "%s/root", tmpl);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/runs", tmpl);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/runs/" OLD, tmpl);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/runs/" OLD "/status.json", tmpl);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs("{\"state\":\"done\",\"run_id\":\"" OLD "\"}", f);
		fclose(f);
	}
	char root[PATH_MAX], runs[PATH_MAX];
	snprintf(root, sizeof(root), "%s/root", tmpl);
	snprintf(runs, sizeof(runs), "%s/runs", tmpl);
	if (ctl_runs_init(&R, root, runs, "/bin/false", err, sizeof(err))) {
		fprintf(stderr, "ctl_runs_init: %s\n", err);
		return 1;
	}
	const char *pat = getenv("SW_TEST_CASE");
	int rc = sw_cases_main("control_attach", pat && *pat ? pat : NULL,
			       argc > 1 && !strcmp(argv[1], "--list"));
	ctl_runs_shutdown(R);
	snprintf(p, sizeof(p), "rm -rf '%s'", tmpl);
	if (system(p))
		fprintf(stderr, "warning: could not remove %s\n", tmpl);
	return rc;
}
