#!/usr/bin/env bash
# Description: the quick native matrix (`stalewin vm matrix --quick`:
# kernels 6.1 and 7.2, Debian's packages; ext4, xfs and tmpfs; rewrite;
# 4 s; writer --populate) against real knfsd servers.  Asserts, from
# OUT/matrix.json (built from each run folder's report.json):
#  - every cell present: 2 kernels x 3 fs x NFS v3/v4, each with stores,
#    a complete report, its run folder, the kernel's release string;
#  - consistency: on ext4 and xfs the v3 probe's windows are within
#    resolution of the writer's truth (unexplained exceptions = 0);
#  - eager semantics on every stock kernel: ext4 and xfs update the times
#    at the first store (its truth window <= the probe's resolution);
#  - tmpfs's silence for pre-mapped pages: no timestamp update at all
#    (every store uncovered) while ext4 and xfs update;
#  - the v4 change attribute moves whenever ctime moves: no v4 reply
#    revealed a store by ctime without the change attribute (mtime alone
#    is a finding: 7.2 xfs did it once), and the v4 target never missed
#    more stores than the v3 one;
#  - multigrain (the quiet runs: no NFS client, burst): on 7.2 more faults
#    leave ctime equal to the previous stamp with no query at all (counted
#    from the timestamp tracepoints; none traced in that run) than with a
#    stat after every store; on 6.1 faults share a coarse stamp even with
#    the stat;
#  - delegations traced (nfsd tracepoints) in every v4.2 run, and a grant
#    traced whenever nfsd's state list held one.
# The assertions are `stalewin-matrix OUT --check` (analysis/tools/
# matrix_check.c), also run on fixed folders by tests/analysis/cli/
# test_matrix.sh.
# ~90-110 s on this 2-core machine (TCG).  Skips (77) only when qemu
# cannot run or Debian's archive is unreachable for the 7.2 kernel.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
for t in server/stalewin-writer client/stalewin-reader client/stalewin-probe analysis/stalewin-report analysis/stalewin-matrix; do
	[ -x "$b/$t" ] || fail "$b/$t is not built"
done
if ! "$top/vm/build.sh" --quiet --kernel 7.2 --build-dir "$b" >/dev/null 2>"${TMPDIR:-/tmp}/sw-matrix-k.err"; then
	grep -q 'apt-get update .* failed' "${TMPDIR:-/tmp}/sw-matrix-k.err" &&
		skip "Debian's archive unreachable: $(cat "${TMPDIR:-/tmp}/sw-matrix-k.err")"
	fail "the 7.2 kernel part cannot be built: $(cat "${TMPDIR:-/tmp}/sw-matrix-k.err")"
fi
T=$(mktemp -d /tmp/sw-vm-matrix.XXXXXX)
# SW_TEST_KEEP=DIR keeps the matrix output there (to rerun stalewin-matrix --check)
trap '[ -z "${SW_TEST_KEEP:-}" ] || cp -a "$T/m" "$T/m.json" "$SW_TEST_KEEP/" 2>/dev/null; rm -rf "$T"' EXIT
t0=$SECONDS
PATH=$b/analysis:$PATH "$top/vm/matrix.sh" --quick --json --build-dir "$b" --out "$T/m" >"$T/m.json" 2>"$T/m.err"
rc=$?
[ $rc -eq 0 ] || { cat "$T/m.err"; fail "vm matrix --quick exited $rc"; }
echo "vm matrix --quick: $((SECONDS - t0)) s"
"$b/analysis/stalewin-matrix" "$T/m" --kernels 6.1,7.2 --fs ext4,xfs,tmpfs --workloads rewrite --check ||
	fail "expected stalewin-matrix --check to pass, saw it fail (above)"
sw_done
