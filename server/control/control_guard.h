/* SPDX-License-Identifier: MIT */
/* control_guard.h - who may talk to `stalewin-writer serve` and how fast:
 * the listen address' class (loopback, private), the --allow list of
 * client networks (CIDR, IPv4) and a token bucket per client address
 * (SW_CTL_RATE_PER_S refilled, SW_CTL_RATE_BURST deep; common/control.h).
 * Library code: no exits, no output; the callers log what it decides.
 * Thread-safe (one mutex): libmicrohttpd runs a thread per connection. */
#ifndef STALEWIN_CONTROL_GUARD_H
#define STALEWIN_CONTROL_GUARD_H

#include <stddef.h>
#include <stdint.h>

struct ctl_cidr {
	uint32_t net;  /* host byte order, host bits cleared */
	uint32_t mask; /* host byte order */
};

/* "A.B.C.D/N" (N 0..32) or a bare "A.B.C.D" (/32).  0, or -1 with err
 * saying what was expected and seen (also for host bits set past /N). */
int ctl_cidr_parse(const char *s, struct ctl_cidr *out, char *err, size_t errlen);

/* addr in host byte order */
int ctl_addr_loopback(uint32_t addr); /* 127.0.0.0/8 */
int ctl_addr_private(uint32_t addr);  /* 10/8, 172.16/12, 192.168/16 */

/* The rule of `serve --listen ADDR` (common/control.h, "Off loopback"):
 * loopback: plain HTTP, or TLS with tls; anything else: tls, or plain HTTP
 * with insecure_private_link on a private address only; and at least one
 * --allow (n_allow) off loopback.  0 when the combination may start, else
 * -1 with err saying what was expected and what was seen. */
int ctl_listen_rule(uint32_t addr, int tls, int insecure_private_link, size_t n_allow,
		    char *err, size_t errlen);

struct ctl_guard;

/* allow: n networks (copied); n == 0 admits every address.  rate_per_s
 * and burst > 0; names_per_addr: the named clients of one address that
 * have a bucket of their own (ctl_guard_take).  NULL when out of memory. */
struct ctl_guard *ctl_guard_new(const struct ctl_cidr *allow, size_t n, double rate_per_s,
				double burst, unsigned names_per_addr);
void ctl_guard_free(struct ctl_guard *g);

/* 1 when addr is on the allow-list. */
int ctl_guard_allowed(const struct ctl_guard *g, uint32_t addr);

/* A refused outsider: 1 when this refusal should be logged (at most one
 * line a second; *suppressed = refusals not logged since the last line). */
int ctl_guard_outsider_log(struct ctl_guard *g, int64_t now_mono_ns, unsigned long *suppressed);

/* One request of addr at now_mono_ns; name: the client's name, NULL or ""
 * for none (the caller passes one only for an authenticated request).  A
 * name has its own bucket, keyed by addr and name, while fewer than
 * names_per_addr names of addr have one; else, and without a name, the
 * request takes from addr's own.  0: served (a token taken).  > 0: over
 * its rate, answer 429 with this Retry-After in seconds; *log is then 1
 * for the first refusal and at most once a second after it, with
 * *suppressed the refusals of that bucket not logged since. */
int ctl_guard_take(struct ctl_guard *g, uint32_t addr, const char *name, int64_t now_mono_ns,
		   int *log, unsigned long *suppressed);

#endif
