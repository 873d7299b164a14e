#!/usr/bin/env bash
# Description: `stalewin vm run --fault enospc@4` in a real 12 s native
# run on ext4 (knfsd server guest, kernel-NFS client guest, 20 stores/s):
# 4 s in, the server guest fills the export's disk to the end of the run
# (stalewin-writer fill: fillers to what statvfs says is free, root's
# reserve too).  Asserts:
#  - faults.json holds the enospc with what was filled and a new 4 KiB
#    write refused (the filesystem is really full);
#  - the report's first line names it with its store count, and the exit
#    code is the report's (4: the writer survived; 3: it ended early and
#    the first line says PARTIAL);
#  - nothing silently dropped: every STORE of writer.swlog is in the
#    report and the log ends with END;
#  - nothing is left running: no qemu, no work folder, no mount.
# A fault not injected (nothing filled, a new write accepted) or not
# recorded fails here.  77 without qemu.  ~45 s.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
vm_fault_needs
vm_test_dir vm-enospc run run.err report.txt
run=$T/run
vm_fault_run "$run" --duration 12 --fault enospc@4

# injected and recorded: the disk filled, a new write refused
jq -e '[.faults[] | select(.kind == "enospc" and .new_write_refused == true
	and .free_before_bytes > 0 and .free_after_bytes < .free_before_bytes)] | length == 1' \
	"$run/faults.json" >/dev/null ||
	fail "expected one enospc in faults.json that filled the disk and saw a new write refused, saw: $(cat "$run/faults.json" 2>/dev/null)"
n_f=$(jr '.end.faults[] | select(.kind == "enospc") | .stores')
case $rc in
4) [[ $first == *"complete, with faults: enospc at "*" s, to the end ($n_f stores)"* ]] ||
	fail "expected the first line to name 'enospc at S s, to the end ($n_f stores)', saw: $first" ;;
3) [[ $first == *"PARTIAL: enospc at "* ]] || fail "exit 3 but the first line does not name the enospc: $first" ;;
*) cat "$T/report.txt"; fail "expected exit 4 (the writer survived the full disk) or 3 (it ended early, named), saw $rc ($first)" ;;
esac

# nothing silently dropped: every store logged is in the report; the log is whole
vm_writer_log_whole "$run"

nothing_left "$run"
sw_done "exit $rc; $(jq -r '.faults[] | select(.kind == "enospc") | "\(.free_before_bytes) bytes free before, \(.free_after_bytes) after, new write \(.new_write_errno // "accepted")"' "$run/faults.json"); $first"
