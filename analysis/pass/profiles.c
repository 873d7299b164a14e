/* SPDX-License-Identifier: MIT */
/* profiles.c - the client profiles replayed by default (data, not code),
 * and parsers for a profile file and a mount's option string. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

#define S(x) ((int64_t)((x) * 1000000000.0))
#define MS(x) ((int64_t)(x) * 1000000)

const struct sw_profile sw_default_profiles[] = {
	{ .name = "v3-default", .vers = 3, .acregmin_ns = S(3), .acregmax_ns = S(60), .period_ns = MS(100) },
	{ .name = "v4-default", .vers = 4, .acregmin_ns = S(3), .acregmax_ns = S(60), .period_ns = MS(100) },
	{ .name = "v3-noac", .vers = 3, .noac = 1, .period_ns = MS(100) },
	{ .name = "v3-actimeo=1", .vers = 3, .acregmin_ns = S(1), .acregmax_ns = S(1), .period_ns = MS(100) },
	{ .name = "v3-actimeo=30", .vers = 3, .acregmin_ns = S(30), .acregmax_ns = S(30), .period_ns = MS(100) },
	{ .name = "v3-cto", .vers = 3, .cto = 1, .acregmin_ns = S(3), .acregmax_ns = S(60), .period_ns = MS(100) },
	{ .name = "v3-read1s", .vers = 3, .acregmin_ns = S(3), .acregmax_ns = S(60), .period_ns = S(1) },
};
const int sw_n_default_profiles =
	(int)(sizeof(sw_default_profiles) / sizeof(sw_default_profiles[0]));

static int num(const char *v, double *out)
{
	char *e;
	errno = 0;
	*out = strtod(v, &e);
	/* seconds and milliseconds become int64 ns: a day is plenty, and a
	 * larger value would overflow the conversion (found by fuzz_tables) */
	return errno || e == v || *e || !(*out >= 0 && *out <= 86400000.0) ? -EINVAL : 0;
}

int sw_profile_parse(const char *line, struct sw_profile *p, char *err,
		     int errlen)
{
	char buf[512], *save, *tok;
	double d;

	memset(p, 0, sizeof(*p));
	p->vers = 3;
	p->acregmin_ns = S(3);
	p->acregmax_ns = S(60);
	p->period_ns = MS(100);
	snprintf(buf, sizeof(buf), "%s", line);
	tok = strtok_r(buf, " \t\n", &save);
	if (!tok) {
		snprintf(err, errlen, "expected a profile name, saw an empty line");
		return -EINVAL;
	}
	snprintf(p->name, sizeof(p->name), "%s", tok);
	while ((tok = strtok_r(NULL, " \t\n", &save))) {
		char *eq = strchr(tok, '=');
		if (!strcmp(tok, "noac")) {
			p->noac = 1;
			continue;
		}
		if (!strcmp(tok, "cto")) {
			p->cto = 1;
			continue;
		}
		if (!strcmp(tok, "reopen")) {
			p->reopen = 1;
			continue;
		}
		if (!eq || num(eq + 1, &d)) {
			snprintf(err, errlen,
				 "profile %s: expected KEY=NUMBER (0 to 86400000), noac, cto or reopen, saw '%s'",
				 p->name, tok);
			return -EINVAL;
		}
		*eq = 0;
		if (!strcmp(tok, "vers"))
			p->vers = d >= 4 ? 4 : 3;
		else if (!strcmp(tok, "acregmin"))
			p->acregmin_ns = S(d);
		else if (!strcmp(tok, "acregmax"))
			p->acregmax_ns = S(d);
		else if (!strcmp(tok, "actimeo"))
			p->acregmin_ns = p->acregmax_ns = S(d);
		else if (!strcmp(tok, "period_ms"))
			p->period_ns = (int64_t)(d * 1e6);
		else {
			snprintf(err, errlen,
				 "profile %s: unknown key '%s' (expected vers, acregmin, acregmax, actimeo, period_ms)",
				 p->name, tok);
			return -EINVAL;
		}
	}
	if (p->period_ns <= 0) {
		snprintf(err, errlen, "profile %s: expected period_ms > 0", p->name);
		return -EINVAL;
	}
	if (p->acregmax_ns < p->acregmin_ns)
		p->acregmax_ns = p->acregmin_ns;
	return 0;
}

int sw_profiles_load(const char *path, struct sw_profile *out, int max,
		     char *err, int errlen)
{
	FILE *f = fopen(path, "r");
	char line[512], e2[256];
	int n = 0, lno = 0;

	if (!f) {
		snprintf(err, errlen, "cannot open profile file %s: %s", path,
			 strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		lno++;
		char *h = strchr(line, '#');
		if (h)
			*h = 0;
		if (strspn(line, " \t\r\n") == strlen(line))
			continue;
		if (n == max) {
			snprintf(err, errlen, "%s:%d: more than %d profiles", path, lno, max);
			fclose(f);
			return -E2BIG;
		}
		if (sw_profile_parse(line, &out[n], e2, sizeof(e2))) {
			snprintf(err, errlen, "%s:%d: %s", path, lno, e2);
			fclose(f);
			return -EINVAL;
		}
		n++;
	}
	fclose(f);
	return n;
}

void sw_profile_from_mount(const char *opts, int64_t period_ns, int cto,
			   struct sw_profile *p)
{
	char buf[1024], *save, *tok;
	int nocto = 0;

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "kread-mount");
	p->vers = 3;
	p->acregmin_ns = S(3);
	p->acregmax_ns = S(60);
	p->period_ns = period_ns > 0 ? period_ns : MS(100);
	p->cto = cto;
	p->reopen = cto;
	snprintf(buf, sizeof(buf), "%s", opts ? opts : "");
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		double d = 0;
		char *eq = strchr(tok, '=');
		if (eq && num(eq + 1, &d))
			d = -1;
		if (!strcmp(tok, "noac"))
			p->noac = 1;
		else if (!strcmp(tok, "nocto"))
			/* NFS_MOUNT_NOCTO: an open does not revalidate
			 * (nfs_lookup_revalidate/nfs_open skip the forced
			 * GETATTR), so a reader that reopens for every read
			 * is served like a kept-open one (VM: nocto cto reader
			 * 12 unresolved, as kept-open 13; as cto 22) */
			nocto = 1;
		else if (eq && !strncmp(tok, "vers=", 5))
			p->vers = atof(eq + 1) >= 4 ? 4 : 3;
		else if (eq && !strncmp(tok, "nfsvers=", 8))
			p->vers = atof(eq + 1) >= 4 ? 4 : 3;
		else if (d >= 0 && !strncmp(tok, "actimeo=", 8))
			p->acregmin_ns = p->acregmax_ns = S(d);
		else if (d >= 0 && !strncmp(tok, "acregmin=", 9))
			p->acregmin_ns = S(d);
		else if (d >= 0 && !strncmp(tok, "acregmax=", 9))
			p->acregmax_ns = S(d);
	}
	/* NFSv4 has no GETATTR to skip: every open sends an OPEN whose
	 * compound carries GETATTR (nfs4_xdr_enc_open -> encode_getfattr_open;
	 * no delegation while the writer holds the file open), so a reader
	 * that reopens for every read revalidates at every read, nocto or
	 * not (VM, validate --vm: v4.2 nocto reopening reader 2.85 s / 5.16 s,
	 * as the cto readers; replayed as kept-open 3.94 s / 7.95 s) */
	if (nocto && p->vers == 3)
		p->cto = 0;
	if (p->acregmax_ns < p->acregmin_ns)
		p->acregmax_ns = p->acregmin_ns;
}

void sw_profile_describe(const struct sw_profile *p, char *buf, int len)
{
	if (p->noac)
		snprintf(buf, len, "v%d noac read/%gms", p->vers, p->period_ns / 1e6);
	else
		snprintf(buf, len, "v%d ac %g..%gs%s read/%gms", p->vers,
			 p->acregmin_ns / 1e9, p->acregmax_ns / 1e9,
			 p->cto ? " cto" : p->reopen ? " reopen" : "", p->period_ns / 1e6);
}
