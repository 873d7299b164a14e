/* SPDX-License-Identifier: MIT */
/* cli.c - stalewin-writer's command line (server/README.md). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <float.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "swtime.h"
#include "trap.h"
#include "model.h"
#include "profile.h"
#include "writer.h"

/* a finite number (parse.h) */
static int parse_dbl(const char *s, double *out)
{
	return sw_parse_double(s, -DBL_MAX, DBL_MAX, out);
}

#define BAD(...)                                                              \
	do {                                                                  \
		snprintf(err, errlen, __VA_ARGS__);                           \
		return -EINVAL;                                               \
	} while (0)

/* --create-meta-pages / --alloc-meta-pages: 0 to 1024 block-device pages */
static int meta_pages_opt(const char *name, uint32_t *out, char *err, size_t errlen)
{
	uint64_t u;
	int rc = sw_wl_read_u64(name, optarg, &u, 0, err, errlen);
	if (rc)
		return rc;
	if (u > 1024) {
		snprintf(err, errlen, "expected --%s from 0 to 1024, saw '%s'", name, optarg);
		return -EINVAL;
	}
	*out = (uint32_t)u;
	return 0;
}


/* The option table: every option of the writer but the workloads' own
 * once, in --help's order.  With every workload's own table (struct
 * sw_wl_opt, in server/workload/<name>.c, printed after the row marked
 * then_wl) it makes getopt's longopts, --help (sw_opts_usage) and the
 * parsing (opts_loop): a row says how its value is read into struct
 * sw_opts (kind, off) or names its own reader (fn). */
struct cli {                    /* what a reader may set besides sw_opts */
	const char *policy, *workload;
	uint64_t u;             /* a K_FN row's integer, when it has num */
};

enum opt_kind {
	K_STR,   /* const char *: the value as given */
	K_FLAG,  /* int: 1 */
	K_MS,    /* int64_t: milliseconds >= 0 */
	K_NUM,   /* uint64_t: an integer >= 0 */
	K_SIZE,  /* uint64_t: an integer >= 0, K/M/G suffix ok */
	K_META,  /* uint32_t: 0 to 1024 block-device pages */
	K_FN,    /* read by fn */
};

struct opt_row;
typedef int opt_fn(const struct opt_row *r, struct sw_opts *o, struct cli *c,
		   char *err, size_t errlen);

struct opt_row {
	const char *name;
	int key;            /* a short option's letter, else 0 */
	enum opt_kind kind;
	size_t off;         /* the field in struct sw_opts (not K_FN) */
	const char *arg;    /* the value in --help; NULL: the option takes none */
	const char *help;   /* --help's text; "%s" stands for names() */
	const char *(*names)(void);
	opt_fn *fn;
	int num;            /* K_FN: 1 (2: K/M/G ok) reads an integer into cli.u first */
	const char *group;  /* a heading --help prints before the row */
	int then_wl;        /* --help prints the workloads' own options after it */
};

static opt_fn opt_policy, opt_workload, opt_duration, opt_run_id, opt_trap,
	opt_help, opt_rate, opt_pages, opt_bg_bytes, opt_bg_share,
	opt_uffd_spin, opt_jiffies, opt_none;

#define F(field) offsetof(struct sw_opts, field)
#define ROW(n, k, kd, f, a, h, ...)                                           \
	{ .name = (n), .key = (k), .kind = (kd), .off = (f), .arg = (a),      \
	  .help = (h), __VA_ARGS__ }
static const struct opt_row rows[] = {
	ROW("file", 'f', K_STR, F(file), "PATH", "the file the writer maps and stores into"),
	ROW("policy", 'p', K_FN, 0, "POLICY", "%s (native: the kernel's own, any fs; the others emulated, on tmpfs)", .names = sw_policy_names, .fn = opt_policy),
	ROW("workload", 'w', K_FN, 0, "WL", "%s", .names = sw_workload_names, .fn = opt_workload),
	ROW("log", 'l', K_STR, F(log), "PATH", "the log of every store and timestamp update"),
	ROW("help", 'h', K_FN, 0, NULL, "this text", .fn = opt_help),
	ROW("size", 0, K_SIZE, F(size), "BYTES", "the file's size (K/M/G/T suffix, default 1M; created or extended, never shrunk)"),
	ROW("duration", 0, K_FN, 0, "SEC", "the run's length (default 10)", .fn = opt_duration),
	ROW("run-id", 0, K_FN, 0, "HEX", "the log's run id (up to 16 hex digits)", .fn = opt_run_id),
	ROW("status-file", 0, K_STR, F(status_file), "PATH", "a JSON status, rewritten every ~200 ms"),
	ROW("force", 0, K_FLAG, F(force), NULL, "overwrite an existing log"),
	ROW("lead-ms", 0, K_MS, F(lead_ms), "N", "set up and store no sooner than N ms after the file's ctime (waits; the time from a file's creation to its first store decides the kernel's writeback regime: server/README.md)"),
	ROW("trap", 0, K_FN, 0, "TRAP", "%s (default: uffd-sigbus if the kernel offers it, else mprotect if the mapping fits vm.max_map_count, else uffd)",
	  .names = sw_trap_names, .fn = opt_trap),
	ROW("rate", 0, K_FN, 0, "N", "stream/random/burst: stores/s (default 1000; 0 = flat out)",
	  .fn = opt_rate, .group = "workload:"),
	ROW("pages", 0, K_FN, 0, "N", "the working set: pages [0, N) (default all)", .fn = opt_pages, .num = 1,
	  .then_wl = 1),
	ROW("msync-async-ms", 0, K_MS, F(msync_async_ms), "N", "periodic msync(MS_ASYNC) (default 0: never)",
	  .group = "sync:"),
	ROW("msync-sync-ms", 0, K_MS, F(msync_sync_ms), "N", "periodic msync(MS_SYNC) (0: never)"),
	ROW("fsync-ms", 0, K_MS, F(fsync_ms), "N", "periodic fsync (0: never)"),
	ROW("no-munmap", 0, K_FLAG, F(no_munmap), NULL, "skip the policy's munmap semantics: pending updates stay owed"),
	ROW("writeback-ms", 0, K_MS, F(writeback_ms), "N", "the flusher's period (vm.dirty_writeback_centisecs x 10; 0: off)",
	  .group = "writeback model (defaults from /proc/sys/vm):"),
	ROW("expire-ms", 0, K_MS, F(expire_ms), "N", "a dirty inode's age a run flushes (vm.dirty_expire_centisecs x 10)"),
	ROW("dirty-background-bytes", 0, K_FN, 0, "N", "vm.dirty_background_bytes", .fn = opt_bg_bytes, .num = 2),
	ROW("journal-commit-ms", 0, K_MS, F(journal_commit_ms), "N",
	  "jbd2 commit of ext4 (5000; 0: lazytime)"),
	ROW("wb-bg-share", 0, K_FN, 0, "none|zero|fprop", "the wb's share of the background threshold: none = never over (default, the host), zero = every flusher run writes the dirty inode, fprop = 6.1 on one CPU", .fn = opt_bg_share),
	ROW("jiffies", 0, K_FN, 0, "host|mono", "the kernel's jiffies, on which the timer wheel places the flusher's wake-ups: host (default) = this kernel's own count and tick phase, read from /proc/timer_list at the start; mono = CLOCK_MONOTONIC / tick (up to one wheel granularity off per arming: 32 ms for a 1 s interval at HZ 250)", .fn = opt_jiffies),
	ROW("create-meta-pages", 0, K_META, F(create_meta_pages), "N", "block-device pages the file's creation journals, written at the first checkpoint writeback; ext4, a new file: 5, traced in the 6.1 guest; default 0: not modelled"),
	ROW("alloc-meta-pages", 0, K_META, F(alloc_meta_pages), "N", "block-device pages the first writeback of a page with no block yet adds to the next commit; ext4 delalloc: 2, traced in the 6.1 guest; default 0: not modelled"),
	ROW("wb-run-commit-us", 0, K_NUM, F(wb_run_commit_us), "N", "how long a flusher run that writes the file takes: the commit it waits for (0008); 4200 traced in the patched 6.1 guest; default 0: runs take no time"),
	ROW("wb-run-alloc-us", 0, K_NUM, F(wb_run_alloc_us), "N", "... the allocation of never-written pages (17400 traced)"),
	ROW("wb-run-pass-us", 0, K_NUM, F(wb_run_pass_us), "N", "... from those pages to the background loop's next pass (6000 traced); stores in between are written in the same run"),
	ROW("wb-run-io-us", 0, K_NUM, F(wb_run_io_us), "N", "how long after a run that takes no time its pages complete: the block I/O; 1500 traced in the stock 6.1 guest; default 0"),
	ROW("wb-run-submit-us", 0, K_NUM, F(wb_run_submit_us), "N", "stock ext4: pages a run writes for the first time stay writable N us into the run, until their blocks are allocated and they are submitted; 9000-48000 traced in the stock 6.1 guest, 12000 median; default 0: at the run's start"),
	ROW("atime-read-ms", 0, K_MS, F(atime_read_ms), "N", "NFS clients read the file N ms after every update, and knfsd journals atime in a handle of its own: the next transaction's start after a commit; 40-100 ms traced in the stock 6.1 guest; default 0: no reader"),
	ROW("model-profile", 0, K_FN, 0, "FILE", "the model's options for a kernel and machine class, server/model/profiles/*.profile; named in the log", .fn = opt_none),
	ROW("populate", 0, K_FLAG, F(populate), NULL, "map pages by MADV_POPULATE_READ first",
	  .group = "native:"),
	ROW("native-poll-ms", 0, K_MS, F(native_poll_ms), "N", "fstat between stores (default 10)"),
	ROW("native-poll-only", 0, K_FLAG, F(native_poll_only), NULL,
	  "no fstat just before and after each store"),
	ROW("uffd-spin-us", 0, K_FN, 0, "N", "handler busy-poll (default 200)", .fn = opt_uffd_spin, .num = 1,
	  .group = "uffd:"),
};
#undef ROW
#undef F
#define NROWS (sizeof(rows) / sizeof(rows[0]))

/* getopt's value for row i */
static int row_key(size_t i)
{
	return rows[i].key ? rows[i].key : 256 + (int)i;
}

/* one option's help: "  --name ARG", then text from column 30 on,
 * wrapped at 80 (a word longer than that stands alone) */
static void usage_text(FILE *f, const char *name, const char *arg, const char *text)
{
	const char *w = text;
	int col = fprintf(f, "  --%s%s%s", name, arg ? " " : "", arg ? arg : "");

	col += fprintf(f, "%*s", col < 29 ? 30 - col : 1, "");
	for (int first = 1; *(w += strspn(w, " ")); first = 0) {
		size_t n = strcspn(w, " ");
		if (!first && col + 1 + (int)n > 80)
			col = fprintf(f, "\n%30s", "") - 1;
		else if (!first)
			col += fprintf(f, " ");
		col += fprintf(f, "%.*s", (int)n, w);
		w += n;
	}
	fputc('\n', f);
}

/* a row's help; "%s" in its text stands for names() */
static void usage_row(FILE *f, const struct opt_row *r)
{
	char text[1024];
	const char *pct = strstr(r->help, "%s");

	if (pct)
		snprintf(text, sizeof(text), "%.*s%s%s", (int)(pct - r->help), r->help,
			 r->names(), pct + 2);
	else
		snprintf(text, sizeof(text), "%s", r->help);
	usage_text(f, r->name, r->arg, text);
}

/* every workload's own options, each workload under its name */
static void usage_workloads(FILE *f)
{
	char text[1024];

	for (size_t i = 0; sw_workloads[i]; i++) {
		const struct sw_wl_opt *w = sw_workloads[i]->opts;
		if (!w || !w->name)
			continue;
		fprintf(f, " workload %s:\n", sw_workloads[i]->name);
		for (; w->name; w++) {
			snprintf(text, sizeof(text), "%s (default %s)", w->help, w->dflt);
			usage_text(f, w->name, w->arg, text);
		}
	}
}

void sw_opts_usage(FILE *f)
{
	fputs("usage: stalewin-writer [run] --file PATH --policy POLICY --workload WL\n"
	      "                             --log PATH [options]\n"
	      "       stalewin-writer serve ...  (the control API: serve --help)\n", f);
	for (size_t i = 0; i < NROWS; i++) {
		if (rows[i].group)
			fprintf(f, " %s\n", rows[i].group);
		usage_row(f, &rows[i]);
		if (rows[i].then_wl)
			usage_workloads(f);
	}
}

/* The rows' own readers: 0, 1 (--help, printed), or -EINVAL. */
static int opt_policy(const struct opt_row *r, struct sw_opts *o, struct cli *c,
		      char *err, size_t errlen)
{
	(void)r, (void)o, (void)err, (void)errlen;
	c->policy = optarg;
	return 0;
}

static int opt_workload(const struct opt_row *r, struct sw_opts *o, struct cli *c,
			char *err, size_t errlen)
{
	(void)r, (void)o, (void)err, (void)errlen;
	c->workload = optarg;
	return 0;
}

static int opt_help(const struct opt_row *r, struct sw_opts *o, struct cli *c,
		    char *err, size_t errlen)
{
	(void)r, (void)o, (void)c, (void)err, (void)errlen;
	sw_opts_usage(stdout);
	return 1;
}

/* --model-profile: read before the other options (sw_opts_parse) */
static int opt_none(const struct opt_row *r, struct sw_opts *o, struct cli *c,
		    char *err, size_t errlen)
{
	(void)r, (void)o, (void)c, (void)err, (void)errlen;
	return 0;
}

static int opt_duration(const struct opt_row *r, struct sw_opts *o, struct cli *c,
			char *err, size_t errlen)
{
	(void)r, (void)c;
	if (parse_dbl(optarg, &o->duration_s) || o->duration_s <= 0 || o->duration_s > 1e7)
		BAD("expected --duration in seconds > 0, saw '%s'", optarg);
	return 0;
}

static int opt_run_id(const struct opt_row *r, struct sw_opts *o, struct cli *c,
		      char *err, size_t errlen)
{
	(void)r, (void)c;
	if (sw_parse_u64(optarg, 16, 0, 0, UINT64_MAX, &o->run_id))
		BAD("expected --run-id as up to 16 hex digits, saw '%s'", optarg);
	o->run_id_given = 1;
	return 0;
}

static int opt_trap(const struct opt_row *r, struct sw_opts *o, struct cli *c,
		    char *err, size_t errlen)
{
	(void)r, (void)c;
	if (!sw_trap_find(optarg))
		BAD("expected --trap %s, saw '%s'", sw_trap_names(), optarg);
	o->trap = optarg;
	return 0;
}

static int opt_rate(const struct opt_row *r, struct sw_opts *o, struct cli *c,
		    char *err, size_t errlen)
{
	(void)r, (void)c;
	if (parse_dbl(optarg, &o->wl.rate) || o->wl.rate < 0)
		BAD("expected --rate in stores/s >= 0, saw '%s'", optarg);
	return 0;
}

static int opt_pages(const struct opt_row *r, struct sw_opts *o, struct cli *c,
		     char *err, size_t errlen)
{
	(void)r;
	if (!c->u)
		BAD("expected --pages > 0, saw 0");
	o->wl.pages = c->u;
	return 0;
}

static int opt_bg_bytes(const struct opt_row *r, struct sw_opts *o, struct cli *c,
			char *err, size_t errlen)
{
	(void)r;
	if (c->u > INT64_MAX)
		BAD("expected --dirty-background-bytes below 2^63, saw '%s'", optarg);
	o->background_bytes = (int64_t)c->u;
	return 0;
}

static int opt_bg_share(const struct opt_row *r, struct sw_opts *o, struct cli *c,
			char *err, size_t errlen)
{
	(void)r, (void)c;
	if ((o->bg_share = sw_bg_share_parse(optarg)) < 0)
		BAD("expected --wb-bg-share none|zero|fprop, saw '%s'", optarg);
	return 0;
}

static int opt_jiffies(const struct opt_row *r, struct sw_opts *o, struct cli *c,
		       char *err, size_t errlen)
{
	(void)r, (void)c;
	if (strcmp(optarg, "host") && strcmp(optarg, "mono"))
		BAD("expected --jiffies host or mono, saw '%s'", optarg);
	o->jiffies_mono = !strcmp(optarg, "mono");
	return 0;
}

static int opt_uffd_spin(const struct opt_row *r, struct sw_opts *o, struct cli *c,
			 char *err, size_t errlen)
{
	(void)r;
	if (c->u > 1000000)
		BAD("expected --uffd-spin-us at most 1000000, saw %" PRIu64, c->u);
	o->uffd_spin_us = (int64_t)c->u;
	return 0;
}

/* One row's value into o (or c): 0, 1 for --help, or -EINVAL. */
static int opt_read(const struct opt_row *r, struct sw_opts *o, struct cli *c,
		    char *err, size_t errlen)
{
	void *v = (char *)o + r->off;
	int rc;

	switch (r->kind) {
	case K_STR: *(const char **)v = optarg; return 0;
	case K_FLAG: *(int *)v = 1; return 0;
	case K_MS: return sw_wl_read_ms(r->name, optarg, v, err, errlen);
	case K_NUM: return sw_wl_read_u64(r->name, optarg, v, 0, err, errlen);
	case K_SIZE: return sw_wl_read_u64(r->name, optarg, v, 1, err, errlen);
	case K_META: return meta_pages_opt(r->name, v, err, errlen);
	case K_FN: break;
	}
	if (r->num && (rc = sw_wl_read_u64(r->name, optarg, &c->u, r->num == 2, err, errlen)))
		return rc;
	return r->fn(r, o, c, err, errlen);
}

/* getopt's values for the workloads' own options: WL_KEY + their place,
 * counted through the list (wl_opt_nth) */
#define WL_KEY 1024

/* The workloads' own option number k; *wl its workload's place. */
static const struct sw_wl_opt *wl_opt_nth(size_t k, size_t *wl)
{
	for (size_t i = 0; sw_workloads[i]; i++)
		for (const struct sw_wl_opt *w = sw_workloads[i]->opts; w && w->name; w++)
			if (k-- == 0) {
				*wl = i;
				return w;
			}
	return NULL;
}

/* One pass of getopt over argv (the profile's options, then the command
 * line's): 0, 1 for --help, or -EINVAL (-ENOMEM). */
static int opts_loop(struct sw_opts *o, int argc, char **argv, struct cli *cl,
		     char *err, size_t errlen)
{
	const struct sw_wl_opt *w;
	struct option *lo;
	size_t i, k, nwl = 0, wl;
	int c, rc = 0;

	while (wl_opt_nth(nwl, &wl))
		nwl++;
	if (!(lo = calloc(NROWS + nwl + 1, sizeof(*lo))))
		BAD("expected memory for the option table, saw none");
	for (i = 0; i < NROWS; i++)
		lo[i] = (struct option){ rows[i].name, rows[i].arg ? required_argument : no_argument,
					 NULL, row_key(i) };
	for (k = 0; k < nwl; k++)
		lo[NROWS + k] = (struct option){ wl_opt_nth(k, &wl)->name, required_argument, NULL,
						 WL_KEY + (int)k };
	optind = 1;
	opterr = 0;
	while (!rc && (c = getopt_long(argc, argv, ":f:p:w:l:h", lo, NULL)) != -1) {
		if (c == ':') {
			snprintf(err, errlen, "expected a value after %s", argv[optind - 1]);
			rc = -EINVAL;
		} else if (c >= WL_KEY && (w = wl_opt_nth((size_t)(c - WL_KEY), &wl))) {
			rc = sw_wl_opt_set(w, &o->wl_own[wl], optarg, err, errlen);
		} else {
			for (i = 0; i < NROWS && row_key(i) != c; i++)
				;
			if (i == NROWS) {
				snprintf(err, errlen, "expected a known option (see --help), saw '%s'",
					 argv[optind - 1]);
				rc = -EINVAL;
			} else {
				rc = opt_read(&rows[i], o, cl, err, errlen);
			}
		}
	}
	free(lo);
	if (rc)
		return rc;
	if (optind < argc)
		BAD("expected only options (see --help), saw the argument '%s'", argv[optind]);
	return 0;
}

/* a central row named name, or NULL */
static const struct opt_row *row_find(const char *name)
{
	for (size_t i = 0; i < NROWS; i++)
		if (!strcmp(rows[i].name, name))
			return &rows[i];
	return NULL;
}

/* the keys of meta.json's workload object the writer fills itself */
static const char *const wl_meta_central[] = { "name", "pages", "rate_per_s", NULL };

int sw_opts_check_tables(const struct sw_workload_ops *const *wls, char *err, size_t errlen)
{
	union sw_wl_own own;
	size_t n, j, k;

	for (n = 0; wls[n]; n++)
		;
	if (n > SW_WL_MAX)
		BAD("expected at most %d workloads (SW_WL_MAX), saw %zu", SW_WL_MAX, n);
	for (size_t i = 0; i < n; i++) {
		const struct sw_wl_opt *w = wls[i]->opts;
		const char *wn = wls[i]->name;
		if (w && w->name && wls[i]->own_size > SW_WL_OWN_BYTES)
			BAD("expected workload %s's own options in %d bytes, saw %zu", wn,
			    SW_WL_OWN_BYTES, wls[i]->own_size);
		for (; w && w->name; w++) {
			size_t sz = w->kind == SW_WL_OPT_DOUBLE ? sizeof(double) : sizeof(uint64_t);
			if (!w->help || !*w->help)
				BAD("expected workload %s's --%s to have a help text, saw none", wn, w->name);
			if (!w->arg || !*w->arg)
				BAD("expected workload %s's --%s to name its value (arg), saw none", wn, w->name);
			if (!w->meta || !*w->meta)
				BAD("expected workload %s's --%s to name its meta.json field, saw none", wn, w->name);
			if (!w->dflt || !*w->dflt)
				BAD("expected workload %s's --%s to have a default, saw none", wn, w->name);
			if (w->off + sz > wls[i]->own_size)
				BAD("expected workload %s's --%s inside its own struct (%zu bytes), saw offset %zu",
				    wn, w->name, wls[i]->own_size, w->off);
			if (row_find(w->name))
				BAD("expected --%s declared once, saw it in the central table and workload %s's",
				    w->name, wn);
			for (k = 0; wl_meta_central[k]; k++)
				if (!strcmp(w->meta, wl_meta_central[k]))
					BAD("expected meta.json's workload.%s written once, saw it from the writer and workload %s's --%s",
					    w->meta, wn, w->name);
			/* every later option of this table and the others' */
			for (j = i; j < n; j++)
				for (const struct sw_wl_opt *v = j == i ? w + 1 : wls[j]->opts;
				     v && v->name; v++) {
					if (!strcmp(v->name, w->name))
						BAD("expected --%s declared once, saw it in workload %s's table and %s's",
						    w->name, wn, wls[j]->name);
					if (!strcmp(v->meta ? v->meta : "", w->meta))
						BAD("expected meta.json's workload.%s written once, saw it from workload %s's --%s and %s's --%s",
						    w->meta, wn, w->name, wls[j]->name, v->name);
				}
		}
		if (sw_wl_own_defaults(wls[i], &own, err, errlen))
			return -EINVAL;
	}
	return 0;
}

/* What every run needs, once all options are read. */
static int opts_check(struct sw_opts *o, const char *policy, const char *workload,
		      char *err, size_t errlen)
{
	if (!o->file)
		BAD("expected --file PATH");
	if (!o->log)
		BAD("expected --log PATH");
	if (!policy)
		BAD("expected --policy %s", sw_policy_names());
	if (!(o->policy = sw_policy_find(policy)))
		BAD("expected --policy %s, saw '%s'", sw_policy_names(), policy);
	if (!workload)
		BAD("expected --workload %s", sw_workload_names());
	if (!(o->workload = sw_workload_find(workload)))
		BAD("expected --workload %s, saw '%s'", sw_workload_names(), workload);
	for (size_t i = 0; sw_workloads[i]; i++)
		if (sw_workloads[i] == o->workload)
			o->wl.own = o->wl_own[i];
	if (o->size == 0)
		BAD("expected --size > 0 bytes, saw 0");
	if (o->trap && !o->policy->emulated)
		BAD("expected no --trap with --policy native (no emulation), saw --trap %s", o->trap);
	return 0;
}

int sw_opts_parse(struct sw_opts *o, int argc, char **argv, char *err,
		  size_t errlen)
{
	static struct sw_model_profile profile;
	struct cli cl = { NULL, NULL, 0 };
	int rc;

	memset(o, 0, sizeof(*o));
	o->size = 1u << 20;
	o->duration_s = 10;
	o->writeback_ms = o->expire_ms = o->background_bytes = -1;
	o->journal_commit_ms = 5000;
	o->native_poll_ms = 10;
	o->uffd_spin_us = 200;
	o->wl.rate = 1000;
	o->argc = argc;
	o->argv = argv;
	/* the workloads' tables are checked before they make options, and
	 * every workload's own options start at its table's defaults */
	if ((rc = sw_opts_check_tables(sw_workloads, err, errlen)))
		return rc;
	for (size_t i = 0; sw_workloads[i]; i++)
		if ((rc = sw_wl_own_defaults(sw_workloads[i], &o->wl_own[i], err, errlen)))
			return rc;

	int nargc;
	char **nargv;
	if (sw_model_profile_expand(argc, argv, &profile, &nargc, &nargv, err, errlen))
		return -EINVAL;
	o->profile = profile.name[0] ? &profile : NULL;
	if ((rc = opts_loop(o, nargc, nargv, &cl, err, errlen)))
		return rc;
	if ((rc = opts_check(o, cl.policy, cl.workload, err, errlen)))
		return rc;
	if (o->wb_run_commit_us > 10000000 || o->wb_run_alloc_us > 10000000 ||
	    o->wb_run_pass_us > 10000000 || o->wb_run_io_us > 10000000 ||
	    o->wb_run_submit_us > 10000000)
		BAD("expected --wb-run-commit-us, --wb-run-alloc-us, --wb-run-pass-us, --wb-run-io-us and --wb-run-submit-us at most 10000000 (10 s), saw %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 " and %" PRIu64,
		    o->wb_run_commit_us, o->wb_run_alloc_us, o->wb_run_pass_us, o->wb_run_io_us,
		    o->wb_run_submit_us);
	return 0;
}
