#!/usr/bin/env bash
# Description: `stalewin vm run --fault io-error@4:6` in a real 20 s
# native run on ext4 (knfsd server guest, kernel-NFS client guest, 20
# stores/s, writeback every 1 s so the window sees writes): the export's
# disk, under a device-mapper table from the boot, fails every write for
# 6 s (dm flakey error_writes).  Asserts:
#  - the report's first line names io-error with its store count (equal
#    to report.csv's stores inside it, counted here) and what the
#    filesystem did: its block I/O errors and error lines (as many as
#    the guest's kernel log kept in server/io-error-dmesg.txt has), and
#    its state after, as faults.json records it (mount options, a new
#    file refused or not);
#  - the fault happened: the kernel log shows I/O errors on the dm device;
#  - nothing silently dropped: the exit code is the report's (4 complete
#    with faults, 3 partial: then the first line says why), every STORE
#    of writer.swlog is in the report, the writer's log ends with END;
#  - ext4's journal statistics found under the dm device's name;
#  - nothing is left running: no qemu, no work folder, no mount.
# A fault not injected (no I/O error in the kernel log) or not recorded
# (no io-error in faults.json or the first line) fails here.  77 without
# qemu.  ~70 s.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
vm_fault_needs
command -v dmsetup >/dev/null || skip "dmsetup not installed on the host (scripts/packages.d/vm.txt): the guest image has none"
vm_test_dir vm-ioerr run run.err report.txt
run=$T/run
vm_fault_run "$run" --duration 20 --fault io-error@4:6 \
	--sysctl vm.dirty_expire_centisecs=100 --sysctl vm.dirty_writeback_centisecs=100
case $rc in
4) [[ $first == *"  complete, with faults: "* ]] || fail "exit 4 but the first line says: $first" ;;
3) [[ $first == *"  PARTIAL: "*"cut short: "* ]] || fail "exit 3 but the first line names nothing cut short: $first" ;;
*) cat "$T/report.txt"; fail "expected exit 4 (or 3 naming what was cut), saw $rc ($first)" ;;
esac

# recorded, with what the filesystem did
jq -e '[.faults[] | select(.kind == "io-error" and .t_end_real_ns != null and (.io_errors | type) == "number"
	and (.read_only_after | type) == "boolean" and (.new_file_after | type) == "boolean")] | length == 1' \
	"$run/faults.json" >/dev/null ||
	fail "expected one io-error with its end and what the filesystem did in faults.json, saw: $(cat "$run/faults.json" 2>/dev/null)"
fj() { jq -r ".faults[] | select(.kind == \"io-error\") | $1" "$run/faults.json"; }
io=$(fj .io_errors) fe=$(fj .fs_errors) ro=$(fj .read_only_after) nf=$(fj .new_file_after)
msg=$run/$(fj .dmesg)
[ -s "$msg" ] || fail "no kernel log of the fault ($msg)"
# injected: the block layer failed writes on the dm device
[ "$io" -gt 0 ] && [ "$(grep -c 'I/O error\|writeback error' "$msg")" = "$io" ] ||
	fail "expected failed block writes in $msg as many as faults.json's $io, saw $(grep -c 'I/O error\|writeback error' "$msg")"
grep -q 'dm-[0-9]' "$msg" || fail "the I/O errors are not on a device-mapper device: $(head -n 3 "$msg")"
n_f=$(jr '.end.faults[] | select(.kind == "io-error") | .stores')
want="io-error at "
after="writable after"; [ "$nf" = false ] && after="refusing new files, mounted rw"; [ "$ro" = true ] && after="remounted read-only"
[[ $first == *"$want"*" s for "*" s ($n_f stores; ext4: $io block I/O errors, $fe error lines, $after)"* ]] ||
	fail "expected the first line to name 'io-error at S s for D s ($n_f stores; ext4: $io block I/O errors, $fe error lines, $after)', saw: $first"
f0=$(jr '.end.faults[] | select(.kind == "io-error") | .t_start_real_ns')
f1=$(jr '.end.faults[] | select(.kind == "io-error") | .t_end_real_ns')
n_in=$(awk -F, -v a="$f0" -v b="$f1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ t = $c["t_s_real_ns"] + 0 } t >= a && t <= b + 0 { n++ } END { print n + 0 }' "$run/report.csv")
[ "$n_in" = "$n_f" ] || fail "the report counts $n_f stores in the io-error, report.csv has $n_in inside it"

# nothing silently dropped: every store logged is in the report; the log is whole
vm_writer_log_whole "$run"

# ext4's journal found under its dm name (/proc/fs/jbd2/dm-N-8)
[ -s "$run/server/jbd2-before.txt" ] || fail "no server/jbd2-before.txt: ext4's journal not found under the dm device"

nothing_left "$run"
sw_done "exit $rc; $io block I/O errors, $fe fs error lines, read-only $ro, new file $nf; $first"
