#!/usr/bin/env bash
# Description: the series' own kselftest (its last patch,
# tools/testing/selftests/{vm,mm}/mmap_cmtime.c, kselftest_harness.h
# with one FIXTURE_VARIANT per policy: eager, deferred, lang, lang-mem),
# built on the host with gcc from the patched source of the kernel cache
# and run in a guest booted with the patched kernel, in an ext4 directory
# (MMAP_CMTIME_DIR):
#   write_twice  two stores fault once; the times move at the store and at
#                fsync as the policy says (eager/lang-mem: store only,
#                deferred: fsync only, lang: both), a second fsync moves
#                nothing, a second dirty cycle behaves as the first;
#   ms_async     msync(MS_ASYNC) applies a pending update;
#   munmap       munmap() applies it;
#   exit         a process killed with the mapping in place applies it.
# 16 tests (4 x 4 variants); every one must pass, none may skip (a skip
# here means the sysctl is missing: a stock kernel fails this test).
# SW_KERNEL_BASE (default 6.1) picks the base; SW_KERNEL_VMLINUX a kernel
# to boot instead of the cached one ("stock": Debian's, to see it fail).
# The selftest comes from the cache's patched work tree when that holds
# this worktree's series, otherwise from the series' selftest patch
# applied to the pristine tree's selftests.  Skips (77) without qemu,
# mkfs.ext4, a cached patched kernel or the unpacked source.
. "$(dirname "$0")/../lib/test-lib.sh"
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$repo/tests/kernel/lib.sh"
base=${SW_KERNEL_BASE:-6.1}
vmlinux=${SW_KERNEL_VMLINUX:-}
if [ -z "$vmlinux" ] && ! vmlinux=$("$repo/vm/kernel/stalewin-vm-kernel" --print-path --base "$base" 2>/dev/null); then
	skip "no patched $base guest kernel is cached for the current vm/kernel/patches/$base; build one with ./stalewin vm kernel build --base $base, then rerun"
fi
K=${SW_KERNEL_CACHE:-/var/cache/stalewin/kernel}
W=$K; [ "$base" = 6.1 ] || W=$K/$base
src=linux-source-$base
patchdir=$repo/vm/kernel/patches/$base
stp=$(grep -l -E '^\+\+\+ b/tools/testing/selftests/(vm|mm)/mmap_cmtime\.c' "$patchdir"/*.patch | head -1 || true)
[ -n "$stp" ] || { fail "expected a patch adding tools/testing/selftests/{vm,mm}/mmap_cmtime.c in $patchdir, found none"; sw_done; }
sd=$(sed -n -E 's|^\+\+\+ b/tools/testing/selftests/(vm\|mm)/mmap_cmtime\.c.*|\1|p' "$stp" | head -1)
[ -d "$W/pristine/$src/tools/testing/selftests/$sd" ] ||
	skip "no unpacked $src under $W/pristine (./stalewin vm kernel build --base $base unpacks it)"
kernel_test_start selftest 64
# The patched tree when it holds exactly this series, else a copy of
# the pristine selftests with the selftest patch applied.
if [ -d "$W/src/applied.d" ] && [ ! -e "$W/src/.applying" ] &&
	diff -rq "$W/src/applied.d" "$patchdir" >/dev/null 2>&1; then
	st=$W/src/$src/tools/testing/selftests
	echo "selftest source: the cache's patched tree $W/src/$src"
else
	mkdir -p "$share/tree/tools/testing/selftests"
	cp "$W/pristine/$src/tools/testing/selftests/"kselftest*.h "$share/tree/tools/testing/selftests/"
	cp -r "$W/pristine/$src/tools/testing/selftests/$sd" "$share/tree/tools/testing/selftests/"
	(cd "$share/tree" && patch -p1 -s -f --no-backup-if-mismatch <"$stp") ||
		{ fail "$(basename "$stp") does not apply to the pristine $src selftests"; sw_done; }
	st=$share/tree/tools/testing/selftests
	echo "selftest source: pristine $src selftests + $(basename "$stp") (the cache's work tree holds another series)"
fi
# as the selftests' own Makefile: -Wall (the 6.1 harness is not -Wextra clean)
gcc -static -O2 -Wall -Werror -o "$share/mmap_cmtime" "$st/$sd/mmap_cmtime.c" ||
	{ fail "the selftest does not build from $st/$sd"; sw_done; }
cat >"$share/guest.sh" <<'G'
modprobe ext4 2>/dev/null
mkdir -p /mnt/e && mount -t ext4 /dev/vda /mnt/e || { echo "FATAL mount ext4"; exit 3; }
cd /mnt/e && MMAP_CMTIME_DIR=/mnt/e /sw/mmap_cmtime > /sw/result.txt 2>&1
echo "SELFTEST_RC $?" >> /sw/result.txt
cd /; umount /mnt/e
exit 0
G
set +e
"$repo/vm/boot-one.sh" --kernel "$vmlinux" --share "$share" --run "$share/guest.sh" \
	--disk "$share/ext4.img" --timeout 300 >"$share/boot.out" 2>&1
rc=$?
set -e
r=$share/result.txt
if [ ! -s "$r" ]; then
	tail -15 "$share/boot.out"
	fail "expected the selftest's output from the guest, saw none (boot-one exit $rc; its last lines above)"
	sw_done
fi
src_rc=$(sed -n 's/^SELFTEST_RC //p' "$r")
# TAP: "ok N cmtime.<variant>.<test>", skips "ok N # SKIP ..." (6.1) or
# "ok N cmtime... # SKIP ..." (7.2)
n_skip=$(grep -c -E '^ok [0-9]+ .*# SKIP' "$r" || true)
n_pass=$(grep -E '^ok [0-9]+ cmtime\.' "$r" | grep -c -v '# SKIP' || true)
grep -E '^(not ok|# Totals|# +SKIP)' "$r" | sort | uniq -c | sed 's/^/  /' || true
if [ "$src_rc" != 0 ] || [ "$n_pass" -ne 16 ] || [ "$n_skip" -ne 0 ]; then
	grep -E '^# .*(Expected|cycle|faulted)' "$r" | head -20 || true
	fail "expected 16 of 16 selftest tests to pass with $vmlinux, saw $n_pass passed, $n_skip skipped, exit ${src_rc:-none} (failures above)"
	sw_done
fi
sw_done "mmap_cmtime kselftest: 16 of 16 (write_twice, ms_async, munmap, exit x eager, deferred, lang, lang-mem) with $vmlinux"
