/* SPDX-License-Identifier: MIT */
/*
 * Description: the rule that keeps a control-API client's "file" under the
 * server's --root (server/control/runs.c, ctl_resolve_under_root), on a
 * real directory tree with symlinks.  A broken rule would let a client
 * make the writer create or overwrite a file outside the root: through
 * "..", an absolute path, a symlinked folder or a symlink as the file.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "control_runs.h"

static void expect(const char *root, const char *req, int ok, const char *want)
{
	char out[PATH_MAX] = "", err[1024] = "";
	int rc = ctl_resolve_under_root(root, req, out, sizeof(out), err, sizeof(err));
	CHECK((rc == 0) == ok, "'%s': expected %s, saw %s (%s%s)", req, ok ? "accepted" : "refused",
	      rc == 0 ? "accepted" : "refused", out, err);
	if ((rc == 0) == ok) {
		CHECK(!ok || !want || !strcmp(out, want), "'%s': expected path %s, saw %s", req, want, out);
		CHECK(ok || err[0], "'%s': refused without a message", req);
	}
}

int main(void)
{
	char tmpl[] = "/tmp/sw-confine-XXXXXX", root[PATH_MAX], p[PATH_MAX + 64], want[PATH_MAX + 64];
	if (!mkdtemp(tmpl) || !realpath(tmpl, root)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(p, sizeof(p), "%s/sub", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/out", root);
	if (symlink("/tmp", p))
		perror("symlink");
	snprintf(p, sizeof(p), "%s/pw", root);
	if (symlink("/etc/passwd", p))
		perror("symlink");
	snprintf(p, sizeof(p), "%s/insub", root);
	if (symlink("sub", p)) /* a symlink that stays inside */
		perror("symlink");

	snprintf(want, sizeof(want), "%s/a.dat", root);
	expect(root, "a.dat", 1, want);
	expect(root, want, 1, want);
	snprintf(want, sizeof(want), "%s/sub/b.dat", root);
	expect(root, "sub/b.dat", 1, want);
	expect(root, "insub/b.dat", 1, want);
	expect(root, "./sub/./b.dat", 1, want);
	expect(root, "", 0, NULL);
	expect(root, "..", 0, NULL);
	expect(root, "../x", 0, NULL);
	expect(root, "sub/../../x", 0, NULL);
	expect(root, "sub/..", 0, NULL);
	expect(root, "/tmp/x", 0, NULL);
	expect(root, "/etc/passwd", 0, NULL);
	expect(root, "out/x", 0, NULL);
	expect(root, "pw", 0, NULL);
	expect(root, "sub", 0, NULL);
	expect(root, "sub/", 0, NULL);
	expect(root, "nosuchdir/x", 0, NULL);
	snprintf(p, sizeof(p), "%s-evil/x", root); /* prefix of root, not under it */
	expect(root, p, 0, NULL);
	expect(root, "a..b.dat", 1, NULL);

	return check_finish(root, "PASS");
}
