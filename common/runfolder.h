/* SPDX-License-Identifier: MIT */
/*
 * runfolder.h - what every orchestrator (scripts/stalewin-run, vm/run.sh)
 * writes into a run folder besides the logs, in one shape:
 *
 *   meta.json   {"format":1, "tool", "setup", "argv":[...], "run_id",
 *                "policy", "workload", "filesystem":{...},
 *                "interrupted", "partial", "host":{hostname, kernel,
 *                kernel_version, os}, "logs":[{file, kind, run_id}],
 *                ...the orchestrator's own keys}
 *   faults.json {"format":1, "faults":[{"kind", "t_start_real_ns",
 *                "t_end_real_ns" (absent: lasted to the end), "dur_ns",
 *                "cut_short" (true: the run lost something by it),
 *                "clock" ("writer": the writer's realtime; absent: the
 *                observers' = the orchestrator's host realtime),
 *                ...the kind's own keys}]}: every fault the harness caused
 *                and every outage it saw
 *   clock.json  {"before":{offset_ns, err_ns, ...}, "after":{...},
 *                "drift_ns", "drift_interval_ns", "note"}
 *
 * Integers stay exact (64-bit: ns times), unlike jq's doubles.  Library
 * code: returns 0 or -errno with a one-line reason in err.
 */
#ifndef STALEWIN_RUNFOLDER_H
#define STALEWIN_RUNFOLDER_H

#include <jansson.h>
#include <stddef.h>

#define SW_RUNFOLDER_FORMAT 1

/* Set KEY (dotted: "server.kind" makes the objects on the way) to v,
 * taking the reference. */
int sw_rf_set(json_t *root, const char *key, json_t *v, char *err, size_t errlen);
/* KEY=VALUE as the command line gives it: kind 's' string, 'i' integer,
 * 'b' true/false, 'j' JSON text, 'f' JSON file, 'k' a file of KEY=VALUE or
 * KEY<TAB>VALUE lines (an object of strings), 't' FILE:COL,COL,... (an
 * array: an object per line, its whitespace-separated fields named). */
int sw_rf_set_arg(json_t *root, char kind, const char *kv, char *err, size_t errlen);
/* host: uname and /etc/os-release of this machine. */
json_t *sw_rf_host(void);
/* logs: every *.swlog directly in dir, sorted by name, with its header. */
json_t *sw_rf_logs(const char *dir);
/* clock.json from the before/after estimates (either may be NULL). */
json_t *sw_rf_clock(json_t *before, json_t *after, const char *note);
/* Append fault (reference taken) to dir/faults.json under an flock of
 * dir; adds dur_ns when both t_start_real_ns and t_end_real_ns are set. */
int sw_rf_fault_add(const char *dir, json_t *fault, char *err, size_t errlen);
/* Write v to dir/name (indent 1, keys in insertion order), atomically. */
int sw_rf_write(const char *dir, const char *name, json_t *v, char *err, size_t errlen);

#endif
