/* SPDX-License-Identifier: MIT */
/* tracefs.c - the live kernel trace (tracefs.h). */
#include "tracefs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int put(const char *path, const char *val, int trunc, char *err,
	       size_t errlen)
{
	int fd = open(path, O_WRONLY | (trunc ? O_TRUNC : 0));
	size_t len = strlen(val);
	ssize_t n;

	if (fd < 0) {
		snprintf(err, errlen, "open %s: %s", path, strerror(errno));
		return -1;
	}
	n = write(fd, val, len);
	if (n != (ssize_t)len) {
		snprintf(err, errlen, "write '%s' to %s: %s", val, path,
			 n < 0 ? strerror(errno) : "short write");
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int sw_tfs_instance(const char *name, char *root, size_t len, char *err, size_t errlen)
{
	struct stat st;

	if (stat(SW_TFS_ROOT "/instances", &st)) {
		snprintf(err, errlen, "no tracefs at " SW_TFS_ROOT " (expected it mounted, "
			 "with instances): %s", strerror(errno));
		return -1;
	}
	snprintf(root, len, SW_TFS_ROOT "/instances/%s", name);
	if (mkdir(root, 0700) && errno != EEXIST) {
		snprintf(err, errlen, "mkdir %s: %s", root, strerror(errno));
		return -1;
	}
	return 0;
}

int sw_tfs_instance_free(const char *root)
{
	return rmdir(root);
}

int sw_tfs_has(const char *root, const char *event)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/events/%s/enable", root, event);
	return stat(path, &st) == 0;
}

int sw_tfs_event(const char *root, const char *event, int on, const char *filter,
		 char *err, size_t errlen)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/events/%s/filter", root, event);
	if (put(path, on && filter ? filter : "0", 1, err, errlen))
		return -1;
	snprintf(path, sizeof(path), "%s/events/%s/enable", root, event);
	return put(path, on ? "1" : "0", 1, err, errlen);
}

int sw_tfs_clear(const char *root, long kib, char *err, size_t errlen)
{
	char v[32], path[512];

	if (kib > 0) {
		snprintf(v, sizeof(v), "%ld", kib);
		snprintf(path, sizeof(path), "%s/buffer_size_kb", root);
		if (put(path, v, 1, err, errlen))
			return -1;
	}
	snprintf(path, sizeof(path), "%s/trace", root);
	return put(path, "", 1, err, errlen);
}

int sw_tfs_marker(const char *root, const char *text, char *err, size_t errlen)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/trace_marker", root);
	return put(path, text, 0, err, errlen);
}

long sw_tfs_overrun(const char *root)
{
	char path[256], line[256];
	long total = 0, v;
	int cpu, seen = 0;

	for (cpu = 0; cpu < 4096; cpu++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", root, cpu);
		f = fopen(path, "r");
		if (!f)
			break;
		seen = 1;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "overrun: %ld", &v) == 1)
				total += v;
		fclose(f);
	}
	return seen ? total : -1;
}

int sw_tfs_clock(const char *root, const char *clock, char *err, size_t errlen)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/trace_clock", root);
	return put(path, clock, 1, err, errlen);
}

/* "  task-123  [000] ..... 12.345678: name: fields": pid, time, name and
 * fields (line is cut at the name's colon) */
static int split_line(char *line, struct sw_tfs_line *l)
{
	char *p = strstr(line, ": "), *q, *b, *end;
	long long sec, usec;

	/* the first ": " ends the timestamp, the next colon the event name */
	if (!p)
		return -1;
	for (q = p; q > line && q[-1] != ' '; q--)
		;
	if (sscanf(q, "%lld.%lld", &sec, &usec) != 2)
		return -1;
	l->t_ns = (int64_t)sec * 1000000000 + (int64_t)usec * 1000;
	b = strstr(line, " [");
	l->pid = -1;
	if (b && b < q) {
		for (q = b; q > line && q[-1] != '-'; q--)
			;
		l->pid = strtol(q, &end, 10);
	}
	l->event = p + 2;
	p = strchr(l->event, ':');
	if (!p)
		return -1;
	*p = 0;
	for (l->fields = p + 1; *l->fields == ' '; l->fields++)
		;
	return 0;
}

int sw_tfs_scan(const char *root, sw_tfs_line_fn fn, void *arg, char *err,
		size_t errlen)
{
	char line[1024];
	int phase = 0, rc = 0;
	FILE *f;

	snprintf(line, sizeof(line), "%s/trace", root);
	f = fopen(line, "r");
	if (!f) {
		snprintf(err, errlen, "open %s/trace: %s", root, strerror(errno));
		return -1;
	}
	while (!rc && fgets(line, sizeof(line), f)) {
		struct sw_tfs_line l;

		if (line[0] == '#' || split_line(line, &l))
			continue;
		if (!strcmp(l.event, "tracing_mark_write")) {
			phase++;
			continue;
		}
		l.phase = phase;
		rc = fn(&l, arg);
	}
	fclose(f);
	if (rc)
		snprintf(err, errlen, "trace scan stopped by its reader (%d)", rc);
	return rc ? -1 : 0;
}

struct count_arg {
	const char *event;
	long n;
};

static int count_one(const struct sw_tfs_line *l, void *arg)
{
	struct count_arg *c = arg;

	if (!strcmp(l->event, c->event))
		c->n++;
	return 0;
}

long sw_tfs_count(const char *root, const char *event, char *err, size_t errlen)
{
	struct count_arg c = { event, 0 };

	return sw_tfs_scan(root, count_one, &c, err, errlen) ? -1 : c.n;
}

int sw_tfs_field(const char *fields, const char *key, long long *v)
{
	size_t k = strlen(key);
	const char *p = fields;

	while ((p = strstr(p, key))) {
		int at_word = p == fields || p[-1] == ' ';
		char *end;

		if (at_word && (p[k] == '=' || p[k] == ' ')) {
			*v = strtoll(p + k + 1, &end, 10);
			if (end != p + k + 1)
				return 0;
		}
		p += k;
	}
	return -1;
}
