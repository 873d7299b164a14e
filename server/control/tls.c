/* SPDX-License-Identifier: MIT */
/*
 * control/tls.c - the self-signed certificate of `stalewin-writer serve
 * --tls` (control_tls.h), made in process with GnuTLS: no openssl(1), no
 * file of the key on disk.  Nothing trusts it by a CA: the client pins the
 * public key the token file carries (client/control/tokfile.c), so the name
 * and validity only need to be well formed.
 */
#include <arpa/inet.h>
#include <gnutls/abstract.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "control_tls.h"

#define CN "stalewin-writer serve"

/* one GnuTLS call: on error, say which and jump to the end */
#define TRY(call)                                                                    \
	do {                                                                         \
		int rc_ = (call);                                                    \
		if (rc_ < 0) {                                                       \
			snprintf(err, errlen, "TLS certificate: %s failed: %s", #call, \
				 gnutls_strerror(rc_));                              \
			goto out;                                                    \
		}                                                                    \
	} while (0)

static char *dup_datum(const gnutls_datum_t *d)
{
	char *s = malloc(d->size + 1);
	if (s) {
		memcpy(s, d->data, d->size);
		s[d->size] = 0;
	}
	return s;
}

/* "sha256//" + base64(SHA-256(SubjectPublicKeyInfo DER)) */
static int make_pin(gnutls_x509_crt_t crt, char *pin, char *err, size_t errlen)
{
	gnutls_pubkey_t pub = NULL;
	gnutls_datum_t der = { 0 }, b64 = { 0 };
	unsigned char h[32];
	int ret = -1;

	TRY(gnutls_pubkey_init(&pub));
	TRY(gnutls_pubkey_import_x509(pub, crt, 0));
	TRY(gnutls_pubkey_export2(pub, GNUTLS_X509_FMT_DER, &der));
	TRY(gnutls_hash_fast(GNUTLS_DIG_SHA256, der.data, der.size, h));
	gnutls_datum_t hd = { h, sizeof(h) };
	TRY(gnutls_base64_encode2(&hd, &b64));
	if (b64.size + 9 > CTL_TLS_PIN_MAX) {
		snprintf(err, errlen, "TLS certificate: a pin of %u base64 characters", b64.size);
		goto out;
	}
	snprintf(pin, CTL_TLS_PIN_MAX, "sha256//%.*s", (int)b64.size, (const char *)b64.data);
	ret = 0;
out:
	gnutls_free(der.data);
	gnutls_free(b64.data);
	if (pub)
		gnutls_pubkey_deinit(pub);
	return ret;
}

static int fill_cert(gnutls_x509_crt_t crt, gnutls_x509_privkey_t key, uint32_t addr,
		     char *err, size_t errlen)
{
	unsigned char serial[16];
	time_t now = time(NULL);

	if (getrandom(serial, sizeof(serial), 0) != (ssize_t)sizeof(serial)) {
		snprintf(err, errlen, "TLS certificate: getrandom for the serial failed");
		return -1;
	}
	serial[0] &= 0x7f; /* a positive INTEGER */
	TRY(gnutls_x509_crt_set_version(crt, 3));
	TRY(gnutls_x509_crt_set_serial(crt, serial, sizeof(serial)));
	TRY(gnutls_x509_crt_set_activation_time(crt, now - 60));
	TRY(gnutls_x509_crt_set_expiration_time(crt, now + CTL_TLS_VALID_DAYS * 86400L));
	TRY(gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, CN,
					  sizeof(CN) - 1));
	TRY(gnutls_x509_crt_set_key(crt, key));
	TRY(gnutls_x509_crt_set_basic_constraints(crt, 0, -1));
	TRY(gnutls_x509_crt_set_key_usage(crt, GNUTLS_KEY_DIGITAL_SIGNATURE));
	TRY(gnutls_x509_crt_set_key_purpose_oid(crt, GNUTLS_KP_TLS_WWW_SERVER, 0));
	if (addr) {
		uint32_t be = htonl(addr);
		TRY(gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, &be,
							 sizeof(be), GNUTLS_FSAN_SET));
	}
	TRY(gnutls_x509_crt_sign2(crt, crt, key, GNUTLS_DIG_SHA256, 0));
	return 0;
out:
	return -1;
}

int ctl_tls_make(struct ctl_tls *t, uint32_t addr, char *err, size_t errlen)
{
	gnutls_x509_privkey_t key = NULL;
	gnutls_x509_crt_t crt = NULL;
	gnutls_datum_t cpem = { 0 }, kpem = { 0 };
	int ret = -1;

	memset(t, 0, sizeof(*t));
	TRY(gnutls_x509_privkey_init(&key));
	TRY(gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA,
					 GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0));
	TRY(gnutls_x509_crt_init(&crt));
	if (fill_cert(crt, key, addr, err, errlen) || make_pin(crt, t->pin, err, errlen))
		goto out;
	TRY(gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &cpem));
	TRY(gnutls_x509_privkey_export2(key, GNUTLS_X509_FMT_PEM, &kpem));
	t->cert_pem = dup_datum(&cpem);
	t->key_pem = dup_datum(&kpem);
	if (!t->cert_pem || !t->key_pem) {
		snprintf(err, errlen, "TLS certificate: out of memory");
		goto out;
	}
	ret = 0;
out:
	if (kpem.data) {
		gnutls_memset(kpem.data, 0, kpem.size);
		gnutls_free(kpem.data);
	}
	gnutls_free(cpem.data);
	if (crt)
		gnutls_x509_crt_deinit(crt);
	if (key)
		gnutls_x509_privkey_deinit(key);
	if (ret)
		ctl_tls_free(t);
	return ret;
}

void ctl_tls_free(struct ctl_tls *t)
{
	if (t->key_pem) {
		gnutls_memset(t->key_pem, 0, strlen(t->key_pem));
		free(t->key_pem);
	}
	free(t->cert_pem);
	t->key_pem = t->cert_pem = NULL;
}
