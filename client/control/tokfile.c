/* SPDX-License-Identifier: MIT */
/*
 * control/tokfile.c - the token file a `stalewin-writer serve` wrote, and
 * the rule of which URL may carry its token (control_client.h; the format
 * and the rule: common/control.h, "The token file" and "Off loopback").
 *
 * https: only with the file's pin (libcurl then refuses any other key
 * before the request leaves).  http: only to a 127.x address or
 * localhost, or to the one address the serve named an
 * insecure-private-link.  Anything else is refused here, before a
 * connection is made.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "control_client.h"

static void trim(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = 0;
}

/* "KEY VALUE" after the token: the ones this client knows */
static int tok_line(struct swctl_tokfile *tf, char *line, char *err, size_t errlen)
{
	size_t kl;

	trim(line);
	kl = strcspn(line, " ");
	if (!line[0] || !line[kl])
		return 0; /* blank, or a key without a value: nothing this client knows */
	const char *v = line + kl + 1;
	if (kl == strlen(SW_CTL_TOKFILE_PIN) && !strncmp(line, SW_CTL_TOKFILE_PIN, kl)) {
		if (strncmp(v, "sha256//", 8) || strlen(v) < 9 || strlen(v) >= sizeof(tf->pin) ||
		    strpbrk(v, " ;")) {
			snprintf(err, errlen, "expected '%s sha256//BASE64' in token file %s, saw "
				 "'%.80s'", SW_CTL_TOKFILE_PIN, tf->path, line);
			return SWCTL_E_PROTO;
		}
		snprintf(tf->pin, sizeof(tf->pin), "%s", v);
	} else if (kl == strlen(SW_CTL_TOKFILE_PLAIN) && !strncmp(line, SW_CTL_TOKFILE_PLAIN, kl)) {
		snprintf(tf->plain_host, sizeof(tf->plain_host), "%s", v);
	}
	return 0;
}

int swctl_read_tokfile(const char *path, struct swctl_tokfile *tf, char *err, size_t errlen)
{
	char line[512];
	FILE *f = fopen(path, "re");
	int rc = 0;

	memset(tf, 0, sizeof(*tf));
	snprintf(tf->path, sizeof(tf->path), "%s", path);
	if (!f) {
		snprintf(err, errlen, "cannot read token file %s: %s", path, strerror(errno));
		return SWCTL_E_TRANSPORT;
	}
	if (fgets(line, sizeof(line), f)) {
		trim(line);
		snprintf(tf->token, sizeof(tf->token), "%s", line);
	}
	while (!rc && fgets(line, sizeof(line), f))
		rc = tok_line(tf, line, err, errlen);
	fclose(f);
	if (!rc && !tf->token[0]) {
		snprintf(err, errlen, "expected a token in %s, saw an empty file", path);
		rc = SWCTL_E_PROTO;
	}
	return rc;
}

/* "http://HOST:PORT/..." -> HOST (no brackets, no port) */
static int url_host(const char *url, char *host, size_t len)
{
	const char *p = strstr(url, "://");
	size_t n;

	if (!p)
		return -1;
	p += 3;
	n = strcspn(p, ":/?#");
	if (!n || n >= len || p[0] == '[')
		return -1;
	memcpy(host, p, n);
	host[n] = 0;
	return 0;
}

static int is_loopback(const char *host)
{
	unsigned a, b, c, d;
	char end;

	if (!strcmp(host, "localhost"))
		return 1;
	return sscanf(host, "%u.%u.%u.%u%c", &a, &b, &c, &d, &end) == 4 && a == 127 && b < 256 &&
	       c < 256 && d < 256;
}

int swctl_url_check(const char *url, const struct swctl_tokfile *tf, char *err, size_t errlen)
{
	char host[256];
	int https = !strncmp(url, "https://", 8);

	if ((!https && strncmp(url, "http://", 7)) || url_host(url, host, sizeof(host))) {
		snprintf(err, errlen, "expected a URL http://HOST:PORT or https://HOST:PORT (IPv4 "
			 "or a name), saw '%s'", url);
		return SWCTL_E_PROTO;
	}
	if (https && !tf->pin[0]) {
		snprintf(err, errlen, "expected a '%s sha256//...' line in token file %s for %s "
			 "(`serve --tls` writes it), saw none: refusing to send the token to a "
			 "certificate nothing vouches for", SW_CTL_TOKFILE_PIN, tf->path, url);
		return SWCTL_E_PIN;
	}
	if (https || is_loopback(host) || (tf->plain_host[0] && !strcmp(host, tf->plain_host)))
		return 0;
	snprintf(err, errlen, "refusing to send the token over plain HTTP to %s (not loopback%s%s): "
		 "expected an https:// URL of a `serve --tls` (its pin is in the token file), saw "
		 "%s", host, tf->plain_host[0] ? "; the token file allows plain HTTP only to " : "",
		 tf->plain_host, url);
	return SWCTL_E_PLAIN;
}
