/* SPDX-License-Identifier: MIT */
/*
 * control.h - the control API between the probe side and the writer side.
 *
 * Transport: HTTP/1.1 + JSON (UTF-8), served by `stalewin-writer serve`
 * (server/control/http.c, libmicrohttpd) and called by client/control/client.c
 * (libcurl) and stalewin-ctl.  Version 1 of the protocol: every route is
 * under /v1.
 *
 * Authentication: every request carries
 *     Authorization: Bearer TOKEN
 * where TOKEN is the 64 hex digits (32 random bytes from getrandom(2)) the
 * server wrote, mode 0600, to its --token-file when it started.  A missing
 * or different token is answered 401 and nothing else happens.
 *
 * The token file: the token alone on the first line (as every version
 * wrote it, so an older client still reads its token), then zero or more
 * lines "KEY VALUE" a reader skips when it does not know KEY:
 *     pin sha256//BASE64      (SW_CTL_TOKFILE_PIN) written by `serve --tls`:
 *                             base64 of the SHA-256 of the certificate's
 *                             SubjectPublicKeyInfo (DER), the form of
 *                             libcurl's CURLOPT_PINNEDPUBLICKEY
 *     insecure-private-link A.B.C.D   (SW_CTL_TOKFILE_PLAIN) written by
 *                             `serve --insecure-private-link` on address A
 * A token file of one line (older servers, or loopback) is still read.
 *
 * Off loopback (server/control/guard.c ctl_listen_rule, client/control/
 * tokfile.c swctl_url_check): `serve --listen` on a 127.x address speaks
 * plain HTTP (or HTTPS with --tls); on any other address it refuses to
 * start (exit 2) without --tls: HTTPS with a certificate made fresh for
 * that serve (EC P-256, self-signed, valid CTL_TLS_VALID_DAYS), whose
 * public key's pin the token file carries.  A client sends the token over
 * https only to a server whose key matches that pin (any other certificate
 * is refused before a byte of HTTP), and over plain http only to a 127.x
 * address, or to the one address the token file names as an
 * insecure-private-link: the qemu guests' link (vm/), a unix-socket
 * stream no other host shares; that option is refused on a non-private
 * address.  Off loopback at least one --allow CIDR is required and every
 * client address outside the list is refused at accept, before TLS.
 *
 * Rate: every client address has a token bucket of SW_CTL_RATE_BURST
 * requests refilled at SW_CTL_RATE_PER_S; a request over it is answered
 * 429 with Retry-After (seconds) and logged (one line a second per client
 * at most, with the count since), and nothing else happens: the run goes
 * on.  A request that names its client (header SW_CTL_HDR_CLIENT: 1 to
 * SW_CTL_CLIENT_MAX characters of [A-Za-z0-9._:-]) and carries the right
 * token has a bucket of its own, keyed by address and name, so the many
 * attached clients of one host do not share one: at most
 * SW_CTL_CLIENTS_PER_ADDR names per address have their own (the rest, and
 * every request without the token or a name, share the address' bucket).
 * A malformed name is refused with 400.  A client may hold
 * SW_CTL_CONN_PER_CLIENT connections at once.
 *
 * Every response body is one JSON object.  Every error is
 *     {"error":"one line saying what was expected and what was seen"}
 * with one of the SW_CTL_HTTP_* status codes below.  Request bodies larger
 * than SW_CTL_MAX_BODY bytes are refused with 413 before they are read.
 *
 * Operations (method, route: meaning):
 *
 * GET /v1/clock
 *     The server's clocks, read as late as possible before the reply is
 *     queued: {"t_real_ns":N, "t_mono_ns":N}.  The client brackets the
 *     request with its own CLOCK_REALTIME (t_send, t_recv); over many
 *     samples the one with the smallest round trip gives
 *       offset_ns = t_real_ns - (t_send + t_recv) / 2    (server - client)
 *       err_ns    = rtt_min_ns / 2                       (bound on |error|)
 *
 * GET /v1/info
 *     What the server is: {"version","hostname","kernel","pid","root",
 *     "runs","writer"} (writer = the executable a run starts).
 *
 * POST /v1/files       body: {"file":"x.dat", "size":BYTES[, "run-id":ID]}
 *     Create the file (or extend it to size) under --root, same
 *     confinement as a run's "file", so the client's probes can look it up
 *     before the run starts.  200 {"file":"/canonical/path","size":N}.
 *     With "run-id" (16 hex digits) the run is announced: other clients
 *     may join it (below) before its lead starts it with that id.
 *
 * POST /v1/runs        body: {"policy":"eager","workload":"rewrite",
 *                             "file":"x.dat","duration":5, ...}
 *     Start one writer run.  Each key K of the object becomes the writer
 *     option --K=VALUE (numbers and strings as text; true: the bare flag
 *     --K; false/null: omitted), so every `stalewin-writer run` option
 *     (server/README.md) is accepted.  Keys are [a-z0-9-]+.  "file" is required
 *     and is resolved under the server's --root (absolute paths must lie
 *     inside it; "..", symlinks out of it and non-regular files are
 *     refused, 400).  "log" and "status-file" are chosen by the server
 *     (400 if given).  "run-id" (16 hex digits) may be given so the
 *     client's probe logs carry the same id; otherwise the server draws a
 *     random 64-bit id (409 if that run's folder exists already).  The run
 *     folder --runs/<run_id>/ holds writer.swlog, status.json, stderr.txt.
 *     The writer is a child process (`<writer> run ...`); the request
 *     returns once its status file says "running" (or later), or the child
 *     exits first.  201 {"run_id":"hex","pid":N,"state":"running",
 *     "argv":[...], "status":{status file}}.  409 if a run is active.
 *     A child that exits before running: 400 if it exited 2 (bad input),
 *     500 otherwise, {"error": its last stderr line, "exit_code":N}.
 *
 * GET /v1/status
 *     The current or last run: {"active":bool, "run_id":"hex"|null,
 *     "pid":N, "exit_code":N|null, "status":{the writer's status file},
 *     "stderr":"last line"}.  With no run yet: {"active":false,
 *     "run_id":null}.
 *
 * GET /v1/runs/<run_id>
 *     Same shape as /v1/status, for a given run of this server, plus
 *     "state": "pending" (announced, not started), "running" or "ended";
 *     "clients": how many joined it; "file": its file (404 if the id is
 *     neither announced nor known).
 *
 * POST /v1/runs/<run_id>/clients   body: {"client":"NAME"}
 *     A client joins a pending or running run (server/control/attach.c):
 *     200, the GET object above with "clients" counted after the join
 *     (a name counts once).  404 unknown id, 409 the run ended.  The lead
 *     waits for N joined clients before it starts the run, so each of
 *     them observes from the writer's first store.
 *
 * POST /v1/stop        (body ignored)
 *     SIGTERM the active run's child (by PID; the server is its parent, so
 *     the PID cannot have been reused), wait for it to exit (SIGKILL after
 *     SW_CTL_STOP_GRACE_MS), return the final /v1/status object plus
 *     "stopped":true.  When the last run already ended by itself: 200, its
 *     final status, "stopped":false.  409 if no run was ever started.
 *
 * GET /v1/runs/<run_id>/log
 *     The run's ground-truth log (writer.swlog) byte for byte,
 *     Content-Type application/octet-stream.  Valid while the run is
 *     active too (the bytes flushed so far).  404 for an unknown id.
 *
 * GET /v1/runs/<run_id>/stderr
 *     The child's stderr, text/plain.
 *
 * Anything else: 404 (unknown route) or 405 (known route, wrong method).
 */
#ifndef STALEWIN_CONTROL_H
#define STALEWIN_CONTROL_H

#define SW_CTL_API_VERSION 1
#define SW_CTL_MAX_BODY 16384          /* bytes of request body, else 413 */
#define SW_CTL_TOKEN_BYTES 32          /* random bytes; hex => 64 chars */
#define SW_CTL_START_TIMEOUT_MS 30000  /* child must be "running" by then */
#define SW_CTL_STOP_GRACE_MS 20000     /* SIGTERM, then SIGKILL after */
#define SW_CTL_RATE_PER_S 100          /* requests/s a client address, */
#define SW_CTL_RATE_BURST 400          /* after a burst of this many */
#define SW_CTL_HDR_CLIENT "X-Stalewin-Client" /* the client's name */
#define SW_CTL_CLIENT_MAX 64           /* characters of that name */
#define SW_CTL_CLIENTS_PER_ADDR 128    /* names with a bucket of their own */
#define SW_CTL_CONN_PER_CLIENT 16      /* connections at once per address */

/* Token file lines after the token (see "The token file" above) */
#define SW_CTL_TOKFILE_PIN "pin"
#define SW_CTL_TOKFILE_PLAIN "insecure-private-link"

/* Routes */
#define SW_CTL_ROUTE_CLOCK "/v1/clock"
#define SW_CTL_ROUTE_INFO "/v1/info"
#define SW_CTL_ROUTE_RUNS "/v1/runs"    /* POST: start; /<id>, /<id>/log */
#define SW_CTL_ROUTE_STATUS "/v1/status"
#define SW_CTL_ROUTE_FILES "/v1/files"   /* POST: create the run's file */
#define SW_CTL_ROUTE_STOP "/v1/stop"

/* HTTP status codes the API uses */
#define SW_CTL_HTTP_OK 200
#define SW_CTL_HTTP_CREATED 201          /* run started */
#define SW_CTL_HTTP_BAD_REQUEST 400      /* bad JSON, bad option, bad path */
#define SW_CTL_HTTP_UNAUTHORIZED 401     /* token missing or wrong */
#define SW_CTL_HTTP_NOT_FOUND 404        /* unknown route or run id */
#define SW_CTL_HTTP_BAD_METHOD 405       /* known route, other method */
#define SW_CTL_HTTP_CONFLICT 409         /* a run is active / none to stop */
#define SW_CTL_HTTP_TOO_LARGE 413        /* body over SW_CTL_MAX_BODY */
#define SW_CTL_HTTP_TOO_MANY 429         /* over the client's rate */
#define SW_CTL_HTTP_INTERNAL 500         /* the server or the child failed */

/* JSON fields */
#define SW_CTL_F_ERROR "error"
#define SW_CTL_F_T_REAL "t_real_ns"
#define SW_CTL_F_T_MONO "t_mono_ns"
#define SW_CTL_F_RUN_ID "run_id"
#define SW_CTL_F_PID "pid"
#define SW_CTL_F_ACTIVE "active"
#define SW_CTL_F_STATE "state"
#define SW_CTL_F_STATUS "status"
#define SW_CTL_F_EXIT_CODE "exit_code"
#define SW_CTL_F_STDERR "stderr"
#define SW_CTL_F_ARGV "argv"
#define SW_CTL_F_STOPPED "stopped"
#define SW_CTL_F_FILE "file"

/* Files of a run folder on the server: --runs/<run_id>/... */
#define SW_CTL_RUN_LOG "writer.swlog"
#define SW_CTL_RUN_STATUS "status.json"
#define SW_CTL_RUN_STDERR "stderr.txt"

#include <string.h>
/* 1 when s may name a client (SW_CTL_HDR_CLIENT): 1 to SW_CTL_CLIENT_MAX
 * characters of A-Z a-z 0-9 . _ : - (the server's rule and the client's) */
static inline int sw_ctl_client_name_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	return n >= 1 && n <= SW_CTL_CLIENT_MAX &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-") == n;
}

#endif
