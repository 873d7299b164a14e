/* SPDX-License-Identifier: MIT */
/* meta.c - facts about the host and the file for the log header:
 * filesystem magic and mount, kernel, vm sysctls; the JSON meta. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "model.h"
#include "profile.h"
#include "writer.h"

static const struct {
	long magic;
	const char *name;
} fs_magics[] = {
	{ 0x01021994, "tmpfs" },   { 0xEF53, "ext4" },
	{ 0x58465342, "xfs" },     { 0x9123683E, "btrfs" },
	{ 0x6969, "nfs" },         { 0x794c7630, "overlayfs" },
	{ 0x858458f6, "ramfs" },   { 0x958458f6, "hugetlbfs" },
	{ 0x65735546, "fuse" },    { 0xF2F52010, "f2fs" },
	{ 0x2fc12fc1, "zfs" },     { 0xca451a4e, "bcachefs" },
	{ 0x01021997, "9p" },      { 0x62656572, "sysfs" },
	{ 0x9fa0, "proc" },        { 0x4d44, "vfat" },
	{ 0x5346544e, "ntfs" },    { 0x73717368, "squashfs" },
	{ 0xFF534D42, "cifs" },    { 0x6165676C, "pstorefs" },
};

const char *sw_fs_magic_name(long f_type)
{
	for (size_t i = 0; i < sizeof(fs_magics) / sizeof(fs_magics[0]); i++)
		if ((unsigned long)fs_magics[i].magic == (unsigned long)f_type)
			return fs_magics[i].name;
	return "unknown";
}

static void copy(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src ? src : "");
}

/* /proc/self/mountinfo: ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPT...] -
 * FSTYPE SOURCE SUPEROPTS.  Picks the longest mount point that holds path
 * and has the file's device. */
static void mountinfo(dev_t dev, const char *path, struct sw_fsinfo *fi)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char *line = NULL;
	size_t cap = 0, best = 0;

	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		char *save, *tok[64];
		int n = 0;
		for (char *t = strtok_r(line, " \n", &save); t && n < 64;
		     t = strtok_r(NULL, " \n", &save))
			tok[n++] = t;
		if (n < 10)
			continue;
		unsigned maj, min;
		if (sscanf(tok[2], "%u:%u", &maj, &min) != 2 ||
		    makedev(maj, min) != dev)
			continue;
		int sep = 6;
		while (sep < n && strcmp(tok[sep], "-"))
			sep++;
		if (sep + 3 >= n + 1 || sep + 2 >= n)
			continue;
		size_t ml = strlen(tok[4]);
		int holds = strcmp(tok[4], "/") == 0 ||
			    (strncmp(path, tok[4], ml) == 0 &&
			     (path[ml] == '/' || path[ml] == 0));
		if (!holds || ml < best)
			continue;
		best = ml;
		copy(fi->mount_point, sizeof(fi->mount_point), tok[4]);
		copy(fi->mount_options, sizeof(fi->mount_options), tok[5]);
		copy(fi->mount_fstype, sizeof(fi->mount_fstype), tok[sep + 1]);
		copy(fi->mount_source, sizeof(fi->mount_source), tok[sep + 2]);
		copy(fi->super_options, sizeof(fi->super_options),
		     sep + 3 < n ? tok[sep + 3] : "");
	}
	free(line);
	fclose(f);
}

int sw_fsinfo_get(int fd, const char *path, struct sw_fsinfo *fi)
{
	struct statfs sf;
	struct stat st;

	memset(fi, 0, sizeof(*fi));
	if (fstatfs(fd, &sf) != 0 || fstat(fd, &st) != 0)
		return -errno;
	fi->f_type = (long)sf.f_type;
	fi->fs_name = sw_fs_magic_name(fi->f_type);
	fi->bavail_bytes = (uint64_t)sf.f_bavail * (uint64_t)sf.f_bsize;
	mountinfo(st.st_dev, path, fi);
	return 0;
}

long long sw_read_vm_sysctl(const char *name, long long dflt)
{
	char p[128];
	long long v = dflt;
	snprintf(p, sizeof(p), "/proc/sys/vm/%s", name);
	FILE *f = fopen(p, "r");
	if (!f)
		return dflt;
	if (fscanf(f, "%lld", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

static long long kib_field(const char *file, const char *name)
{
	FILE *f = fopen(file, "r");
	char line[256];
	long long v = -1;
	size_t nl = strlen(name);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, name, nl) == 0 && line[nl] == ':') {
			v = atoll(line + nl + 1);
			break;
		}
	fclose(f);
	return v;
}

long long sw_meminfo_kib(const char *name)
{
	return kib_field("/proc/meminfo", name);
}

long long sw_self_status_kib(const char *name)
{
	return kib_field("/proc/self/status", name);
}

static const char *vm_sysctls[] = {
	"dirty_writeback_centisecs", "dirty_expire_centisecs",
	"dirty_background_bytes",    "dirty_background_ratio",
	"dirty_bytes",               "dirty_ratio",
	"max_map_count",             "unprivileged_userfaultfd",
	NULL,
};

char *sw_meta_json(const struct sw_opts *o, const struct sw_resolved *r)
{
	struct utsname u;
	char hex[32], host[256] = "";
	json_t *m = json_object(), *a = json_array(), *vm = json_object();
	json_t *wl = json_object(), *sy = json_object(), *wb = json_object();
	json_t *fs = json_object();

	for (int i = 0; i < o->argc; i++)
		json_array_append_new(a, json_string(o->argv[i]));
	uname(&u);
	gethostname(host, sizeof(host) - 1);
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)r->run_id);
	json_object_set_new(m, "tool", json_string("stalewin-writer"));
	json_object_set_new(m, "tool_version", json_string(STALEWIN_VERSION));
	json_object_set_new(m, "meta_schema", json_integer(1));
	json_object_set_new(m, "argv", a);
	json_object_set_new(m, "run_id", json_string(hex));
	json_object_set_new(m, "host", json_string(host));
	json_object_set_new(m, "kernel_release", json_string(u.release));
	json_object_set_new(m, "kernel_version", json_string(u.version));
	json_object_set_new(m, "machine", json_string(u.machine));
	json_object_set_new(m, "policy", json_string(o->policy->name));
	json_object_set_new(m, "emulated", json_boolean(o->policy->emulated));
	json_object_set_new(m, "trap", json_string(r->trap));
	json_object_set_new(m, "trap_reason", json_string(r->trap_reason));
	json_object_set_new(m, "file", json_string(r->path));
	json_object_set_new(m, "size_bytes", json_integer((json_int_t)r->size));
	json_object_set_new(m, "page_size", json_integer(r->page_size));
	json_object_set_new(m, "pages", json_integer((json_int_t)r->npages));
	json_object_set_new(m, "duration_s", json_real(o->duration_s));

	json_object_set_new(wl, "name", json_string(o->workload->name));
	json_object_set_new(wl, "pages", json_integer((json_int_t)(o->wl.pages ? o->wl.pages : r->npages)));
	json_object_set_new(wl, "rate_per_s", json_real(o->wl.rate));
	/* every workload's own options, as its table names them (a run of
	 * one workload records the others' at their values too) */
	for (size_t i = 0; sw_workloads[i]; i++)
		for (const struct sw_wl_opt *w = sw_workloads[i]->opts; w && w->name; w++) {
			int64_t iv;
			double dv;
			if (sw_wl_opt_value(w, &o->wl_own[i], &iv, &dv))
				json_object_set_new(wl, w->meta, json_real(dv));
			else
				json_object_set_new(wl, w->meta, json_integer((json_int_t)iv));
		}
	json_object_set_new(m, "workload", wl);

	json_object_set_new(sy, "msync_async_ms", json_integer(o->msync_async_ms));
	json_object_set_new(sy, "msync_sync_ms", json_integer(o->msync_sync_ms));
	json_object_set_new(sy, "fsync_ms", json_integer(o->fsync_ms));
	json_object_set_new(sy, "munmap", json_boolean(!o->no_munmap));
	json_object_set_new(m, "sync", sy);

	json_object_set_new(wb, "modelled", json_boolean(o->policy->emulated));
	json_object_set_new(wb, "writeback_ms", json_integer(r->writeback_ms));
	json_object_set_new(wb, "expire_ms", json_integer(r->expire_ms));
	json_object_set_new(wb, "journal_commit_ms", json_integer(o->journal_commit_ms));
	json_object_set_new(wb, "wb_bg_share", json_string(sw_bg_share_name(o->bg_share)));
	json_object_set_new(wb, "create_meta_pages", json_integer(o->create_meta_pages));
	json_object_set_new(wb, "alloc_meta_pages", json_integer(o->alloc_meta_pages));
	json_object_set_new(wb, "run_commit_us", json_integer((json_int_t)o->wb_run_commit_us));
	json_object_set_new(wb, "run_alloc_us", json_integer((json_int_t)o->wb_run_alloc_us));
	json_object_set_new(wb, "run_pass_us", json_integer((json_int_t)o->wb_run_pass_us));
	json_object_set_new(wb, "run_io_us", json_integer((json_int_t)o->wb_run_io_us));
	json_object_set_new(wb, "run_submit_us", json_integer((json_int_t)o->wb_run_submit_us));
	json_object_set_new(wb, "atime_read_ms", json_integer((json_int_t)o->atime_read_ms));
	json_object_set_new(wb, "background_bytes", json_integer(r->background_bytes));
	json_object_set_new(wb, "background_basis", json_string(r->background_basis));
	/* the jiffies its timer wheel counts (--jiffies): the kernel's own
	 * origin, which a replay of this log takes (stalewin-model-sweep) */
	json_object_set_new(wb, "jiffies", json_string(r->jiffies_host ? "host" : "mono"));
	json_object_set_new(wb, "jiffy_ns", json_integer(r->jiffy_ns));
	if (r->jiffies_host) {
		json_object_set_new(wb, "jiffy_origin_mono_ns", json_integer(r->jiffy_origin_ns));
		json_object_set_new(wb, "jiffy_origin_count", json_integer(r->jiffy_origin_count));
	}
	/* the profile its options came from, and what it rests on */
	json_object_set_new(wb, "profile", o->profile ? json_string(o->profile->name) : json_null());
	json_object_set_new(wb, "profile_kernel",
			    o->profile ? json_string(o->profile->kernel) : json_null());
	json_object_set_new(wb, "profile_validated",
			    o->profile ? json_string(o->profile->validated) : json_null());
	json_object_set_new(m, "writeback_model", wb);

	for (int i = 0; vm_sysctls[i]; i++)
		json_object_set_new(vm, vm_sysctls[i],
				    json_integer(sw_read_vm_sysctl(vm_sysctls[i], -1)));
	json_object_set_new(m, "vm_sysctls", vm);
	/* the patched guest kernel of vm/kernel/ (vm.mmap_cmtime_policy): what
	 * "native" means on it; absent on a stock kernel */
	char kpol[32];
	FILE *kp = fopen("/proc/sys/vm/mmap_cmtime_policy", "re");
	if (kp) {
		if (fgets(kpol, sizeof(kpol), kp)) {
			kpol[strcspn(kpol, "\n")] = 0;
			json_object_set_new(m, "kernel_cmtime_policy", json_string(kpol));
		}
		fclose(kp);
	}
	/* its vm.mmap_cmtime_ordering (0008): whether writeback journals the
	 * deferred update before the data; absent where the kernel has none */
	kp = fopen("/proc/sys/vm/mmap_cmtime_ordering", "re");
	if (kp) {
		int ord;
		if (fscanf(kp, "%d", &ord) == 1)
			json_object_set_new(m, "kernel_cmtime_ordering", json_integer(ord));
		fclose(kp);
	}

	json_object_set_new(fs, "type", json_string(r->fs.fs_name));
	json_object_set_new(fs, "magic", json_integer(r->fs.f_type));
	json_object_set_new(fs, "mount_point", json_string(r->fs.mount_point));
	json_object_set_new(fs, "mount_fstype", json_string(r->fs.mount_fstype));
	json_object_set_new(fs, "mount_source", json_string(r->fs.mount_source));
	json_object_set_new(fs, "mount_options", json_string(r->fs.mount_options));
	json_object_set_new(fs, "super_options", json_string(r->fs.super_options));
	json_object_set_new(m, "filesystem", fs);

	json_object_set_new(m, "native_populate", json_boolean(o->populate));
	json_object_set_new(m, "native_poll_ms", json_integer(o->native_poll_ms));
	json_object_set_new(m, "native_fstat_around_store", json_boolean(!o->native_poll_only));
	char *s = json_dumps(m, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(m);
	return s;
}
