/* SPDX-License-Identifier: MIT */
/*
 * control/attach.c - many clients on one writer run (control_attach.h):
 * the run a lead announced before starting it (POST /v1/files with a
 * "run-id"), the clients that joined it (POST /v1/runs/<id>/clients), and
 * each run's state as one word (GET /v1/runs/<id>: pending, running,
 * ended).  The lead waits for N joined clients before it starts the
 * writer, so every client that joined measures from the first store: the
 * barrier is the lead's, the server only counts.
 *
 * One board per server, for one run id at a time (the server runs one
 * writer run at a time): announcing another id starts a new board.  A
 * client name joins once (a client that retries is counted once).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "control_attach.h"

struct ctl_board {
	pthread_mutex_t lock;
	char id[17];         /* the announced (or joined) run; "" when none */
	char file[4096];     /* its file, canonical under the root ("" unknown) */
	json_t *clients;     /* array of the names that joined it */
};

struct ctl_board *ctl_board_new(void)
{
	struct ctl_board *b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->clients = json_array();
	if (!b->clients) {
		free(b);
		return NULL;
	}
	pthread_mutex_init(&b->lock, NULL);
	return b;
}

void ctl_board_free(struct ctl_board *b)
{
	if (!b)
		return;
	json_decref(b->clients);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

/* lock held: the board now about run id (its clients kept when it was) */
static void board_set(struct ctl_board *b, const char *id, const char *file)
{
	if (strcmp(b->id, id)) {
		snprintf(b->id, sizeof(b->id), "%s", id);
		json_array_clear(b->clients);
		b->file[0] = 0;
	}
	if (file && file[0])
		snprintf(b->file, sizeof(b->file), "%s", file);
}

void ctl_board_announce(struct ctl_board *b, const char *run_id, const char *file)
{
	pthread_mutex_lock(&b->lock);
	board_set(b, run_id, file);
	pthread_mutex_unlock(&b->lock);
}

/* the --file=PATH of a started run's argv ("" when absent) */
static const char *argv_file(json_t *st)
{
	size_t i;
	json_t *a;
	json_array_foreach(json_object_get(st, SW_CTL_F_ARGV), i, a) {
		const char *s = json_string_value(a);
		if (s && !strncmp(s, "--file=", 7))
			return s + 7;
	}
	return "";
}

/* The run's state and reply object (*resp, new); the HTTP status: 200
 * (pending, running, ended) or 404 (no such run: neither announced nor
 * known).  *state set to one of "pending", "running", "ended". */
static int run_state(struct ctl_runs *R, struct ctl_board *b, const char *id, json_t **resp,
		     const char **state)
{
	json_t *st = NULL;
	int code = ctl_runs_status(R, id, &st);

	pthread_mutex_lock(&b->lock);
	int ours = !strcmp(b->id, id);
	if (code == SW_CTL_HTTP_NOT_FOUND && ours) {
		json_decref(st);
		st = json_pack("{s:b,s:s}", SW_CTL_F_ACTIVE, 0, SW_CTL_F_RUN_ID, id);
		*state = "pending";
		code = SW_CTL_HTTP_OK;
	} else if (code == SW_CTL_HTTP_NOT_FOUND) {
		json_t *cur = NULL;
		ctl_runs_status(R, NULL, &cur);
		const char *last = json_string_value(json_object_get(cur, SW_CTL_F_RUN_ID));
		json_decref(st);
		char m[400];
		snprintf(m, sizeof(m), "expected run %.40s announced by its lead (POST %s with "
			 "\"run-id\") or running on this server, saw no such run (this server's "
			 "current or last run: %s; announced: %s)", id, SW_CTL_ROUTE_FILES,
			 last ? last : "none", b->id[0] ? b->id : "none");
		json_decref(cur);
		pthread_mutex_unlock(&b->lock);
		*resp = json_pack("{s:s}", SW_CTL_F_ERROR, m);
		*state = NULL;
		return SW_CTL_HTTP_NOT_FOUND;
	} else {
		*state = json_is_true(json_object_get(st, SW_CTL_F_ACTIVE)) ? "running" : "ended";
		if (!ours && !strcmp(*state, "running")) /* started without an announcement */
			board_set(b, id, argv_file(st));
	}
	ours = !strcmp(b->id, id);
	json_object_set_new(st, SW_CTL_F_STATE, json_string(*state));
	json_object_set_new(st, "clients", json_integer(ours ? (json_int_t)json_array_size(b->clients) : 0));
	const char *f = ours && b->file[0] ? b->file : argv_file(st);
	if (f[0])
		json_object_set_new(st, SW_CTL_F_FILE, json_string(f));
	pthread_mutex_unlock(&b->lock);
	*resp = st;
	return code;
}

int ctl_board_status(struct ctl_runs *R, struct ctl_board *b, const char *run_id, json_t **resp)
{
	const char *state;
	return run_state(R, b, run_id, resp, &state);
}

int ctl_board_join(struct ctl_runs *R, struct ctl_board *b, const char *run_id, json_t *args,
		   json_t **resp)
{
	json_t *c = json_is_object(args) ? json_object_get(args, "client") : NULL;
	const char *name = json_string_value(c), *state;
	size_t i, n = name ? strlen(name) : 0;
	json_t *v;

	if (!name || n == 0 || n > 200) {
		*resp = json_pack("{s:s}", SW_CTL_F_ERROR,
				  "expected {\"client\":\"NAME\"} (1 to 200 bytes) as the body");
		return SW_CTL_HTTP_BAD_REQUEST;
	}
	int code = run_state(R, b, run_id, resp, &state);
	if (code != SW_CTL_HTTP_OK)
		return code;
	if (!strcmp(state, "ended")) {
		char m[300], ecs[32] = "unknown";
		json_t *ec = json_object_get(*resp, SW_CTL_F_EXIT_CODE);
		if (json_is_integer(ec))
			snprintf(ecs, sizeof(ecs), "%lld", (long long)json_integer_value(ec));
		snprintf(m, sizeof(m), "expected run %.40s pending or running, saw it ended "
			 "(exit code %s): a client joins a run only before its end", run_id, ecs);
		json_decref(*resp);
		*resp = json_pack("{s:s,s:s}", SW_CTL_F_ERROR, m, SW_CTL_F_STATE, state);
		return SW_CTL_HTTP_CONFLICT;
	}
	pthread_mutex_lock(&b->lock);
	int seen = 0;
	json_array_foreach(b->clients, i, v)
		if (!strcmp(json_string_value(v), name))
			seen = 1;
	if (!seen)
		json_array_append_new(b->clients, json_string(name));
	json_object_set_new(*resp, "clients", json_integer((json_int_t)json_array_size(b->clients)));
	json_object_set_new(*resp, "client", json_string(name));
	json_object_set_new(*resp, "joined_before", json_boolean(seen));
	pthread_mutex_unlock(&b->lock);
	return SW_CTL_HTTP_OK;
}
