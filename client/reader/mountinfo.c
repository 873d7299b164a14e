/* SPDX-License-Identifier: MIT */
/* mountinfo.c - see mountinfo.h. */
#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mountinfo.h"

/* /proc/self/mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *d = s;
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = 0;
}

/* Next space-separated field of *p into out (at most n-1 bytes); 0 or -1. */
static int field(char **p, char *out, size_t n)
{
	char *s = *p;
	while (*s == ' ')
		s++;
	size_t l = strcspn(s, " \n");
	if (!l || l >= n)
		return -1;
	memcpy(out, s, l);
	out[l] = 0;
	*p = s + l;
	return 0;
}

/* "rw,relatime" + "rw,vers=3,..." -> "rw,relatime,vers=3,...": the
 * superblock's options after the mount's, without its rw/ro (proc(5)). */
static void merge_options(char *out, size_t n, const char *mnt, const char *super)
{
	snprintf(out, n, "%s", mnt);
	if (!strcmp(super, "rw") || !strcmp(super, "ro"))
		return;
	if (!strncmp(super, "rw,", 3) || !strncmp(super, "ro,", 3))
		super += 3;
	size_t u = strlen(out);
	snprintf(out + u, n - u, ",%s", super);
}

int sw_mountinfo_parse(const char *line, struct sw_mount *m)
{
	char buf[16384], tmp[PATH_MAX], mopts[4096], super[4096];
	char *p = buf;

	snprintf(buf, sizeof(buf), "%s", line);
	memset(m, 0, sizeof(*m));
	if (field(&p, tmp, sizeof(tmp)) || field(&p, tmp, sizeof(tmp)) || /* ids */
	    field(&p, m->dev, sizeof(m->dev)) || field(&p, m->root, sizeof(m->root)) ||
	    field(&p, m->point, sizeof(m->point)) || field(&p, mopts, sizeof(mopts)))
		return -1;
	do { /* optional fields (shared:N, master:N) up to "-" */
		if (field(&p, tmp, sizeof(tmp)))
			return -1;
	} while (strcmp(tmp, "-"));
	if (field(&p, m->fstype, sizeof(m->fstype)) || field(&p, m->source, sizeof(m->source)) ||
	    field(&p, super, sizeof(super)))
		return -1;
	unescape(m->root);
	unescape(m->point);
	unescape(m->source);
	merge_options(m->options, sizeof(m->options), mopts, super);
	return 0;
}

int sw_mount_of(const char *path, int dir_of_path, struct sw_mount *m, char *err,
		size_t errlen)
{
	char dir[PATH_MAX], real[PATH_MAX];
	size_t best = 0;
	int found = 0, rc = 0;

	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (dir_of_path && !slash)
		snprintf(dir, sizeof(dir), ".");
	else if (dir_of_path && slash == dir)
		dir[1] = 0;
	else if (dir_of_path)
		*slash = 0;
	if (!realpath(dir, real)) {
		rc = -errno;
		snprintf(err, errlen, "expected %s to exist, saw: %s", dir, strerror(-rc));
		return rc;
	}
	FILE *f = fopen("/proc/self/mountinfo", "r");
	if (!f) {
		rc = -errno;
		snprintf(err, errlen, "cannot read /proc/self/mountinfo: %s", strerror(-rc));
		return rc;
	}
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		struct sw_mount c;
		if (sw_mountinfo_parse(line, &c))
			continue;
		size_t l = strlen(c.point);
		int holds = !strcmp(c.point, "/") ||
			    (!strncmp(real, c.point, l) && (real[l] == '/' || real[l] == 0));
		if (!holds || l < best) /* equal: the later line is mounted on top */
			continue;
		best = l;
		found = 1;
		*m = c;
	}
	free(line);
	fclose(f);
	if (!found) {
		snprintf(err, errlen, "expected a mount holding %s in /proc/self/mountinfo, saw none", real);
		return -ENOENT;
	}
	return 0;
}

void sw_mount_json_set(json_t *o, const struct sw_mount *m, const char *prefix)
{
	static const struct {
		const char *key;
		size_t off;
	} f[] = {
		{ "source", offsetof(struct sw_mount, source) },
		{ "point", offsetof(struct sw_mount, point) },
		{ "root", offsetof(struct sw_mount, root) },
		{ "fstype", offsetof(struct sw_mount, fstype) },
		{ "options", offsetof(struct sw_mount, options) },
		{ "dev", offsetof(struct sw_mount, dev) },
	};
	char key[64];
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		snprintf(key, sizeof(key), "%s%s", prefix, f[i].key);
		json_object_set_new(o, key, json_string((const char *)m + f[i].off));
	}
}

char *sw_mount_json(const struct sw_mount *m, const char *dir)
{
	json_t *o = json_object();
	if (dir)
		json_object_set_new(o, "dir", json_string(dir));
	sw_mount_json_set(o, m, "");
	json_object_set_new(o, "nfs", json_boolean(!strcmp(m->fstype, "nfs") ||
						     !strcmp(m->fstype, "nfs4")));
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}
