/* SPDX-License-Identifier: MIT */
/*
 * nfs_url.h - strict parsing of the probe's target URLs.
 *
 *   nfs://HOST/EXPORT.../FILE[?version=3|4&nfsport=N&mountport=M&uid=N&gid=N]
 *
 * The export is the path up to the last '/', the file is the last component
 * (as libnfs' nfs_parse_url_full splits it).  libnfs itself silently ignores
 * unknown arguments and bad versions (version=7 mounts NFSv3 through the
 * portmapper), so the probe checks them here first.  Pure code.
 */
#ifndef STALEWIN_NFS_URL_H
#define STALEWIN_NFS_URL_H

#include <stddef.h>

struct sw_nfs_url {
	char url[1024];   /* the URL as given */
	char host[256];   /* server name or address */
	char export[512]; /* "/sw0": path up to the last '/' */
	char file[256];   /* "f": last component, no '/' */
	char path[768];   /* export + "/" + file */
	int version;      /* 3 (default) or 4 */
	int nfsport;      /* 0: not given (v3: portmapper, v4: 2049) */
	int mountport;    /* 0: not given (portmapper) */
};

/* 0, or -EINVAL with one line in err saying what was expected and seen. */
int sw_nfs_url_parse(const char *s, struct sw_nfs_url *u, char *err,
		     size_t errlen);

#endif
