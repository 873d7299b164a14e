#!/usr/bin/env bash
# Description: a filesystem the server guest cannot make (mkfs.xfs absent
# from the image, injected with SW_VM_FAULT=mkfs-xfs) fails `vm run --fs
# xfs` with one clear cause naming mkfs.xfs and the package, within the
# boot time, and leaves no qemu running.  ~25 s.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d /tmp/sw-vm-fsfault.XXXXXX)
trap 'rm -rf "$T"' EXIT
SW_VM_FAULT=mkfs-xfs timeout 200 "$top/vm/run.sh" --policy native --fs xfs --duration 2 --no-report \
	--build-dir "$b" --out "$T/run" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] || { cat "$T/err"; fail "exit $rc (1 expected)"; }
grep -q "filesystem xfs: mkfs.xfs is not in the guest image (host package xfsprogs" "$T/err" ||
	fail "the message does not name mkfs.xfs and xfsprogs: $(head -3 "$T/err")"
for f in "$T"/run/vm/*.pid; do
	p=$(cat "$f")
	if kill -0 "$p" 2>/dev/null && grep -q qemu "/proc/$p/cmdline" 2>/dev/null; then
		kill -KILL "$p"; fail "qemu PID $p ($f) was left running"
	fi
done
sw_done "$(grep -m1 "mkfs.xfs is not" "$T/err")"
