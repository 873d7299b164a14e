#!/usr/bin/env bash
# Description: a package that cannot be fetched gives one clear message
# naming the suite and the package, starts no guest, and leaves the host's
# apt configuration untouched.  Cases: vm/apt-private SUITE download of a
# nonexistent package; `vm run --kernel 7.2` whose kernel metapackage is
# replaced by a nonexistent name (SW_VM_KERNEL_META, tests only); an
# unknown kernel name (the known ones listed); an unknown suite.
# ~5-10 s (one apt-get update of sid's lists when older than 6 h).
. "$(dirname "$0")/../lib/test-lib.sh"
sw_immediate=1
set -u
top=${SW_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
b=${SW_BUILD_DIR:-$top/build}
T=$(mktemp -d /tmp/sw-vm-fetch.XXXXXX)
trap 'rm -rf "$T"' EXIT
host_apt() { (cat /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null; ls -l --time-style=+%s /var/lib/apt/lists/ /etc/apt/) | sha256sum; }
before=$(host_apt)
pkg=sw-no-such-package-$$
"$top/vm/apt-private" sid download "$pkg" >"$T/a.out" 2>"$T/a.err"
rc=$?
[ $rc -eq 1 ] || fail "apt-private download of a nonexistent package exited $rc (1 expected): $(cat "$T/a.err")"
grep -q "suite sid" "$T/a.err" || fail "the message does not name the suite: $(cat "$T/a.err")"
grep -q 'apt-get update .* failed' "$T/a.err" ||
	grep -q "$pkg" "$T/a.err" || fail "the message does not name the package $pkg: $(cat "$T/a.err")"
[ ! -s "$T/a.out" ] || fail "apt-private printed a path for a package that does not exist: $(cat "$T/a.out")"

SW_VM_KERNEL_META=$pkg "$top/vm/run.sh" --kernel 7.2 --build-dir "$b" --out "$T/run" >"$T/r.out" 2>"$T/r.err"
rc=$?
[ $rc -ne 0 ] || fail "vm run with an unfetchable kernel package exited 0"
grep -q "suite sid" "$T/r.err" && grep -q "kernel 7.2" "$T/r.err" ||
	fail "vm run's message does not name the suite and the kernel: $(cat "$T/r.err")"
ls "$T/run/vm" 2>/dev/null | grep -q pid && fail "a guest was started: $(ls "$T/run/vm")"

"$top/vm/run.sh" --kernel 5.10 --out "$T/run2" >/dev/null 2>"$T/k.err"
rc=$?
[ $rc -eq 2 ] && grep -q "6.12 7.2" "$T/k.err" || fail "unknown kernel name: exit $rc, $(cat "$T/k.err")"
"$top/vm/apt-private" woody version bash >/dev/null 2>"$T/s.err"
rc=$?
[ $rc -eq 2 ] && grep -q "bookworm" "$T/s.err" || fail "unknown suite: exit $rc, $(cat "$T/s.err")"
[ "$(host_apt)" = "$before" ] || fail "the host's apt configuration or lists changed"
sw_done "$(cat "$T/a.err")"
