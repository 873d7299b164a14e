#!/usr/bin/env bash
# Description: `stalewin vm run --fault memory-pressure@4:3` in a real
# 12 s native run on ext4 (stock kernel: knfsd server guest, kernel-NFS
# client guest, 20 stores/s).  The server guest mounts cgroup v2 and
# starts the writer in a cgroup of its own; 4 s in, its memory.high is
# set to a quarter of its memory.current for 3 s, so the kernel reclaims
# and writes back the writer's pages of the export's file (what the
# kernel did is in the writer's log: the truth stays the kernel's).
# Asserts:
#  - faults.json holds the squeeze (knob memory.high, a limit below the
#    usage, the usage right after it below the usage before, the cgroup's
#    pgscan > 0): the kernel reclaimed at once;
#  - the report's first line names it with its store count, exit 4;
#  - nothing silently dropped: every STORE of writer.swlog is in the
#    report and the log ends with END;
#  - nothing is left running: no qemu, no work folder, no mount.
# A squeeze not made (memory.high not written) or not recorded fails
# here.  77 without qemu.  ~45 s.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
vm_fault_needs
vm_test_dir vm-mp run run.err report.txt
run=$T/run
vm_fault_run "$run" --duration 12 --fault memory-pressure@4:3

mp() { jq -r ".faults[] | select(.kind == \"memory-pressure\") | $1" "$run/faults.json"; }
[ "$(jq '[.faults[] | select(.kind == "memory-pressure")] | length' "$run/faults.json" 2>/dev/null)" = 1 ] ||
	fail "expected one memory-pressure in faults.json, saw: $(cat "$run/faults.json" 2>/dev/null)"
[ "$(mp .knob)" = memory.high ] && [ "$(mp .rc)" = 0 ] ||
	fail "expected memory.high set and reset (rc 0), saw knob $(mp .knob), rc $(mp .rc)"
cur=$(mp .memory_current_bytes) lim=$(mp .limit_bytes) sq=$(mp .usage_squeezed_bytes) scan=$(mp .pgscan)
[ "$lim" -gt 0 ] && [ "$lim" -lt "$cur" ] || fail "expected a memory.high below the usage $cur bytes, saw $lim"
[ "$sq" -gt 0 ] && [ "$sq" -lt "$cur" ] || fail "expected the usage right after the squeeze below the $cur bytes before, saw $sq"
[ "$scan" -gt 0 ] || fail "expected the cgroup's reclaim in the squeeze (pgscan > 0), saw $scan"
n_f=$(jr '.end.faults[] | select(.kind == "memory-pressure") | .stores')
[ "$rc" = 4 ] || { cat "$T/report.txt"; fail "expected exit 4 (complete, with faults), saw $rc ($first)"; }
[[ $first == *"complete, with faults: memory-pressure at "*"($n_f stores)"* ]] ||
	fail "expected the first line to name the memory-pressure with its $n_f stores, saw: $first"

vm_writer_log_whole "$run"
nothing_left "$run"
sw_done "exit $rc; memory.high $cur -> $lim bytes, usage $sq right after, pgscan $scan, pgsteal $(mp .pgsteal), vm nr_written $(mp .vm_nr_written); $first"
