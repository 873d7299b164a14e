/* SPDX-License-Identifier: MIT */
/*
 * setup.c - everything before the run loop: the file (a regular
 * file, on tmpfs for the emulated policies), the size against memory and
 * free space, the writeback model's defaults from /proc/sys/vm, the trap
 * mechanism, the log and its meta, the mapping, and the self-check that
 * the kernel does not stamp the file when the emulation traps.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "swtime.h"
#include "writer_run.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#define TMPFS_MAGIC_ 0x01021994

/* one line into err, return code */
static int say(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int say(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return code;
}

static const char *kind_of(mode_t m)
{
	if (S_ISDIR(m)) return "directory";
	if (S_ISCHR(m)) return "character device";
	if (S_ISBLK(m)) return "block device";
	if (S_ISFIFO(m)) return "fifo";
	if (S_ISSOCK(m)) return "socket";
	if (S_ISLNK(m)) return "symlink";
	return "non-regular file";
}

/* Opens (or creates) the regular file.  *created = 1 if we made it. */
static int open_file(const char *path, int *fd, int *created, struct stat *st,
		     char *err, size_t errlen)
{
	*created = 0;
	if (lstat(path, st) == 0) {
		if (!S_ISREG(st->st_mode))
			return say(err, errlen, 2, "expected a regular file, saw a %s at %s",
				   kind_of(st->st_mode), path);
		*fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	} else if (errno == ENOENT) {
		*fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		*created = *fd >= 0;
	} else {
		return say(err, errlen, 2, "expected a regular file at %s, cannot stat it: %s",
			   path, strerror(errno));
	}
	if (*fd < 0)
		return say(err, errlen, 2, "expected a writable regular file at %s, open failed: %s",
			   path, strerror(errno));
	if (fstat(*fd, st) != 0 || !S_ISREG(st->st_mode))
		return say(err, errlen, 2, "expected a regular file at %s, saw a %s",
			   path, kind_of(st->st_mode));
	return 0;
}

static void resolve_writeback(const struct sw_opts *o, struct sw_resolved *r)
{
	static char basis[256];
	r->writeback_ms = o->writeback_ms >= 0
				  ? o->writeback_ms
				  : sw_read_vm_sysctl("dirty_writeback_centisecs", 500) * 10;
	r->expire_ms = o->expire_ms >= 0
			       ? o->expire_ms
			       : sw_read_vm_sysctl("dirty_expire_centisecs", 3000) * 10;
	if (o->background_bytes >= 0) {
		r->background_bytes = o->background_bytes;
		r->background_basis = "--dirty-background-bytes";
		return;
	}
	long long b = sw_read_vm_sysctl("dirty_background_bytes", 0);
	if (b > 0) {
		r->background_bytes = b;
		r->background_basis = "vm.dirty_background_bytes";
		return;
	}
	long long ratio = sw_read_vm_sysctl("dirty_background_ratio", 10);
	long long fr = sw_meminfo_kib("MemFree"), af = sw_meminfo_kib("Active(file)"),
		  inf = sw_meminfo_kib("Inactive(file)");
	long long dirtyable = (fr > 0 ? fr : 0) + (af > 0 ? af : 0) + (inf > 0 ? inf : 0);
	r->background_bytes = dirtyable * 1024 * ratio / 100;
	snprintf(basis, sizeof(basis),
		 "vm.dirty_background_ratio=%lld%% of %lld kB dirtyable (MemFree+Active(file)+Inactive(file))",
		 ratio, dirtyable);
	r->background_basis = basis;
}

/* --trap, or the default: uffd-sigbus if this kernel offers it (the
 * storing thread handles its own trap: cheapest), else mprotect if the
 * mapping fits vm.max_map_count, else the uffd handler thread. */
static int choose_trap(const struct sw_opts *o, struct sw_resolved *r,
		       char *err, size_t errlen)
{
	static char why[512];
	char sb_why[256];
	long max = 0, used = 0;
	int fits = sw_trap_mprotect_fits(r->npages, &max, &used);

	if (!o->policy->emulated) {
		r->trap = "none";
		r->trap_reason = "native policy: no emulation";
		return 0;
	}
	if (o->trap) {
		if (strcmp(o->trap, "mprotect") == 0 && !fits)
			return say(err, errlen, 2,
				   "expected a mapping that fits vm.max_map_count for --trap mprotect (%llu pages could need one VMA each; max_map_count %ld, %ld in use), use --trap uffd-sigbus or uffd",
				   (unsigned long long)r->npages, max, used);
		r->trap = o->trap;
		r->trap_reason = "--trap";
		return 0;
	}
	if (sw_trap_uffd_sigbus_probe(sb_why, sizeof(sb_why)) == 0) {
		r->trap = "uffd-sigbus";
		snprintf(why, sizeof(why), "auto: %s", sb_why);
	} else {
		r->trap = fits ? "mprotect" : "uffd";
		snprintf(why, sizeof(why),
			 "auto: no uffd-sigbus (%s); %llu pages %s vm.max_map_count %ld (%ld maps in use)",
			 sb_why, (unsigned long long)r->npages,
			 fits ? "fit" : "exceed", max, used);
	}
	r->trap_reason = why;
	return 0;
}

/* Store through the trap with the policy off: it must trap, and the file's
 * times must not move (statx, ns).  Page 0's first word is written back
 * unchanged.  Returns 0 or 1 (refuse to run) with the reason in err. */
static int self_check(struct sw_run *R, char *err, size_t errlen)
{
	struct statx a, b;
	uint64_t word = 0;
	struct timespec ten_ms = { 0, 10 * SW_NS_PER_MS };
	const unsigned mask = STATX_MTIME | STATX_CTIME;

	if (pread(R->fd, &word, sizeof(word), 0) < 0)
		return say(err, errlen, 1, "self-check: pread of %s: %s", R->r.path,
			   strerror(errno));
	if (statx(R->fd, "", AT_EMPTY_PATH, mask, &a) != 0)
		return say(err, errlen, 1, "self-check: statx of %s: %s", R->r.path,
			   strerror(errno));
	nanosleep(&ten_ms, NULL); /* any kernel stamp now differs, even coarse */
	uint64_t seq0 = atomic_load(&R->mp.slot.seq);
	*(volatile uint64_t *)(void *)R->mp.base = word;
	uint64_t seq1 = atomic_load(&R->mp.slot.seq);
	nanosleep(&ten_ms, NULL);
	if (statx(R->fd, "", AT_EMPTY_PATH, mask, &b) != 0)
		return say(err, errlen, 1, "self-check: statx of %s: %s", R->r.path,
			   strerror(errno));
	sw_trap_rearm_page(&R->mp, 0);
	if (seq1 == seq0)
		return say(err, errlen, 1,
			   "self-check failed: a store to a clean page did not trap (filesystem %s, trap %s); refusing to run",
			   R->r.fs.fs_name, R->r.trap);
	int64_t ca = a.stx_ctime.tv_sec * SW_NS_PER_S + a.stx_ctime.tv_nsec;
	int64_t cb = b.stx_ctime.tv_sec * SW_NS_PER_S + b.stx_ctime.tv_nsec;
	int64_t ma = a.stx_mtime.tv_sec * SW_NS_PER_S + a.stx_mtime.tv_nsec;
	int64_t mb = b.stx_mtime.tv_sec * SW_NS_PER_S + b.stx_mtime.tv_nsec;
	if (ca != cb || ma != mb)
		return say(err, errlen, 1,
			   "self-check failed: the kernel stamped the file when the store trapped (filesystem %s, trap %s): ctime %lld -> %lld ns, mtime %lld -> %lld ns; refusing to run",
			   R->r.fs.fs_name, R->r.trap, (long long)ca, (long long)cb,
			   (long long)ma, (long long)mb);
	char msg[512];
	snprintf(msg, sizeof(msg),
		 "self-check passed: a store to page 0 trapped through %s on %s and statx ctime stayed %lld ns, mtime %lld ns (read 10 ms before and after)",
		 R->r.trap, R->r.fs.fs_name, (long long)ca, (long long)ma);
	sw_run_note(R, SW_NOTE_INFO, msg);
	return 0;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static int populate_write(struct sw_run *R, char *err, size_t errlen)
{
	void *p = mmap(NULL, R->r.size, PROT_READ | PROT_WRITE, MAP_SHARED, R->fd, 0);
	if (p == MAP_FAILED)
		return say(err, errlen, 1, "mmap of %s (%llu bytes): %s", R->r.path,
			   (unsigned long long)R->r.size, strerror(errno));
	int rc = madvise(p, R->r.size, MADV_POPULATE_WRITE) ? errno : 0;
	munmap(p, R->r.size);
	if (rc)
		return say(err, errlen, 1,
			   "madvise(MADV_POPULATE_WRITE) over %s: %s (needs Linux >= 5.14)",
			   R->r.path, strerror(rc));
	return 0;
}

/* The times the set-up left on the file (extending it, fallocate and the
 * populating mapping all stamp it): a client that cached the file's
 * attributes before will see them change (a v3 reader's first
 * revalidation found it in the VM), so the log says when
 * and to what (struct sw_rec_setup). */
static int log_setup(struct sw_run *R, const struct stat *before, int64_t t_real,
		     int64_t t_mono, char *err, size_t errlen)
{
	struct stat st;
	struct sw_rec_setup u = { .t_real_ns = t_real, .t_mono_ns = t_mono,
				  .mtime_before_ns = sw_ts_ns(&before->st_mtim),
				  .ctime_before_ns = sw_ts_ns(&before->st_ctim),
				  .atime_before_ns = sw_ts_ns(&before->st_atim) };
	if (fstat(R->fd, &st))
		return say(err, errlen, 1, "fstat of %s after the set-up: %s", R->r.path,
			   strerror(errno));
	u.t_done_real_ns = sw_real_ns();
	u.mtime_ns = sw_ts_ns(&st.st_mtim);
	u.ctime_ns = sw_ts_ns(&st.st_ctim);
	u.size = (uint64_t)st.st_size;
	int rc = swlog_append(R->log, SW_REC_SETUP, &u, sizeof(u));
	if (rc)
		return say(err, errlen, 1, "logging the set-up record to %s: %s", R->o->log,
			   strerror(-rc));
	return 0;
}

static int map_file(struct sw_run *R, char *err, size_t errlen)
{
	const struct sw_opts *o = R->o;
	char e2[SW_ERRLEN];

	R->mp.fd = R->fd;
	R->mp.len = R->r.size;
	R->mp.page_size = R->r.page_size;
	R->mp.npages = R->r.npages;
	R->mp.uffd = -1;
	R->mp.stop_pipe[0] = R->mp.stop_pipe[1] = -1;
	if (R->native) {
		R->mp.base = mmap(NULL, R->mp.len, PROT_READ | PROT_WRITE,
				  MAP_SHARED, R->fd, 0);
		if (R->mp.base == MAP_FAILED) {
			R->mp.base = NULL;
			return say(err, errlen, 1, "mmap of %s (%llu bytes): %s", R->r.path,
				   (unsigned long long)R->r.size, strerror(errno));
		}
		if (o->populate && madvise(R->mp.base, R->mp.len, MADV_POPULATE_READ))
			return say(err, errlen, 1, "madvise(MADV_POPULATE_READ) on %s: %s",
				   R->r.path, strerror(errno));
		return 0;
	}
	struct sw_model_cfg mc = {
		.npages = R->r.npages,
		.page_size = R->r.page_size,
		.writeback_ns = R->r.writeback_ms * SW_NS_PER_MS,
		.expire_ns = R->r.expire_ms * SW_NS_PER_MS,
		.background_bytes = (uint64_t)R->r.background_bytes,
		.jiffy_ns = R->r.jiffy_ns,
		.jiffy_origin_ns = R->r.jiffies_host ? R->r.jiffy_origin_ns : 0,
		.jiffy_origin_count = R->r.jiffies_host ? R->r.jiffy_origin_count : 0,
		.journal_commit_ns = o->journal_commit_ms * SW_NS_PER_MS,
		.bg_share = o->bg_share,
		.create_meta_pages = o->create_meta_pages,
		.alloc_meta_pages = o->alloc_meta_pages,
		.run_commit_ns = (int64_t)o->wb_run_commit_us * SW_NS_PER_US,
		.run_alloc_ns = (int64_t)o->wb_run_alloc_us * SW_NS_PER_US,
		.run_pass_ns = (int64_t)o->wb_run_pass_us * SW_NS_PER_US,
		.run_io_ns = (int64_t)o->wb_run_io_us * SW_NS_PER_US,
		.run_submit_ns = (int64_t)o->wb_run_submit_us * SW_NS_PER_US,
		.atime_read_ns = (int64_t)o->atime_read_ms * SW_NS_PER_MS,
		.first_read_mono_ns = R->t_first_read_mono_ns,
	};
	if (!o->jiffies_mono && !R->r.jiffies_host) {
		char msg[480];
		snprintf(msg, sizeof(msg), "model: jiffies as CLOCK_MONOTONIC / tick, not this kernel's own (%s): the flusher's wake-ups may be up to one timer-wheel granularity off",
			 R->r.jiffies_why);
		sw_run_note(R, SW_NOTE_INFO, msg);
	}
	if (sw_model_init(&R->model, &mc, o->policy, sw_mono_ns(), e2, sizeof(e2)))
		return say(err, errlen, 1, "%s", e2);
	R->mp.model = &R->model;
	R->mp.trap = sw_trap_find(R->r.trap);
	R->mp.spin_ns = o->uffd_spin_us * SW_NS_PER_US;
	if (R->mp.trap->setup(&R->mp, e2, sizeof(e2)))
		return say(err, errlen, 1, "trap %s on %s: %s", R->r.trap, R->r.path, e2);
	return 0;
}

/* The mapping's size in pages, and whether memory and the filesystem can
 * hold it.  0, or 2 with err filled. */
static int check_size(struct sw_run *R, const struct stat *st, long ps, char *err,
		      size_t errlen)
{
	const struct sw_opts *o = R->o;

	R->r.page_size = (uint32_t)ps;
	R->r.size = (o->size + (uint64_t)ps - 1) / (uint64_t)ps * (uint64_t)ps;
	R->r.npages = R->r.size / (uint64_t)ps;
	if (R->r.npages > SW_MODEL_MAX_PAGES) {
		say(err, errlen, 2, "expected --size at most %llu bytes, saw %llu",
		    (unsigned long long)SW_MODEL_MAX_PAGES * (unsigned long long)ps,
		    (unsigned long long)o->size);
		return 2;
	}
	uint64_t grow = R->r.size > (uint64_t)st->st_size ? R->r.size - (uint64_t)st->st_size : 0;
	uint64_t meta = R->r.npages * (sw_model_bytes_per_page() + sizeof(uint32_t));
	long long avail_kib = sw_meminfo_kib("MemAvailable");
	uint64_t avail = avail_kib > 0 ? (uint64_t)avail_kib * 1024 : UINT64_MAX;
	uint64_t need_mem = meta + (o->policy->emulated || o->populate ? grow : 0);
	if (need_mem > avail) {
		say(err, errlen, 2,
		    "expected --size to fit in memory (MemAvailable %llu bytes; this run needs %llu: %llu new file pages%s + %llu writer bytes), saw --size %llu",
		    (unsigned long long)avail, (unsigned long long)need_mem,
		    (unsigned long long)grow, o->policy->emulated ? " on tmpfs" : "",
		    (unsigned long long)meta, (unsigned long long)o->size);
		return 2;
	}
	if (grow > R->r.fs.bavail_bytes) {
		say(err, errlen, 2,
		    "expected --size to fit the free space of %s (%llu bytes free, file grows by %llu), saw --size %llu",
		    R->r.fs.mount_point[0] ? R->r.fs.mount_point : R->r.path,
		    (unsigned long long)R->r.fs.bavail_bytes, (unsigned long long)grow,
		    (unsigned long long)o->size);
		return 2;
	}
	return 0;
}

/* --lead-ms: the set-up and the first store wait until the file's ctime
 * is o->lead_ms old.  The time from a file's creation to its first store
 * picks the kernel's writeback regime (the flusher and the journal still
 * busy with the creation, or idle: server/README.md), and in a guest that
 * time is however long the client took to start; a fixed lead makes runs
 * repeatable.  Runs before any thread exists, with SIGINT/SIGTERM blocked:
 * one that comes during the wait ends it and stays pending, so the run
 * loop stops at once and the log says so.  st is read again after it (a
 * reader's first read may fall in the wait). */
static int wait_lead(struct sw_run *R, struct stat *st, char *err, size_t errlen)
{
	int64_t lead_ns = R->o->lead_ms * SW_NS_PER_MS;
	int64_t t0 = sw_mono_ns();
	int64_t t_end = t0 + lead_ns - (sw_real_ns() - sw_ts_ns(&st->st_ctim));
	sigset_t stopsigs;

	if (t_end <= t0) {
		R->lead_waited_ns = -1;
		return 0;
	}
	sigemptyset(&stopsigs);
	sigaddset(&stopsigs, SIGINT);
	sigaddset(&stopsigs, SIGTERM);
	for (int64_t now = t0; now < t_end; now = sw_mono_ns()) {
		struct timespec ts = { .tv_sec = (t_end - now) / SW_NS_PER_S,
				       .tv_nsec = (t_end - now) % SW_NS_PER_S };
		int sig = sigtimedwait(&stopsigs, NULL, &ts);
		if (sig > 0) {
			raise(sig); /* pending until the run unblocks it */
			break;
		}
	}
	R->lead_waited_ns = sw_mono_ns() - t0;
	if (fstat(R->fd, st))
		return say(err, errlen, 1, "fstat of %s after the --lead-ms wait: %s",
			   R->o->file, strerror(errno));
	return 0;
}

static int setup(struct sw_run *R, char *err, size_t errlen)
{
	const struct sw_opts *o = R->o;
	struct stat st;
	int created = 0, rc;
	long ps = sysconf(_SC_PAGESIZE);

	if ((rc = open_file(o->file, &R->fd, &created, &st, err, errlen)))
		return rc;
	if (o->lead_ms && (rc = wait_lead(R, &st, err, errlen)))
		goto bad_rc;
	/* when the file was created, or last changed status (its ctime at the
	 * open: vm/guest/server.sh creates and truncates it seconds before the
	 * writer starts), on CLOCK_MONOTONIC: the model replays the flusher
	 * from then (run.c) */
	R->created = created;
	/* from the ctime even when the writer created the file: the SETUP
	 * record carries that ctime, and a replay of the log starts its
	 * model there (stalewin-model-sweep --lead-ms log).  The writer's
	 * clock read after the open started its model up to 6 ms after the
	 * replay's (the coarse ctime lags a tick), and a store falling in
	 * between was trapped by one and not the other (writer_model_sweep's
	 * stopped writer: 10 updates against 11) */
	int64_t real = sw_real_ns(), mono = sw_mono_ns();
	int64_t age = real - sw_ts_ns(&st.st_ctim);
	R->t_create_mono_ns = mono - (age > 0 ? age : 0);
	/* and a reader's first read since (relatime: atime newer) */
	if (!created && sw_ts_ns(&st.st_atim) > sw_ts_ns(&st.st_ctim))
		R->t_first_read_mono_ns = mono - (real - sw_ts_ns(&st.st_atim));
	if (!realpath(o->file, R->r.path))
		snprintf(R->r.path, sizeof(R->r.path), "%s", o->file);
	if (sw_fsinfo_get(R->fd, R->r.path, &R->r.fs) != 0)
		return say(err, errlen, 1, "fstatfs of %s: %s", R->r.path, strerror(errno));
	if (o->policy->emulated && R->r.fs.f_type != TMPFS_MAGIC_) {
		say(err, errlen, 2,
		    "expected a file on tmpfs/shmem for the emulated policy %s, saw %s (statfs magic 0x%lx, mounted on %s from %s) at %s; use --policy native there",
		    o->policy->name, R->r.fs.fs_name, (unsigned long)R->r.fs.f_type,
		    R->r.fs.mount_point[0] ? R->r.fs.mount_point : "?",
		    R->r.fs.mount_source[0] ? R->r.fs.mount_source : "?", R->r.path);
		goto bad;
	}
	if (check_size(R, &st, ps, err, errlen))
		goto bad;
	R->native = !o->policy->emulated;
	struct sw_wl_params wp = o->wl;
	wp.npages = R->r.npages;
	char e2[SW_ERRLEN];
	if (sw_wl_init(&R->wl, o->workload, &wp, e2, sizeof(e2))) {
		say(err, errlen, 2, "%s", e2);
		goto bad;
	}
	resolve_writeback(o, &R->r);
	if ((rc = choose_trap(o, &R->r, err, errlen)))
		goto bad_rc;
	R->r.run_id = o->run_id;
	if (!o->run_id_given)
		while (R->r.run_id == 0)
			if (getrandom(&R->r.run_id, sizeof(R->r.run_id), 0) !=
			    (ssize_t)sizeof(R->r.run_id))
				R->r.run_id = (uint64_t)sw_real_ns() ^ ((uint64_t)getpid() << 32);

	R->r.jiffy_ns = sw_model_host_jiffy_ns();
	if (o->policy->emulated && !o->jiffies_mono)
		R->r.jiffies_host = !sw_model_host_jiffy_origin("/proc/timer_list", R->r.jiffy_ns,
								&R->r.jiffy_origin_ns,
								&R->r.jiffy_origin_count, R->r.jiffies_why,
								sizeof(R->r.jiffies_why));
	char *meta_json = sw_meta_json(o, &R->r);
	char lerr[SWLOG_ERRLEN];
	rc = swlog_create(&R->log, o->log, o->force, SWLOG_KIND_WRITER,
			  R->r.run_id, meta_json, 0, lerr);
	free(meta_json);
	if (rc) {
		R->log = NULL;
		say(err, errlen, 2, "expected a new, writable log file at %s%s: %s",
		    o->log, o->force ? "" : " (use --force to overwrite)", lerr);
		goto bad;
	}
	if (o->status_file) {
		struct sw_status s0 = { .state = "starting", .run_id = R->r.run_id,
					.policy = o->policy->name, .trap = R->r.trap,
					.rss_anon_kib = -1, .cpu_main_s = -1 };
		if ((rc = sw_status_write(o->status_file, &s0)))
			return say(err, errlen, 2, "expected a writable --status-file %s: %s",
				   o->status_file, strerror(-rc));
	}
	const int64_t t_setup_real = sw_real_ns(), t_setup_mono = sw_mono_ns();
	if ((uint64_t)st.st_size < R->r.size && ftruncate(R->fd, (off_t)R->r.size))
		return say(err, errlen, 1, "extending %s to %llu bytes: %s", R->r.path,
			   (unsigned long long)R->r.size, strerror(errno));
	/* tmpfs: every page in the page cache first, so no store ever
	 * allocates one through the stamping fault path (and uffd minor
	 * faults find it) */
	if (!R->native && (rc = posix_fallocate(R->fd, 0, (off_t)R->r.size)))
		return say(err, errlen, 1, "fallocate of %llu bytes on %s: %s",
			   (unsigned long long)R->r.size, R->r.path, strerror(rc));
	/* ... and up to date: a fallocated shmem page is zeroed at its first
	 * use, which would add a memset to the first trap of each page (the
	 * kernel being modelled has the page cached already).  A throw-away
	 * MADV_POPULATE_WRITE mapping does it now, before the self-check's
	 * baseline; it does not change the data. */
	if (!R->native && (rc = populate_write(R, err, errlen)))
		return rc;
	R->gen = calloc(R->r.npages, sizeof(*R->gen));
	if (!R->gen)
		return say(err, errlen, 1, "cannot allocate %llu page generations",
			   (unsigned long long)R->r.npages);
	if ((rc = map_file(R, err, errlen)))
		return rc;
	if (!R->native && (rc = self_check(R, err, errlen)))
		return rc;
	if ((rc = log_setup(R, &st, t_setup_real, t_setup_mono, err, errlen)))
		return rc;
	char msg[600];
	snprintf(msg, sizeof(msg),
		 "file %s on %s (%s), %llu pages of %u bytes, policy %s, trap %s (%s)",
		 R->r.path, R->r.fs.fs_name, R->r.fs.mount_options,
		 (unsigned long long)R->r.npages, R->r.page_size, o->policy->name,
		 R->r.trap, R->r.trap_reason);
	sw_run_note(R, SW_NOTE_INFO, msg);
	if (o->lead_ms) {
		if (R->lead_waited_ns < 0)
			snprintf(msg, sizeof(msg),
				 "--lead-ms %lld: the file's ctime was more than that before the set-up already; no wait",
				 (long long)o->lead_ms);
		else
			snprintf(msg, sizeof(msg),
				 "--lead-ms %lld: waited %.3f s before the set-up for the file's ctime to be that old",
				 (long long)o->lead_ms, (double)R->lead_waited_ns / 1e9);
		sw_run_note(R, SW_NOTE_INFO, msg);
	}
	return 0;
bad:
	rc = 2;
bad_rc:
	if (created)
		unlink(o->file);
	return rc;
}

int sw_writer_run(const struct sw_opts *o, char *err, size_t errlen)
{
	struct sw_run *R = calloc(1, sizeof(*R));
	sigset_t stopsigs, old;
	int code = 0, reason = SW_END_ERROR;

	if (!R)
		return say(err, errlen, 1, "out of memory");
	R->o = o;
	R->fd = -1;
	R->mp.uffd = -1;
	R->mp.stop_pipe[0] = R->mp.stop_pipe[1] = -1;
	/* threads started below (log flusher, uffd) must not take the stop
	 * signals: the main loop's sleeps are what they interrupt */
	sigemptyset(&stopsigs);
	sigaddset(&stopsigs, SIGINT);
	sigaddset(&stopsigs, SIGTERM);
	sw_run_install_signals();
	pthread_sigmask(SIG_BLOCK, &stopsigs, &old);
	code = setup(R, err, errlen);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (code == 0) {
		reason = sw_run_main(R);
		if (reason == SW_END_ERROR) {
			code = 1;
			snprintf(err, errlen, "%s", R->fatal);
		}
	} else if (R->log) {
		/* the failure is part of the ground truth too */
		struct sw_rec_end e = { .t_real_ns = sw_real_ns(),
					.t_mono_ns = sw_mono_ns(),
					.reason = SW_END_ERROR, .err = EINVAL };
		swlog_note(R->log, SW_NOTE_ERROR, "%s", err);
		swlog_append(R->log, SW_REC_END, &e, sizeof(e));
	}
	if (R->log) {
		int rc = swlog_close(R->log);
		if (rc && !code) {
			code = 1;
			snprintf(err, errlen, "closing the log %s: %s", o->log, strerror(-rc));
		}
	}
	snprintf(R->fatal, sizeof(R->fatal), "%s", code ? err : "");
	if (o->status_file && !(code == 2 && !R->log))
		sw_run_status(R, code ? "error" : "done");
	if (R->mp.trap)
		R->mp.trap->teardown(&R->mp);
	else if (R->mp.base)
		munmap(R->mp.base, R->mp.len);
	if (!R->native)
		sw_model_free(&R->model);
	free(R->gen);
	if (R->fd >= 0)
		close(R->fd);
	free(R);
	return code;
}
