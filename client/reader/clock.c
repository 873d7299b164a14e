/* SPDX-License-Identifier: MIT */
/*
 * clock.c - `stalewin-reader clock-serve|clock`: a UDP clock
 * exchange between two guests, the fallback of the VM runs when the
 * control API (stalewin-ctl clock) is not available.
 *
 *   stalewin-reader clock-serve ADDR:PORT          answer until SIGTERM
 *   stalewin-reader clock ADDR:PORT [--samples N]  print one JSON object
 *
 * NTP-style: the client sends t1 (its CLOCK_REALTIME), the server stamps
 * t2 at receipt and t3 at reply (its CLOCK_REALTIME), the client t4 at
 * receipt.  For the sample with the smallest round trip
 * (t4 - t1) - (t3 - t2): offset = ((t2 - t1) + (t3 - t4)) / 2 = server
 * minus client, error bound = round trip / 2.  Output, as a clock.json
 * half: {"offset_ns":N,"err_ns":N,"rtt_min_ns":N,"samples":N,
 * "t_real_ns":N,"method":"udp-ntp"}.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clockest.h"
#include "parse.h"
#include "reader_clock.h"
#include "swtime.h"

#define CLOCK_MAGIC 0x4b4c435753ull /* "SWCLK" */

struct clock_pkt {
	uint64_t magic;  /* CLOCK_MAGIC */
	uint64_t seq;    /* request number */
	int64_t t1_ns;   /* client realtime at send */
	int64_t t2_ns;   /* server realtime at receipt */
	int64_t t3_ns;   /* server realtime at reply */
};

static volatile sig_atomic_t clock_stop;
static void clock_on_signal(int sig) { clock_stop = sig; }

static int parse_addr(const char *s, struct sockaddr_in *sa)
{
	char host[64];
	const char *colon = strrchr(s, ':');
	if (!colon || colon == s || (size_t)(colon - s) >= sizeof(host))
		return -1;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = 0;
	char *end;
	long port = strtol(colon + 1, &end, 10);
	if (*end || port <= 0 || port > 65535)
		return -1;
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, host, &sa->sin_addr) == 1 ? 0 : -1;
}

static int clock_serve(const struct sockaddr_in *sa)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (const struct sockaddr *)sa, sizeof(*sa))) {
		fprintf(stderr, "stalewin-reader: clock-serve: cannot bind udp %s:%u: %s\n",
			inet_ntoa(sa->sin_addr), ntohs(sa->sin_port), strerror(errno));
		return 1;
	}
	struct sigaction act = { .sa_handler = clock_on_signal };
	sigemptyset(&act.sa_mask);
	sigaction(SIGINT, &act, NULL);
	sigaction(SIGTERM, &act, NULL);
	while (!clock_stop) {
		struct clock_pkt p;
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(fd, &p, sizeof(p), 0, (struct sockaddr *)&from, &fl);
		int64_t t2 = sw_real_ns();
		if (n != (ssize_t)sizeof(p) || p.magic != CLOCK_MAGIC)
			continue;
		p.t2_ns = t2;
		p.t3_ns = sw_real_ns();
		sendto(fd, &p, sizeof(p), 0, (struct sockaddr *)&from, fl);
	}
	close(fd);
	return 0;
}

static int clock_query(const struct sockaddr_in *sa, unsigned samples)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (const struct sockaddr *)sa, sizeof(*sa))) {
		fprintf(stderr, "stalewin-reader: clock: cannot reach udp %s:%u: %s\n",
			inet_ntoa(sa->sin_addr), ntohs(sa->sin_port), strerror(errno));
		return 1;
	}
	struct sw_clockest est;
	sw_clockest_init(&est);
	for (unsigned i = 0; i < samples * 3 && est.samples < samples; i++) {
		struct clock_pkt p = { .magic = CLOCK_MAGIC, .seq = i, .t1_ns = sw_real_ns() };
		if (send(fd, &p, sizeof(p), 0) != (ssize_t)sizeof(p))
			continue;
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		while (poll(&pfd, 1, 500) == 1) {
			struct clock_pkt r;
			ssize_t n = recv(fd, &r, sizeof(r), 0);
			int64_t t4 = sw_real_ns();
			if (n != (ssize_t)sizeof(r) || r.magic != CLOCK_MAGIC || r.seq != i)
				continue; /* a late reply to an earlier request */
			sw_clockest_add(&est, r.t1_ns, r.t2_ns, r.t3_ns, t4,
					(t4 - r.t1_ns) - (r.t3_ns - r.t2_ns));
			break;
		}
		usleep(2000);
	}
	close(fd);
	if (!est.samples) {
		fprintf(stderr, "stalewin-reader: clock: no reply from udp %s:%u in %u tries\n",
			inet_ntoa(sa->sin_addr), ntohs(sa->sin_port), samples * 3);
		return 1;
	}
	printf("{\"offset_ns\":%lld,\"err_ns\":%lld,\"rtt_min_ns\":%lld,\"samples\":%u,"
	       "\"t_real_ns\":%lld,\"method\":\"udp-ntp\"}\n",
	       (long long)est.offset_ns, (long long)(est.rtt_min_ns / 2),
	       (long long)est.rtt_min_ns, est.samples,
	       (long long)sw_real_ns());
	return 0;
}

int sw_reader_clock_main(int argc, char **argv)
{
	struct sockaddr_in sa;
	unsigned samples = 50;

	if (argc < 2 || parse_addr(argv[1], &sa)) {
		fprintf(stderr, "stalewin-reader: %s: expected IPv4ADDR:PORT, saw '%s'\n",
			argv[0], argc > 1 ? argv[1] : "");
		return 2;
	}
	if (argc == 4 && !strcmp(argv[2], "--samples")) {
		uint64_t v;
		if (sw_parse_u64(argv[3], 10, 0, 1, 100000, &v)) {
			fprintf(stderr, "stalewin-reader: --samples: expected 1..100000, saw '%s'\n", argv[3]);
			return 2;
		}
		samples = (unsigned)v;
	} else if (argc != 2) {
		fprintf(stderr, "stalewin-reader: usage: %s ADDR:PORT%s\n", argv[0],
			strcmp(argv[0], "clock") ? "" : " [--samples N]");
		return 2;
	}
	return strcmp(argv[0], "clock-serve") ? clock_query(&sa, samples) : clock_serve(&sa);
}
