#!/usr/bin/env bash
# Description: vm/kernel/stalewin-vm-kernel on bad input, with
# no kernel compiled:
#   --base 7  (not MAJOR.MINOR)          exit 2, says what it expected;
#   --base 5.10 (no linux-source-5.10 in the suites vm/apt-private knows)
#                                        exit 2, names the package and the
#                                        suites searched;
#   a series that does not apply (the other base's series, in a copy of
#   vm/kernel)                           exit 1, names the patch, the file
#                                        and the hunk, and leaves no key
#                                        folder and the work tree as it was;
#   not enough disk (SW_KERNEL_CACHE on a 64 MiB tmpfs)
#                                        exit 1, says how much is needed,
#                                        and nothing is created but the
#                                        empty cache root.
# Parts skip (77, saying why) when the machine lacks what they need: the
# Debian mirror (5.10), an unpacked pristine tree of a base (bad series),
# root for the tmpfs (disk).
# Cases: base-7, base-5.10, bad-series, disk.
. "$(dirname "$0")/../lib/test-lib.sh"
sw_immediate=1
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tool=$repo/vm/kernel/stalewin-vm-kernel
K=${SW_KERNEL_CACHE:-/var/cache/stalewin/kernel}
tmp=$(mktemp -d /tmp/sw-kernel-bad.XXXXXX)
mnt=
cleanup() { [ -z "$mnt" ] || umount "$mnt" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
skips=()

# expect RC PATTERN CMD...: exit status RC and stderr matching PATTERN
expect() {
	local rc=$1 pat=$2 got; shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"; got=$?
	[ "$got" -eq "$rc" ] || fail "$* exited $got, expected $rc: $(cat "$tmp/err")"
	grep -qE -e "$pat" "$tmp/err" || fail "$*: expected a message matching '$pat', saw: $(cat "$tmp/err")"
	echo "$* -> exit $rc: $(head -1 "$tmp/err")"
}

base_7() {
	expect 2 "--base: expected a kernel version MAJOR.MINOR .*got '7'" "$tool" build --base 7
}

# 5.10: every suite must answer "no such package"; a mirror that cannot be
# reached is a skip, not a pass.
base_5_10() {
	local rc
	"$tool" build --base 5.10 >"$tmp/out" 2>"$tmp/err"; rc=$?
	if [ "$rc" -eq 1 ] && grep -q 'could not look for' "$tmp/err"; then
		skips+=("5.10: the Debian mirror did not answer ($(cat "$tmp/err"))")
	else
		[ "$rc" -eq 2 ] || fail "build --base 5.10 exited $rc, expected 2: $(cat "$tmp/err")"
		grep -qE 'no source package reachable: linux-source-5\.10 is in none of the suites .*sid' "$tmp/err" ||
			fail "build --base 5.10: expected the package and the suites named, saw: $(cat "$tmp/err")"
		echo "build --base 5.10 -> exit 2: $(cat "$tmp/err")"
	fi
}

# A series that does not apply: the other base's series, in a copy of
# vm/kernel whose apt-private is the repo's.
bad_series() {
	local b="" c other h w before
	for c in 7.2 6.1; do
		if [ "$c" = 6.1 ]; then [ -f "$K/pristine/.complete" ] && { b=$c; break; }
		else [ -s "$K/$c/pristine/.complete" ] && { b=$c; break; }; fi
	done
	if [ -z "$b" ]; then
		skips+=("bad series: no unpacked pristine tree under $K (./stalewin vm kernel build --base 7.2 unpacks one)")
		return
	fi
	other=6.1; [ "$b" = 6.1 ] && other=7.2
	mkdir -p "$tmp/copy/vm/kernel/patches/$b"
	cp "$repo/vm/kernel/stalewin-vm-kernel" "$repo/vm/kernel/source.sh" "$repo/vm/kernel/packages.txt" \
		"$repo/vm/kernel/config.fragment" "$tmp/copy/vm/kernel/"
	ln -s "$repo/vm/apt-private" "$tmp/copy/vm/apt-private"
	cp "$repo/vm/kernel/patches/$other"/*.patch "$tmp/copy/vm/kernel/patches/$b/"
	h=$("$tmp/copy/vm/kernel/stalewin-vm-kernel" --print-hash --base "$b") || fail "--print-hash --base $b failed"
	w=$K; [ "$b" = 6.1 ] || w=$K/$b
	before=$(ls -l --time-style=+%s.%N "$w/src/applied.d" 2>/dev/null | md5sum)
	expect 1 "patch 0001-[^ ]+\.patch does not apply to linux-source-$b [^:]+: [a-z0-9_/.-]+, hunk #[0-9]+ \(at line [0-9]+\) failed" \
		"$tmp/copy/vm/kernel/stalewin-vm-kernel" build --base "$b"
	[ ! -e "$K/$h" ] || fail "a key folder $K/$h was left for the series that does not apply"
	[ "$before" = "$(ls -l --time-style=+%s.%N "$w/src/applied.d" 2>/dev/null | md5sum)" ] ||
		fail "the work tree's applied series ($w/src/applied.d) changed although the series did not apply"
	[ ! -e "$w/src/.applying" ] || fail "the work tree $w/src was left half-patched"
}

# Not enough disk: a 64 MiB tmpfs as the cache root.
disk() {
	local left
	if [ "$(id -u)" -ne 0 ]; then
		skips+=("disk: mounting a tmpfs needs root")
		return
	fi
	mnt=$tmp/tiny; mkdir -p "$mnt"
	mount -t tmpfs -o size=64m tmpfs "$mnt" || fail "cannot mount a tmpfs on $mnt"
	expect 1 "not enough disk under $mnt/k: need about [0-9]+ GiB for base 6.1 .*[0-9]+ MiB free" \
		env SW_KERNEL_CACHE="$mnt/k" "$tool" build --base 6.1
	left=$(cd "$mnt" && find . -mindepth 1 ! -path ./k | head -3)
	[ -z "$left" ] || fail "the failed build left files in its cache root: $left"
}

sw_case base-7 base_7
sw_case base-5.10 base_5_10
sw_case bad-series bad_series
sw_case disk disk
if [ ${#skips[@]} -gt 0 ]; then
	printf 'not checked: %s\n' "${skips[@]}"
	[ ${#skips[@]} -ge 3 ] && skip "$(printf '%s; ' "${skips[@]}")"
	sw_done "partly: the parts that could run passed"
fi
sw_done "bad base, unknown base, bad series and full disk all refused clearly"
