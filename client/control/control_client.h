/* SPDX-License-Identifier: MIT */
/*
 * control_client.h - the probe side's client of the control API
 * (common/control.h), over libcurl.  One handle keeps one connection alive
 * (so clock samples after the first carry no connection set-up).
 *
 * Every call returns 0 on success, SWCTL_E_TRANSPORT when the server could
 * not be reached or did not answer, SWCTL_E_PROTO for a reply that is not
 * what the protocol says, or the HTTP status (>= 400) the server answered
 * with.  err then holds one line: for HTTP errors, the server's "error".
 */
#ifndef STALEWIN_CONTROL_CLIENT_H
#define STALEWIN_CONTROL_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#define SWCTL_E_TRANSPORT (-1)
#define SWCTL_E_PROTO (-2)
#define SWCTL_E_PIN (-3)   /* https: no pin, or the server's key is not it */
#define SWCTL_E_PLAIN (-4) /* plain http off loopback: the token stays home */
#define SWCTL_ERRLEN 1024

struct swctl;

/* One clock offset estimate, the shape of clock.json's "before"/"after". */
struct swctl_clock {
	int64_t offset_ns;   /* server CLOCK_REALTIME - client CLOCK_REALTIME,
				from the minimum-RTT sample */
	int64_t err_ns;      /* bound on |offset error| = rtt_min_ns / 2 */
	int64_t rtt_min_ns;  /* smallest round trip seen (client MONOTONIC) */
	int64_t rtt_p50_ns;  /* median round trip, for information */
	unsigned samples;    /* samples used (the warm-up one excluded) */
	int64_t t_real_ns;   /* client CLOCK_REALTIME at the chosen sample's
				midpoint */
};

/* A token file (common/control.h, "The token file"; tokfile.c). */
struct swctl_tokfile {
	char path[256];       /* for messages */
	char token[256];      /* the first line, whitespace trimmed */
	char pin[128];        /* "sha256//BASE64" or "" (no TLS) */
	char plain_host[64];  /* the serve's insecure-private-link address or "" */
};
int swctl_read_tokfile(const char *path, struct swctl_tokfile *tf, char *err,
		       size_t errlen);
/* May url carry tf's token?  0, SWCTL_E_PROTO (not a URL), SWCTL_E_PIN
 * (https without a pin) or SWCTL_E_PLAIN (http off loopback). */
int swctl_url_check(const char *url, const struct swctl_tokfile *tf, char *err,
		    size_t errlen);

/* url: "http(s)://HOST:PORT" (no trailing route), checked by
 * swctl_url_check; https pins tf->pin.  timeout_ms 0: 60 s.  A request
 * answered 429 is retried after its Retry-After (at most 5 times, 5 s
 * each); a server whose key is not the pin: SWCTL_E_PIN. */
int swctl_open(struct swctl **out, const char *url, const struct swctl_tokfile *tf,
	       long timeout_ms, char *err, size_t errlen);
void swctl_close(struct swctl *c);

/* Name this client in every request (header SW_CTL_HDR_CLIENT): the
 * server then gives it a token bucket of its own beside the other
 * clients of its address (common/control.h, "Rate").  0, or
 * SWCTL_E_PROTO with err saying what was expected and seen. */
int swctl_set_client(struct swctl *c, const char *name, char *err, size_t errlen);

/* Any route: method "GET"/"POST", body NULL or JSON text.  On return
 * *code is the HTTP status (0 on transport failure), *reply the body
 * (malloc'd, NUL-terminated, NULL on transport failure). */
int swctl_request(struct swctl *c, const char *method, const char *route,
		  const char *body, long *code, char **reply, char *err,
		  size_t errlen);

/* samples: requests after one warm-up request (>= 1; 0 means 50). */
int swctl_clock(struct swctl *c, unsigned samples, struct swctl_clock *out,
		char *err, size_t errlen);
/* {"offset_ns":..,"err_ns":..,"rtt_min_ns":..,"samples":..,"t_real_ns":..,
 *  "rtt_p50_ns":..}  into buf; returns bytes or -1 if it did not fit. */
int swctl_clock_format(const struct swctl_clock *k, char *buf, size_t len);

/* start: args_json is the JSON object of writer options (control.h).
 * *reply: the server's reply (malloc'd JSON text) on success. */
int swctl_start(struct swctl *c, const char *args_json, char **reply,
		char *err, size_t errlen);
int swctl_status(struct swctl *c, char **reply, char *err, size_t errlen);
int swctl_stop(struct swctl *c, char **reply, char *err, size_t errlen);
/* what: "log" (writer.swlog) or "stderr".  Written to dest.tmp.PID, then
 * renamed to dest, so dest is whole or absent. */
int swctl_fetch(struct swctl *c, const char *run_id, const char *what,
		const char *dest, char *err, size_t errlen);

#endif
