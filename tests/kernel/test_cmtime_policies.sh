#!/usr/bin/env bash
# Description: boots a guest with the patched kernel (vm/kernel)
# and, for each vm.mmap_cmtime_policy value, runs cmtime_check on a fresh
# ext4 mount: statx (ns) around the first store, a second store, msync
# MS_ASYNC / MS_SYNC, munmap and flusher writeback, each flush twice.  A
# kernel where deferred still updates in the fault, never applies the
# deferred update, applies it twice, where eager differs from stock
# (updates at a flush), where lang does not update at the first store,
# where lang-mem stamps again at the flush (lang's second change per
# dirty cycle; lang-mem persists the fault's times), or
# where an unknown value is accepted (not EINVAL), fails with the RESULT
# lines that differ.  Also prints per-policy cost (MEASURE lines:
# write-fault latency percentiles, jbd2 transactions, updates seen).
# SW_KERNEL_BASE (default 6.1) picks the series' base (vm/kernel/patches/B).
# Skips (77) when no patched kernel of that base is cached:
# ./stalewin vm kernel build --base B.
. "$(dirname "$0")/../lib/test-lib.sh"
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
pages=${SW_KERNEL_MEASURE_PAGES:-2000}
base=${SW_KERNEL_BASE:-6.1}

if ! vmlinux=$("$repo/vm/kernel/stalewin-vm-kernel" --print-path --base "$base" 2>/dev/null); then
	skip "no patched $base guest kernel is cached for the current vm/kernel/patches/$base; build one with ./stalewin vm kernel build --base $base (~10-12 min cold on 2 quiet cores), then rerun"
fi
. "$repo/tests/kernel/lib.sh"
kernel_test_start test 256

cat >"$share/guest.sh" <<'G'
mkdir -p /mnt/e
rc=0
for p in eager deferred lang lang-mem; do
	mount -t ext4 /dev/vda /mnt/e || { echo "mount ext4 failed"; exit 3; }
	if ! echo $p > /proc/sys/vm/mmap_cmtime_policy; then
		echo "FATAL cannot set vm.mmap_cmtime_policy=$p"; exit 4
	fi
	/sw/cmtime_check --policy $p --dir /mnt/e --measure PAGES > /sw/result-$p.txt 2>&1 || rc=1
	cat /sw/result-$p.txt
	umount /mnt/e
done
echo eager > /proc/sys/vm/mmap_cmtime_policy
exit $rc
G
sed -i "s/PAGES/$pages/" "$share/guest.sh"

set +e
"$repo/vm/boot-one.sh" --kernel "$vmlinux" --share "$share" --run "$share/guest.sh" \
	--disk "$share/ext4.img" --timeout 600 >"$share/boot.out" 2>&1
rc=$?
set -e
# a case per policy: its guest's result
check_policy() {
	local p=$1 f=$share/result-$1.txt
	if [ ! -s "$f" ]; then
		tail -15 "$share/boot.out"
		fail "expected a result for policy $p, saw none (guest exit $rc; its last output above)"
		return 0
	fi
	grep -E '^(MEASURE|SUMMARY)' "$f"
	if grep -q 'ok=0' "$f" || ! grep -q "^SUMMARY policy=$p pass=[0-9]* fail=0" "$f"; then
		grep -E 'ok=0|cmtime_check:' "$f" || tail -5 "$f"
		fail "expected every check of policy $p to pass, saw the lines above"
	fi
}
for p in eager deferred lang lang-mem; do
	sw_case "$p" check_policy "$p"
done
[ "$rc" -eq 0 ] || { tail -15 "$share/boot.out"; fail "expected guest exit 0, saw $rc (its last output above)"; }
sw_done "eager, deferred, lang, lang-mem semantics on ext4 with $vmlinux"
