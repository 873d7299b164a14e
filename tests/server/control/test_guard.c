/* SPDX-License-Identifier: MIT */
/*
 * Description: the control API's guard (server/control/guard.c) on a
 * clock the test sets: which --listen may start plain or needs --tls,
 * --allow's CIDR parsing and matching, and each client's token bucket
 * (the burst answered, the next request refused with Retry-After 1, one
 * request back per 1/rate s, clients apart, the log lines once a second),
 * and the named clients of one address (a bucket each up to the cap, the
 * rest sharing the address' own).  A broken guard would let plain HTTP
 * start off loopback, read a /33 or a network with host bits as valid,
 * admit an address outside the list, serve a flood, refuse a client for
 * another's flood, or let one host's clients share one bucket (or take
 * unbounded buckets by naming themselves).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "control.h"
#include "control_guard.h"

#define S_NS 1000000000LL

static uint32_t ip(const char *s)
{
	struct in_addr a;
	inet_pton(AF_INET, s, &a);
	return ntohl(a.s_addr);
}

SW_CASE(listen_rule)
{
	char err[300];
	struct {
		const char *addr;
		int tls, plain, allow, ok;
		const char *msg;
	} t[] = {
		{ "127.0.0.1", 0, 0, 0, 1, NULL },
		{ "127.0.0.1", 1, 0, 0, 1, NULL },
		{ "127.0.0.1", 0, 1, 1, 0, "only off loopback" },
		{ "10.0.0.1", 0, 0, 1, 0, "expected --tls" },
		{ "0.0.0.0", 0, 0, 1, 0, "expected --tls" },
		{ "10.0.0.1", 1, 0, 0, 0, "at least one --allow" },
		{ "10.0.0.1", 1, 0, 1, 1, NULL },
		{ "10.0.0.1", 1, 1, 1, 0, "saw both" },
		{ "10.77.0.1", 0, 1, 1, 1, NULL },
		{ "172.16.3.4", 0, 1, 1, 1, NULL },
		{ "172.32.0.1", 0, 1, 1, 0, "private address" },
		{ "172.15.255.1", 0, 1, 1, 0, "private address" },
		{ "11.0.0.1", 0, 1, 1, 0, "private address" },
		{ "192.168.9.9", 0, 1, 1, 1, NULL },
		{ "192.0.2.1", 0, 1, 1, 0, "private address" },
		{ "0.0.0.0", 0, 1, 1, 0, "private address" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		err[0] = 0;
		int rc = ctl_listen_rule(ip(t[i].addr), t[i].tls, t[i].plain, (size_t)t[i].allow, err,
					 sizeof(err));
		CHECK((rc == 0) == t[i].ok, "%s tls=%d plain=%d allow=%d: expected %s, saw %s (%s)",
		      t[i].addr, t[i].tls, t[i].plain, t[i].allow, t[i].ok ? "start" : "refusal",
		      rc ? "refusal" : "start", err);
		CHECK(t[i].ok || strstr(err, t[i].msg), "%s: expected '%s' in '%s'", t[i].addr,
		      t[i].msg, err);
	}
}

SW_CASE(cidr)
{
	struct ctl_cidr c[3];
	char err[300];

	CHECK(ctl_cidr_parse("10.99.0.0/24", &c[0], err, sizeof(err)) == 0, "%s", err);
	CHECK(ctl_cidr_parse("192.0.2.7", &c[1], err, sizeof(err)) == 0, "%s", err);
	CHECK(c[1].mask == 0xffffffffu, "a bare address is /32, saw mask %08x", c[1].mask);
	CHECK(ctl_cidr_parse("0.0.0.0/0", &c[2], err, sizeof(err)) == 0, "%s", err);
	const char *bad[] = { "10.0.0.0/33", "10.0.0.0/", "10.0.0/8", "/8", "10.0.0.0/-1",
			      "10.0.0.0/8x", "", "10.0.0.1/24", "host/8" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ctl_cidr x;
		err[0] = 0;
		CHECK(ctl_cidr_parse(bad[i], &x, err, sizeof(err)) == -1 && err[0],
		      "'%s': expected a refusal with a message", bad[i]);
	}
	struct ctl_guard *g = ctl_guard_new(c, 2, 100, 400, SW_CTL_CLIENTS_PER_ADDR);
	CHECK(ctl_guard_allowed(g, ip("10.99.0.2")), "10.99.0.2 in 10.99.0.0/24");
	CHECK(ctl_guard_allowed(g, ip("192.0.2.7")), "192.0.2.7 listed");
	CHECK(!ctl_guard_allowed(g, ip("10.99.1.2")), "10.99.1.2 outside");
	CHECK(!ctl_guard_allowed(g, ip("192.0.2.8")), "192.0.2.8 outside");
	ctl_guard_free(g);
	g = ctl_guard_new(NULL, 0, 100, 400, SW_CTL_CLIENTS_PER_ADDR);
	CHECK(ctl_guard_allowed(g, ip("203.0.113.1")), "no list admits all");
	ctl_guard_free(g);
}

SW_CASE(bucket)
{
	struct ctl_guard *g = ctl_guard_new(NULL, 0, SW_CTL_RATE_PER_S, SW_CTL_RATE_BURST, SW_CTL_CLIENTS_PER_ADDR);
	uint32_t a = ip("10.0.0.2"), b = ip("10.0.0.3");
	int64_t t = 5 * S_NS;
	unsigned long more;
	int log, served = 0, r;

	for (int i = 0; i < SW_CTL_RATE_BURST; i++)
		served += ctl_guard_take(g, a, NULL, t, &log, &more) == 0;
	CHECK(served == SW_CTL_RATE_BURST, "expected the burst of %d served, saw %d",
	      SW_CTL_RATE_BURST, served);
	r = ctl_guard_take(g, a, NULL, t, &log, &more);
	CHECK(r == 1 && log == 1 && more == 0, "over: expected Retry-After 1 logged, saw %d log %d", r, log);
	for (int i = 0; i < 10; i++) { /* 5 ms later: half a token, still over */
		r = ctl_guard_take(g, a, NULL, t + S_NS / 200, &log, &more);
		CHECK(r == 1 && log == 0, "5 ms later: expected refused, not logged again, saw %d "
		      "log %d", r, log);
	}
	CHECK(ctl_guard_take(g, b, NULL, t, &log, &more) == 0, "another client refused for a's flood");
	served = 0;
	while (!ctl_guard_take(g, a, NULL, t + 3 * S_NS / 2, &log, &more))
		served++;
	/* 0.5 + 1.5 s x 100/s = 150.5 tokens */
	CHECK(served == 150, "1.5 s later: expected 150 requests back, saw %d", served);
	CHECK(log == 1 && more == 10, "the next line, a second on: expected the 10 since, saw log "
	      "%d, %lu", log, more);
	ctl_guard_free(g);
}

/* the named clients of one address: a bucket each, up to the cap; the
 * rest, and the unnamed, share the address' own */
SW_CASE(named)
{
	struct ctl_guard *g = ctl_guard_new(NULL, 0, 1, 2, 3);
	uint32_t a = ip("10.0.0.2"), b = ip("10.0.0.3");
	int64_t t = 5 * S_NS;
	unsigned long more;
	int log;
	char n[16];

	for (int c = 0; c < 3; c++) { /* three names: two tokens each */
		snprintf(n, sizeof(n), "c%d", c);
		for (int i = 0; i < 2; i++)
			CHECK(!ctl_guard_take(g, a, n, t, &log, &more), "%s request %d: expected "
			      "served from its own bucket, saw 429", n, i + 1);
		CHECK(ctl_guard_take(g, a, n, t, &log, &more) == 1, "%s request 3: expected 429 "
		      "(its own bucket empty), saw it served", n);
	}
	/* the address' own bucket is untouched by its named clients */
	CHECK(!ctl_guard_take(g, a, NULL, t, &log, &more) &&
	      !ctl_guard_take(g, a, "", t, &log, &more),
	      "unnamed: expected the address' own 2 tokens, saw 429");
	/* a fourth name is over the cap: it takes from the address' own */
	CHECK(ctl_guard_take(g, a, "c3", t, &log, &more) == 1, "a fourth name past the cap of 3: "
	      "expected the address' own bucket (empty: 429), saw it served");
	/* the same names at another address are other buckets */
	CHECK(!ctl_guard_take(g, b, "c0", t, &log, &more), "c0 at another address: expected "
	      "served, saw 429 for a's c0");
	/* a second on, each named bucket has one token back */
	CHECK(!ctl_guard_take(g, a, "c1", t + S_NS, &log, &more), "c1 a second on: expected "
	      "served, saw 429");
	ctl_guard_free(g);
}

SW_CASE(outsider_log)
{
	struct ctl_guard *g = ctl_guard_new(NULL, 0, 1, 1, 2);
	unsigned long more = 7;
	CHECK(ctl_guard_outsider_log(g, S_NS, &more) == 1 && more == 0, "first refusal logged");
	CHECK(ctl_guard_outsider_log(g, S_NS + 1, &more) == 0, "second within the second not");
	CHECK(ctl_guard_outsider_log(g, 3 * S_NS, &more) == 1 && more == 1,
	      "after a second: logged with 1 since, saw %lu", more);
	ctl_guard_free(g);
}

SW_MAIN()
