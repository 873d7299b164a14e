/* SPDX-License-Identifier: MIT */
/*
 * control/guard.c - the allow-list and per-client rate limit of the
 * control API (control_guard.h).
 *
 * Rate: a token bucket per client address, burst tokens deep, refilled at
 * rate_per_s, and one per named client of an address (the caller names
 * only authenticated requests), at most per_addr names an address.  A
 * request takes one token; none left: 429 and Retry-After (the seconds
 * until one token is back, at least 1).  Buckets live in a fixed table of
 * CTL_GUARD_SLOTS; when it is full the bucket used least recently gives
 * its slot up (and a returning client starts with a full bucket): only
 * allowed clients reach the table, so a handful of addresses is the
 * normal case, and a hundred attached clients on one host fit.
 */
#include <arpa/inet.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control_guard.h"

#define CTL_GUARD_SLOTS 512
#define NS_PER_S 1000000000LL

struct bucket {
	uint32_t addr;
	uint64_t name;          /* FNV-1a of the client's name; 0: the address' own */
	int used;
	double tokens;
	int64_t last_ns;        /* refill time (monotonic) */
	int64_t logged_ns;      /* last 429 line, 0: none yet in this flood */
	unsigned long unlogged; /* 429s since that line */
};

struct ctl_guard {
	pthread_mutex_t mu;
	struct ctl_cidr *allow;
	size_t n_allow;
	double rate, burst;
	unsigned per_addr;          /* names with a bucket of their own, per address */
	struct bucket b[CTL_GUARD_SLOTS];
	int64_t out_logged_ns;      /* outsiders: last line */
	unsigned long out_unlogged; /* refusals since */
};

int ctl_cidr_parse(const char *s, struct ctl_cidr *out, char *err, size_t errlen)
{
	char host[32], *end;
	const char *slash = strchr(s, '/');
	size_t hl = slash ? (size_t)(slash - s) : strlen(s);
	long bits = 32;
	struct in_addr a;

	if (hl == 0 || hl >= sizeof(host))
		goto bad;
	memcpy(host, s, hl);
	host[hl] = 0;
	if (inet_pton(AF_INET, host, &a) != 1)
		goto bad;
	if (slash) {
		if (slash[1] < '0' || slash[1] > '9')
			goto bad;
		bits = strtol(slash + 1, &end, 10);
		if (*end || bits < 0 || bits > 32)
			goto bad;
	}
	out->mask = bits ? 0xffffffffu << (32 - bits) : 0;
	out->net = ntohl(a.s_addr);
	if (out->net & ~out->mask) {
		snprintf(err, errlen, "expected --allow CIDR with no host bits past /%ld, saw '%s' "
			 "(the network is %u.%u.%u.%u/%ld)", bits, s, (out->net & out->mask) >> 24,
			 (out->net & out->mask) >> 16 & 255, (out->net & out->mask) >> 8 & 255,
			 out->net & out->mask & 255, bits);
		return -1;
	}
	return 0;
bad:
	snprintf(err, errlen, "expected --allow IPV4[/BITS] (e.g. 10.0.0.0/24, 192.0.2.7), saw '%s'",
		 s);
	return -1;
}

int ctl_addr_loopback(uint32_t addr)
{
	return (addr >> 24) == 127;
}

int ctl_addr_private(uint32_t addr)
{
	return (addr >> 24) == 10 || (addr & 0xfff00000u) == 0xac100000u ||
	       (addr & 0xffff0000u) == 0xc0a80000u;
}

int ctl_listen_rule(uint32_t addr, int tls, int insecure_private_link, size_t n_allow,
		    char *err, size_t errlen)
{
	char a[INET_ADDRSTRLEN];
	struct in_addr ia = { .s_addr = htonl(addr) };

	inet_ntop(AF_INET, &ia, a, sizeof(a));
	if (tls && insecure_private_link) {
		snprintf(err, errlen, "expected one of --tls and --insecure-private-link, saw both");
	} else if (ctl_addr_loopback(addr)) {
		if (!insecure_private_link)
			return 0;
		snprintf(err, errlen, "expected --insecure-private-link only off loopback (plain "
			 "HTTP is what --listen %s does anyway), saw it with %s", a, a);
	} else if (!tls && !insecure_private_link) {
		snprintf(err, errlen, "expected --tls to listen on %s (not loopback: the token must "
			 "not cross a network in clear), saw neither --tls nor "
			 "--insecure-private-link", a);
	} else if (insecure_private_link && !ctl_addr_private(addr)) {
		snprintf(err, errlen, "expected --insecure-private-link only on one private address "
			 "(10/8, 172.16/12, 192.168/16) of a link no other host shares, saw "
			 "--listen %s", a);
	} else if (!n_allow) {
		snprintf(err, errlen, "expected at least one --allow CIDR to listen on %s: every "
			 "client outside the allow-list is refused (--allow 0.0.0.0/0 admits any), "
			 "saw none", a);
	} else {
		return 0;
	}
	return -1;
}

struct ctl_guard *ctl_guard_new(const struct ctl_cidr *allow, size_t n, double rate_per_s,
				double burst, unsigned names_per_addr)
{
	struct ctl_guard *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	if (n && !(g->allow = malloc(n * sizeof(*allow)))) {
		free(g);
		return NULL;
	}
	if (n)
		memcpy(g->allow, allow, n * sizeof(*allow));
	g->n_allow = n;
	g->rate = rate_per_s;
	g->burst = burst;
	g->per_addr = names_per_addr;
	pthread_mutex_init(&g->mu, NULL);
	return g;
}

void ctl_guard_free(struct ctl_guard *g)
{
	if (!g)
		return;
	pthread_mutex_destroy(&g->mu);
	free(g->allow);
	free(g);
}

int ctl_guard_allowed(const struct ctl_guard *g, uint32_t addr)
{
	if (!g->n_allow)
		return 1;
	for (size_t i = 0; i < g->n_allow; i++)
		if ((addr & g->allow[i].mask) == g->allow[i].net)
			return 1;
	return 0;
}

/* one log line a second at most: 1 to log now */
static int log_due(int64_t *logged_ns, unsigned long *unlogged, int64_t now,
		   unsigned long *suppressed)
{
	if (*logged_ns && now - *logged_ns < NS_PER_S) {
		++*unlogged;
		return 0;
	}
	*suppressed = *unlogged;
	*unlogged = 0;
	*logged_ns = now ? now : 1;
	return 1;
}

int ctl_guard_outsider_log(struct ctl_guard *g, int64_t now_mono_ns, unsigned long *suppressed)
{
	pthread_mutex_lock(&g->mu);
	int r = log_due(&g->out_logged_ns, &g->out_unlogged, now_mono_ns, suppressed);
	pthread_mutex_unlock(&g->mu);
	return r;
}

static uint64_t name_key(const char *name)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a, 64 bits */

	if (!name || !*name)
		return 0;
	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 1099511628211ULL;
	return h ? h : 1;
}

static struct bucket *slot(struct ctl_guard *g, uint32_t addr, uint64_t name, int64_t now)
{
	struct bucket *lru = &g->b[0], *own = NULL;
	unsigned named = 0;

	for (int i = 0; i < CTL_GUARD_SLOTS; i++) {
		struct bucket *b = &g->b[i];
		if (b->used && b->addr == addr) {
			if (b->name == name)
				return b;
			if (!b->name)
				own = b;
			named += b->name != 0;
		}
		if (!b->used || (lru->used && b->last_ns < lru->last_ns))
			lru = b;
	}
	if (name && named >= g->per_addr) /* names enough: the address' own */
		return own ? own : slot(g, addr, 0, now);
	*lru = (struct bucket){ .addr = addr, .name = name, .used = 1, .tokens = g->burst,
				.last_ns = now };
	return lru;
}

int ctl_guard_take(struct ctl_guard *g, uint32_t addr, const char *name, int64_t now_mono_ns,
		   int *log, unsigned long *suppressed)
{
	int retry = 0;

	*log = 0;
	*suppressed = 0;
	pthread_mutex_lock(&g->mu);
	struct bucket *b = slot(g, addr, name_key(name), now_mono_ns);
	if (now_mono_ns > b->last_ns) {
		b->tokens += (double)(now_mono_ns - b->last_ns) / NS_PER_S * g->rate;
		if (b->tokens > g->burst)
			b->tokens = g->burst;
		b->last_ns = now_mono_ns;
	}
	if (b->tokens >= 1) {
		b->tokens -= 1;
		if (b->tokens >= g->burst - 1)
			b->logged_ns = 0; /* full again: the next flood logs at once */
	} else {
		retry = (int)ceil((1 - b->tokens) / g->rate);
		retry = retry < 1 ? 1 : retry;
		*log = log_due(&b->logged_ns, &b->unlogged, now_mono_ns, suppressed);
	}
	pthread_mutex_unlock(&g->mu);
	return retry;
}
