/* SPDX-License-Identifier: MIT */
/* control/client.c - control API client (control_client.h), libcurl. */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "control.h"
#include "control_client.h"
#include "clockest.h"
#include "swtime.h"

struct swctl {
	CURL *h;
	char url[512];         /* base, no trailing slash */
	char auth[160];        /* "Authorization: Bearer ..." */
	char client[100];      /* "X-Stalewin-Client: NAME", or "" */
	char pin[128];         /* https: CURLOPT_PINNEDPUBLICKEY; "" for http */
	long timeout_ms;
};

#define RETRY_429_MAX 5      /* retries of a request answered 429 */
#define RETRY_429_MAX_S 5    /* longest Retry-After honoured, seconds */

struct buf {
	char *p;
	size_t len;
	FILE *f;               /* when set, body goes here instead */
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_init_once(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

int swctl_open(struct swctl **out, const char *url, const struct swctl_tokfile *tf,
	       long timeout_ms, char *err, size_t errlen)
{
	const char *token = tf->token;
	struct swctl *c;
	size_t n;
	int rc = swctl_url_check(url, tf, err, errlen);

	if (rc)
		return rc;
	if (strlen(token) > 128 || strpbrk(token, "\r\n")) {
		snprintf(err, errlen, "expected a token of at most 128 printable characters");
		return SWCTL_E_PROTO;
	}
	pthread_once(&curl_once, curl_init_once);
	c = calloc(1, sizeof(*c));
	if (!c || !(c->h = curl_easy_init())) {
		free(c);
		snprintf(err, errlen, "cannot initialise libcurl");
		return SWCTL_E_TRANSPORT;
	}
	snprintf(c->url, sizeof(c->url), "%s", url);
	n = strlen(c->url);
	while (n && c->url[n - 1] == '/')
		c->url[--n] = 0;
	snprintf(c->auth, sizeof(c->auth), "Authorization: Bearer %s", token);
	if (!strncmp(url, "https://", 8))
		snprintf(c->pin, sizeof(c->pin), "%s", tf->pin);
	c->timeout_ms = timeout_ms > 0 ? timeout_ms : 60000;
	*out = c;
	return 0;
}

int swctl_set_client(struct swctl *c, const char *name, char *err, size_t errlen)
{
	if (!sw_ctl_client_name_ok(name)) {
		snprintf(err, errlen, "expected a client name of 1 to %d characters of A-Z a-z 0-9 "
			 ". _ : -, saw '%.80s'", SW_CTL_CLIENT_MAX, name);
		return SWCTL_E_PROTO;
	}
	snprintf(c->client, sizeof(c->client), SW_CTL_HDR_CLIENT ": %s", name);
	return 0;
}

void swctl_close(struct swctl *c)
{
	if (!c)
		return;
	curl_easy_cleanup(c->h);
	free(c);
}

static size_t on_data(char *p, size_t sz, size_t nm, void *ud)
{
	struct buf *b = ud;
	size_t n = sz * nm;
	if (b->f)
		return fwrite(p, 1, n, b->f);
	char *q = realloc(b->p, b->len + n + 1);
	if (!q)
		return 0;
	memcpy(q + b->len, p, n);
	b->p = q;
	b->len += n;
	q[b->len] = 0;
	return n;
}

/* One request; body into b.  Returns 0, SWCTL_E_TRANSPORT or SWCTL_E_PIN. */
static int perform_once(struct swctl *c, const char *method, const char *route,
		   const char *body, struct buf *b, long *code, char *err,
		   size_t errlen)
{
	char url[1024];
	struct curl_slist *hdr = NULL;
	char ebuf[CURL_ERROR_SIZE] = "";
	CURLcode rc;

	snprintf(url, sizeof(url), "%s%s", c->url, route);
	curl_easy_reset(c->h);
	curl_easy_setopt(c->h, CURLOPT_URL, url);
	curl_easy_setopt(c->h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->h, CURLOPT_TIMEOUT_MS, c->timeout_ms);
	curl_easy_setopt(c->h, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
	curl_easy_setopt(c->h, CURLOPT_ERRORBUFFER, ebuf);
	curl_easy_setopt(c->h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c->h, CURLOPT_WRITEDATA, b);
	curl_easy_setopt(c->h, CURLOPT_TCP_NODELAY, 1L);
	curl_easy_setopt(c->h, CURLOPT_PROXY, ""); /* never an http_proxy */
	if (c->pin[0]) { /* self-signed: the pinned key is the only trust */
		curl_easy_setopt(c->h, CURLOPT_PINNEDPUBLICKEY, c->pin);
		curl_easy_setopt(c->h, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c->h, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	hdr = curl_slist_append(hdr, c->auth);
	if (c->client[0])
		hdr = curl_slist_append(hdr, c->client);
	hdr = curl_slist_append(hdr, "Expect:");
	if (!strcmp(method, "POST")) {
		hdr = curl_slist_append(hdr, "Content-Type: application/json");
		curl_easy_setopt(c->h, CURLOPT_POST, 1L);
		curl_easy_setopt(c->h, CURLOPT_POSTFIELDS, body ? body : "");
		curl_easy_setopt(c->h, CURLOPT_POSTFIELDSIZE, (long)(body ? strlen(body) : 0));
	}
	curl_easy_setopt(c->h, CURLOPT_HTTPHEADER, hdr);
	rc = curl_easy_perform(c->h);
	curl_slist_free_all(hdr);
	*code = 0;
	if (rc == CURLE_SSL_PINNEDPUBKEYNOTMATCH) {
		snprintf(err, errlen, "the writer at %s presented a certificate whose key is not "
			 "the one pinned in the token file (%s): another server, or a serve "
			 "restarted since the token file was copied; refused before the token was "
			 "sent", c->url, c->pin);
		return SWCTL_E_PIN;
	}
	if (rc != CURLE_OK) {
		/* the two mix-ups of http and https a user makes */
		const char *hint = rc == CURLE_GOT_NOTHING && !c->pin[0] ?
			" (a `serve --tls` answers https only: use the https URL it printed)" :
			rc == CURLE_SSL_CONNECT_ERROR && c->pin[0] ?
			" (a serve without --tls answers http only)" : "";
		snprintf(err, errlen, "writer's control API unreachable at %s: %s%s", c->url,
			 ebuf[0] ? ebuf : curl_easy_strerror(rc), hint);
		return SWCTL_E_TRANSPORT;
	}
	curl_easy_getinfo(c->h, CURLINFO_RESPONSE_CODE, code);
	return 0;
}

/* perform_once, again after the Retry-After of a 429 (a reply in memory
 * only: a file being written keeps its 429). */
static int perform(struct swctl *c, const char *method, const char *route,
		   const char *body, struct buf *b, long *code, char *err,
		   size_t errlen)
{
	for (int k = 0;; k++) {
		int rc = perform_once(c, method, route, body, b, code, err, errlen);
		curl_off_t ra = 0;
		if (rc || *code != SW_CTL_HTTP_TOO_MANY || b->f || k == RETRY_429_MAX)
			return rc;
		curl_easy_getinfo(c->h, CURLINFO_RETRY_AFTER, &ra);
		free(b->p);
		b->p = NULL;
		b->len = 0;
		sleep((unsigned)(ra < 1 ? 1 : ra > RETRY_429_MAX_S ? RETRY_429_MAX_S : ra));
	}
}

/* err from a failed reply: the server's "error" field. */
static int http_error(long code, const char *reply, const char *what, char *err,
		      size_t errlen)
{
	json_t *j = reply ? json_loads(reply, 0, NULL) : NULL;
	const char *m = j ? json_string_value(json_object_get(j, SW_CTL_F_ERROR)) : NULL;
	const char *hint = code == SW_CTL_HTTP_UNAUTHORIZED ?
		"wrong token (is --token-file the one this server wrote?): " :
		code == SW_CTL_HTTP_CONFLICT ? "conflict: " : "";
	snprintf(err, errlen, "%s: HTTP %ld: %s%s", what, code, hint,
		 m ? m : "(reply without an error message)");
	json_decref(j);
	return (int)code;
}

int swctl_request(struct swctl *c, const char *method, const char *route,
		  const char *body, long *code, char **reply, char *err,
		  size_t errlen)
{
	struct buf b = { 0 };
	int rc = perform(c, method, route, body, &b, code, err, errlen);
	if (rc) {
		free(b.p);
		*reply = NULL;
		return rc;
	}
	if (!b.p) {
		b.p = strdup("");
		if (!b.p)
			return SWCTL_E_TRANSPORT;
	}
	*reply = b.p;
	return 0;
}

/* Request expecting one of two success codes; reply kept on success. */
static int call(struct swctl *c, const char *method, const char *route,
		const char *body, long ok1, long ok2, const char *what,
		char **reply, char *err, size_t errlen)
{
	long code;
	char *r = NULL;
	int rc = swctl_request(c, method, route, body, &code, &r, err, errlen);
	if (rc)
		return rc;
	if (code != ok1 && code != ok2) {
		rc = http_error(code, r, what, err, errlen);
		free(r);
		return rc;
	}
	if (reply)
		*reply = r;
	else
		free(r);
	return 0;
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

int swctl_clock(struct swctl *c, unsigned samples, struct swctl_clock *out,
		char *err, size_t errlen)
{
	int64_t *rtts;
	unsigned i, n = 0;
	int rc = 0;

	if (!samples)
		samples = 50;
	rtts = calloc(samples, sizeof(*rtts));
	if (!rtts)
		return SWCTL_E_TRANSPORT;
	memset(out, 0, sizeof(*out));
	struct sw_clockest est;
	sw_clockest_init(&est);
	for (i = 0; i <= samples; i++) {
		struct buf b = { 0 };
		long code;
		int64_t s_real, s_mono, r_real, r_mono;
		json_t *j;

		s_mono = sw_mono_ns();
		s_real = sw_real_ns();
		rc = perform(c, "GET", SW_CTL_ROUTE_CLOCK, NULL, &b, &code, err, errlen);
		r_real = sw_real_ns();
		r_mono = sw_mono_ns();
		if (rc) {
			free(b.p);
			break;
		}
		if (code != SW_CTL_HTTP_OK) {
			rc = http_error(code, b.p, "clock", err, errlen);
			free(b.p);
			break;
		}
		j = b.p ? json_loads(b.p, 0, NULL) : NULL;
		free(b.p);
		json_t *t = j ? json_object_get(j, SW_CTL_F_T_REAL) : NULL;
		if (!json_is_integer(t)) {
			json_decref(j);
			snprintf(err, errlen, "clock: expected {\"t_real_ns\":N}, saw another reply");
			rc = SWCTL_E_PROTO;
			break;
		}
		int64_t srv = (int64_t)json_integer_value(t);
		json_decref(j);
		if (i == 0)
			continue; /* warm-up: connection set-up in its round trip */
		rtts[n++] = r_mono - s_mono;
		sw_clockest_add(&est, s_real, srv, srv, r_real, r_mono - s_mono);
	}
	out->rtt_min_ns = est.rtt_min_ns;
	out->err_ns = n ? (est.rtt_min_ns + 1) / 2 : 0;
	out->offset_ns = est.offset_ns;
	out->t_real_ns = est.mid_real_ns;
	if (!rc) {
		qsort(rtts, n, sizeof(*rtts), cmp64);
		out->samples = n;
		out->rtt_p50_ns = n ? rtts[n / 2] : 0;
	}
	free(rtts);
	return rc;
}

int swctl_clock_format(const struct swctl_clock *k, char *buf, size_t len)
{
	int n = snprintf(buf, len,
			 "{\"offset_ns\":%lld,\"err_ns\":%lld,\"rtt_min_ns\":%lld,"
			 "\"rtt_p50_ns\":%lld,\"samples\":%u,\"t_real_ns\":%lld}",
			 (long long)k->offset_ns, (long long)k->err_ns,
			 (long long)k->rtt_min_ns, (long long)k->rtt_p50_ns, k->samples,
			 (long long)k->t_real_ns);
	return n < 0 || (size_t)n >= len ? -1 : n;
}

int swctl_start(struct swctl *c, const char *args_json, char **reply,
		char *err, size_t errlen)
{
	return call(c, "POST", SW_CTL_ROUTE_RUNS, args_json, SW_CTL_HTTP_CREATED,
		    SW_CTL_HTTP_CREATED, "start", reply, err, errlen);
}

int swctl_status(struct swctl *c, char **reply, char *err, size_t errlen)
{
	return call(c, "GET", SW_CTL_ROUTE_STATUS, NULL, SW_CTL_HTTP_OK, SW_CTL_HTTP_OK,
		    "status", reply, err, errlen);
}

int swctl_stop(struct swctl *c, char **reply, char *err, size_t errlen)
{
	return call(c, "POST", SW_CTL_ROUTE_STOP, "", SW_CTL_HTTP_OK, SW_CTL_HTTP_OK,
		    "stop", reply, err, errlen);
}

int swctl_fetch(struct swctl *c, const char *run_id, const char *what,
		const char *dest, char *err, size_t errlen)
{
	char route[256], tmp[4096];
	struct buf b = { 0 };
	long code;
	int rc;

	if (strchr(run_id, '/') || strlen(run_id) > 64 || strchr(what, '/')) {
		snprintf(err, errlen, "expected a run id of hex digits, saw '%.64s'", run_id);
		return SWCTL_E_PROTO;
	}
	snprintf(route, sizeof(route), "%s/%s/%s", SW_CTL_ROUTE_RUNS, run_id, what);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", dest, (long)getpid());
	b.f = fopen(tmp, "we");
	if (!b.f) {
		snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
		return SWCTL_E_TRANSPORT;
	}
	rc = perform(c, "GET", route, NULL, &b, &code, err, errlen);
	if (fflush(b.f) || fsync(fileno(b.f))) {
		if (!rc) {
			snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
			rc = SWCTL_E_TRANSPORT;
		}
	}
	fclose(b.f);
	if (!rc && code != SW_CTL_HTTP_OK) {
		/* the body is a JSON error, read it back */
		struct buf e = { 0 };
		FILE *f = fopen(tmp, "re");
		char chunk[1024];
		size_t n;
		while (f && (n = fread(chunk, 1, sizeof(chunk), f)) > 0 && e.len < 8192)
			on_data(chunk, 1, n, &e);
		if (f)
			fclose(f);
		rc = http_error(code, e.p, "fetch", err, errlen);
		free(e.p);
	}
	if (!rc && rename(tmp, dest)) {
		snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, dest, strerror(errno));
		rc = SWCTL_E_TRANSPORT;
	}
	if (rc)
		unlink(tmp);
	return rc;
}
