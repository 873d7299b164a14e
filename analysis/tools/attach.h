/* SPDX-License-Identifier: MIT */
/* attach.h - a mail's attachments as MIME parts (attach.c). */
#ifndef STALEWIN_ATTACH_H
#define STALEWIN_ATTACH_H
#include <stddef.h>
#include <stdio.h>
/* 0 when every file can be read, else -1 with err naming the first. */
int sw_mail_attach_check(const char *const *files, int n, char *err, size_t errlen);
/* Each file as a base64 part after the text part, then the closing
 * boundary.  0, or -1 with err. */
int sw_mail_attach(FILE *out, const char *const *files, int n, char *err, size_t errlen);
#endif
