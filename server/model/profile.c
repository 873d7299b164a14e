/* SPDX-License-Identifier: MIT */
/* profile.c - model profiles as data files (profile.h). */
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

/* the writer options a profile may set: the writeback model's */
static const char *const model_keys[] = {
	"writeback-ms", "expire-ms", "dirty-background-bytes", "journal-commit-ms",
	"wb-bg-share", "create-meta-pages", "alloc-meta-pages", "wb-run-commit-us",
	"wb-run-alloc-us", "wb-run-pass-us", "wb-run-io-us", "wb-run-submit-us",
	"atime-read-ms", "jiffies", NULL,
};

struct ctx {
	struct sw_model_profile *p;
	char err[256];
};

static char *keep(struct sw_model_profile *p, const char *a, const char *b)
{
	int n = snprintf(p->buf + p->used, sizeof(p->buf) - p->used, "%s%s", a, b);
	char *w = p->buf + p->used;

	if (n < 0 || (size_t)n >= sizeof(p->buf) - p->used)
		return NULL;
	p->used += (size_t)n + 1;
	return w;
}

static int on_kv(void *user, const char *sec, const char *key, const char *val)
{
	struct ctx *c = user;
	struct sw_model_profile *p = c->p;
	size_t k;

	if (!strcmp(sec, "profile") && !strcmp(key, "kernel"))
		snprintf(p->kernel, sizeof(p->kernel), "%s", val);
	else if (!strcmp(sec, "profile") && !strcmp(key, "validated"))
		snprintf(p->validated, sizeof(p->validated), "%s", val);
	else if (!strcmp(sec, "model")) {
		for (k = 0; model_keys[k] && strcmp(model_keys[k], key); k++)
			;
		if (!model_keys[k]) {
			snprintf(c->err, sizeof(c->err),
				 "expected [model] keys of the writeback model (writeback-ms, wb-bg-share, wb-run-*-us, ...), saw '%s'",
				 key);
			return 0;
		}
		if (p->nargs + 2 > SW_PROFILE_MAXARGS ||
		    !(p->args[p->nargs] = keep(p, "--", key)) ||
		    !(p->args[p->nargs + 1] = keep(p, "", val))) {
			snprintf(c->err, sizeof(c->err), "expected at most %d options of 4 KiB, saw more",
				 SW_PROFILE_MAXARGS / 2);
			return 0;
		}
		p->nargs += 2;
	} else {
		snprintf(c->err, sizeof(c->err),
			 "expected [profile] kernel / validated or [model] keys, saw [%s] %s", sec, key);
		return 0;
	}
	return 1;
}

int sw_model_profile_load(const char *path, struct sw_model_profile *p, char *err,
			  size_t errlen)
{
	struct ctx c = { .p = p, .err = "" };
	const char *base = strrchr(path, '/');
	int rc;

	memset(p, 0, sizeof(*p));
	base = base ? base + 1 : path;
	snprintf(p->name, sizeof(p->name), "%s", base);
	size_t n = strlen(p->name);
	if (n > 8 && !strcmp(p->name + n - 8, ".profile"))
		p->name[n - 8] = '\0';
	p->args[p->nargs++] = keep(p, "profile", "");
	rc = ini_parse(path, on_kv, &c);
	if (rc < 0) {
		snprintf(err, errlen, "--model-profile: expected a readable profile file, saw '%s'",
			 path);
		return -1;
	}
	if (rc > 0) {
		snprintf(err, errlen, "--model-profile %s: line %d: %s", path, rc,
			 c.err[0] ? c.err : "expected key = value or [section]");
		return -1;
	}
	if (!p->validated[0]) {
		snprintf(err, errlen,
			 "--model-profile %s: expected [profile] validated = what it rests on, saw none",
			 path);
		return -1;
	}
	p->args[p->nargs] = NULL;
	return 0;
}

int sw_model_profile_expand(int argc, char **argv, struct sw_model_profile *p,
			    int *nargc, char ***nargv, char *err, size_t errlen)
{
	static char **args;
	int n = 0, at = -1, skip = 0;

	memset(p, 0, sizeof(*p));
	*nargc = argc;
	*nargv = argv;
	for (int i = 1; i < argc && at < 0; i++) {
		const char *path = NULL;

		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--model-profile")) {
			if (i + 1 == argc) {
				snprintf(err, errlen, "expected a file after --model-profile, saw none");
				return -1;
			}
			path = argv[i + 1];
			skip = 2;
		} else if (!strncmp(argv[i], "--model-profile=", 16)) {
			path = argv[i] + 16;
			skip = 1;
		}
		if (path && sw_model_profile_load(path, p, err, errlen))
			return -1;
		if (path)
			at = i;
	}
	if (at < 0)
		return 0;
	free(args);
	if (!(args = calloc((size_t)(argc + p->nargs + 1), sizeof(*args)))) {
		snprintf(err, errlen, "expected memory for %d arguments, saw none", argc + p->nargs);
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		if (i == at) {
			for (int k = 1; k < p->nargs; k++)
				args[n++] = p->args[k];
			i += skip - 1;
			continue;
		}
		args[n++] = argv[i];
	}
	args[n] = NULL;
	*nargc = n;
	*nargv = args;
	return 0;
}
