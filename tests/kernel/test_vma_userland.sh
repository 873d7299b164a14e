#!/usr/bin/env bash
# Description: the kernel's own userland VMA tests (tools/testing/vma,
# 6.11+: mm/vma.c and its callers built in userspace against stubs) on
# sid's linux-source-7.2 with the series applied
# (`stalewin-vm-kernel --vma-test --base 7.2`, no kernel build).
#   - the series as committed: the harness builds and every test passes
#     (at least 20 run, 0 failed).  A series whose mm/vma.c change broke a
#     VMA rule shows as a failed case; one that calls a new function from
#     mm/vma.c without a stub in tools/testing/vma/include/stubs.h does not
#     build;
#   - to show that second failure is caught: the same series in a copy of
#     vm/kernel with 0003's stubs.h hunk cut out must exit 1 saying the
#     harness does not build.
# Skips (77, saying why) without the Debian mirror (the source package)
# or root (apt installs liburcu-dev, vm/kernel/packages.txt).
. "$(dirname "$0")/../lib/test-lib.sh"
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || skip "needs root (apt-get install of vm/kernel/packages.txt)"
tmp=$(mktemp -d /tmp/sw-vma-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
unreachable() { grep -qE "no source package reachable|could not look for|fetching .* failed" "$1"; }

"$repo/vm/kernel/stalewin-vm-kernel" --vma-test --base 7.2 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ] && unreachable "$tmp/err"; then
	skip "linux-source-7.2 not reachable: $(tail -1 "$tmp/err")"
fi
verdict=$(grep -E '^[0-9]+ tests run, [0-9]+ passed, [0-9]+ failed' "$tmp/out" | tail -1)
echo "series as committed: exit $rc, ${verdict:-no verdict line}"
if [ $rc -ne 0 ] || [ -z "$verdict" ]; then
	fail "expected the userland VMA tests to build and pass, saw exit $rc: $(tail -3 "$tmp/out" "$tmp/err" | tr '\n' ' ')"
else
	read -r run _ _ passed _ failed _ <<<"$verdict"
	[ "$run" -ge 20 ] || fail "expected at least 20 VMA tests, saw $run"
	[ "$failed" -eq 0 ] && [ "$passed" -eq "$run" ] || fail "expected all $run VMA tests to pass, saw $passed passed, $failed failed"
fi

# the stub cut out of 0003: the harness must fail to build, and say so
mkdir -p "$tmp/copy/vm"
cp -a "$repo/vm/kernel" "$tmp/copy/vm/kernel"
ln -s "$repo/vm/apt-private" "$tmp/copy/vm/apt-private"
p3=$(ls "$tmp"/copy/vm/kernel/patches/7.2/0003-*.patch)
awk '/^diff --git a\/tools\/testing\/vma\/include\/stubs.h/ {skip = 1; next}
	/^diff --git / || /^-- $/ {skip = 0} !skip' "$p3" >"$tmp/p3" && mv "$tmp/p3" "$p3"
grep -q "tools/testing/vma/include/stubs.h b/" "$p3" && fail "could not cut the stubs.h hunk out of $(basename "$p3")"
"$tmp/copy/vm/kernel/stalewin-vm-kernel" --vma-test --base 7.2 >"$tmp/out2" 2>"$tmp/err2"
rc=$?
echo "without the stub: exit $rc: $(tail -1 "$tmp/err2")"
[ $rc -eq 1 ] && grep -q "does not build with the series" "$tmp/err2" ||
	fail "expected exit 1 and 'does not build with the series' without 0003's stub, saw exit $rc: $(tail -2 "$tmp/err2" | tr '\n' ' ')"
sw_done
