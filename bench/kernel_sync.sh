#!/usr/bin/env bash
# bench/kernel_sync.sh - what a data sync costs after a store through a
# shared mapping, per vm.mmap_cmtime_policy, on the patched guest kernel
# (the review's crash window, vm/kernel/README.md: 0008 makes writeback
# wait for the journal commit of the deferred update before it writes the
# data).
#
#   bench/kernel_sync.sh [--json] [--base 6.1|7.2] [--kernel VMLINUX]
#                        [--ordering 0|1]
#
# --ordering sets vm.mmap_cmtime_ordering in the guest (default 1: this
# bench measures 0008's wait; 0 measures AS_CMTIME alone); a kernel from
# before the switch has no such file and keeps what it was built with.
# Key sync_ordering: the value set, or "built-in" for such a kernel.
#
# Boots the patched kernel of the base (or VMLINUX, e.g. an older build to
# compare) with an ext4 disk and runs bench/kernel_sync/synclat.c: 100
# rounds of store + fsync and of store + sync_file_range per policy.
# Keys: sync_<policy>_<fsync|sfr>_p50_us / _p90_us / _max_us, and the
# ratios sync_<deferred|lang>_<mode>_p50_vs_eager (same boot, same disk).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$here/..
json=0 base=6.1 vmlinux="" ordering=1
while [ $# -gt 0 ]; do
	case $1 in
	--json) json=1 ;;
	--base) base=${2:?--base needs 6.1 or 7.2}; shift ;;
	--kernel) vmlinux=${2:?--kernel needs a vmlinux path}; shift ;;
	--ordering)
		ordering=${2:-}
		[ "$ordering" = 0 ] || [ "$ordering" = 1 ] ||
			{ echo "bench/kernel_sync.sh: --ordering: expected 0 or 1, saw '$ordering'" >&2; exit 2; }
		shift ;;
	*) echo "bench/kernel_sync.sh: unknown argument '$1' (expected --json, --base B, --kernel VMLINUX, --ordering 0|1)" >&2; exit 2 ;;
	esac
	shift
done
if [ -z "$vmlinux" ]; then
	vmlinux=$("$repo/vm/kernel/stalewin-vm-kernel" --print-path --base "$base") ||
		{ echo "bench/kernel_sync.sh: no patched $base kernel cached; ./stalewin vm kernel build --base $base" >&2; exit 1; }
fi
[ -f "$vmlinux" ] || { echo "bench/kernel_sync.sh: expected a vmlinux at $vmlinux, none" >&2; exit 1; }
share=$(mktemp -d /tmp/sw-bench-ksync.XXXXXX)
trap 'rm -rf "$share"' EXIT
gcc -static -O2 -std=gnu11 -Wall -Wextra -Werror -o "$share/synclat" "$here/kernel_sync/synclat.c"
truncate -s 256M "$share/ext4.img"
mkfs.ext4 -q -F "$share/ext4.img"
echo "ord=$ordering" >"$share/guest.sh"
cat >>"$share/guest.sh" <<'G'
mkdir -p /mnt/e
mount -t ext4 /dev/vda /mnt/e || { echo "FATAL mount ext4"; exit 3; }
o=/proc/sys/vm/mmap_cmtime_ordering
if [ -e $o ]; then
	echo $ord > $o || { echo "FATAL ordering $ord"; exit 4; }
	echo "ORDERING $(cat $o)"
else
	echo "ORDERING built-in"
fi
for p in eager deferred lang; do
	echo $p >/proc/sys/vm/mmap_cmtime_policy || { echo "FATAL policy $p"; exit 4; }
	for m in fsync sfr; do
		echo "POLICY $p $(/sw/synclat /mnt/e/f $m 100)"
	done
done
umount /mnt/e
exit 0
G
"$repo/vm/boot-one.sh" --kernel "$vmlinux" --share "$share" --run "$share/guest.sh" \
	--disk "$share/ext4.img" --timeout 600 >"$share/boot.out" 2>&1 ||
	{ tail -20 "$share/boot.out" >&2; echo "bench/kernel_sync.sh: the guest run failed" >&2; exit 1; }
n=$(grep -c '^POLICY .* LAT ' "$share/boot-one.out" || true)
[ "$n" -eq 6 ] || { grep -E 'FATAL|synclat' "$share/boot-one.out" >&2; echo "bench/kernel_sync.sh: expected 6 LAT lines from the guest, saw $n" >&2; exit 1; }
# POLICY p LAT mode=m n=N p50_us=a p90_us=b max_us=c -> JSON
grep '^POLICY .* LAT ' "$share/boot-one.out" |
	sed 's/^POLICY \([a-z]*\) LAT mode=\([a-z]*\) n=[0-9]* p50_us=\([0-9]*\) p90_us=\([0-9]*\) max_us=\([0-9]*\).*/\1 \2 \3 \4 \5/' |
	jq -R -s --arg k "$vmlinux" --arg ord "$(sed -n 's/^ORDERING //p' "$share/boot-one.out" | head -1)" --argjson load "$(cut -d' ' -f1 /proc/loadavg)" '
	[split("\n")[] | select(length > 0) | split(" ")] as $rows
	| ([$rows[] | {("sync_\(.[0])_\(.[1])_p50_us"): (.[2] | tonumber),
		       ("sync_\(.[0])_\(.[1])_p90_us"): (.[3] | tonumber),
		       ("sync_\(.[0])_\(.[1])_max_us"): (.[4] | tonumber)}] | add) as $v
	| $v + ([["deferred", "lang"][] as $p | ["fsync", "sfr"][] as $m
		| {("sync_\($p)_\($m)_p50_vs_eager"):
		   (($v["sync_\($p)_\($m)_p50_us"] / ([$v["sync_eager_\($m)_p50_us"], 1] | max)) * 100 | round / 100)}] | add)
	+ {sync_kernel: $k, sync_loadavg_after: $load, sync_ordering: $ord}' >"$share/out.json"
if [ $json = 1 ]; then
	cat "$share/out.json"
else
	jq -r 'to_entries[] | "\(.key)\t\(.value)"' "$share/out.json"
fi
