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

enum {
	O_SIZE = 256, O_DURATION, O_RUNID, O_STATUS, O_TRAP, O_INTERVAL,
	O_PAGE, O_RATE, O_PAGES, O_HOTPAGES, O_HOTSHARE, O_SEED, O_BSTORES,
	O_SILENCE, O_MSA, O_MSS, O_FSYNC, O_NOMUNMAP, O_WB, O_EXP, O_BG, O_JC, O_BGRUN, O_CMETA, O_AMETA, O_RUNC, O_RUNA, O_RUNP, O_RUNIO, O_RUNSUB, O_ATIME, O_LEAD,
	O_FORCE, O_POPULATE, O_NPOLL, O_SPIN, O_NPONLY,
};

static const struct option longopts[] = {
	{ "file", required_argument, NULL, 'f' },
	{ "policy", required_argument, NULL, 'p' },
	{ "workload", required_argument, NULL, 'w' },
	{ "log", required_argument, NULL, 'l' },
	{ "help", no_argument, NULL, 'h' },
	{ "size", required_argument, NULL, O_SIZE },
	{ "duration", required_argument, NULL, O_DURATION },
	{ "run-id", required_argument, NULL, O_RUNID },
	{ "status-file", required_argument, NULL, O_STATUS },
	{ "trap", required_argument, NULL, O_TRAP },
	{ "interval-ms", required_argument, NULL, O_INTERVAL },
	{ "page", required_argument, NULL, O_PAGE },
	{ "rate", required_argument, NULL, O_RATE },
	{ "pages", required_argument, NULL, O_PAGES },
	{ "hot-pages", required_argument, NULL, O_HOTPAGES },
	{ "hot-share", required_argument, NULL, O_HOTSHARE },
	{ "seed", required_argument, NULL, O_SEED },
	{ "burst-stores", required_argument, NULL, O_BSTORES },
	{ "silence-ms", required_argument, NULL, O_SILENCE },
	{ "msync-async-ms", required_argument, NULL, O_MSA },
	{ "msync-sync-ms", required_argument, NULL, O_MSS },
	{ "fsync-ms", required_argument, NULL, O_FSYNC },
	{ "no-munmap", no_argument, NULL, O_NOMUNMAP },
	{ "writeback-ms", required_argument, NULL, O_WB },
	{ "expire-ms", required_argument, NULL, O_EXP },
	{ "dirty-background-bytes", required_argument, NULL, O_BG },
	{ "journal-commit-ms", required_argument, NULL, O_JC },
	{ "wb-bg-share", required_argument, NULL, O_BGRUN },
	{ "create-meta-pages", required_argument, NULL, O_CMETA },
	{ "alloc-meta-pages", required_argument, NULL, O_AMETA },
	{ "wb-run-commit-us", required_argument, NULL, O_RUNC },
	{ "wb-run-alloc-us", required_argument, NULL, O_RUNA },
	{ "wb-run-pass-us", required_argument, NULL, O_RUNP },
	{ "wb-run-io-us", required_argument, NULL, O_RUNIO },
	{ "wb-run-submit-us", required_argument, NULL, O_RUNSUB },
	{ "atime-read-ms", required_argument, NULL, O_ATIME },
	{ "lead-ms", required_argument, NULL, O_LEAD },
	{ "force", no_argument, NULL, O_FORCE },
	{ "populate", no_argument, NULL, O_POPULATE },
	{ "native-poll-ms", required_argument, NULL, O_NPOLL },
	{ "uffd-spin-us", required_argument, NULL, O_SPIN },
	{ "native-poll-only", no_argument, NULL, O_NPONLY },
	{ NULL, 0, NULL, 0 },
};

void sw_opts_usage(FILE *f)
{
	fprintf(f,
"usage: stalewin-writer [run] --file PATH --policy POLICY --workload WL --log PATH [options]\n"
"       stalewin-writer serve ...   (control API, see stalewin-writer serve --help)\n"
"  --policy   %s (native: the kernel's own, any fs;\n"
"             the others emulated, on tmpfs)\n"
"  --workload %s\n"
"  --size BYTES (K/M/G suffix, default 1M)   --duration SEC (default 10)\n"
"  --run-id HEX   --status-file PATH   --force (overwrite an existing log)\n"
"  --lead-ms N  set up and store no sooner than N ms after the file's ctime\n"
"             (waits; the time from a file's creation to its first store\n"
"             decides the kernel's writeback regime: server/README.md)\n"
"  --trap %s (default: uffd-sigbus if the kernel offers it,\n"
"             else mprotect if the mapping fits vm.max_map_count, else uffd)\n"
"  workload: --interval-ms N (100) --page N (0) --rate N (1000; 0 = flat out)\n"
"            --pages N --hot-pages N --hot-share F --seed N\n"
"            --burst-stores N (100) --silence-ms N (1000)\n"
"  sync: --msync-async-ms N --msync-sync-ms N --fsync-ms N --no-munmap\n"
"  writeback model: --writeback-ms N --expire-ms N --dirty-background-bytes N\n"
"            --journal-commit-ms N (jbd2 commit of ext4, 5000; 0: lazytime)\n"
"            --wb-bg-share none|zero|fprop (the wb's share of the background\n"
"              threshold: none = never over (default, the host), zero = every\n"
"              flusher run writes the dirty inode, fprop = 6.1 on one CPU)\n"
"            --create-meta-pages N (block-device pages the file's creation\n"
"              journals, written at the first checkpoint writeback; ext4, a\n"
"              new file: 5, traced in the 6.1 guest; default 0: not modelled)\n"
"            --alloc-meta-pages N (block-device pages the first writeback of a\n"
"              page with no block yet adds to the next commit; ext4 delalloc:\n"
"              2, traced in the 6.1 guest; default 0: not modelled)\n"
"            --wb-run-commit-us N --wb-run-alloc-us N --wb-run-pass-us N (how\n"
"              long a flusher run that writes the file takes: the commit it\n"
"              waits for (0008), the allocation of never-written pages, and\n"
"              from those pages to the background loop's next pass; stores\n"
"              in between are written in the same run; 4200/17400/6000\n"
"              traced in the patched 6.1 guest; default 0: runs take no time)\n"
"            --wb-run-io-us N (how long after a run that takes no time its\n"
"              pages complete: the block I/O; 1500 traced in the stock 6.1\n"
"              guest; default 0)\n"
"            --wb-run-submit-us N (stock ext4: pages a run writes for the\n"
"              first time stay writable N us into the run, until their\n"
"              blocks are allocated and they are submitted; 9000-48000\n"
"              traced in the stock 6.1 guest, 12000 median; default 0: at\n"
"              the run's start)\n"
"            --atime-read-ms N (NFS clients read the file N ms after every\n"
"              update, and knfsd journals atime in a handle of its own:\n"
"              the next transaction's start after a commit; 40-100 ms\n"
"              traced in the stock 6.1 guest; default 0: no reader)\n"
"            (defaults from /proc/sys/vm)\n"
"            --model-profile FILE (the model's options for a kernel and machine\n"
"              class, server/model/profiles/*.profile; named in the log)\n"
"  native: --populate (map pages by MADV_POPULATE_READ first)\n"
"          --native-poll-ms N (fstat between stores, default 10)\n"
"          --native-poll-only (no fstat just before and after each store)\n"
"  uffd: --uffd-spin-us N (handler busy-poll, default 200)\n",
		sw_policy_names(), sw_workload_names(), sw_trap_names());
}

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

static int num_opt(const char *name, const char *arg, uint64_t *v, int suffix,
		   char *err, size_t errlen)
{
	if (sw_parse_u64(arg, 0, suffix ? SW_PARSE_SUFFIX : 0, 0, UINT64_MAX, v))
		BAD("expected a non-negative integer%s for --%s, saw '%s'",
		    suffix ? " (K/M/G suffix ok)" : "", name, arg);
	return 0;
}

static int ms_opt(const char *name, const char *arg, int64_t *v, char *err,
		  size_t errlen)
{
	uint64_t u;
	if (sw_parse_u64(arg, 0, 0, 0, (uint64_t)INT64_MAX / SW_NS_PER_MS, &u))
		BAD("expected milliseconds (integer >= 0) for --%s, saw '%s'",
		    name, arg);
	*v = (int64_t)u;
	return 0;
}

/* --create-meta-pages / --alloc-meta-pages: 0 to 1024 block-device pages */
static int meta_pages_opt(const char *name, uint32_t *out, char *err, size_t errlen)
{
	uint64_t u;
	int rc = num_opt(name, optarg, &u, 0, err, errlen);
	if (rc)
		return rc;
	if (u > 1024) {
		snprintf(err, errlen, "expected --%s from 0 to 1024, saw '%s'", name, optarg);
		return -EINVAL;
	}
	*out = (uint32_t)u;
	return 0;
}

/* The options that are one number into a field of struct sw_opts:
 * milliseconds (int64_t) or a plain count (uint64_t) */
static const struct num_field {
	int id;
	const char *name;
	size_t off;
	int ms;
} num_fields[] = {
	{ O_MSA, "msync-async-ms", offsetof(struct sw_opts, msync_async_ms), 1 },
	{ O_MSS, "msync-sync-ms", offsetof(struct sw_opts, msync_sync_ms), 1 },
	{ O_FSYNC, "fsync-ms", offsetof(struct sw_opts, fsync_ms), 1 },
	{ O_WB, "writeback-ms", offsetof(struct sw_opts, writeback_ms), 1 },
	{ O_JC, "journal-commit-ms", offsetof(struct sw_opts, journal_commit_ms), 1 },
	{ O_EXP, "expire-ms", offsetof(struct sw_opts, expire_ms), 1 },
	{ O_NPOLL, "native-poll-ms", offsetof(struct sw_opts, native_poll_ms), 1 },
	{ O_PAGE, "page", offsetof(struct sw_opts, wl.page), 0 },
	{ O_HOTPAGES, "hot-pages", offsetof(struct sw_opts, wl.hot_pages), 0 },
	{ O_SEED, "seed", offsetof(struct sw_opts, wl.seed), 0 },
	{ O_BSTORES, "burst-stores", offsetof(struct sw_opts, wl.burst_stores), 0 },
	{ O_RUNC, "wb-run-commit-us", offsetof(struct sw_opts, wb_run_commit_us), 0 },
	{ O_RUNA, "wb-run-alloc-us", offsetof(struct sw_opts, wb_run_alloc_us), 0 },
	{ O_RUNP, "wb-run-pass-us", offsetof(struct sw_opts, wb_run_pass_us), 0 },
	{ O_RUNIO, "wb-run-io-us", offsetof(struct sw_opts, wb_run_io_us), 0 },
	{ O_RUNSUB, "wb-run-submit-us", offsetof(struct sw_opts, wb_run_submit_us), 0 },
	{ O_ATIME, "atime-read-ms", offsetof(struct sw_opts, atime_read_ms), 1 },
	{ O_LEAD, "lead-ms", offsetof(struct sw_opts, lead_ms), 1 },
};

/* 0, -EINVAL (err says why), or 1 if c is not one of num_fields */
static int num_field_opt(struct sw_opts *o, int c, char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof(num_fields) / sizeof(num_fields[0]); i++) {
		const struct num_field *f = &num_fields[i];
		void *v = (char *)o + f->off;
		if (f->id == c)
			return f->ms ? ms_opt(f->name, optarg, v, err, errlen)
				     : num_opt(f->name, optarg, v, 0, err, errlen);
	}
	return 1;
}

/* The workload's options: 0, -EINVAL (err says why), or 1 if c is not one
 * of them. */
static int workload_opt(struct sw_opts *o, int c, char *err, size_t errlen)
{
	int64_t ms;
	int rc;

	switch (c) {
	case O_INTERVAL:
		if ((rc = ms_opt("interval-ms", optarg, &ms, err, errlen)))
			return rc;
		o->wl.interval_ns = ms * SW_NS_PER_MS;
		break;
	case O_RATE:
		if (parse_dbl(optarg, &o->wl.rate) || o->wl.rate < 0)
			BAD("expected --rate in stores/s >= 0, saw '%s'", optarg);
		break;
	case O_PAGES:
		if ((rc = num_opt("pages", optarg, &o->wl.pages, 0, err, errlen)))
			return rc;
		if (!o->wl.pages)
			BAD("expected --pages > 0, saw 0");
		break;
	case O_HOTSHARE:
		if (parse_dbl(optarg, &o->wl.hot_share))
			BAD("expected --hot-share as a number in [0,1], saw '%s'", optarg);
		break;
	case O_SILENCE:
		if ((rc = ms_opt("silence-ms", optarg, &ms, err, errlen)))
			return rc;
		o->wl.silence_ns = ms * SW_NS_PER_MS;
		break;
	default:
		return 1;
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
	if (o->size == 0)
		BAD("expected --size > 0 bytes, saw 0");
	if (o->trap && !o->policy->emulated)
		BAD("expected no --trap with --policy native (no emulation), saw --trap %s", o->trap);
	return 0;
}

/* One pass of getopt over argv (the profile's options, then the command
 * line's): 0, 1 for --help, or -EINVAL. */
static int opts_loop(struct sw_opts *o, int argc, char **argv, const char **policy,
		     const char **workload, char *err, size_t errlen)
{
	uint64_t u;
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:p:w:l:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': o->file = optarg; break;
		case 'p': *policy = optarg; break;
		case 'w': *workload = optarg; break;
		case 'l': o->log = optarg; break;
		case 'h': sw_opts_usage(stdout); return 1;
		case O_SIZE:
			if ((rc = num_opt("size", optarg, &o->size, 1, err, errlen)))
				return rc;
			break;
		case O_DURATION:
			if (parse_dbl(optarg, &o->duration_s) || o->duration_s <= 0 ||
			    o->duration_s > 1e7)
				BAD("expected --duration in seconds > 0, saw '%s'", optarg);
			break;
		case O_RUNID:
			if (sw_parse_u64(optarg, 16, 0, 0, UINT64_MAX, &o->run_id))
				BAD("expected --run-id as up to 16 hex digits, saw '%s'", optarg);
			o->run_id_given = 1;
			break;
		case O_STATUS: o->status_file = optarg; break;
		case O_TRAP:
			if (!sw_trap_find(optarg))
				BAD("expected --trap %s, saw '%s'", sw_trap_names(), optarg);
			o->trap = optarg;
			break;
		case O_NOMUNMAP: o->no_munmap = 1; break;
		case O_BGRUN:
			if ((o->bg_share = sw_bg_share_parse(optarg)) < 0)
				BAD("expected --wb-bg-share none|zero|fprop, saw '%s'", optarg);
			break;
		case O_CMETA:
		case O_AMETA:
			if ((rc = meta_pages_opt(c == O_CMETA ? "create-meta-pages" : "alloc-meta-pages",
						 c == O_CMETA ? &o->create_meta_pages
							      : &o->alloc_meta_pages,
						 err, errlen)))
				return rc;
			break;
		case O_BG:
			if ((rc = num_opt("dirty-background-bytes", optarg, &u, 1, err, errlen)))
				return rc;
			if (u > INT64_MAX)
				BAD("expected --dirty-background-bytes below 2^63, saw '%s'", optarg);
			o->background_bytes = (int64_t)u;
			break;
		case O_FORCE: o->force = 1; break;
		case O_POPULATE: o->populate = 1; break;
		case O_NPONLY: o->native_poll_only = 1; break;
		case O_SPIN:
			if ((rc = num_opt("uffd-spin-us", optarg, &u, 0, err, errlen)))
				return rc;
			if (u > 1000000)
				BAD("expected --uffd-spin-us at most 1000000, saw %" PRIu64, u);
			o->uffd_spin_us = (int64_t)u;
			break;
		case ':':
			BAD("expected a value after %s", argv[optind - 1]);
		default:
			if ((rc = num_field_opt(o, c, err, errlen)) <= 0 ||
			    (rc = workload_opt(o, c, err, errlen)) <= 0) {
				if (rc)
					return rc;
				break;
			}
			BAD("expected a known option (see --help), saw '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		BAD("expected only options (see --help), saw the argument '%s'", argv[optind]);
	return 0;
}

int sw_opts_parse(struct sw_opts *o, int argc, char **argv, char *err,
		  size_t errlen)
{
	static struct sw_model_profile profile;
	const char *policy = NULL, *workload = NULL;
	int rc;

	memset(o, 0, sizeof(*o));
	o->size = 1u << 20;
	o->duration_s = 10;
	o->writeback_ms = o->expire_ms = o->background_bytes = -1;
	o->journal_commit_ms = 5000;
	o->native_poll_ms = 10;
	o->uffd_spin_us = 200;
	o->wl.interval_ns = 100 * SW_NS_PER_MS;
	o->wl.rate = 1000;
	o->wl.hot_share = 0.9;
	o->wl.seed = 1;
	o->wl.burst_stores = 100;
	o->wl.silence_ns = 1000 * SW_NS_PER_MS;
	o->argc = argc;
	o->argv = argv;

	int nargc;
	char **nargv;
	if (sw_model_profile_expand(argc, argv, &profile, &nargc, &nargv, err, errlen))
		return -EINVAL;
	o->profile = profile.name[0] ? &profile : NULL;
	if ((rc = opts_loop(o, nargc, nargv, &policy, &workload, err, errlen)))
		return rc;
	if ((rc = opts_check(o, policy, workload, err, errlen)))
		return rc;
	if (o->wb_run_commit_us > 10000000 || o->wb_run_alloc_us > 10000000 ||
	    o->wb_run_pass_us > 10000000 || o->wb_run_io_us > 10000000 ||
	    o->wb_run_submit_us > 10000000)
		BAD("expected --wb-run-commit-us, --wb-run-alloc-us, --wb-run-pass-us, --wb-run-io-us and --wb-run-submit-us at most 10000000 (10 s), saw %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 " and %" PRIu64,
		    o->wb_run_commit_us, o->wb_run_alloc_us, o->wb_run_pass_us, o->wb_run_io_us,
		    o->wb_run_submit_us);
	return 0;
}
