/* SPDX-License-Identifier: MIT */
/* control_runs.h - the writer runs the control API starts, watches and
 * stops (one at a time), each a child process `<writer> run ...`.
 * Every function returns an HTTP status (common/control.h) and sets *resp
 * to a new JSON object (the reply body; {"error":...} on failure). */
#ifndef STALEWIN_CONTROL_RUNS_H
#define STALEWIN_CONTROL_RUNS_H

#include <jansson.h>
#include <stddef.h>

struct ctl_runs;

/* root: folder every --file must lie under; runs_dir: where run folders
 * are made; writer: executable to start (NULL: /proc/self/exe).
 * Returns 0 or -errno with err set. */
int ctl_runs_init(struct ctl_runs **out, const char *root,
		  const char *runs_dir, const char *writer, char *err,
		  size_t errlen);
/* SIGTERM the active run (if any), wait for it, free everything. */
void ctl_runs_shutdown(struct ctl_runs *R);

int ctl_runs_start(struct ctl_runs *R, json_t *args, json_t **resp);
/* run_id NULL: the current or last run. */
int ctl_runs_status(struct ctl_runs *R, const char *run_id, json_t **resp);
int ctl_runs_stop(struct ctl_runs *R, json_t **resp);
/* Path of one file (SW_CTL_RUN_*) of a known run: 200 and path set, or an
 * error status with *resp set. */
int ctl_runs_file(struct ctl_runs *R, const char *run_id, const char *name,
		  char *path, size_t pathlen, json_t **resp);
/* Create (or extend to "size") a regular file under the root, so probes
 * can attach before the run starts; with "run-id", the run is announced:
 * clients may join it before it starts (control_attach.h). */
int ctl_runs_prepare(struct ctl_runs *R, json_t *args, json_t **resp);
/* The clients attached to its runs (control_attach.h). */
struct ctl_board *ctl_runs_board(struct ctl_runs *R);
/* {"root","runs","writer"} into obj. */
void ctl_runs_info(struct ctl_runs *R, json_t *obj);

/* Pure helpers (exposed for tests of the confinement rule). */
/* Resolve a requested file under root (already canonical).  0 and out set,
 * or -1 with err saying what was expected and seen. */
int ctl_resolve_under_root(const char *root, const char *req, char *out,
			   size_t outlen, char *err, size_t errlen);

#endif
