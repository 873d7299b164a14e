#!/usr/bin/env bash
# Description: `stalewin vm run --fault server-crash@4:5` on the patched
# 6.1 kernel, deferred policy, an 8 s run (a store every 50 ms to page 0,
# a kept-open v3 kernel reader with actimeo=1, the probe at 50/s), twice:
# vm.mmap_cmtime_ordering=0 and =1.  4 s in, the server guest commits its
# journal, writes the file back (sync_file_range), shuts its ext4 down
# without a journal commit and takes its link down, is killed and booted
# again on the same disk; the client reads on 5 s after it is back.
# Asserts, for each run:
#  - exit 3 and the report's first line "PARTIAL: server-crash at 4.x s";
#  - the crash and the reboot happened: the kernel's shutdown message
#    (NOLOGFLUSH) in the first boot, ext4's journal recovery in the
#    second, its console, its record in
#    faults.json (the shutdown's rc 0, the times the disk kept), the
#    server's "back" signal, a kernel read that waited through the outage
#    and reads after it;
#  - nothing logged lost: every STORE of writer.swlog is in the report,
#    the crash's stores before it plus those after it are all of them,
#    the reader's and the probe's logs end with END; the disk holds the
#    data of the stores before the crash (one may fall between the
#    writeback and the shutdown);
#  - ordering=0: at least one store on disk the kernel reader never read
#    (its times after the reboot are those from before the store);
#    ordering=1: none, and none whose change the probe's last times hide.
#  - nothing is left running: no qemu, no work folder, no mount.
# 77 without qemu or without the patched 6.1 kernel (./stalewin vm kernel
# build).  ~60 s.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
vm_fault_needs
"$top/vm/kernel/stalewin-vm-kernel" --print-path >/dev/null 2>&1 ||
	skip "no patched 6.1 guest kernel is cached; build one with ./stalewin vm kernel build"
vm_test_dir vm-server-crash off on off.txt on.txt off.err on.err
dump=$b/common/stalewin-logdump

# crash_run NAME ORDERING: the run into $T/NAME; its checks
crash_run() {
	local run=$T/$1 rc first stores after
	PATH=$b/analysis:$PATH "$top/vm/run.sh" --kernel patched --policy deferred --fs ext4 \
		--sysctl "vm.mmap_cmtime_ordering=$2" --fault server-crash@4:5 --duration 8 \
		--mount-opts vers=3,nolock,actimeo=1 --reader-mode kept-open --probe-rate 50 \
		--writer-args "--interval-ms 50" --build-dir "$b" --out "$run" >"$T/$1.txt" 2>"$T/$1.err"
	rc=$?
	vm_fault_dir=$run
	[ -s "$run/report.json" ] || { cat "$T/$1.err"; fail "$1: no report.json (exit $rc)"; }
	first=$(head -n 1 "$run/report.txt")
	echo "$1: exit $rc: $first"
	[ "$rc" = 3 ] && [ "$(jr .end.exit_code)" = 3 ] || fail "$1: expected exit 3 (PARTIAL: the writer died), saw $rc (report $(jr .end.exit_code))"
	[[ $first == *"PARTIAL: server-crash at 4."* ]] || fail "$1: expected the first line to name server-crash at 4.x s, saw: $first"
	# the reboot
	[ -s "$run/vm/server-after-crash.console" ] || fail "$1: no console of the server guest's second boot"
	[ "$(jq -r '.faults[0].kind' "$run/faults.json")" = server-crash ] || fail "$1: no server-crash in faults.json"
	[ "$(jq -r '.faults[0].crash_rc' "$run/faults.json")" = 0 ] || fail "$1: the writeback and shutdown failed: $(cat "$run/server/crash.log")"
	jq -e '.faults[0].t_mounted_real_ns > .faults[0].t_start_real_ns and .faults[0].mtime_after_ns > 0' "$run/faults.json" >/dev/null ||
		fail "$1: expected the export mounted again after the crash and the file's times, saw $(jq -c '.faults[0]' "$run/faults.json")"
	# (the SIGKILL alone, tens of ms after the writeback, would lose the
	# update too: the shutdown is what rules out any commit in between)
	grep -q 'EXT4-fs (.*): shut down requested (2)' "$run/vm/server.console" ||
		fail "$1: expected the kernel's 'shut down requested (2)' (NOLOGFLUSH) in the first boot's console, saw none"
	grep -q 'recovery complete' "$run/server/crash-recovery-dmesg.txt" ||
		fail "$1: expected ext4's journal recovery at the second boot's mount, saw: $(tr '\n' ' ' <"$run/server/crash-recovery-dmesg.txt")"
	[ -e "$run/vm/sync-run/server.back" ] || fail "$1: the server guest never said it was back"
	"$dump" "$run/kread-0.swlog" >"$T/r.txt" || fail "$1: kread-0.swlog unreadable"
	# a read that waited through the outage (over 2 s), and reads after it
	awk '$2 == "KREAD" { for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (w) n++; if (v["t_after"] - v["t_before"] > 2e9 && v["err"] == 0) w = 1 }
		END { exit !(w && n >= 10) }' "$T/r.txt" ||
		fail "$1: expected a kernel read that waited through the outage and 10 reads after it, saw none"
	# nothing logged lost
	"$dump" "$run/writer.swlog" >"$T/w.txt" 2>/dev/null || true
	stores=$(awk '$2 == "STORE"' "$T/w.txt" | wc -l)
	[ "$(jr .end.stores)" = "$stores" ] || fail "$1: writer.swlog has $stores STORE records, the report counts $(jr .end.stores)"
	! grep -q ' END ' "$T/w.txt" || fail "$1: the writer's log has an END: it did not die with the crash"
	before=$(jr '.end.faults[0].crash.stores_before') ondisk=$(jr '.end.faults[0].crash.on_disk_after')
	after=$(awk -v t="$(jq -r '.faults[0].t_start_real_ns' "$run/faults.json")" '$2 == "STORE" {
		for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "t_after" && kv[2] > t) n++ } } END { print n + 0 }' "$T/w.txt")
	[ "$before" -ge 40 ] && [ $((before + after)) = "$stores" ] ||
		fail "$1: expected the crash's stores before it (at least 40) and after it to be the log's $stores, saw $before + $after"
	[ "$ondisk" -ge $((before - 1)) ] || fail "$1: expected the disk to hold the data of the $before stores before the crash (one may miss it), saw $ondisk"
	tail -n 1 "$T/r.txt" | grep -q ' END ' || fail "$1: kread-0.swlog does not end with END"
	"$dump" "$run/probe-0.swlog" | tail -n 1 | grep -q ' END ' || fail "$1: probe-0.swlog does not end with END"
	nothing_left "$run"
	never=$(jr '.end.faults[0].crash.never_read') pnever=$(jr '.end.faults[0].crash.probe_never_changed')
	nr=$(jr '.end.faults[0].crash.on_read_pages')
	[ "$nr" = "$ondisk" ] || fail "$1: expected every store on disk on the page the reader read, saw $nr of $ondisk"
}

crash_run off 0
[ "$never" -ge 1 ] || fail "ordering=0: expected at least one store on disk the client never saw as changed, saw $never of $ondisk"
echo "ordering=0: $never of $ondisk stores on disk never read by the client ($pnever hidden from the probe's last times)"
crash_run on 1
[ "$never" = 0 ] && [ "$pnever" = 0 ] ||
	fail "ordering=1: expected every store on disk seen as changed, saw $never never read by the kernel reader, $pnever hidden from the probe's last times"
echo "ordering=1: every store on disk seen ($ondisk)"
sw_done "server-crash: ordering=0 hides stores from the client for good, ordering=1 none"
