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

int sw_tfs_has(const char *event)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), SW_TFS_ROOT "/events/%s/enable", event);
	return stat(path, &st) == 0;
}

int sw_tfs_event(const char *event, int on, const char *filter, char *err,
		 size_t errlen)
{
	char path[512];

	snprintf(path, sizeof(path), SW_TFS_ROOT "/events/%s/filter", event);
	if (put(path, on && filter ? filter : "0", 1, err, errlen))
		return -1;
	snprintf(path, sizeof(path), SW_TFS_ROOT "/events/%s/enable", event);
	return put(path, on ? "1" : "0", 1, err, errlen);
}

int sw_tfs_clear(long kib, char *err, size_t errlen)
{
	char v[32];

	if (kib > 0) {
		snprintf(v, sizeof(v), "%ld", kib);
		if (put(SW_TFS_ROOT "/buffer_size_kb", v, 1, err, errlen))
			return -1;
	}
	return put(SW_TFS_ROOT "/trace", "", 1, err, errlen);
}

int sw_tfs_marker(const char *text, char *err, size_t errlen)
{
	return put(SW_TFS_ROOT "/trace_marker", text, 0, err, errlen);
}

long sw_tfs_overrun(void)
{
	char path[256], line[256];
	long total = 0, v;
	int cpu, seen = 0;

	for (cpu = 0; cpu < 4096; cpu++) {
		FILE *f;

		snprintf(path, sizeof(path), SW_TFS_ROOT "/per_cpu/cpu%d/stats", cpu);
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

/* "  task-123  [000] ..... 12.345678: name: fields": the name and fields */
static int split_line(char *line, char **name, char **fields)
{
	char *p = strstr(line, ": ");

	/* the first ": " ends the timestamp, the second the event name */
	if (!p)
		return -1;
	*name = p + 2;
	p = strchr(*name, ':');
	if (!p)
		return -1;
	*p = 0;
	*fields = p + 1;
	while (**fields == ' ')
		(*fields)++;
	return 0;
}

int sw_tfs_scan(sw_tfs_line_fn fn, void *arg, char *err, size_t errlen)
{
	FILE *f = fopen(SW_TFS_ROOT "/trace", "r");
	char line[1024];
	int phase = 0, rc = 0;

	if (!f) {
		snprintf(err, errlen, "open " SW_TFS_ROOT "/trace: %s", strerror(errno));
		return -1;
	}
	while (!rc && fgets(line, sizeof(line), f)) {
		char *name, *fields;

		if (line[0] == '#' || split_line(line, &name, &fields))
			continue;
		if (!strcmp(name, "tracing_mark_write")) {
			phase++;
			continue;
		}
		rc = fn(name, fields, phase, arg);
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

static int count_one(const char *event, const char *fields, int phase, void *arg)
{
	struct count_arg *c = arg;

	(void)fields;
	(void)phase;
	if (!strcmp(event, c->event))
		c->n++;
	return 0;
}

long sw_tfs_count(const char *event, char *err, size_t errlen)
{
	struct count_arg c = { event, 0 };

	return sw_tfs_scan(count_one, &c, err, errlen) ? -1 : c.n;
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
