/* SPDX-License-Identifier: MIT */
/*
 * ctl.c - stalewin-ctl: the control API from the command line.
 *
 *   stalewin-ctl --url http(s)://H:P --token-file F [--timeout SEC] [--get KEY] CMD
 *     clock [--samples N] [--json]   clock offset estimate (server - client)
 *     info                           what the server is
 *     start KEY=VAL ...              start a writer run (VAL: number, true,
 *                                    false or text); prints the reply
 *     prepare file=NAME [size=N]     create the file under the root first
 *     status | stop                  the current / last run
 *     fetch RUN_ID DEST [--stderr]   the run's writer.swlog (or stderr)
 *     join RUN_ID NAME               join a pending or running run as
 *                                    client NAME (many clients, one run)
 *     get ROUTE                      GET any route (debugging)
 *   --get KEY: print only that top-level field of the reply (text bare).
 *
 * Exit: 0 ok; 1 runtime failure (unreachable, server error); 2 usage or
 * bad input (HTTP 400: a bad option, a file outside the root);
 * 3 conflict (409: a run is active / none to stop); 4 wrong token (401);
 * 5 the token was not sent: an https URL without a pin in the token file,
 * a server whose key is not that pin, or plain http off loopback
 * (client/control/tokfile.c).
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "control_client.h"
#include "parse.h"

#define PROG "stalewin-ctl"

static void usage(FILE *f)
{
	fprintf(f,
"usage: stalewin-ctl --url http(s)://HOST:PORT --token-file F [--timeout SEC]\n"
"                    [--get KEY] [--client-id NAME] COMMAND\n"
"  clock [--samples N] [--json]  offset = server - client CLOCK_REALTIME from\n"
"                                the minimum-RTT sample; error = RTT/2\n"
"  info                          the server's version, host, kernel, root\n"
"  start KEY=VAL ...             start a writer run: each KEY=VAL becomes the\n"
"                                writer option --KEY=VAL (file= is under the\n"
"                                server's --root)\n"
"  prepare file=NAME [size=N]    create the run's file under the root first\n"
"  status | stop                 current / last run (stop: SIGTERM, wait)\n"
"  fetch RUN_ID DEST [--stderr]  the run's ground-truth log (or its stderr)\n"
"  join RUN_ID NAME              join a pending or running run as client NAME\n"
"  get ROUTE                     GET any route\n"
"--client-id NAME: name this client in each request (its own rate bucket\n"
"beside the other clients of its address, up to 128 names an address)\n"
"https: the server's key must be the token file's pin; plain http only to\n"
"127.x (or the token file's insecure-private-link address)\n"
"exit: 0 ok, 1 failure, 2 usage / bad input (HTTP 400), 3 conflict (run\n"
"      active), 4 wrong token, 5 token not sent (no pin, another key, plain\n"
"      http off loopback)\n");
}

static int exit_for(int rc)
{
	return rc == 0 ? 0 : rc == SW_CTL_HTTP_CONFLICT ? 3 :
	       rc == SW_CTL_HTTP_UNAUTHORIZED ? 4 :
	       rc == SWCTL_E_PIN || rc == SWCTL_E_PLAIN ? 5 :
	       rc == SW_CTL_HTTP_BAD_REQUEST ? 2 : 1;
}

/* Print a JSON reply, or only field `get` of it. */
static int print_reply(const char *reply, const char *get)
{
	json_t *j, *v;
	if (!get) {
		fputs(reply, stdout);
		if (!reply[0] || reply[strlen(reply) - 1] != '\n')
			putchar('\n');
		return 0;
	}
	j = json_loads(reply, 0, NULL);
	v = j ? json_object_get(j, get) : NULL;
	if (!v) {
		fprintf(stderr, PROG ": the reply has no field \"%s\": %s", get, reply);
		json_decref(j);
		return 1;
	}
	if (json_is_string(v)) {
		puts(json_string_value(v));
	} else {
		char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
		puts(s ? s : "");
		free(s);
	}
	json_decref(j);
	return 0;
}

/* KEY=VAL... into a JSON object text; NULL with a message on bad input. */
static char *args_object(int n, char **kv)
{
	json_t *o = json_object();
	for (int i = 0; i < n; i++) {
		char *eq = strchr(kv[i], '=');
		char key[128], *end;
		if (!eq || eq == kv[i] || (size_t)(eq - kv[i]) >= sizeof(key)) {
			fprintf(stderr, PROG ": start: expected KEY=VALUE, saw '%s'\n", kv[i]);
			json_decref(o);
			return NULL;
		}
		snprintf(key, sizeof(key), "%.*s", (int)(eq - kv[i]), kv[i]);
		const char *v = eq + 1;
		json_t *jv;
		errno = 0;
		long long ll = strtoll(v, &end, 10);
		if (!strcmp(key, "run-id")) { /* hex digits, even when all decimal */
			jv = json_string(v);
		} else if (v[0] && !*end && !errno) {
			jv = json_integer(ll);
		} else if (!strcmp(v, "true")) {
			jv = json_true();
		} else if (!strcmp(v, "false")) {
			jv = json_false();
		} else {
			double d = strtod(v, &end);
			jv = v[0] && !*end && strchr(v, '.') ? json_real(d) : json_string(v);
		}
		json_object_set_new(o, key, jv);
	}
	char *s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(o);
	return s;
}

/* clock: the offset estimate, as JSON (--json, --get) or one line. */
static int cmd_clock(struct swctl *h, unsigned samples, int json, const char *get,
		     char *err, size_t errlen)
{
	struct swctl_clock k;
	char buf[512];
	int rc = swctl_clock(h, samples, &k, err, errlen);
	if (rc)
		return rc;
	swctl_clock_format(&k, buf, sizeof(buf));
	if (json || get)
		print_reply(buf, get);
	else
		printf("offset %+.3f ms +- %.3f ms (server - client), rtt min %.3f ms "
		       "p50 %.3f ms, %u samples\n", k.offset_ns / 1e6, k.err_ns / 1e6,
		       k.rtt_min_ns / 1e6, k.rtt_p50_ns / 1e6, k.samples);
	return 0;
}

/* A raw request; an HTTP status other than 200 (only_200) or >= 400 is
 * the error "WHAT: HTTP CODE: reply" with the status as rc. */
static int request(struct swctl *h, const char *method, const char *route,
		   const char *body, int only_200, const char *what, char **reply,
		   char *err, size_t errlen)
{
	long code;
	int rc = swctl_request(h, method, route, body, &code, reply, err, errlen);
	if (!rc && (only_200 ? code != 200 : code >= 400)) {
		snprintf(err, errlen, "%s: HTTP %ld: %s", what, code, *reply);
		rc = (int)code;
	}
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		SW_OPT_ARG("url", 'u'),
		SW_OPT_ARG("token-file", 't'),
		SW_OPT_ARG("timeout", 'T'),
		SW_OPT_ARG("get", 'g'),
		SW_OPT_ARG("samples", 'n'),
		SW_OPT_ARG("client-id", 'c'),
		SW_OPT_FLAG("json", 'j'),
		SW_OPT_FLAG("stderr", 'e'),
		SW_OPT_FLAG("help", 'h'),
		SW_OPT_END,
	};
	const char *url = NULL, *token_file = NULL, *get = NULL, *client = NULL;
	char err[SWCTL_ERRLEN] = "";
	struct swctl_tokfile tf;
	unsigned samples = 50;
	int c, json = 0, want_stderr = 0, rc;
	long timeout_ms = 60000;
	struct swctl *h;
	char *reply = NULL;

	/* options may come before or after the command (GNU permutation) */
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'u': url = optarg; break;
		case 't': token_file = optarg; break;
		case 'T': {
			double s;
			if (sw_parse_double(optarg, 0, HUGE_VAL, &s) || s <= 0) {
				fprintf(stderr, PROG ": expected --timeout SEC > 0, saw '%s'\n", optarg);
				return 2;
			}
			timeout_ms = (long)(s * 1000);
			break;
		}
		case 'g': get = optarg; break;
		case 'c': client = optarg; break;
		case 'n': {
			uint64_t v;
			if (sw_parse_u64(optarg, 10, 0, 1, 1000000, &v)) {
				fprintf(stderr, PROG ": expected --samples 1..1000000, saw '%s'\n", optarg);
				return 2;
			}
			samples = (unsigned)v;
			break;
		}
		case 'j': json = 1; break;
		case 'e': want_stderr = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[optind++];
	int nargs = argc - optind;
	char **args = argv + optind;
	if (!url || !token_file) {
		fprintf(stderr, PROG ": expected --url http(s)://HOST:PORT and --token-file F\n");
		return 2;
	}
	if ((rc = swctl_read_tokfile(token_file, &tf, err, sizeof(err))) ||
	    (rc = swctl_open(&h, url, &tf, timeout_ms, err, sizeof(err)))) {
		fprintf(stderr, PROG ": %s\n", err);
		return rc == SWCTL_E_PROTO ? 2 : exit_for(rc);
	}
	if (client && swctl_set_client(h, client, err, sizeof(err))) {
		fprintf(stderr, PROG ": --client-id: %s\n", err);
		swctl_close(h);
		return 2;
	}

	rc = 0;
	if (!strcmp(cmd, "clock") && nargs == 0) {
		rc = cmd_clock(h, samples, json, get, err, sizeof(err));
	} else if (!strcmp(cmd, "start")) {
		char *body = args_object(nargs, args);
		if (!body) {
			swctl_close(h);
			return 2;
		}
		rc = swctl_start(h, body, &reply, err, sizeof(err));
		free(body);
	} else if (!strcmp(cmd, "prepare") && nargs >= 1) {
		char *body = args_object(nargs, args);
		if (!body) {
			swctl_close(h);
			return 2;
		}
		rc = request(h, "POST", SW_CTL_ROUTE_FILES, body, 1, "prepare", &reply, err,
			     sizeof(err));
		free(body);
	} else if (!strcmp(cmd, "status") && nargs == 0) {
		rc = swctl_status(h, &reply, err, sizeof(err));
	} else if (!strcmp(cmd, "stop") && nargs == 0) {
		rc = swctl_stop(h, &reply, err, sizeof(err));
	} else if (!strcmp(cmd, "info") && nargs == 0) {
		rc = request(h, "GET", SW_CTL_ROUTE_INFO, NULL, 1, "info", &reply, err,
			     sizeof(err));
	} else if (!strcmp(cmd, "get") && nargs == 1) {
		char what[300];
		snprintf(what, sizeof(what), "GET %s", args[0]);
		rc = request(h, "GET", args[0], NULL, 0, what, &reply, err, sizeof(err));
	} else if (!strcmp(cmd, "join") && nargs == 2) {
		char route[200], what[200];
		json_t *b = json_pack("{s:s}", "client", args[1]);
		char *body = b ? json_dumps(b, JSON_COMPACT) : NULL;
		json_decref(b);
		snprintf(route, sizeof(route), "%s/%.40s/clients", SW_CTL_ROUTE_RUNS, args[0]);
		snprintf(what, sizeof(what), "join run %.40s", args[0]);
		rc = body ? request(h, "POST", route, body, 1, what, &reply, err, sizeof(err))
			  : SWCTL_E_PROTO;
		free(body);
	} else if (!strcmp(cmd, "fetch") && nargs == 2) {
		rc = swctl_fetch(h, args[0], want_stderr ? "stderr" : "log", args[1], err,
				 sizeof(err));
	} else {
		fprintf(stderr, PROG ": unknown command or wrong arguments: '%s' (expected clock, "
			"info, start KEY=VAL..., status, stop, fetch RUN_ID DEST, join RUN_ID NAME, get ROUTE)\n", cmd);
		swctl_close(h);
		return 2;
	}
	if (rc) {
		size_t n = strlen(err);
		while (n && err[n - 1] == '\n')
			err[--n] = 0;
		fprintf(stderr, PROG ": %s\n", err);
	} else if (reply) {
		rc = print_reply(reply, get) ? SWCTL_E_PROTO : 0;
	}
	free(reply);
	swctl_close(h);
	return exit_for(rc);
}
