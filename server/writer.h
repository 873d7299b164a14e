/* SPDX-License-Identifier: MIT */
/* writer.h - stalewin-writer's options and the run (run.c). */
#ifndef STALEWIN_WRITER_H
#define STALEWIN_WRITER_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

#include "policy.h"
#include "workload.h"

#define SW_ERRLEN 512

struct sw_opts {
	const char *file;                     /* --file */
	const char *log;                      /* --log */
	const char *status_file;              /* --status-file, NULL: none */
	int force;                            /* --force: overwrite the log */
	const struct sw_policy_ops *policy;   /* --policy */
	const struct sw_workload_ops *workload; /* --workload */
	const char *trap;                     /* --trap, NULL: chosen by size */
	uint64_t size;                        /* --size, bytes */
	double duration_s;                    /* --duration, s */
	uint64_t run_id;                      /* --run-id */
	int run_id_given;
	struct sw_wl_params wl;               /* the chosen workload's parameters:
					         --rate, --pages, its own options */
	union sw_wl_own wl_own[SW_WL_MAX];    /* every workload's own options, at
					         its place in sw_workloads[] */
	int64_t msync_async_ms;               /* 0: never */
	int64_t msync_sync_ms;
	int64_t fsync_ms;
	int no_munmap;                        /* --no-munmap */
	int64_t writeback_ms;                 /* -1: /proc/sys/vm default */
	int64_t expire_ms;                    /* -1: default */
	int64_t background_bytes;             /* -1: default */
	int64_t journal_commit_ms;            /* model: jbd2 commit, 0: none */
	int bg_share;                         /* model: --wb-bg-share, enum sw_bg_share */
	int jiffies_mono;                     /* model: --jiffies mono (default host) */
	uint32_t create_meta_pages;           /* model: --create-meta-pages */
	uint32_t alloc_meta_pages;            /* model: --alloc-meta-pages */
	uint64_t wb_run_commit_us;            /* model: --wb-run-commit-us, us */
	uint64_t wb_run_alloc_us;             /* model: --wb-run-alloc-us, us */
	uint64_t wb_run_pass_us;              /* model: --wb-run-pass-us, us */
	uint64_t wb_run_io_us;                /* model: --wb-run-io-us, us */
	uint64_t wb_run_submit_us;            /* model: --wb-run-submit-us, us */
	int64_t atime_read_ms;                /* model: --atime-read-ms; 0: none */
	int64_t lead_ms;                      /* --lead-ms: set-up and first store no
					         sooner than this after the file's
					         ctime, ms; 0: at once */
	int populate;                         /* native: --populate */
	int64_t native_poll_ms;               /* native: fstat poll period */
	int native_poll_only;                 /* native: no fstat after stores */
	int64_t uffd_spin_us;                 /* uffd thread busy-poll, us */
	const struct sw_model_profile *profile; /* --model-profile, NULL: none */
	int argc;                             /* the command line, for meta */
	char **argv;
};

/* Parses argv (argv[0] = program or "run"); --model-profile FILE's
 * options come first, so the command line overrides them.  Returns 0, 1 for --help
 * (printed), or -EINVAL with a one-line reason in err. */
int sw_opts_parse(struct sw_opts *o, int argc, char **argv, char *err,
		  size_t errlen);
void sw_opts_usage(FILE *f);
/* Whether the workloads wls ({NULL}-ended) and their own option tables
 * fit the central table (cli.c): each option declared once, each with
 * help, a value's name, a default that reads, and a meta.json field of
 * its own; at most SW_WL_MAX workloads, each own struct in
 * SW_WL_OWN_BYTES.  0, or -EINVAL with what was expected in err. */
int sw_opts_check_tables(const struct sw_workload_ops *const *wls, char *err, size_t errlen);

/* Runs the writer.  Returns the process exit code (0, 1 runtime failure,
 * 2 bad input); the one-line reason is in err. */
int sw_writer_run(const struct sw_opts *o, char *err, size_t errlen);

/* Filesystem facts about the file (meta.c). */
struct sw_fsinfo {
	long f_type;             /* statfs magic */
	const char *fs_name;     /* name of the magic ("tmpfs", "ext4", ...) */
	char mount_point[512];   /* from /proc/self/mountinfo, "" unknown */
	char mount_fstype[64];
	char mount_source[256];
	char mount_options[512]; /* per-mount options */
	char super_options[512]; /* superblock options */
	uint64_t bavail_bytes;   /* free space for unprivileged users */
};

const char *sw_fs_magic_name(long f_type);
int sw_fsinfo_get(int fd, const char *path, struct sw_fsinfo *fi);
/* /proc/sys/vm/NAME as a number, or dflt. */
long long sw_read_vm_sysctl(const char *name, long long dflt);
/* Field NAME (kB) of /proc/meminfo, -1 if missing. */
long long sw_meminfo_kib(const char *name);
/* Field NAME (kB) of /proc/self/status, -1 if missing. */
long long sw_self_status_kib(const char *name);

/* Values the run resolved (defaults read, mechanism chosen). */
struct sw_resolved {
	char path[4096];             /* realpath of --file */
	uint64_t size;               /* mapping bytes (page multiple) */
	uint32_t page_size;          /* bytes */
	uint64_t npages;
	uint64_t run_id;
	const char *trap;            /* "uffd-sigbus", "mprotect", "uffd",
	                              * "none" (native) */
	const char *trap_reason;     /* why this mechanism */
	int64_t writeback_ms;        /* model: kupdate period */
	int64_t expire_ms;           /* model: dirtied_when age */
	int64_t background_bytes;    /* model: background limit, 0 = none */
	const char *background_basis;/* where background_bytes came from */
	int jiffies_host;            /* model: jiffy_origin_* read from this
					kernel (--jiffies host) */
	int64_t jiffy_ns, jiffy_origin_ns, jiffy_origin_count;
	char jiffies_why[320];       /* why not, when --jiffies host failed */
	struct sw_fsinfo fs;
};

/* The log header's JSON meta (caller frees). NULL on allocation failure. */
char *sw_meta_json(const struct sw_opts *o, const struct sw_resolved *r);

/* stalewin-writer clock-step ±SEC (clockstep.c): step CLOCK_REALTIME by
 * SEC s, print what was done as stalewin-runfolder fault options.  The
 * parser: "+S" / "-S" seconds to ns, 0; else 2 and err. */
int sw_clock_step_parse(const char *s, int64_t *ns, char *err, size_t errlen);
int sw_clock_step_main(int argc, char **argv);

/* stalewin-writer fill DIR (fill.c): fill DIR's filesystem for --fault
 * enospc, print what was done as stalewin-runfolder fault options. */
int sw_fill_main(int argc, char **argv);
/* `stalewin-writer crash|crash-after` (crash.c): --fault server-crash */
int sw_crash_main(int argc, char **argv);

#endif
