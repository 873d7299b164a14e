/* SPDX-License-Identifier: MIT */
/*
 * Description: unit test of the workloads' own option tables (struct
 * sw_wl_opt in server/workload/<name>.c) against the writer's central
 * table (server/cli.c).  The real list must check clean: no option
 * declared twice (in two workloads' tables, or in one and the central
 * table), each with a help text and a meta.json field of its own.  Made
 * lists with one fault each must be refused, naming it.  The command line
 * reads an own option into its workload's values, --help lists it under
 * the workload's name, and meta.json's workload object has its field.  A
 * broken table shows as a clean check of a bad list, an option getopt
 * does not know, or a meta.json field missing.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "writer.h"

struct fake_own {
	uint64_t a, b;
};

#define OPT(n, h, m) { .name = (n), .arg = "N", .help = (h), .kind = SW_WL_OPT_U64, \
		       .off = 0, .dflt = "1", .meta = (m) }
static const struct sw_wl_opt good_a[] = { OPT("fake-a", "a", "fake_a"), { 0 } };
static const struct sw_wl_opt good_b[] = { OPT("fake-b", "b", "fake_b"), { 0 } };
static const struct sw_wl_opt twice_in_one[] = { OPT("fake-c", "c", "fake_c"),
						 OPT("fake-c", "c", "fake_c2"), { 0 } };
static const struct sw_wl_opt same_as_a[] = { OPT("fake-a", "a again", "fake_a2"), { 0 } };
static const struct sw_wl_opt central[] = { OPT("rate", "a rate of its own", "fake_rate"), { 0 } };
static const struct sw_wl_opt no_help[] = { OPT("fake-d", NULL, "fake_d"), { 0 } };
static const struct sw_wl_opt empty_help[] = { OPT("fake-d", "", "fake_d"), { 0 } };
static const struct sw_wl_opt no_meta[] = { OPT("fake-e", "e", NULL), { 0 } };
static const struct sw_wl_opt meta_twice[] = { OPT("fake-f", "f", "fake_a"), { 0 } };
static const struct sw_wl_opt meta_central[] = { OPT("fake-g", "g", "rate_per_s"), { 0 } };
static const struct sw_wl_opt bad_default[] = {
	{ .name = "fake-h", .arg = "N", .help = "h", .kind = SW_WL_OPT_U64, .dflt = "lots",
	  .meta = "fake_h" },
	{ 0 },
};
static const struct sw_wl_opt outside[] = {
	{ .name = "fake-i", .arg = "N", .help = "i", .kind = SW_WL_OPT_U64, .dflt = "1",
	  .meta = "fake_i", .off = sizeof(struct fake_own) },
	{ 0 },
};
#undef OPT

#define WL(n, t) { .name = (n), .opts = (t), .own_size = sizeof(struct fake_own) }
static const struct sw_workload_ops wa = WL("fa", good_a), wb = WL("fb", good_b),
	w_twice = WL("ftwice", twice_in_one), w_same = WL("fsame", same_as_a),
	w_central = WL("fcentral", central), w_nohelp = WL("fnohelp", no_help),
	w_emptyhelp = WL("femptyhelp", empty_help), w_nometa = WL("fnometa", no_meta),
	w_metatwice = WL("fmetatwice", meta_twice), w_metacentral = WL("fmetacentral", meta_central),
	w_default = WL("fdefault", bad_default), w_outside = WL("foutside", outside);
#undef WL

SW_CASE(real_tables)
{
	char err[512] = "";
	CHECK(!sw_opts_check_tables(sw_workloads, err, sizeof(err)),
	      "the workloads' tables: %s", err);
	size_t n = 0;
	for (size_t i = 0; sw_workloads[i]; i++)
		for (const struct sw_wl_opt *o = sw_workloads[i]->opts; o && o->name; o++)
			n++;
	CHECK(n >= 7, "expected the 7 own options of rewrite, random and burst, saw %zu", n);
}

SW_CASE(faults_refused)
{
	static const struct {
		const char *what, *want;
		const struct sw_workload_ops *wl[3];
	} bad[] = {
		{ "twice in one table", "declared once", { &w_twice } },
		{ "in two tables", "declared once", { &wa, &w_same } },
		{ "in the central table", "declared once", { &w_central } },
		{ "no help", "help text", { &w_nohelp } },
		{ "empty help", "help text", { &w_emptyhelp } },
		{ "no meta.json field", "meta.json field", { &w_nometa } },
		{ "meta.json field twice", "written once", { &wa, &w_metatwice } },
		{ "meta.json field of the writer", "written once", { &w_metacentral } },
		{ "a default that does not read", "default", { &w_default } },
		{ "outside its struct", "inside its own struct", { &w_outside } },
	};
	static const struct sw_workload_ops *const ok[] = { &wa, &wb, NULL };
	char err[512] = "";

	CHECK(!sw_opts_check_tables(ok, err, sizeof(err)), "two good tables: %s", err);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		CHECK(sw_opts_check_tables(bad[i].wl, err, sizeof(err)) && strstr(err, "expected") &&
		      strstr(err, bad[i].want),
		      "an option %s: expected it refused with '%s', saw '%s'", bad[i].what,
		      bad[i].want, err);
	}
}

/* every own option: the command line reads it into its workload's values
 * (and only there), --help lists it under its workload's name */
SW_CASE(parse_and_help)
{
	char help[16384] = "";
	FILE *f = fmemopen(help, sizeof(help) - 1, "w");
	CHECK(f);
	if (!f)
		return;
	sw_opts_usage(f);
	fclose(f);
	for (size_t i = 0; sw_workloads[i]; i++) {
		char head[64];
		const char *at, *hit;
		snprintf(head, sizeof(head), "\n workload %s:\n", sw_workloads[i]->name);
		/* its group: from its heading to the next heading */
		const char *end = (at = strstr(help, head)) ? strstr(at + 1, "\n ") : NULL;
		while (end && end[2] == ' ')
			end = strstr(end + 1, "\n ");
		for (const struct sw_wl_opt *w = sw_workloads[i]->opts; w && w->name; w++) {
			char line[96], *argv[16], err[SW_ERRLEN] = "";
			struct sw_opts o;
			int64_t iv = 0;
			double dv = 0;
			int argc = 0;

			snprintf(line, sizeof(line), "\n  --%s %s ", w->name, w->arg);
			hit = at ? strstr(at, line) : NULL;
			CHECK(hit && (!end || hit < end), "--help: --%s under '%s'", w->name, head + 2);
			snprintf(line, sizeof(line), "--%s", w->name);
			for (const char *a[] = { "run", "--file", "/nonexistent/f", "--log",
						 "/nonexistent/l", "--policy", "eager", "--workload",
						 sw_workloads[i]->name, line, "7", NULL },
			     **p = a; *p; p++)
				argv[argc++] = (char *)*p;
			argv[argc] = NULL;
			if (sw_opts_parse(&o, argc, argv, err, sizeof(err))) {
				CHECK(0, "%s 7: %s", line, err);
				continue;
			}
			sw_wl_opt_value(w, &o.wl.own, &iv, &dv);
			CHECK(iv == 7 || dv == 7, "%s 7 read as %lld / %g", line, (long long)iv, dv);
			iv = 0, dv = 0;
			sw_wl_opt_value(w, &o.wl_own[i], &iv, &dv);
			CHECK(iv == 7 || dv == 7, "%s 7 kept as %lld / %g", line, (long long)iv, dv);
		}
	}
}

/* meta.json's workload object: the writer's keys and every table's */
SW_CASE(meta_fields)
{
	char *argv[] = { "run", "--file", "/nonexistent/f", "--log", "/nonexistent/l",
			 "--policy", "eager", "--workload", "rewrite", "--seed", "9", NULL };
	char err[SW_ERRLEN] = "";
	struct sw_opts o;
	static struct sw_resolved r;

	if (sw_opts_parse(&o, 11, argv, err, sizeof(err))) {
		CHECK(0, "%s", err);
		return;
	}
	r.npages = 256;
	r.trap = r.trap_reason = r.background_basis = "test";
	r.fs.fs_name = "tmpfs";
	char *s = sw_meta_json(&o, &r);
	json_t *m = s ? json_loads(s, 0, NULL) : NULL, *wl = json_object_get(m, "workload");
	CHECK(wl, "meta.json without a workload object: %s", s ? s : "(null)");
	size_t n = 3;
	CHECK(json_is_string(json_object_get(wl, "name")) &&
	      json_is_integer(json_object_get(wl, "pages")) &&
	      json_is_real(json_object_get(wl, "rate_per_s")), "the writer's keys");
	for (size_t i = 0; sw_workloads[i]; i++)
		for (const struct sw_wl_opt *w = sw_workloads[i]->opts; w && w->name; w++, n++) {
			json_t *v = json_object_get(wl, w->meta);
			CHECK(w->kind == SW_WL_OPT_DOUBLE ? json_is_real(v) : json_is_integer(v),
			      "meta.json's workload.%s (--%s)", w->meta, w->name);
		}
	CHECK(json_integer_value(json_object_get(wl, "seed")) == 9, "workload.seed");
	CHECK(json_object_size(wl) == n, "expected %zu keys in workload, saw %zu", n,
	      json_object_size(wl));
	json_decref(m);
	free(s);
}

SW_MAIN()
