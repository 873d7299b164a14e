/* SPDX-License-Identifier: MIT */
/*
 * Description: the probe's URL parser (client/probe/nfs_url.c) accepts the URLs of
 * client/README.md and rejects malformed ones with a message naming what was
 * expected.  A broken parser shows a wrong export/file split, a default
 * version other than 3, or accepts version=7 / unknown arguments (which
 * libnfs would silently ignore and mount NFSv3 through the portmapper).
 */
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "nfs_url.h"

static void bad(const char *url, const char *want)
{
	struct sw_nfs_url u;
	char err[512] = "";
	int rc = sw_nfs_url_parse(url, &u, err, sizeof(err));
	CHECK(rc != 0 && strstr(err, want), "'%s' gave rc %d err '%s', expected an error containing '%s'",
	      url, rc, err, want);
}

SW_CASE(accepted)
{
	struct sw_nfs_url u;
	char err[512];

	CHECK(sw_nfs_url_parse("nfs://127.0.0.1/sw0/f?version=4&nfsport=2049", &u, err, sizeof(err)) == 0);
	CHECK(!strcmp(u.host, "127.0.0.1") && !strcmp(u.export, "/sw0") && !strcmp(u.file, "f"));
	CHECK(!strcmp(u.path, "/sw0/f") && u.version == 4 && u.nfsport == 2049 && u.mountport == 0);
	CHECK(sw_nfs_url_parse("nfs://server/a/b/file.bin?mountport=20048&nfsport=2049", &u, err, sizeof(err)) == 0);
	CHECK(u.version == 3 && !strcmp(u.export, "/a/b") && !strcmp(u.file, "file.bin") && u.mountport == 20048);
	CHECK(sw_nfs_url_parse("nfs://h/e/f", &u, err, sizeof(err)) == 0 && u.version == 3);
}

SW_CASE(refused)
{
	bad("", "empty");
	bad("http://h/e/f", "nfs://");
	bad("nfs:/h/e/f", "nfs://");
	bad("nfs:///e/f", "host");
	bad("nfs://h", "/EXPORT/FILE");
	bad("nfs://h/f", "only one path component");
	bad("nfs://h/e/", "ending in '/'");
	bad("nfs://h/e//f", "empty path component");
	bad("nfs://h/e/../f", "'..'");
	bad("nfs://h:2049/e/f", "nfsport");
	bad("nfs://h/e/f?version=7", "expected 3 or 4");
	bad("nfs://h/e/f?version=", "expected 3 or 4");
	bad("nfs://h/e/f?nfsport=0", "port 1..65535");
	bad("nfs://h/e/f?nfsport=70000", "port 1..65535");
	bad("nfs://h/e/f?mountport=x", "port 1..65535");
	bad("nfs://h/e/f?bogus=1", "expected one of");
	bad("nfs://h/e/f?version", "KEY=VALUE");
	bad("nfs://h/e/f%20", "percent");
}

SW_MAIN()
