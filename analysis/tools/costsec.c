/* SPDX-License-Identifier: MIT */
/*
 * costsec.c - the Cost section: `stalewin-report cost-section
 * FILE [--json]` prints it from a cost.json of `stalewin cost --out DIR`;
 * verdict and mail call sw_costsec_verdict and sw_costsec_mail to give it
 * when a study folder has one at DIR/cost/cost.json (pass/costload.h
 * reads and checks it, output/costfmt.c formats it).
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "costload.h"
#include "fmt.h"

int sw_costsec_main(int argc, char **argv)
{
	const char *file;
	int json, rc = sw_cli_one_arg(argc, argv, "cost-section", "cost.json",
				      "usage: stalewin-report cost-section FILE [--json]\n"
				      "  the Cost section of summary, verdict and mail from a cost.json\n"
				      "  of stalewin cost --out DIR (DIR/cost.json)\n",
				      &file, &json);
	struct sw_costsec *cs;
	char err[1200];

	if (rc >= 0)
		return rc;
	cs = malloc(sizeof(*cs));
	if (!cs)
		return 1;
	if (sw_costsec_load(file, cs, err, sizeof(err))) {
		fprintf(stderr, "stalewin-report cost-section: %s\n", err);
		free(cs);
		return 2;
	}
	if (json) {
		json_t *o = sw_costsec_json(cs);

		json_dumpf(o, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(o);
	} else {
		sw_fmt_costsec(stdout, cs, NULL);
	}
	free(cs);
	return fflush(stdout) ? 1 : 0;
}

/* *cs a new Cost section read from path: 0, -1 out of memory, 1 when path
 * does not read (err says why; *cs is NULL) */
static int costsec_new(const char *path, struct sw_costsec **cs, char *err, size_t errlen)
{
	if (!(*cs = malloc(sizeof(**cs))))
		return -1;
	if (sw_costsec_load(path, *cs, err, errlen)) {
		free(*cs);
		*cs = NULL;
		return 1;
	}
	return 0;
}

json_t *sw_costsec_verdict(FILE *f, const char *dir)
{
	char path[1200], err[1400];
	struct sw_costsec *cs;
	json_t *o;
	int rc;

	snprintf(path, sizeof(path), "%s/cost/cost.json", dir);
	if (access(path, F_OK) || (rc = costsec_new(path, &cs, err, sizeof(err))) < 0)
		return NULL;
	if (rc) {
		fprintf(f, "\nCost: not shown: %s\n", err);
		return json_pack("{s:s,s:s}", "source", path, "error", err);
	}
	sw_fmt_costsec(f, cs, "cost/cost.json");
	o = sw_costsec_json(cs);
	free(cs);
	return o;
}

char *sw_costsec_mail(char **dirs, int n, struct sw_findings *refuse)
{
	char path[1200], err[1400], src[1300], *buf = NULL;
	struct sw_costsec *cs;
	size_t len = 0;
	FILE *m;
	int rc;

	if (!sw_costsec_find(dirs, n, path, sizeof(path)) ||
	    (rc = costsec_new(path, &cs, err, sizeof(err))) < 0)
		return NULL;
	if (rc) {
		sw_findings_add(refuse, "the Cost section cannot be read: %s.", err);
		return NULL;
	}
	sw_costsec_refusals(cs, refuse);
	/* the study by its base name, as the mail names run folders */
	snprintf(src, sizeof(src), "%s", path);
	src[strlen(src) - strlen("/cost/cost.json")] = 0;
	{
		char *real = realpath(src, NULL);

		snprintf(err, sizeof(err), "%s/cost/cost.json", basename(real ? real : src));
		free(real);
	}
	m = open_memstream(&buf, &len);
	if (m) {
		sw_fmt_costsec(m, cs, err);
		fclose(m);
	}
	free(cs);
	return buf;
}
