/* SPDX-License-Identifier: MIT */
/*
 * control/runs.c - the writer runs behind the control API (control.h).
 *
 * One run at a time.  A run is a child process `<writer> run --K=V ...
 * --log=DIR/writer.swlog --status-file=DIR/status.json --run-id=ID` with
 * stdin /dev/null, stdout+stderr to DIR/stderr.txt, in its own process
 * group (so a Ctrl-C at the server's terminal reaches the server, which
 * stops the child in order).  A reaper thread per run waits for the child;
 * until it has reaped it the PID cannot be reused, so stop signals the PID
 * only while the run is not reaped.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "control_attach.h"
#include "control_runs.h"
#include "swtime.h"

extern char **environ;

struct ctl_run {
	char id[17];            /* 16 hex digits */
	char dir[PATH_MAX];     /* runs_dir/id */
	pid_t pid;              /* child; valid while !reaped */
	int reaped;             /* reaper has collected the child */
	int exit_code;          /* >= 0 exit status; -N killed by signal N */
	int stop_requested;     /* POST /v1/stop sent SIGTERM */
	json_t *argv;           /* array of strings, the child's argv */
	pthread_t reaper;
};

struct ctl_runs {
	pthread_mutex_t lock;
	pthread_cond_t cond;    /* broadcast when a child is reaped */
	char root[PATH_MAX];    /* canonical */
	char runs[PATH_MAX];    /* canonical */
	char writer[PATH_MAX];  /* executable started for a run */
	struct ctl_run *cur;    /* current or last run, NULL before the first */
	int starting;           /* a start request holds the slot */
	struct ctl_board *board; /* the clients attached to a run (attach.c) */
};

static json_t *jerr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static json_t *jerr(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return json_pack("{s:s}", SW_CTL_F_ERROR, buf);
}

int ctl_runs_init(struct ctl_runs **out, const char *root,
		  const char *runs_dir, const char *writer, char *err,
		  size_t errlen)
{
	struct ctl_runs *R = calloc(1, sizeof(*R));
	struct stat st;

	if (!R)
		return -ENOMEM;
	if (!realpath(root, R->root) || stat(R->root, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "expected --root to be a directory, saw '%s' (%s)",
			 root, errno ? strerror(errno) : "not a directory");
		free(R);
		return -EINVAL;
	}
	if (mkdir(runs_dir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create --runs folder %s: %s", runs_dir,
			 strerror(errno));
		free(R);
		return -errno;
	}
	if (!realpath(runs_dir, R->runs) || stat(R->runs, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "expected --runs to be a directory, saw '%s'", runs_dir);
		free(R);
		return -EINVAL;
	}
	snprintf(R->writer, sizeof(R->writer), "%s", writer ? writer : "/proc/self/exe");
	if (!(R->board = ctl_board_new())) {
		free(R);
		return -ENOMEM;
	}
	pthread_mutex_init(&R->lock, NULL);
	pthread_cond_init(&R->cond, NULL);
	*out = R;
	return 0;
}

/* ------------------------------------------------------------------ */
/* confinement of --file under --root                                 */

int ctl_resolve_under_root(const char *root, const char *req, char *out,
			   size_t outlen, char *err, size_t errlen)
{
	char joined[PATH_MAX], dir[PATH_MAX], canon[PATH_MAX];
	const char *base, *p;
	size_t rl = strlen(root);
	struct stat st;

	if (!req[0]) {
		snprintf(err, errlen, "expected a file name in \"file\", saw an empty string");
		return -1;
	}
	/* no ".." component anywhere: refuse rather than reason about it */
	for (p = req; (p = strstr(p, "..")); p += 2) {
		if ((p == req || p[-1] == '/') && (p[2] == '/' || p[2] == 0)) {
			snprintf(err, errlen, "expected \"file\" inside the server's root %s, "
				 "saw a '..' component in '%s'", root, req);
			return -1;
		}
	}
	if (req[0] == '/') {
		if (snprintf(joined, sizeof(joined), "%s", req) >= (int)sizeof(joined))
			goto toolong;
	} else if (snprintf(joined, sizeof(joined), "%s/%s", root, req) >=
		   (int)sizeof(joined)) {
		goto toolong;
	}
	base = strrchr(joined, '/');
	if (!base[1]) {
		snprintf(err, errlen, "expected \"file\" to name a file, saw a folder '%s'", req);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%.*s", (int)(base - joined), joined);
	if (!dir[0])
		snprintf(dir, sizeof(dir), "/");
	base++;
	if (!realpath(dir, canon)) {
		snprintf(err, errlen, "expected the folder of \"file\" to exist, saw %s: %s",
			 dir, strerror(errno));
		return -1;
	}
	if (strncmp(canon, root, rl) != 0 || (canon[rl] != '/' && canon[rl] != 0)) {
		snprintf(err, errlen, "expected \"file\" inside the server's root %s, saw "
			 "'%s' (in %s)", root, req, canon);
		return -1;
	}
	if (snprintf(out, outlen, "%s/%s", canon, base) >= (int)outlen)
		goto toolong;
	if (lstat(out, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "expected \"file\" to be a regular file (or absent), "
			 "saw a %s at %s", S_ISLNK(st.st_mode) ? "symlink" :
			 S_ISDIR(st.st_mode) ? "directory" : "special file", out);
		return -1;
	}
	return 0;
toolong:
	snprintf(err, errlen, "expected a path shorter than %d bytes in \"file\"", PATH_MAX);
	return -1;
}

/* ------------------------------------------------------------------ */

static int valid_key(const char *k)
{
	if (!k[0] || k[0] == '-')
		return 0;
	for (; *k; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9') || *k == '-'))
			return 0;
	return 1;
}

static int valid_run_id(const char *id)
{
	size_t n = 0;
	for (; id[n]; n++)
		if (!((id[n] >= '0' && id[n] <= '9') || (id[n] >= 'a' && id[n] <= 'f')))
			return 0;
	return n == 16;
}

/* Last non-empty line of a text file ("" if none), newline stripped. */
static void last_line(const char *path, char *out, size_t outlen)
{
	char buf[4096];
	ssize_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	out[0] = 0;
	if (fd < 0)
		return;
	off_t end = lseek(fd, 0, SEEK_END);
	off_t from = end > (off_t)sizeof(buf) - 1 ? end - (off_t)sizeof(buf) + 1 : 0;
	if (end > 0)
		n = pread(fd, buf, sizeof(buf) - 1, from);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = 0;
	char *nl = strrchr(buf, '\n');
	snprintf(out, outlen, "%s", nl ? nl + 1 : buf);
}

static json_t *read_status_file(const struct ctl_run *r)
{
	char p[PATH_MAX + 32];
	snprintf(p, sizeof(p), "%s/%s", r->dir, SW_CTL_RUN_STATUS);
	return json_load_file(p, 0, NULL); /* NULL until the first write */
}

/* Build the child's argv from the request object.  Returns 0 or an HTTP
 * status with *resp set. */
static int build_argv(struct ctl_runs *R, json_t *args, const char *dir,
		      const char *id, json_t *argv, json_t **resp)
{
	const char *k;
	json_t *v;
	char buf[PATH_MAX + 64], file[PATH_MAX], err[1024];
	int have_file = 0;

	if (!json_is_object(args)) {
		*resp = jerr("expected a JSON object of writer options, saw %s",
			     json_is_array(args) ? "an array" : "another JSON value");
		return SW_CTL_HTTP_BAD_REQUEST;
	}
	json_array_append_new(argv, json_string(R->writer));
	json_array_append_new(argv, json_string("run"));
	json_object_foreach(args, k, v) {
		if (!valid_key(k)) {
			*resp = jerr("expected option names of [a-z0-9-], saw \"%s\"", k);
			return SW_CTL_HTTP_BAD_REQUEST;
		}
		if (!strcmp(k, "run-id"))
			continue; /* taken by ctl_runs_start() */
		if (!strcmp(k, "log") || !strcmp(k, "status-file") || !strcmp(k, "help")) {
			*resp = jerr("option \"%s\" is chosen by the server, not the client", k);
			return SW_CTL_HTTP_BAD_REQUEST;
		}
		if (!strcmp(k, SW_CTL_F_FILE)) {
			if (!json_is_string(v)) {
				*resp = jerr("expected \"file\" to be a string path");
				return SW_CTL_HTTP_BAD_REQUEST;
			}
			if (ctl_resolve_under_root(R->root, json_string_value(v), file,
						   sizeof(file), err, sizeof(err))) {
				*resp = jerr("%s", err);
				return SW_CTL_HTTP_BAD_REQUEST;
			}
			snprintf(buf, sizeof(buf), "--file=%s", file);
			have_file = 1;
		} else if (json_is_string(v)) {
			snprintf(buf, sizeof(buf), "--%s=%s", k, json_string_value(v));
		} else if (json_is_integer(v)) {
			snprintf(buf, sizeof(buf), "--%s=%" JSON_INTEGER_FORMAT, k,
				 json_integer_value(v));
		} else if (json_is_real(v)) {
			snprintf(buf, sizeof(buf), "--%s=%.17g", k, json_real_value(v));
		} else if (json_is_true(v)) {
			snprintf(buf, sizeof(buf), "--%s", k);
		} else if (json_is_false(v) || json_is_null(v)) {
			continue;
		} else {
			*resp = jerr("expected a string, number or boolean for \"%s\", "
				     "saw an array or object", k);
			return SW_CTL_HTTP_BAD_REQUEST;
		}
		json_array_append_new(argv, json_string(buf));
	}
	if (!have_file) {
		*resp = jerr("expected \"file\" (a path under the server's root %s)", R->root);
		return SW_CTL_HTTP_BAD_REQUEST;
	}
	snprintf(buf, sizeof(buf), "--log=%s/%s", dir, SW_CTL_RUN_LOG);
	json_array_append_new(argv, json_string(buf));
	snprintf(buf, sizeof(buf), "--status-file=%s/%s", dir, SW_CTL_RUN_STATUS);
	json_array_append_new(argv, json_string(buf));
	snprintf(buf, sizeof(buf), "--run-id=%s", id);
	json_array_append_new(argv, json_string(buf));
	return 0;
}

static void *reaper_main(void *arg)
{
	struct ctl_runs *R = ((void **)arg)[0];
	struct ctl_run *r = ((void **)arg)[1];
	int st = 0;
	pid_t p;

	free(arg);
	do
		p = waitpid(r->pid, &st, 0);
	while (p < 0 && errno == EINTR);
	pthread_mutex_lock(&R->lock);
	r->exit_code = p < 0 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) :
		       WIFSIGNALED(st) ? -WTERMSIG(st) : -1;
	r->reaped = 1;
	pthread_cond_broadcast(&R->cond);
	pthread_mutex_unlock(&R->lock);
	return NULL;
}

static void free_run(struct ctl_run *r)
{
	if (!r)
		return;
	json_decref(r->argv);
	free(r);
}

/* Status object of a run; lock held. */
static json_t *run_json(const struct ctl_run *r)
{
	char p[PATH_MAX + 32], line[1024];
	json_t *st = read_status_file(r);
	json_t *o = json_object();

	json_object_set_new(o, SW_CTL_F_ACTIVE, json_boolean(!r->reaped));
	json_object_set_new(o, SW_CTL_F_RUN_ID, json_string(r->id));
	json_object_set_new(o, SW_CTL_F_PID, json_integer(r->pid));
	json_object_set_new(o, SW_CTL_F_EXIT_CODE,
			    r->reaped ? json_integer(r->exit_code) : json_null());
	json_object_set_new(o, SW_CTL_F_STATUS, st ? st : json_null());
	snprintf(p, sizeof(p), "%s/%s", r->dir, SW_CTL_RUN_STDERR);
	last_line(p, line, sizeof(line));
	json_object_set_new(o, SW_CTL_F_STDERR, json_string(line));
	json_object_set_new(o, SW_CTL_F_ARGV, json_incref(r->argv));
	return o;
}

static int spawn_child(struct ctl_run *r, char *err, size_t errlen)
{
	size_t n = json_array_size(r->argv), i;
	char **av = calloc(n + 1, sizeof(*av));
	char out[PATH_MAX + 32];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dfl;
	int rc;

	if (!av)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		av[i] = (char *)json_string_value(json_array_get(r->argv, i));
	snprintf(out, sizeof(out), "%s/%s", r->dir, SW_CTL_RUN_STDERR);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&fa, 2, 1);
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGHUP);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &dfl);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
				 POSIX_SPAWN_SETPGROUP);
	/* exec the writer's path, named stalewin-writer in ps (argv[0]) */
	const char *path = av[0];
	av[0] = "stalewin-writer";
	rc = posix_spawn(&r->pid, path, &fa, &at, av, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	free(av);
	if (rc) {
		snprintf(err, errlen, "cannot start the writer %s: %s",
			 json_string_value(json_array_get(r->argv, 0)), strerror(rc));
		return -rc;
	}
	return 0;
}

/* The run's id: the client's "run-id" (so its probes' logs carry the same
 * id) or a random one.  0, or an HTTP status with *resp. */
static int choose_run_id(struct ctl_run *r, json_t *args, json_t **resp)
{
	uint64_t id = 0;

	json_t *want = json_is_object(args) ? json_object_get(args, "run-id") : NULL;
	if (want) {
		/* the client's choice, so its probes' logs carry the same id */
		const char *w = json_string_value(want);
		if (!w || !valid_run_id(w) || !strcmp(w, "0000000000000000")) {
			*resp = jerr("expected \"run-id\" as 16 lower-case hex digits (not all 0)");
			return SW_CTL_HTTP_BAD_REQUEST;
		}
		snprintf(r->id, sizeof(r->id), "%s", w);
	} else {
		while (id == 0)
			if (getrandom(&id, sizeof(id), 0) != sizeof(id))
				id = (uint64_t)sw_real_ns() ^ ((uint64_t)getpid() << 32);
		snprintf(r->id, sizeof(r->id), "%016" PRIx64, id);
	}
	return 0;
}

/* With R->lock held: wait until the child reports "running" (or a later
 * state), exits, or misses SW_CTL_START_TIMEOUT_MS.  The HTTP status,
 * *resp filled. */
static int wait_running(struct ctl_runs *R, struct ctl_run *r, json_t **resp)
{
	int64_t deadline = sw_mono_ns() + (int64_t)SW_CTL_START_TIMEOUT_MS * SW_NS_PER_MS;
	for (;;) {
		json_t *st = read_status_file(r);
		const char *s = st ? json_string_value(json_object_get(st, "state")) : NULL;
		int up = s && strcmp(s, "starting") && strcmp(s, "error");
		json_decref(st);
		if (up && !r->reaped)
			break;
		if (r->reaped) {
			if (up && r->exit_code == 0)
				break; /* a run shorter than our polling */
			json_t *o = run_json(r);
			const char *line = json_string_value(json_object_get(o, SW_CTL_F_STDERR));
			*resp = jerr("the writer exited (%s %d) before running: %s",
				     r->exit_code >= 0 ? "code" : "signal",
				     r->exit_code >= 0 ? r->exit_code : -r->exit_code,
				     line && line[0] ? line : "(no message)");
			json_object_set_new(*resp, SW_CTL_F_EXIT_CODE, json_integer(r->exit_code));
			json_object_set_new(*resp, SW_CTL_F_RUN_ID, json_string(r->id));
			json_decref(o);
			return r->exit_code == 2 ? SW_CTL_HTTP_BAD_REQUEST : SW_CTL_HTTP_INTERNAL;
		}
		if (sw_mono_ns() > deadline) {
			kill(r->pid, SIGKILL);
			while (!r->reaped)
				pthread_cond_wait(&R->cond, &R->lock);
			*resp = jerr("the writer did not report \"running\" within %d ms; killed it",
				     SW_CTL_START_TIMEOUT_MS);
			return SW_CTL_HTTP_INTERNAL;
		}
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 10 * SW_NS_PER_MS;
		if (ts.tv_nsec >= SW_NS_PER_S) {
			ts.tv_nsec -= SW_NS_PER_S;
			ts.tv_sec++;
		}
		pthread_cond_timedwait(&R->cond, &R->lock, &ts);
	}
	*resp = run_json(r);
	json_object_set_new(*resp, SW_CTL_F_STATE, json_string("running"));
	return SW_CTL_HTTP_CREATED;
}

int ctl_runs_start(struct ctl_runs *R, json_t *args, json_t **resp)
{
	struct ctl_run *r = calloc(1, sizeof(*r));
	char err[1024];
	int code;

	if (!r) {
		*resp = jerr("out of memory");
		return SW_CTL_HTTP_INTERNAL;
	}
	pthread_mutex_lock(&R->lock);
	if (R->starting || (R->cur && !R->cur->reaped)) {
		*resp = jerr("a run is active (%s); stop it first (POST %s)",
			     R->starting ? "being started" : R->cur->id, SW_CTL_ROUTE_STOP);
		pthread_mutex_unlock(&R->lock);
		free(r);
		return SW_CTL_HTTP_CONFLICT;
	}
	R->starting = 1;
	pthread_mutex_unlock(&R->lock);

	r->argv = json_array();
	if ((code = choose_run_id(r, args, resp)))
		goto fail;
	snprintf(r->dir, sizeof(r->dir), "%s/%s", R->runs, r->id);
	code = build_argv(R, args, r->dir, r->id, r->argv, resp);
	if (code)
		goto fail;
	if (mkdir(r->dir, 0755)) {
		*resp = jerr("cannot create run folder %s: %s", r->dir, strerror(errno));
		code = errno == EEXIST ? SW_CTL_HTTP_CONFLICT : SW_CTL_HTTP_INTERNAL;
		goto fail;
	}
	if (spawn_child(r, err, sizeof(err))) {
		*resp = jerr("%s", err);
		code = SW_CTL_HTTP_INTERNAL;
		goto fail;
	}
	void **ra = malloc(2 * sizeof(void *));
	ra[0] = R;
	ra[1] = r;
	pthread_mutex_lock(&R->lock);
	if (pthread_create(&r->reaper, NULL, reaper_main, ra)) {
		/* cannot watch it: stop it now, synchronously */
		kill(r->pid, SIGKILL);
		waitpid(r->pid, NULL, 0);
		free(ra);
		R->starting = 0;
		pthread_mutex_unlock(&R->lock);
		*resp = jerr("cannot create the reaper thread");
		code = SW_CTL_HTTP_INTERNAL;
		goto fail;
	}
	if (R->cur) { /* reaped (checked above): its reaper has unlocked */
		pthread_join(R->cur->reaper, NULL);
		free_run(R->cur);
	}
	R->cur = r;
	R->starting = 0;

	code = wait_running(R, r, resp);
	pthread_mutex_unlock(&R->lock);
	return code;

fail:
	pthread_mutex_lock(&R->lock);
	R->starting = 0;
	pthread_mutex_unlock(&R->lock);
	free_run(r);
	return code;
}

int ctl_runs_status(struct ctl_runs *R, const char *run_id, json_t **resp)
{
	int code = SW_CTL_HTTP_OK;
	pthread_mutex_lock(&R->lock);
	if (run_id && (!R->cur || strcmp(run_id, R->cur->id))) {
		/* an older run of this server: its folder's status file */
		char p[PATH_MAX + 64];
		json_t *st;
		if (!valid_run_id(run_id)) {
			*resp = jerr("expected a run id of 16 hex digits, saw '%.40s'", run_id);
			code = SW_CTL_HTTP_NOT_FOUND;
		} else {
			snprintf(p, sizeof(p), "%s/%s/%s", R->runs, run_id, SW_CTL_RUN_STATUS);
			st = json_load_file(p, 0, NULL);
			if (!st) {
				*resp = jerr("no run %s on this server", run_id);
				code = SW_CTL_HTTP_NOT_FOUND;
			} else {
				*resp = json_pack("{s:b,s:s,s:o}", SW_CTL_F_ACTIVE, 0,
						  SW_CTL_F_RUN_ID, run_id, SW_CTL_F_STATUS, st);
			}
		}
	} else if (!R->cur) {
		*resp = json_pack("{s:b,s:n}", SW_CTL_F_ACTIVE, 0, SW_CTL_F_RUN_ID);
	} else {
		*resp = run_json(R->cur);
	}
	pthread_mutex_unlock(&R->lock);
	return code;
}

static void wait_reaped(struct ctl_runs *R, struct ctl_run *r, int grace_ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += grace_ms / 1000;
	ts.tv_nsec += (grace_ms % 1000) * SW_NS_PER_MS;
	if (ts.tv_nsec >= SW_NS_PER_S) {
		ts.tv_nsec -= SW_NS_PER_S;
		ts.tv_sec++;
	}
	while (!r->reaped)
		if (pthread_cond_timedwait(&R->cond, &R->lock, &ts) == ETIMEDOUT)
			break;
	if (!r->reaped) {
		kill(r->pid, SIGKILL);
		while (!r->reaped)
			pthread_cond_wait(&R->cond, &R->lock);
	}
}

int ctl_runs_stop(struct ctl_runs *R, json_t **resp)
{
	struct ctl_run *r;
	int stopped = 0;

	pthread_mutex_lock(&R->lock);
	r = R->cur;
	if (!r) {
		pthread_mutex_unlock(&R->lock);
		*resp = jerr("no run to stop: none was started on this server");
		return SW_CTL_HTTP_CONFLICT;
	}
	if (!r->reaped) {
		r->stop_requested = 1;
		kill(r->pid, SIGTERM); /* not reaped: the PID is still our child */
		stopped = 1;
		wait_reaped(R, r, SW_CTL_STOP_GRACE_MS);
	}
	*resp = run_json(r);
	json_object_set_new(*resp, SW_CTL_F_STOPPED, json_boolean(stopped));
	pthread_mutex_unlock(&R->lock);
	return SW_CTL_HTTP_OK;
}

int ctl_runs_file(struct ctl_runs *R, const char *run_id, const char *name,
		  char *path, size_t pathlen, json_t **resp)
{
	struct stat st;
	if (!valid_run_id(run_id)) {
		*resp = jerr("expected a run id of 16 hex digits, saw '%.40s'", run_id);
		return SW_CTL_HTTP_NOT_FOUND;
	}
	snprintf(path, pathlen, "%s/%s/%s", R->runs, run_id, name);
	if (stat(path, &st) || !S_ISREG(st.st_mode)) {
		*resp = jerr("run %s has no %s on this server", run_id, name);
		return SW_CTL_HTTP_NOT_FOUND;
	}
	return SW_CTL_HTTP_OK;
}

int ctl_runs_prepare(struct ctl_runs *R, json_t *args, json_t **resp)
{
	char path[PATH_MAX], err[1024];
	json_t *f = json_is_object(args) ? json_object_get(args, SW_CTL_F_FILE) : NULL;
	json_t *z = json_is_object(args) ? json_object_get(args, "size") : NULL;
	json_t *rid = json_is_object(args) ? json_object_get(args, "run-id") : NULL;
	struct stat st;
	int fd;

	if (!json_is_string(f) || (z && (!json_is_integer(z) || json_integer_value(z) < 0)) ||
	    (rid && (!json_is_string(rid) || !valid_run_id(json_string_value(rid))))) {
		*resp = jerr("expected {\"file\":\"path under the root\", \"size\":BYTES"
			     "[, \"run-id\":\"16 hex digits\"]}");
		return SW_CTL_HTTP_BAD_REQUEST;
	}
	if (ctl_resolve_under_root(R->root, json_string_value(f), path, sizeof(path), err,
				   sizeof(err))) {
		*resp = jerr("%s", err);
		return SW_CTL_HTTP_BAD_REQUEST;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		*resp = jerr("cannot create %s: %s", path, fd < 0 ? strerror(errno) : "not a regular file");
		if (fd >= 0)
			close(fd);
		return SW_CTL_HTTP_BAD_REQUEST;
	}
	off_t want = z ? (off_t)json_integer_value(z) : 0;
	if (st.st_size < want && ftruncate(fd, want)) {
		*resp = jerr("cannot extend %s to %lld bytes: %s", path, (long long)want, strerror(errno));
		close(fd);
		return SW_CTL_HTTP_INTERNAL;
	}
	fstat(fd, &st);
	close(fd);
	if (rid) /* the lead announces its run: clients may join it (attach.c) */
		ctl_board_announce(R->board, json_string_value(rid), path);
	*resp = json_pack("{s:s,s:I}", SW_CTL_F_FILE, path, "size", (json_int_t)st.st_size);
	if (rid)
		json_object_set(*resp, SW_CTL_F_RUN_ID, rid);
	return SW_CTL_HTTP_OK;
}

void ctl_runs_info(struct ctl_runs *R, json_t *obj)
{
	char exe[PATH_MAX];
	ssize_t n = readlink(R->writer, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	json_object_set_new(obj, "root", json_string(R->root));
	json_object_set_new(obj, "runs", json_string(R->runs));
	json_object_set_new(obj, "writer", json_string(n > 0 ? exe : R->writer));
}

struct ctl_board *ctl_runs_board(struct ctl_runs *R)
{
	return R->board;
}

void ctl_runs_shutdown(struct ctl_runs *R)
{
	if (!R)
		return;
	pthread_mutex_lock(&R->lock);
	if (R->cur && !R->cur->reaped) {
		kill(R->cur->pid, SIGTERM);
		wait_reaped(R, R->cur, SW_CTL_STOP_GRACE_MS);
	}
	struct ctl_run *r = R->cur;
	pthread_mutex_unlock(&R->lock);
	if (r) {
		pthread_join(r->reaper, NULL);
		free_run(r);
	}
	pthread_mutex_destroy(&R->lock);
	pthread_cond_destroy(&R->cond);
	ctl_board_free(R->board);
	free(R);
}
