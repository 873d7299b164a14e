#!/usr/bin/env bash
# Description: boots a guest with the patched kernel (vm/kernel) and runs
# tests/kernel/cmtime_cases (cmtime_cases.c, cmtime_cases_paths.c) on the
# cases the review of the series found (vm/kernel/README.md), mtime and
# ctime checked separately with statx:
#   same-tick   (deferred, lang; also on nodelalloc and
#               lazytime mounts): a second store and MS_ASYNC within the
#               tick of the first flush must move mtime and ctime again;
#   query-flush (deferred, lang): store, statx, flush (msync(MS_ASYNC),
#               then writeback by sync_file_range) in the tick of the ctime
#               seen, statx: mtime and ctime moved (7.2: multigrain gives
#               the flush a fine-grained stamp; 6.1 waits a tick);
#   freeze      (deferred): store, FIFREEZE, FITHAW, flusher: times moved;
#   durability  (deferred, lang): store+munmap in one tick, data written
#               back, EXT4_IOC_SHUTDOWN(LOGFLUSH), remount: the persisted
#               mtime/ctime are not older than the persisted data;
#   crash       (deferred, lang): a store through a mapping kept open,
#               data written back (sync_file_range), then
#               EXT4_IOC_SHUTDOWN(NOLOGFLUSH), a crash before the next
#               journal commit; after the remount the persisted times are
#               not older than the data (the flush journals and commits
#               the times before the data goes out: patch 0008, with
#               vm.mmap_cmtime_ordering=1; with it off the outcome is
#               printed as INFO, not asserted: it depends on whether a
#               commit falls in between);
#   ordering    vm.mmap_cmtime_ordering is 0 at boot and refuses 2;
#               same-tick and query-flush run with it off and on, every
#               other case with it off (AS_CMTIME alone);
#   journal     (every policy): jbd2_handle_start events per N first stores
#               (eager >= N/2, deferred/lang <= 2) and per flush (<= 4);
#   exit        (deferred): a child's store is applied when it exits;
#   pageout     (deferred): MADV_PAGEOUT's unmap records the store, fsync
#               applies it;
#   migrate     (deferred): move_pages() to the other node (the guest boots
#               with numa=fake=2) records the store, fsync applies it;
#   stockfs     (every policy): tmpfs, not opted in, updates at the
#               first store as stock Linux does;
#   xfs         (every policy; patch 0018): xfs opts in:
#               cmtime_check's table (under lang and lang-mem the fault
#               stamps in xfs's own transaction, which the table's first
#               row expects), then the ext3 case's store, munmap, fsync,
#               sync and its durability after a remount;
#   ext3        (every policy): an ext3 image (mkfs.ext3) mounted without
#               -t and with -t ext3, served by the ext4 driver under the
#               ext3 type: store, munmap, fsync, sync must move mtime and
#               ctime, and a remount must show them (durability-verify).
#               Where only the ext4 type has multigrain timestamps (6.13+:
#               7.2) such a mapping cannot opt in and must be plain eager
#               (times moved at the store under every policy); on 6.1 it
#               opts in like any ext4 mapping.  No WARNING may appear in
#               dmesg while the ext3 mounts run (review 2, N1);
#   nfs         (every policy): a knfsd loopback NFSv4.2 client that cached
#               the file sees a local store at its next open under eager,
#               lang and lang-mem, only after msync(MS_ASYNC) under deferred;
#   lang-mem    (patch 0009): journal, durability, and crash with the
#               ordering on: the fault's in-memory times are the ones
#               persisted, not lost and not older than the data;
#   race        (deferred, lang; ordering on; review 2, N2):
#               a writer thread stores the coarse time into a kept
#               mapping in a loop while sync_file_range writes the file
#               back; shutdown without log flush, remount: the time the
#               persisted data carries is not newer than the persisted
#               mtime/ctime, SW_RACE_N (default 8) rounds per policy.  The
#               guest has one CPU, so the writer runs whenever writeback
#               sleeps in the commit wait (patch 0011 closes it).
#               lang-mem runs too, printed, not asserted: it persists the
#               first fault's time of a dirty cycle, so the data of later
#               stores in the same cycle is newer than it by design;
#   walk        (eager, deferred; ordering on; review 2, P1): a 128 MiB
#               file mapped shared, a store in every page, the flusher
#               cleans it in chunks (dirty_bytes 64 MiB, background 32 MiB,
#               expire 1 s); the tracepoint mmap_cmtime_mkclean sums the
#               pages of the folios the writeback's dirty-pte walk
#               write-protected: at most 150 per 100 pages stored
#               under deferred (a walk over every
#               dirty folio per ->writepages() call is quadratic), none
#               under eager; SW_CMTIME_CASES_ONLY=walk adds lang and runs
#               SW_WALK_N (default 1) rounds per policy;
#   lazytime    (eager, deferred; ordering on; review 2, N4): the crash
#               case on a lazytime mount, printed (INFO), not asserted:
#               the flush stamps in memory only (I_DIRTY_TIME), so the
#               ordering commits nothing and the data goes out first;
#               and the same with fsync for the writeback (fsync-crash,
#               ordering off and on), asserted: fsync makes the times
#               durable (before patch 0015, under deferred, it left them
#               in memory only);
#   journal-crash (eager, deferred; data=journal; ordering on; review 2,
#               N3): a store through a kept mapping, no writeback call, 7 s
#               for the journal's periodic commit, shutdown without log
#               flush, remount: the times persisted are not older than
#               the data.  Before patch 0012 deferred left the new data
#               with old times (the commit writes data=journal data
#               without ->writepages()); journalled data is now eager;
#   mount-option (patch 0013; cmtime_cases_mount.c): the ext4 mount option
#               mmap_cmtime=fault|writeback|lazy|lazy-mem, with the sysctl
#               set to eager and then to deferred: a mount given a value
#               follows it (fault and lazy move the times at the first
#               store, writeback only at msync(MS_ASYNC), fsync or munmap;
#               writeback and lazy move them at that flush, fault and
#               lazy-mem do not), /proc/mounts shows mmap_cmtime=VALUE, a
#               remount asking for another value fails (and dmesg says
#               why) leaving the behaviour as it was, a remount with the
#               same value is accepted; a mount without the option follows
#               the sysctl, shows none and cannot be given one by a
#               remount; mmap_cmtime=bogus does not mount and dmesg names
#               the four values; with the sysctl flipped between the store
#               and the flush (mount-option-flip) every mount given a
#               value still behaves as its value says; without the option
#               a flip to eager drops the pending update (documented;
#               printed as INFO no-option flip, not asserted);
#   nfile-sync  (eager, deferred; ordering 0 and 1; review 2, P2;
#               cmtime_cases_cost.c): a store to each of SW_NFILE_N
#               (default 1000) mapped one-page files on an ext4 mount with
#               commit=300, then sync(2), then a second store to each and
#               a flusher pass alone: jbd2_start_commit events of that
#               journal.  Every sync commits at least once; eager or the
#               ordering off at most 4 per sync and per flusher pass;
#               deferred with the ordering on at least N/2 for each (the
#               defect's signature: a commit per file; the async rework
#               must turn this into the bound);
#   lazy-commit (eager, deferred; ordering 0 and 1; review 2, P4): on a
#               lazytime,commit=300 mount, a store, then sync_file_range
#               or fsync, from an inode whose last transaction committed
#               and from one just touched (fchmod): no commit during
#               sync_file_range, at most fsync's own during fsync (the
#               ordering waited for the fchmod's transaction before patch
#               0016: one more each, touched, deferred, ordering on);
# and cmtime_check's basic semantics under deferred on the nodelalloc and
# lazytime mounts; on data=journal, eager under deferred (patch 0012).
# A kernel with any of the review's
# defects prints RESULT ... ok=0 lines and fails here.
# SW_KERNEL_BASE (default 6.1) picks the series' base (vm/kernel/patches/B).
# SW_CMTIME_CASES_ONLY=race, journal-crash, walk or mount-option runs only
# that case;
# nfile-sync runs nfile-sync for eager, deferred, lang and lang-mem,
# ordering 0 and 1, and lazy-commit, SW_RACE_N rounds each, and prints
# each round's many-commit syncs' time over the median of its
# few-commit syncs (a ratio within one boot);
# lazytime-crash (printed, N4) runs the crash case, with sync_file_range
# and with fsync, the ordering on, on a lazytime mount, SW_RACE_N rounds
# of eager and deferred;
# msync-loop (a measurement, P3) prints per policy (eager, deferred, lang)
# and round (SW_RACE_N) 1000 x (store; msync(MS_ASYNC)): its write faults
# and its time in ticks of the coarse clock, and the ratio to eager's;
# race-rate (no check, a measurement) prints the writer's stores in 1 s
# with writebacks every 50 ms over those in 1 s alone, SW_RACE_N rounds
# per policy (eager, deferred) and ordering (0, 1).
# Skips (77) when no patched kernel of that base is cached:
# ./stalewin vm kernel build --base B.
. "$(dirname "$0")/../lib/test-lib.sh"
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
base=${SW_KERNEL_BASE:-6.1}
vmlinux=${SW_KERNEL_VMLINUX:-}
if [ -z "$vmlinux" ] && ! vmlinux=$("$repo/vm/kernel/stalewin-vm-kernel" --print-path --base "$base" 2>/dev/null); then
	skip "no patched $base guest kernel is cached for the current vm/kernel/patches/$base; build one with ./stalewin vm kernel build --base $base, then rerun"
fi
for t in qemu-system-x86_64 mkfs.ext4 mkfs.ext3 mkfs.xfs; do
	command -v $t >/dev/null || skip "$t missing"
done
share=$(mktemp -d /tmp/sw-kernel-cases.XXXXXX)
trap 'rm -rf "$share"' EXIT
cp "$repo/vm/guest/knfsd.sh" "$share/knfsd.sh"
k=$repo/tests/kernel
gcc -static -O2 -std=gnu11 -Wall -Wextra -Werror -I"$repo/server/cost" -o "$share/cmtime_cases" \
	"$k/cmtime_cases.c" "$k/cmtime_cases_paths.c" "$k/cmtime_cases_race.c" "$k/cmtime_cases_cost.c" \
	"$k/cmtime_cases_mount.c" \
	"$k/cmtime_lib.c" \
	"$repo/server/cost/tracefs.c" -lpthread
only=${SW_CMTIME_CASES_ONLY:-}
case $only in
'' | race | journal-crash | race-rate | walk | msync-loop | lazytime-crash | mount-option | nfile-sync) ;;
*) fail "SW_CMTIME_CASES_ONLY: expected race, journal-crash, race-rate, walk, msync-loop, lazytime-crash, mount-option or nfile-sync, saw '$only'"; sw_done ;;
esac
nfile_n=${SW_NFILE_N:-1000}
[[ "$nfile_n" =~ ^[1-9][0-9]*$ ]] || { fail "SW_NFILE_N: expected a positive count of files, saw '$nfile_n'"; sw_done; }
echo "${only:-all} ${SW_RACE_N:-8} ${SW_WALK_N:-1} $nfile_n" >"$share/mode"
gcc -static -O2 -std=gnu11 -Wall -Wextra -Werror -o "$share/cmtime_check" "$k/cmtime_check.c" "$k/cmtime_lib.c"
truncate -s 256M "$share/ext4.img"
mkfs.ext4 -q -F "$share/ext4.img"
truncate -s 320M "$share/xfs.img"
mkfs.xfs -q -f "$share/xfs.img"
truncate -s 64M "$share/ext3.img"
mkfs.ext3 -q -F "$share/ext3.img"

cat >"$share/guest.sh" <<'G'
C=/sw/cmtime_cases
mkdir -p /mnt/e /mnt/x /mnt/t /sys/kernel/tracing
mount -t tracefs tracefs /sys/kernel/tracing || echo "FATAL no tracefs"
pol() { echo "$1" > /proc/sys/vm/mmap_cmtime_policy || { echo "FATAL cannot set policy $1"; exit 4; }; }
ord() { echo "$1" > /proc/sys/vm/mmap_cmtime_ordering || { echo "FATAL cannot set ordering $1"; exit 4; }; }
run() { "$@" || echo "CASEFAIL rc=$? $*"; }
# A kernel built with lockdep (./stalewin vm kernel build --lockdep): a
# report it made while the cases ran fails them, and so does lockdep
# having switched itself off (debug_locks 0 after a first report)
lockdep_check() {
	local re='possible (circular|recursive) locking|inconsistent lock state|BUG: sleeping function|suspicious RCU usage|bad unlock balance|held lock freed|lock held when returning'
	[ -r /proc/lockdep_stats ] || return 0
	# the whole report: the locks held and the stacks say where
	dmesg | grep -E -A70 "$re" | head -90 | sed 's/^/CASEFAIL lockdep: /'
	if grep -Eq 'debug_locks: *1$' /proc/lockdep_stats; then
		echo "INFO lockdep on: $(dmesg | grep -cE "$re") reports, debug_locks 1, $(sed -n 's/^ *lock-classes: *//p' /proc/lockdep_stats | head -1) lock classes"
	else
		echo "CASEFAIL lockdep: debug_locks is not 1 (lockdep switched itself off): $(grep debug_locks /proc/lockdep_stats)"
	fi
}
trap lockdep_check EXIT
read -r M RACE_N WALK_N NFILE_N < /sw/mode
# P1: the writeback walk's folio count over a background clean-up of a
# 128 MiB mapped file, the ordering on; $1 the policies
walk_block() {
	local v=/proc/sys/vm p i
	local r0 b0 e0 w0
	r0=$(cat $v/dirty_ratio) b0=$(cat $v/dirty_background_ratio)
	e0=$(cat $v/dirty_expire_centisecs) w0=$(cat $v/dirty_writeback_centisecs)
	mount -t ext4 /dev/vda /mnt/e || { echo "FATAL mount ext4 for walk"; exit 3; }
	echo $((64 << 20)) > $v/dirty_bytes
	echo $((32 << 20)) > $v/dirty_background_bytes
	echo 100 > $v/dirty_expire_centisecs
	echo 50 > $v/dirty_writeback_centisecs
	for p in $1; do
		pol $p; ord 1
		for i in $(seq 1 "$WALK_N"); do
			run $C walk --policy $p --dir /mnt/e
		done
	done
	ord 0; pol eager
	echo "$r0" > $v/dirty_ratio; echo "$b0" > $v/dirty_background_ratio
	echo "$e0" > $v/dirty_expire_centisecs; echo "$w0" > $v/dirty_writeback_centisecs
	umount /mnt/e
}
# N2: a writer storing during the ordered writeback's commit wait
race_block() {
	mount -t ext4 /dev/vda /mnt/e || { echo "FATAL mount ext4 for race"; exit 3; }
	for p in deferred lang lang-mem; do
		pol $p; ord 1
		for i in $(seq 1 "$RACE_N"); do
			run $C race-prepare --policy $p --dir /mnt/e
			umount /mnt/e; mount -t ext4 /dev/vda /mnt/e || { echo "FATAL remount ext4"; exit 3; }
			# lang-mem persists the first fault's time of a dirty
			# cycle (as eager does): later stores of the cycle
			# carry later times by design, so the check does not
			# apply; printed only
			if [ $p = lang-mem ]; then
				$C race-verify --policy $p --dir /mnt/e 2>&1 |
					sed 's/^/INFO lang-mem, not asserted: /'
			else
				run $C race-verify --policy $p --dir /mnt/e
			fi
		done
	done
	ord 0; pol eager
	umount /mnt/e
}
# N3: data=journal data made durable by the journal's commit alone;
# $1=1 asserts, 0 prints the outcome as INFO (an open finding)
jcrash_block() {
	for p in eager deferred; do
		pol $p; ord 1
		mount -t ext4 -o data=journal /dev/vda /mnt/e || { echo "CASEFAIL mount -o data=journal"; continue; }
		run $C journal-crash-prepare --policy $p --dir /mnt/e
		umount /mnt/e
		mount -t ext4 -o data=journal /dev/vda /mnt/e || { echo "FATAL remount data=journal"; exit 3; }
		if [ "$1" = 1 ]; then
			run $C durability-verify --policy $p --dir /mnt/e
		else
			$C durability-verify --policy $p --dir /mnt/e 2>&1 |
				sed 's/^/INFO open (N3, data=journal), not asserted: /'
		fi
		umount /mnt/e
	done
	ord 0; pol eager
}
# the mount option mmap_cmtime= (patch 0013): checks as RESULT lines,
# $1 the value (or the sysctl's equivalent), $2 the check, $3 expected, $4 seen
mres() {
	local ok=0
	[ "$3" = "$4" ] && ok=1
	echo "RESULT policy=$1 check=mount-option.$2 expect=$3 seen=$4 ok=$ok"
}
# the mmap_cmtime= value /proc/mounts shows for /mnt/e, "none" without one
mopt() {
	awk '$2 == "/mnt/e" { n = split($4, o, ","); v = "none"
		for (i = 1; i <= n; i++) if (o[i] ~ /^mmap_cmtime=/) v = substr(o[i], 13)
		print v }' /proc/mounts
}
# dmesg lines matching $1
kmsgs() { dmesg | grep -c -- "$1"; }
mount_block() {
	local g v w rc n0 refused='Cannot change mmap_cmtime on remount'
	for g in eager deferred; do
		pol $g
		for v in fault writeback lazy lazy-mem; do
			mount -t ext4 -o mmap_cmtime=$v /dev/vda /mnt/e ||
				{ echo "CASEFAIL mount -o mmap_cmtime=$v"; continue; }
			echo "INFO mount-option sysctl=$g mount=$v"
			mres $v sysctl_$g.proc_mounts $v "$(mopt)"
			run $C mount-option --policy $v --dir /mnt/e
			# another value: refused, and said so; nothing changed
			w=writeback
			[ $v = writeback ] && w=fault
			n0=$(kmsgs "$refused")
			mount -o remount,mmap_cmtime=$w /mnt/e 2>/dev/null
			rc=$?
			mres $v sysctl_$g.remount_$w.refused 1 $((rc != 0))
			mres $v sysctl_$g.remount_$w.kernel_message 1 $(($(kmsgs "$refused") - n0))
			mres $v sysctl_$g.remount_$w.proc_mounts $v "$(mopt)"
			run $C mount-option --policy $v --dir /mnt/e
			# the same value again: accepted
			mount -o remount,mmap_cmtime=$v /mnt/e 2>/dev/null
			mres $v sysctl_$g.remount_same.exit 0 $?
			# the sysctl flipped while an update is pending: the
			# mount's value still decides
			run $C mount-option-flip --policy $v --dir /mnt/e
			pol $g
			umount /mnt/e
		done
		# without the option the sysctl decides, and a remount cannot
		# fix a value on it
		v=fault
		[ $g = deferred ] && v=writeback
		mount -t ext4 /dev/vda /mnt/e || { echo "CASEFAIL mount ext4"; continue; }
		echo "INFO mount-option sysctl=$g mount=(none): behaves as $v"
		mres $v sysctl_$g.no_option.proc_mounts none "$(mopt)"
		run $C mount-option --policy $v --dir /mnt/e
		n0=$(kmsgs "$refused")
		mount -o remount,mmap_cmtime=lazy /mnt/e 2>/dev/null
		rc=$?
		mres $v sysctl_$g.no_option.remount_lazy.refused 1 $((rc != 0))
		mres $v sysctl_$g.no_option.remount_lazy.kernel_message 1 $(($(kmsgs "$refused") - n0))
		mres $v sysctl_$g.no_option.remount_lazy.proc_mounts none "$(mopt)"
		# without the option a flip to eager drops the pending update
		# (documented, vm.rst): printed, not asserted
		if [ $g = deferred ]; then
			$C mount-option-flip --policy $v --dir /mnt/e |
				sed -n 's/^RESULT policy=\([^ ]*\) check=\([^ ]*\.flush\.[^ ]*\) .*seen=\([^ ]*\).*/INFO no-option flip to eager: \2 moved=\3/p'
			pol $g
		fi
		umount /mnt/e
	done
	pol eager
	# an unknown value does not mount, and the message names the values
	n0=$(kmsgs 'mmap_cmtime=bogus: unknown value (expected fault, writeback, lazy or lazy-mem)')
	if mount -t ext4 -o mmap_cmtime=bogus /dev/vda /mnt/e 2>/dev/null; then
		mres bogus mount_refused 1 0
		umount /mnt/e
	else
		mres bogus mount_refused 1 1
	fi
	mres bogus kernel_message 1 $(($(kmsgs 'mmap_cmtime=bogus: unknown value (expected fault, writeback, lazy or lazy-mem)') - n0))
	dmesg | grep -E 'mmap_cmtime' | tail -3 | sed 's/^/INFO dmesg: /'
}
# P2: jbd2 commits of one sync(2), and of one flusher pass, after a store
# to each of NFILE_N mapped files, per policy and ordering; commit=300 so
# that no periodic commit falls in.  P4: on a lazytime mount, the commits
# a writeback forces when the flush journalled nothing.  $1 the rounds,
# $2 the policies.
nfile_block() {
	local p o i
	mount -t ext4 -o commit=300 /dev/vda /mnt/e || { echo "FATAL mount ext4 commit=300"; exit 3; }
	for i in $(seq 1 "$1"); do
		for p in $2; do
			for o in 0 1; do
				pol $p; ord $o
				run $C nfile-sync --policy $p --dir /mnt/e --files "$NFILE_N"
			done
		done
	done
	umount /mnt/e
	if ! mount -t ext4 -o lazytime,commit=300 /dev/vda /mnt/e; then
		echo "CASEFAIL mount -o lazytime,commit=300"
		ord 0; pol eager
		return
	fi
	for i in $(seq 1 "$1"); do
		for p in eager deferred; do
			for o in 0 1; do
				pol $p; ord $o
				run $C lazy-commit --policy $p --dir /mnt/e
			done
		done
	done
	ord 0; pol eager
	umount /mnt/e
}
if [ "$M" = nfile-sync ]; then nfile_block "$RACE_N" "eager deferred lang lang-mem"; exit 0; fi
if [ "$M" = mount-option ]; then mount_block; exit 0; fi
if [ "$M" = race ]; then race_block; exit 0; fi
if [ "$M" = walk ]; then walk_block "eager deferred lang"; exit 0; fi
# a measurement (P3): 1000 x (store; msync(MS_ASYNC)) per policy, ordering off
if [ "$M" = msync-loop ]; then
	mount -t ext4 /dev/vda /mnt/e || { echo "FATAL mount ext4"; exit 3; }
	for i in $(seq 1 "$RACE_N"); do
		for p in eager deferred lang; do
			pol $p
			run $C msync-loop --policy $p --dir /mnt/e
		done
	done
	pol eager; umount /mnt/e; exit 0
fi
# a measurement, no check: the writer's store rate with and without
# writebacks every 50 ms, per policy and ordering (0011's wait)
if [ "$M" = race-rate ]; then
	mount -t ext4 /dev/vda /mnt/e || { echo "FATAL mount ext4"; exit 3; }
	for p in eager deferred; do
		for o in 0 1; do
			pol $p; ord $o
			for i in $(seq 1 "$RACE_N"); do
				echo "INFO race-rate policy=$p ordering=$o round=$i"
				run $C race-rate --policy $p --dir /mnt/e
			done
		done
	done
	ord 0; pol eager; umount /mnt/e; exit 0
fi
if [ "$M" = journal-crash ]; then jcrash_block 1; exit 0; fi
# N4: on a lazytime mount the flush's stamp is I_DIRTY_TIME only, so the
# ordering (0008) has nothing to commit: a crash after writeback leaves
# new data with old times, under deferred as under stock eager.  Printed
# (INFO, not asserted): the ordering's guarantee is scoped to journalled,
# non-lazytime mounts.  fsync-crash: the same with fsync as the
# writeback, with the ordering off and on, asserted: fsync must make the
# times durable.  Under deferred the update is applied inside ->fsync,
# after vfs_fsync_range() looked for I_DIRTY_TIME, and before patch 0015
# nothing journalled it (3 of 3 rounds per base had the times older than
# the data); ext4_sync_file() now journals them.  $1 the rounds.
lazy_block() {
	local p i w o
	for i in $(seq 1 "$1"); do
		for p in eager deferred; do
			for w in crash:1 fsync-crash:0 fsync-crash:1; do
				o=${w#*:} w=${w%:*}
				pol $p; ord $o
				mount -t ext4 -o lazytime /dev/vda /mnt/e || { echo "CASEFAIL mount -o lazytime"; continue; }
				run $C $w-prepare --policy $p --dir /mnt/e
				umount /mnt/e
				mount -t ext4 -o lazytime /dev/vda /mnt/e || { echo "FATAL remount lazytime"; exit 3; }
				if [ $w = crash ]; then
					$C durability-verify --policy $p --dir /mnt/e 2>&1 |
						sed "s/^/INFO lazytime (N4) $w, ordering=$o, not asserted: /"
				else
					echo "INFO lazytime fsync-crash policy=$p ordering=$o"
					run $C durability-verify --policy $p --dir /mnt/e
				fi
				umount /mnt/e
			done
		done
	done
	ord 0; pol eager
}
if [ "$M" = lazytime-crash ]; then lazy_block "$RACE_N"; exit 0; fi
# the ordering (0008) is a switch of its own, off by default, 0 or 1
o=$(cat /proc/sys/vm/mmap_cmtime_ordering 2>/dev/null)
[ "$o" = 0 ] || echo "CASEFAIL vm.mmap_cmtime_ordering: expected 0 at boot, saw '${o:-no such file}'"
echo 2 > /proc/sys/vm/mmap_cmtime_ordering 2>/dev/null &&
	echo "CASEFAIL vm.mmap_cmtime_ordering: accepted 2 (expected EINVAL)"
losetup /dev/loop0 /sw/xfs.img || echo "CASEFAIL no loop device for the xfs image"
# xfs opts in (patch 0018, both bases)
kv=$(uname -r); kmaj=${kv%%.*}; kmin=${kv#*.}; kmin=${kmin%%[!0-9]*}
mg=0
if [ "$kmaj" -gt 6 ] || { [ "$kmaj" -eq 6 ] && [ "$kmin" -ge 13 ]; }; then mg=1; fi
for p in eager deferred lang; do
	pol $p
	mount -t ext4 /dev/vda /mnt/e || { echo "FATAL mount ext4"; exit 3; }
	run $C journal --policy $p --dir /mnt/e
	if [ $p != eager ]; then
		for o in 0 1; do
			ord $o
			echo "INFO ordering=$o"
			run $C same-tick --policy $p --dir /mnt/e
			run $C query-flush --policy $p --dir /mnt/e
		done
		ord 0
		[ $p = deferred ] && run $C freeze --policy $p --dir /mnt/e
		[ $p = deferred ] && run $C exit --policy $p --dir /mnt/e
		[ $p = deferred ] && run $C pageout --policy $p --dir /mnt/e
		[ $p = deferred ] && run $C migrate --policy $p --dir /mnt/e
		run $C durability-prepare --policy $p --dir /mnt/e
		umount /mnt/e; mount -t ext4 /dev/vda /mnt/e || { echo "FATAL remount ext4"; exit 3; }
		run $C durability-verify --policy $p --dir /mnt/e
		# the crash ordering is 0008's, asserted with it on; with it
		# off (AS_CMTIME alone) the window is reported, not asserted:
		# whether a commit falls between writeback and the shutdown is
		# a matter of timing
		for o in 1 0; do
			ord $o
			run $C crash-prepare --policy $p --dir /mnt/e
			umount /mnt/e; mount -t ext4 /dev/vda /mnt/e || { echo "FATAL remount ext4"; exit 3; }
			if [ $o = 1 ]; then
				run $C durability-verify --policy $p --dir /mnt/e
			else
				$C durability-verify --policy $p --dir /mnt/e 2>&1 |
					sed 's/^/INFO ordering=0, not asserted: /'
			fi
		done
		ord 0
	fi
	umount /mnt/e
	mount -t tmpfs tmpfs /mnt/t && run $C stockfs --policy $p --dir /mnt/t; umount /mnt/t
	if mount -t xfs /dev/loop0 /mnt/x; then
		# converted: cmtime_check's table (lang stamps in xfs's own
		# transaction at the fault, as it expects), and the ext3 case's
		# store, munmap, fsync, sync, then durable after a remount
		run /sw/cmtime_check --policy $p --dir /mnt/x
		run $C ext3 --policy $p --dir /mnt/x
		umount /mnt/x
		mount -t xfs /dev/loop0 /mnt/x && run $C durability-verify --policy $p --dir /mnt/x
		umount /mnt/x
	else
		echo "CASEFAIL mount xfs"
	fi
done
if pol lang-mem && mount -t xfs /dev/loop0 /mnt/x; then
	run /sw/cmtime_check --policy lang-mem --dir /mnt/x
	umount /mnt/x
fi
# lang-mem (patch 0009): the fault's in-memory times, persisted by the
# flush without a second stamp (cmtime_check shows the one change per
# dirty cycle): no handle in the fault, the fault's times durable after
# munmap, and, with the ordering on, before the data after a crash
pol lang-mem
if mount -t ext4 /dev/vda /mnt/e; then
	run $C journal --policy lang-mem --dir /mnt/e
	run $C durability-prepare --policy lang-mem --dir /mnt/e
	umount /mnt/e; mount -t ext4 /dev/vda /mnt/e || { echo "FATAL remount ext4"; exit 3; }
	run $C durability-verify --policy lang-mem --dir /mnt/e
	ord 1
	run $C crash-prepare --policy lang-mem --dir /mnt/e
	umount /mnt/e; mount -t ext4 /dev/vda /mnt/e || { echo "FATAL remount ext4"; exit 3; }
	run $C durability-verify --policy lang-mem --dir /mnt/e
	ord 0
	umount /mnt/e
else
	echo "CASEFAIL mount ext4 for lang-mem"
fi
# An ext3 image: the ext4 driver serves it under the ext3 type, which has
# no multigrain timestamps on 6.13+ (7.2: mg, above), so its mappings
# cannot opt in there and must be plain eager; on 6.1 they opt in like
# ext4's.
mkdir -p /mnt/3
m3() { if [ $how = auto ]; then mount /dev/loop1 /mnt/3; else mount -t ext3 /dev/loop1 /mnt/3; fi; }
w0=$(dmesg | grep -c 'WARNING:')
if losetup /dev/loop1 /sw/ext3.img; then
	for how in auto ext3; do
		for p in eager deferred lang; do
			pol $p
			m3 || { echo "CASEFAIL mount ($how) of the ext3 image"; continue; }
			type=$(awk '$2 == "/mnt/3" { print $3 }' /proc/mounts)
			flag=
			[ $mg = 1 ] && [ "$type" != ext4 ] && flag=--eager
			echo "INFO ext3 image mounted ($how) as $type under $p, kernel $kv: ${flag:-opted in}"
			run $C ext3 --policy $p --dir /mnt/3 $flag
			umount /mnt/3
			m3 || { echo "CASEFAIL remount ($how) of the ext3 image"; continue; }
			run $C durability-verify --policy $p --dir /mnt/3
			umount /mnt/3
		done
	done
	losetup -d /dev/loop1
else
	echo "CASEFAIL no loop device for the ext3 image"
fi
w1=$(dmesg | grep -c 'WARNING:')
[ "$w1" = "$w0" ] || { echo "CASEFAIL ext3 mounts: $((w1 - w0)) WARNING(s) in dmesg:"; dmesg | grep -A3 'WARNING:' | head -8 | sed 's/^/CASEFAIL dmesg: /'; }
# knfsd exports the ext4 disk, a loopback NFSv4.2 client caches the file
mkdir -p /export/e /mnt/n
if mount -t ext4 /dev/vda /export/e && . /sw/knfsd.sh && sw_knfsd_up /export/e >/tmp/knfsd.log 2>&1 &&
	mount -t nfs -o vers=4.2 127.0.0.1:/export/e /mnt/n; then
	for p in eager deferred lang lang-mem; do
		pol $p
		run $C nfs --policy $p --dir /export/e --nfs /mnt/n
	done
	umount /mnt/n
	rpc.nfsd 0 2>/dev/null
	exportfs -ua 2>/dev/null
	umount /export/e
else
	echo "CASEFAIL knfsd loopback: $(cat /tmp/knfsd.log 2>/dev/null)"
fi
race_block
jcrash_block 1
mount_block
walk_block "eager deferred"
lazy_block 1
nfile_block 1 "eager deferred"
pol deferred
for o in data=journal nodelalloc lazytime; do
	mount -t ext4 -o $o /dev/vda /mnt/e || { echo "CASEFAIL mount -o $o"; continue; }
	echo "INFO mount option $o"
	if [ $o = data=journal ]; then
		# journalled data never opts in (patch 0012): eager under
		# deferred, the times moved at the store (the ext3 case's check)
		run $C ext3 --policy deferred --dir /mnt/e --eager
	else
		run /sw/cmtime_check --policy deferred --dir /mnt/e
		run $C same-tick --policy deferred --dir /mnt/e
	fi
	umount /mnt/e
done
pol eager
losetup -d /dev/loop0
exit 0
G
set +e
"$repo/vm/boot-one.sh" --kernel "$vmlinux" --share "$share" --run "$share/guest.sh" \
	--disk "$share/ext4.img" --append "numa=fake=2" --timeout 900 >"$share/boot.out" 2>&1
rc=$?
set -e
out=$share/boot-one.out
[ -s "$out" ] || { tail -20 "$share/boot.out"; fail "expected the guest's output, saw none (boot-one exit $rc; its last lines above)"; sw_done; }
grep -E '^(INFO|SUMMARY)' "$out" || true
grep -E '^RESULT .*check=walk\.' "$out" || true
if [ "$only" = msync-loop ]; then
	# each round's policies against the same round's eager: loop time ratio
	awk '/^INFO case=msync-loop/ {
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (v["policy"] == "eager") e = v["loop_ns"]
		else if (e > 0) printf "msync-loop: %s/eager loop time %.1fx (ticks per 1000 iterations %s, faults %s)\n", v["policy"], v["loop_ns"] / e, v["ticks_per_1000"], v["faults"]
	}' "$out"
fi
if [ "$only" = nfile-sync ]; then
	# a round is the 8 syncs from an eager ordering=0 one; each sync of
	# many commits against the median of the round's few-commit syncs
	# (times are for ratios within a boot only)
	awk 'function flush(   i, j, t, m) {
		for (i = 1; i <= nf; i++) for (j = i + 1; j <= nf; j++)
			if (few[j] < few[i]) { t = few[i]; few[i] = few[j]; few[j] = t }
		m = nf ? (nf % 2 ? few[(nf + 1) / 2] : (few[nf / 2] + few[nf / 2 + 1]) / 2) : 0
		for (i = 1; i <= nm; i++)
			printf "nfile-sync round %d: %s, sync time %.1fx the median of the %d few-commit syncs of the round\n", r, many[i], (m > 0 ? us[i] / m : -1), nf
		nf = 0; nm = 0
	}
	/^INFO case=nfile-sync/ {
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (v["policy"] == "eager" && v["ordering"] == 0) { if (r) flush(); r++ }
		if (v["commits"] <= 4) few[++nf] = v["sync_us"]
		else { many[++nm] = v["policy"] " ordering=" v["ordering"] ": " v["commits"] " commits per sync of " v["files"] " files, " v["flusher_commits"] " per flusher pass"; us[nm] = v["sync_us"] }
	}
	END { if (r) flush() }' "$out"
fi
for p in deferred lang lang-mem; do
	r=$(grep -c "RESULT policy=$p check=race-verify.mtime_not_older" "$out" || true)
	[ "$r" = 0 ] || echo "race: $p: $(grep -c "RESULT policy=$p check=race-verify.mtime_not_older.* ok=0" "$out" || true) of $r rounds persisted data newer than its mtime"
done
n_ok=$(grep -c '^RESULT .* ok=1' "$out" || true)
bad=$(grep -E '^RESULT .* ok=0|CASEFAIL|FATAL|cmtime_(cases|check):' "$out" || true)
n_min=40
[ "$only" != journal-crash ] || n_min=3
[ "$only" != walk ] || n_min=17
[ "$only" != msync-loop ] || n_min=3
[ "$only" != lazytime-crash ] || n_min=8
[ "$only" != race-rate ] || n_min=0
[ "$only" != mount-option ] || n_min=674
[ "$only" != nfile-sync ] || n_min=3
if [ -n "$bad" ] || [ "$rc" -ne 0 ] || [ "$n_ok" -lt $n_min ]; then
	echo "$bad"
	fail "expected at least $n_min checks passed, none failed and guest exit 0 with $vmlinux, saw $n_ok passed, guest exit $rc and the lines above"
	sw_done
fi
if [ -n "$only" ]; then
	sw_done "$n_ok checks ($only only) with $vmlinux"
fi
# query-flush judged within one tick is where only multigrain moves ctime
# (7.2); on 6.1 the flush's tick wait always ends in a later tick.
n_mg=$(grep -c '^INFO case=query-flush .*same_tick=1' "$out" || true)
echo "query-flush: $n_mg of 4 flushes judged within the queried tick"
[ "$base" = 6.1 ] || [ "$n_mg" -gt 0 ] ||
	echo "NOTE: no query-flush flush ended in the queried tick this run: the multigrain path was not exercised (load?)"
sw_done "$n_ok checks (same-tick, query-flush, freeze, durability, crash, race, journal, exit, stockfs, ext3, mount options, mount-option) with $vmlinux"
