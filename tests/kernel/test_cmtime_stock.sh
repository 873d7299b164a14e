#!/usr/bin/env bash
# Description: the reference for the patched kernel's eager policy: boots
# a guest with Debian's stock kernel and runs cmtime_check --policy stock
# on ext4 (statx ns around first store, second store, msync MS_ASYNC /
# MS_SYNC, munmap, flusher writeback).  Stock Linux must update at the
# first store only and must not have /proc/sys/vm/mmap_cmtime_policy; a
# harness or checker that misreads timestamps fails here without any
# patched kernel involved.  Skips (77) without qemu or the guest image.
. "$(dirname "$0")/../lib/test-lib.sh"
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$repo/tests/kernel/lib.sh"
kernel_test_start stock 128
cat >"$share/guest.sh" <<'G'
modprobe ext4 2>/dev/null
mkdir -p /mnt/e && mount -t ext4 /dev/vda /mnt/e || { echo "mount ext4 failed"; exit 3; }
/sw/cmtime_check --policy stock --dir /mnt/e --measure 500 > /sw/result.txt 2>&1
rc=$?
cat /sw/result.txt
umount /mnt/e
exit $rc
G
set +e
"$repo/vm/boot-one.sh" --kernel stock --share "$share" --run "$share/guest.sh" \
	--disk "$share/ext4.img" --timeout 240 >"$share/boot.out" 2>&1
rc=$?
set -e
if [ ! -s "$share/result.txt" ]; then
	tail -15 "$share/boot.out"
	fail "expected a result from the stock guest, saw none (exit $rc; its last lines above)"
	sw_done
fi
grep -E '^(MEASURE|SUMMARY)' "$share/result.txt"
if [ "$rc" -ne 0 ] || grep -q 'ok=0' "$share/result.txt"; then
	grep -E 'ok=0|cmtime_check:' "$share/result.txt" || tail -5 "$share/result.txt"
	fail "expected the stock kernel to pass every check (exit 0), saw exit $rc and the lines above"
	sw_done
fi
sw_done "stock kernel behaves as eager on ext4, no mmap_cmtime_policy sysctl"
