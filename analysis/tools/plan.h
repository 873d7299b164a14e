/* SPDX-License-Identifier: MIT */
/*
 * plan.h - a study plan (an .ini file, scripts/plans/; fio's job files as the model): a
 * [global] section of defaults and one section per cell group, each axis a
 * space-separated list.  A cell is one (kernel, policy, filesystem,
 * workload) of a group; each of its repeats is one `stalewin vm run`
 * whose kernel mounts cover every NFS version x mount profile of the
 * group, read by every reader mode.  A cell the harness cannot run yet is
 * kept with its reason, never dropped.
 *
 * Keys (units in the name where they have one):
 *   kernel     stock:6.1 stock:6.12 stock:7.2 patched:6.1 patched:7.2
 *   policy     eager deferred lang lang-mem (the patched kernel's own; on
 *              a stock kernel eager is its native behaviour)
 *   query_rate GETATTRs a second of the probe per target, 1..1000 or wire
 *              (vm run --query-rate; cells named -qN; default: vm run's)
 *   fault      none | a vm run --fault spec per value (KIND@S[:D]: knfsd-
 *              restart partition io-error memory-pressure server-crash
 *              with D s; server-guest-kill client-reboot enospc once;
 *              io-error, server-crash and those one experiment a boot;
 *              clock-step|client-clock-step@S:+D|-D); cells named
 *              -f<spec> (':' as '_'); default none
 *   ordering   off on: vm.mmap_cmtime_ordering of the patched kernel
 *              (0008: the deferred update journalled before the data);
 *              each non-eager policy once per value, eager once (off)
 *   fs         ext4 ext4-lazytime xfs btrfs tmpfs
 *   vers       3 4.2
 *   mount      default actimeo=N noac (profiles of every version's mount)
 *   reader     kept-open cto
 *   workload   rewrite random
 *   writeback  kernel | WB_S/EXPIRE_S (e.g. 1/5: scaled, every row says so)
 *   repeats    runs of each cell (>= 1; default 10)
 *   lead_s     settled | S (default settled: 2 expire + 10 writeback +
 *              the 5 s commit after the file's creation)
 *   duration_s, reader_every_ms
 *   rate       the writer's stores a second (--rate; 0, the default: the
 *              workload's own pace)
 *   size_mib   the writer's file, MiB (0, the default: vm run's 1 MiB)
 *   writer_stat on | off: off, the native writer never stats its file
 *              (on a multigrain kernel each stat is a query of ctime;
 *              default on)
 *   populate   on | off: on, the writer fills its file before the run
 *              (--populate: every page in the cache, so a store faults
 *              only on a page writeback cleaned; default off)
 */
#ifndef STALEWIN_PLAN_H
#define STALEWIN_PLAN_H

#include <stdio.h>

#define SW_PLAN_AX 8        /* values of one axis */
#define SW_PLAN_GROUPS 32
#define SW_PLAN_VAL 48

struct sw_plan_axis {
	int n;
	char v[SW_PLAN_AX][SW_PLAN_VAL];
};

struct sw_plan_group {
	char name[64];
	int line;                   /* its [section] line */
	struct sw_plan_axis kernel, policy, fs, vers, mount, reader, workload, ordering;
	struct sw_plan_axis query_rate; /* none given: vm run's default (100/s) */
	struct sw_plan_axis fault;  /* none given: no fault ("none" a value too) */
	int wb_ms, expire_ms;       /* 0: the kernel's defaults */
	int repeats, lead_s;        /* lead_s -1: settled */
	int duration_s, reader_every_ms;
	int rate, size_mib, writer_stat, populate; /* 0: the workload's, vm run's */
};

struct sw_plan {
	char path[512];
	struct sw_plan_group global; /* the defaults */
	int ngroups;
	struct sw_plan_group g[SW_PLAN_GROUPS];
};

/* Parse path.  0, or -1 with err naming the line, what was expected and
 * what was seen (unknown key or value, a group with no kernel or policy,
 * repeats < 1, no section besides [global]). */
int sw_plan_load(const char *path, struct sw_plan *p, char *err, int errlen);

/* One cell: runnable with its `vm run` arguments, or not with a reason. */
struct sw_plan_cell {
	char id[320];               /* "group/kernel-policy-fs-workload" */
	const struct sw_plan_group *g;
	char kernel[SW_PLAN_VAL], policy[SW_PLAN_VAL], fs[SW_PLAN_VAL], workload[SW_PLAN_VAL];
	int ordering;               /* 1: vm.mmap_cmtime_ordering=1 (id "+ordering") */
	char query[SW_PLAN_VAL];    /* --query-rate ("" vm run's default; id "-qN") */
	char fault[SW_PLAN_VAL];    /* --fault ("" none; id "-f<spec>") */
	int runnable;
	char why[200];              /* not runnable: the reason */
	char args[1536];            /* vm run arguments, space separated */
	int lead_s;                 /* the lead it runs with */
	int est_s;                  /* one run's estimated wall time */
};
/* Call fn for every cell of every group, in plan order; stops at fn's
 * nonzero return and returns it. */
int sw_plan_cells(const struct sw_plan *p, int (*fn)(const struct sw_plan_cell *c, void *ctx),
		  void *ctx);

/* Cells that one `vm run` makes in one boot (its --policy x --fs x
 * --workload cross product, --repeats R interleaved): a group's runnable
 * cells of one kernel when they form a cross product, else those of one
 * filesystem; each cell alone, once, when its fault allows one
 * experiment a boot.  ids in vm run's experiment order (policy, fs, workload). */
#define SW_PLAN_BATCH (SW_PLAN_AX * SW_PLAN_AX)
struct sw_plan_batch {
	const struct sw_plan_group *g;
	int n;
	char ids[SW_PLAN_BATCH][320];
	int ordering;               /* the boot's vm.mmap_cmtime_ordering */
	char query[SW_PLAN_VAL];    /* the boot's --query-rate, "" default */
	char fault[SW_PLAN_VAL];    /* the boot's --fault, "" none */
	int once;                   /* 1: its fault allows one experiment a boot */
	char args[1536];            /* vm run arguments, without --repeats */
	int est_s;                  /* one experiment's estimated wall time */
};
/* Call fn for every batch, in plan order; stops at fn's nonzero return
 * and returns it; -1 when a batch's arguments do not fit. */
int sw_plan_batches(const struct sw_plan *p, int (*fn)(const struct sw_plan_batch *b, void *ctx),
		    void *ctx);

#endif
