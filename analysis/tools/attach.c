/* SPDX-License-Identifier: MIT */
/* attach.c - the parts after a mail's text when it has attachments
 * (`stalewin mail --attach`): each file base64-encoded (RFC 2045, lines
 * of 76 characters) under its own MIME headers, then the closing
 * boundary.  The text part and the multipart header come from
 * output/mail.c (SW_MIME_BOUNDARY). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "attach.h"
#include "fmt.h"

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static const char *content_type(const char *name)
{
	const char *dot = strrchr(name, '.');
	if (dot && !strcmp(dot, ".png"))
		return "image/png";
	if (dot && !strcmp(dot, ".svg"))
		return "image/svg+xml";
	if (dot && !strcmp(dot, ".txt"))
		return "text/plain; charset=utf-8";
	return "application/octet-stream";
}

/* in's bytes as base64 lines of 76 characters */
static int encode(FILE *in, FILE *out)
{
	unsigned char b[57]; /* 57 bytes: one line of 76 */
	size_t got;
	while ((got = fread(b, 1, sizeof(b), in)) > 0) {
		for (size_t i = 0; i < got; i += 3) {
			unsigned v = (unsigned)b[i] << 16;
			if (i + 1 < got)
				v |= (unsigned)b[i + 1] << 8;
			if (i + 2 < got)
				v |= b[i + 2];
			fputc(b64[v >> 18 & 63], out);
			fputc(b64[v >> 12 & 63], out);
			fputc(i + 1 < got ? b64[v >> 6 & 63] : '=', out);
			fputc(i + 2 < got ? b64[v & 63] : '=', out);
		}
		fputc('\n', out);
	}
	return ferror(in) ? -1 : 0;
}

int sw_mail_attach_check(const char *const *files, int n, char *err, size_t errlen)
{
	for (int i = 0; i < n; i++) {
		FILE *f = fopen(files[i], "rb");
		if (!f) {
			snprintf(err, errlen, "--attach %s: expected a readable file, saw: %s", files[i],
				 strerror(errno));
			return -1;
		}
		fclose(f);
	}
	return 0;
}

int sw_mail_attach(FILE *out, const char *const *files, int n, char *err, size_t errlen)
{
	for (int i = 0; i < n; i++) {
		const char *base = strrchr(files[i], '/');
		base = base ? base + 1 : files[i];
		FILE *f = fopen(files[i], "rb");
		if (!f) {
			snprintf(err, errlen, "--attach %s: %s", files[i], strerror(errno));
			return -1;
		}
		fprintf(out, "\n--%s\nContent-Type: %s; name=\"%s\"\n"
			"Content-Disposition: attachment; filename=\"%s\"\n"
			"Content-Transfer-Encoding: base64\n\n", SW_MIME_BOUNDARY, content_type(base), base, base);
		int rc = encode(f, out);
		fclose(f);
		if (rc) {
			snprintf(err, errlen, "--attach %s: a read failed", files[i]);
			return -1;
		}
	}
	fprintf(out, "\n--%s--\n", SW_MIME_BOUNDARY);
	return 0;
}
