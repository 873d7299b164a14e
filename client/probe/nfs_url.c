/* SPDX-License-Identifier: MIT */
/* nfs_url.c - see nfs_url.h. */
#include "nfs_url.h"
#include "parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BAD(...)                                  \
	do {                                      \
		snprintf(err, errlen, __VA_ARGS__); \
		return -EINVAL;                   \
	} while (0)

static int parse_query(char *q, struct sw_nfs_url *u, char *err, size_t errlen)
{
	char *save = NULL, *kv;
	for (kv = strtok_r(q, "&", &save); kv; kv = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(kv, '=');
		int64_t x;
		if (!eq)
			BAD("URL argument '%s': expected KEY=VALUE", kv);
		*eq = 0;
		const char *k = kv, *v = eq + 1;
		if (!strcmp(k, "version")) {
			if (strcmp(v, "3") && strcmp(v, "4"))
				BAD("URL argument version=%s: expected 3 or 4", v);
			u->version = atoi(v);
		} else if (!strcmp(k, "nfsport") || !strcmp(k, "mountport")) {
			if (sw_parse_i64(v, 1, 65535, &x))
				BAD("URL argument %s=%s: expected a port 1..65535", k, v);
			if (k[0] == 'n')
				u->nfsport = (int)x;
			else
				u->mountport = (int)x;
		} else if (!strcmp(k, "uid") || !strcmp(k, "gid")) {
			if (sw_parse_i64(v, 0, 2147483647, &x))
				BAD("URL argument %s=%s: expected a number 0..2^31-1", k, v);
		} else {
			BAD("URL argument '%s': expected one of version, nfsport, mountport, uid, gid", k);
		}
	}
	return 0;
}

int sw_nfs_url_parse(const char *s, struct sw_nfs_url *u, char *err,
		     size_t errlen)
{
	char buf[1024], *p, *q, *slash;
	size_t n;

	memset(u, 0, sizeof(*u));
	u->version = 3;
	if (!s || !*s)
		BAD("expected an nfs://HOST/EXPORT/FILE URL, saw an empty string");
	if (strlen(s) >= sizeof(buf))
		BAD("URL longer than %zu bytes", sizeof(buf) - 1);
	snprintf(u->url, sizeof(u->url), "%s", s);
	if (strncmp(s, "nfs://", 6))
		BAD("expected a URL starting with nfs://, saw '%s'", s);
	snprintf(buf, sizeof(buf), "%s", s + 6);
	if (strchr(buf, '%'))
		BAD("percent-encoding is not supported in '%s'", s);
	q = strchr(buf, '?');
	if (q)
		*q++ = 0;
	slash = strchr(buf, '/');
	n = slash ? (size_t)(slash - buf) : strlen(buf);
	if (n == 0)
		BAD("expected a host after nfs://, saw none in '%s'", s);
	if (n >= sizeof(u->host))
		BAD("host name longer than %zu bytes", sizeof(u->host) - 1);
	memcpy(u->host, buf, n);
	u->host[n] = 0;
	if (u->host[0] != '[' && strchr(u->host, ':'))
		BAD("expected a host without ':PORT' in '%s' (give ports as ?nfsport=N&mountport=M)", s);
	if (!slash)
		BAD("expected /EXPORT/FILE after the host in '%s'", s);
	p = slash;
	n = strlen(p);
	if (p[n - 1] == '/')
		BAD("expected a file path, saw a path ending in '/' in '%s'", s);
	if (strstr(p, "//"))
		BAD("expected no empty path component ('//') in '%s'", s);
	for (char *c = p; c && *c; c = strchr(c + 1, '/')) {
		char *e = strchr(c + 1, '/');
		size_t l = e ? (size_t)(e - c - 1) : strlen(c + 1);
		if ((l == 1 && c[1] == '.') || (l == 2 && c[1] == '.' && c[2] == '.'))
			BAD("expected no '.' or '..' path component in '%s'", s);
	}
	slash = strrchr(p, '/');
	if (slash == p)
		BAD("expected /EXPORT/FILE, saw only one path component '%s' in '%s'", p, s);
	if (strlen(slash + 1) >= sizeof(u->file) ||
	    (size_t)(slash - p) >= sizeof(u->export))
		BAD("path too long in '%s'", s);
	memcpy(u->export, p, (size_t)(slash - p));
	u->export[slash - p] = 0;
	snprintf(u->file, sizeof(u->file), "%s", slash + 1);
	snprintf(u->path, sizeof(u->path), "%s/%s", u->export, u->file);
	if (q && *q && parse_query(q, u, err, errlen))
		return -EINVAL;
	return 0;
}
