/* SPDX-License-Identifier: MIT */
/*
 * mountinfo.h - the mount a path lives on, from /proc/self/mountinfo
 * (proc(5)): what stalewin-reader puts in its log header and what
 * `stalewin-reader mount DIR` prints for the orchestrators.
 */
#ifndef STALEWIN_MOUNTINFO_H
#define STALEWIN_MOUNTINFO_H

#include <limits.h>
#include <stddef.h>

struct sw_mount {
	char source[PATH_MAX]; /* mount source (NFS: "host:/export") */
	char point[PATH_MAX];  /* mount point */
	char root[PATH_MAX];   /* root of the mount within its filesystem */
	char fstype[64];       /* nfs, nfs4, ext4, ... */
	char options[4096];    /* as in /proc/mounts: the per-mount options,
				  then the superblock's (NFS: vers=, actimeo=,
				  addr=, ...), rw/ro once */
	char dev[32];          /* st_dev as "major:minor": two mounts with the
				  same dev share one superblock, one page cache */
};

/* The mount that holds path: the longest mount point that is a prefix of
 * realpath(path) (the topmost of mounts stacked on one point).  With
 * dir_of_path, the path's directory is resolved instead (the file itself
 * may not exist yet).  Returns 0, or -errno with err saying what was
 * expected and what was seen. */
int sw_mount_of(const char *path, int dir_of_path, struct sw_mount *m, char *err,
		size_t errlen);

/* One line of /proc/self/mountinfo into m; 0, or -1 when it is not one. */
int sw_mountinfo_parse(const char *line, struct sw_mount *m);

/* m as a JSON object text (malloc'd): source, point, root, fstype,
 * options, dev, and "nfs" (true for nfs and nfs4). */
char *sw_mount_json(const struct sw_mount *m, const char *dir);
/* m's six text fields into the JSON object o, each key after prefix
 * ("" or e.g. "mount_": mount_source, ..., mount_dev). */
struct json_t;
void sw_mount_json_set(struct json_t *o, const struct sw_mount *m,
		       const char *prefix);

#endif
