/* SPDX-License-Identifier: MIT */
/* control_attach.h - the clients attached to one writer run (attach.c):
 * the run a lead announced before starting it, the clients that joined
 * it, its state as one word.  Each function returns an HTTP status
 * (common/control.h) and sets *resp to a new JSON object.  Library code:
 * no exits, no output. */
#ifndef STALEWIN_CONTROL_ATTACH_H
#define STALEWIN_CONTROL_ATTACH_H

#include <jansson.h>

#include "control_runs.h"

struct ctl_board;

struct ctl_board *ctl_board_new(void); /* NULL: out of memory */
void ctl_board_free(struct ctl_board *b);
/* POST /v1/files with "run-id": the lead will start run_id on file */
void ctl_board_announce(struct ctl_board *b, const char *run_id, const char *file);
/* GET /v1/runs/<id>: /v1/status's shape plus "state" (pending, running,
 * ended), "clients" (joined, count) and "file"; 404 for an id neither
 * announced nor known */
int ctl_board_status(struct ctl_runs *R, struct ctl_board *b, const char *run_id, json_t **resp);
/* POST /v1/runs/<id>/clients {"client":NAME}: join a pending or running
 * run (200, "clients" the count after); 404 unknown, 409 ended, 400 bad
 * body */
int ctl_board_join(struct ctl_runs *R, struct ctl_board *b, const char *run_id, json_t *args,
		   json_t **resp);

#endif
