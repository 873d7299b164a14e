#!/usr/bin/env bash
# bench/validate_trace.sh: the REAL writeback schedule of one native writer
# run on loop ext4, from the kernel's writeback tracepoints, beside the
# writer's own log.  Used to find what the writeback model gets wrong
# (stalewin validate's host pairs).  Root; sets
# vm.dirty_{writeback,expire}_centisecs for the run and restores them on
# exit/Ctrl-C.
#   bench/validate_trace.sh OUT WB_MS EXPIRE_MS [writer options...]
set -euo pipefail
SW_TOP=${SW_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
B=${SW_BUILD_DIR:-$SW_TOP/build}
out=$1 wb=$2 ex=$3; shift 3
mkdir -p "$out"
T=/sys/kernel/tracing
old_wb=$(cat /proc/sys/vm/dirty_writeback_centisecs)
old_ex=$(cat /proc/sys/vm/dirty_expire_centisecs)
work=$(mktemp -d /tmp/sw-vtrace.XXXXXX)
mounted_trace=0
cleanup() {
	echo "$old_wb" >/proc/sys/vm/dirty_writeback_centisecs
	echo "$old_ex" >/proc/sys/vm/dirty_expire_centisecs
	[ -d $T/instances/validity ] && { echo 0 >$T/instances/validity/tracing_on; rmdir $T/instances/validity; }
	mountpoint -q "$work/mnt" && umount "$work/mnt"
	rm -rf "$work"
	[ $mounted_trace = 1 ] && umount $T
	return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM
[ -d $T/events ] || { mount -t tracefs nodev $T; mounted_trace=1; }
mkdir -p "$work/mnt"
truncate -s 64M "$work/img"
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$work/img" >/dev/null 2>&1
mount -o loop${SW_MNT_OPTS:+,$SW_MNT_OPTS} "$work/img" "$work/mnt"
dev=$(findmnt -no MAJ:MIN "$work/mnt")
echo $((wb / 10)) >/proc/sys/vm/dirty_writeback_centisecs
echo $((ex / 10)) >/proc/sys/vm/dirty_expire_centisecs
I=$T/instances/validity
mkdir $I
echo 20000 >$I/buffer_size_kb
for e in writeback_dirty_inode_enqueue writeback_mark_inode_dirty writeback_single_inode writeback_start writeback_written writeback_queue writeback_exec writeback_wake_background writeback_lazytime; do
	echo 1 >$I/events/writeback/$e/enable
done
echo mono >$I/trace_clock
: >"$I/trace"
echo 1 >$I/tracing_on
head -c 1M /dev/zero >"$work/mnt/f"
sync -f "$work/mnt/f"
ino=$(stat -c %i "$work/mnt/f")
"$B/server/stalewin-writer" run --file "$work/mnt/f" --policy native \
	--log "$out/writer.swlog" --force "$@" >"$out/writer.out" 2>&1 || true
echo 0 >$I/tracing_on
cat $I/trace >"$out/trace.txt"
echo "dev $dev ino $ino wb $wb ex $ex" >"$out/info.txt"
