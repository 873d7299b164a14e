#!/usr/bin/env bash
# Description: `./stalewin vm run --kernel patched` end to end: the server
# guest boots the patched kernel, sets vm.mmap_cmtime_policy, and the
# native writer dirties a file on ext4 exported by knfsd while the probe
# and kernel-mount readers watch it from the client guest.  With eager the
# first store's own fault must update the times (an UPDATE attributed to
# the stored page); with deferred no update may come from a fault (every
# UPDATE unattributed), one must follow the last store (munmap's, or
# writeback's when the flusher cleaned the file after that store), and the
# probe must still see the change.  The report must name the kernel's
# policy, and the ordering (vm.mmap_cmtime_ordering=1, set here: patch
# 0008 on) where it applies: native(eager), native(deferred+ordering).  A kernel
# whose sysctl is ignored, a harness that does not set it, or a deferred
# that still stamps at the fault fails here.
# SW_KERNEL_BASE (default 6.1) picks the series' base: --kernel patched:B.
# Skips (77) when no patched kernel of that base is cached:
# ./stalewin vm kernel build --base B.
. "$(dirname "$0")/../lib/test-lib.sh"
sw_immediate=1 # each check stands on the run before it
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${SW_BUILD_DIR:-$repo/build}
base=${SW_KERNEL_BASE:-6.1}
if ! "$repo/vm/kernel/stalewin-vm-kernel" --print-path --base "$base" >/dev/null 2>&1; then
	skip "no patched $base guest kernel is cached; build one with ./stalewin vm kernel build --base $base"
fi
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 missing"
command -v jq >/dev/null || skip "jq missing"
out=$(mktemp -d /tmp/sw-kernel-vmrun.XXXXXX)
keep=0
trap '[ "$keep" = 1 ] || rm -rf "$out"' EXIT
sw_on_fail() { keep=1; echo "run folder kept: $out"; }

# The guest's writeback pinned short (expire 1 s, a flusher run every
# 0.5 s): the page is cleaned several times in the 6 s run, so under eager
# the next store faults and stamps again and under deferred writeback
# stamps, and the probe sees changes whatever the kernel's own background
# passes do (left at the guest's 30 s expiry, a 7.2 eager run once made a
# single update, at the first store, before the probe's first look).
SW_BUILD_DIR=$B "$repo/vm/run.sh" --kernel "patched:$base" --policy eager --policy deferred \
	--sysctl vm.dirty_expire_centisecs=100 --sysctl vm.dirty_writeback_centisecs=50 \
	--sysctl vm.mmap_cmtime_ordering=1 \
	--duration 6 --out "$out/run" >"$out/stdout" 2>"$out/stderr"
rc=$?
[ "$rc" -eq 0 ] || { tail -20 "$out/stderr" >&2; fail "vm run exited $rc"; }

dump() { "$B/common/stalewin-logdump" "$1"; }
for d in "$out"/run/*-eager-*/ "$out"/run/*-deferred-*/; do
	[ -f "$d/report.json" ] || fail "no report.json in $d"
	pol=$(basename "$d" | sed 's/^[0-9]*-//; s/-.*//')
	got=$(jq -r '.start.policy' "$d/report.json")
	want="native($pol)"; [ "$pol" = eager ] || want="native($pol+ordering)"
	[ "$got" = "$want" ] || fail "$d: report names policy '$got', expected $want"
	dump "$d/writer.swlog" >"$out/w.txt" || fail "$d: writer log unreadable"
	stores=$(grep -c ' STORE ' "$out/w.txt")
	[ "$stores" -gt 10 ] || fail "$d: expected stores, saw $stores"
	attributed=$(grep ' UPDATE ' "$out/w.txt" | grep -vc 'page=-1')
	case $pol in
	eager)
		first_page=$(grep -m1 ' STORE ' "$out/w.txt" | sed 's/.* page=\([0-9]*\).*/\1/')
		grep ' UPDATE ' "$out/w.txt" | grep -q " page=$first_page cause=8" ||
			fail "$d: eager: no update at the first store's fault (page $first_page)"
		;;
	deferred)
		# A store that faults while writeback has its page write-
		# protected waits for the writeback (stable pages), and
		# do_writepages() applies the pending update meanwhile: the
		# writer sees that stamp inside the store's fault (seen: a
		# 3.9 ms fault, 4 ms after the flusher's own update).  Such
		# an update is the writeback's; one in a fault that did not
		# wait, or with no writeback's update just before, is the
		# fault's own, which deferred never makes.
		awk '
			/ UPDATE / {
				match($0, / t=[0-9]+/); t = substr($0, RSTART + 3, RLENGTH - 3) + 0
				if ($0 ~ /page=-1/) { last_wb = t; next }
				pend = t; continue_ok = (last_wb > 0 && t - last_wb <= 20000000); next
			}
			/ STORE / && pend {
				match($0, / trap_ns=[0-9]+/); tr = substr($0, RSTART + 9, RLENGTH - 9) + 0
				if (continue_ok && tr >= 1000000) waited++; else own++
				pend = 0
			}
			END { printf "%d %d\n", own + 0, waited + 0 }' "$out/w.txt" >"$out/attr"
		read -r own waited <"$out/attr"
		[ "$waited" -eq 0 ] || echo "deferred: $waited update(s) of writeback seen inside a store's fault that waited for it"
		[ "$own" -eq 0 ] ||
			fail "$d: deferred: $own updates came from a store's fault (not a writeback's it waited for)"
		# The last store must be covered by a later update: munmap's,
		# or writeback's when the flusher cleaned the file after it
		# (then munmap has nothing left to apply).
		t_unmap=$(grep -m1 ' MUNMAP ' "$out/w.txt" | sed 's/.* t=\([0-9]*\).*/\1/')
		[ -n "$t_unmap" ] || fail "$d: no MUNMAP record"
		t_last=$(grep ' STORE ' "$out/w.txt" | tail -1 | sed 's/.* t_after=\([0-9]*\).*/\1/')
		grep ' UPDATE ' "$out/w.txt" | sed 's/.* t=\([0-9]*\).*/\1/' |
			awk -v u="$t_last" '$1 >= u { ok = 1 } END { exit !ok }' ||
			fail "$d: deferred: no update after the last store (t=$t_last; munmap at $t_unmap)"
		;;
	esac
	# the probe in the client guest must have seen the updates over NFS
	checked=$(jq '.results.observers[0].consistency.checked // 0' "$d/report.json")
	consistent=$(jq '.results.observers[0].consistency.consistent // 0' "$d/report.json")
	[ "$checked" -gt 0 ] || fail "$d: the probe saw no change over NFS"
	echo "$pol: report policy $got, $stores stores, $attributed fault-attributed updates, probe $consistent/$checked consistent"
done
sw_done "patched kernel policies through knfsd"
