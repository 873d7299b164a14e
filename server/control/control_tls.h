/* SPDX-License-Identifier: MIT */
/* control_tls.h - the per-serve self-signed certificate of the control API
 * (GnuTLS): an EC P-256 key drawn fresh at every `serve --tls`, a
 * certificate for it valid from a minute ago for CTL_TLS_VALID_DAYS, and the
 * pin a client checks it by: "sha256//" + base64 of the SHA-256 of the
 * certificate's SubjectPublicKeyInfo (DER), libcurl's CURLOPT_PINNEDPUBLICKEY
 * form.  Library code: no exits, no output. */
#ifndef STALEWIN_CONTROL_TLS_H
#define STALEWIN_CONTROL_TLS_H

#include <stddef.h>
#include <stdint.h>

#define CTL_TLS_VALID_DAYS 7
#define CTL_TLS_PIN_MAX 64 /* "sha256//" + 44 base64 + NUL fits */

struct ctl_tls {
	char *cert_pem; /* NUL-terminated PEM, for MHD_OPTION_HTTPS_MEM_CERT */
	char *key_pem;  /* NUL-terminated PEM, for MHD_OPTION_HTTPS_MEM_KEY */
	char pin[CTL_TLS_PIN_MAX];
};

/* addr (host byte order, 0: none) goes into the subjectAltName.  0, or -1
 * with err naming the GnuTLS call that failed and its error. */
int ctl_tls_make(struct ctl_tls *t, uint32_t addr, char *err, size_t errlen);
/* wipes the key; t may be all zero */
void ctl_tls_free(struct ctl_tls *t);

#endif
