/* SPDX-License-Identifier: MIT */
/*
 * Description: the client guest's poll and the measurer's handshake
 * (server/cost/clientpoll.c), on this host with a child process as the
 * client: ready, start, stop, stats; the count within the window at the
 * asked rate (never above it: each call at its deadline, a late one not
 * made up), every call finding a file that exists and none finding one
 * that does not; the measurer's waits fail, said, when no client answers.
 * A poll that bursts, counts outside the window or loses its count fails.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "clientpoll.h"

static char dir[] = "/tmp/sw-clientpoll-XXXXXX";

static void cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return;
}

__attribute__((constructor)) static void make_dir(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(1);
	}
	atexit(cleanup);
}

/* a client polling path at rate in a child; its pid */
static pid_t client(const char *path, const char *ctl, double rate)
{
	pid_t p = fork();

	if (p == 0) {
		char err[512];

		if (sw_cost_client_poll(path, rate, ctl, 60, err, sizeof(err))) {
			fprintf(stderr, "client: %s\n", err);
			_exit(1);
		}
		_exit(0);
	}
	return p;
}

static void one(const char *name, int exists, double rate)
{
	char ctl[256], file[256], err[512];
	struct sw_cost_client_stats st;
	int status = -1;
	pid_t p;

	snprintf(ctl, sizeof(ctl), "%s/%s", dir, name);
	snprintf(file, sizeof(file), "%s/%s.dat", dir, name);
	CHECK(mkdir(ctl, 0755) == 0);
	if (exists)
		fclose(fopen(file, "w"));
	p = client(file, ctl, rate);
	CHECK(!sw_cost_client_begin(ctl, 30, err, sizeof(err)), "begin: %s", err);
	snprintf(file + strlen(file) - 4, 8, ".cnt");
	snprintf(err, sizeof(err), "%s/counting", ctl);
	CHECK(access(err, F_OK) == 0, "begin returned before the client counted");
	snprintf(file + strlen(file) - 4, 8, ".dat");
	usleep(600000);
	CHECK(!sw_cost_client_end(ctl, 30, &st, err, sizeof(err)), "end: %s", err);
	waitpid(p, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the client failed");
	CHECK(st.rate == rate, "rate %g", st.rate);
	CHECK(st.seconds > 0 && st.calls > 0, "calls %lld in %g s", st.calls, st.seconds);
	CHECK(st.calls <= st.seconds * rate + 2, "%lld calls in %.3f s at %g/s: a burst",
	      st.calls, st.seconds, rate);
	CHECK(st.found == (exists ? st.calls : 0), "found %lld of %lld (file %s)", st.found,
	      st.calls, exists ? "there" : "absent");
}

SW_CASE(handshake_and_count)
{
	one("there", 1, 200);
	one("absent", 0, 50);
}

SW_CASE(no_client_said)
{
	char ctl[256], err[512];
	struct sw_cost_client_stats st;

	snprintf(ctl, sizeof(ctl), "%s/none", dir);
	CHECK(mkdir(ctl, 0755) == 0);
	CHECK(sw_cost_client_begin(ctl, 0.3, err, sizeof(err)) && strstr(err, "/ready within"),
	      "begin without a client: %s", err);
	CHECK(sw_cost_client_end(ctl, 0.3, &st, err, sizeof(err)) && strstr(err, "/stats within"),
	      "end without a client: %s", err);
	CHECK(sw_cost_client_poll("/x", 0, ctl, 1, err, sizeof(err)) && strstr(err, "--rate"),
	      "rate 0: %s", err);
}

SW_MAIN()
