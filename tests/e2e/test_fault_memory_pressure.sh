#!/usr/bin/env bash
# Description: `stalewin-run --fs ext4 --policy native --fault
# memory-pressure@2:2`: the writer's serve (and its run child) runs in a
# cgroup v2 child of stalewin-run's own cgroup; 2 s in, its memory.high is
# squeezed to a quarter of what it uses for 2 s, so the kernel reclaims
# (and writes back) the writer's pages of the export's file.  Asserts the
# run completes with faults (exit 4), faults.json holds the squeeze with
# the reclaim the cgroup's memory.stat counted (pgscan > 0: memory.high
# set below memory.current reclaims at once), the report's first line
# names it, the writer ran its planned duration, and the cgroup is gone
# afterwards.  Where /sys/fs/cgroup is not a writable cgroup v2 with the
# memory controller, stalewin-run must refuse the fault up front (exit 1,
# saying why), and the test then skips (77).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
. "$S/scripts/lib/run-faults.sh" # mp_check, mp_own
RUN=$E2E_TMP/mp
args=(--out "$RUN" --fs ext4 --policy native --workload rewrite --duration 6
	--interval-ms 50 --writeback-ms 300 --expire-ms 900 --fault memory-pressure@2:2)
if ! why=$(mp_check); then
	set +e
	"$S/scripts/stalewin-run" "${args[@]}" > "$E2E_TMP/out" 2> "$E2E_TMP/err"
	rc=$?
	set -e
	err=$(cat "$E2E_TMP/err")
	[ $rc = 1 ] && [[ $err == *"--fault memory-pressure: $why"* ]] ||
		fail "expected stalewin-run to refuse the fault (exit 1: '$why'), saw exit $rc: $err"
	[ ! -e "$RUN/writer.swlog" ] || fail "a run was made without the fault it was asked for"
	skip "cannot squeeze a cgroup here (stalewin-run refuses it, exit 1): $why"
fi
set +e
"$S/scripts/stalewin-run" "${args[@]}" > "$E2E_TMP/out" 2> "$E2E_TMP/err"
rc=$?
set -e
[ -s "$RUN/report.json" ] || { cat "$E2E_TMP/err" >&2; fail "no report.json (exit $rc)"; }
[ $rc = 4 ] || { cat "$E2E_TMP/err" >&2; fail "expected exit 4 (complete, with faults), saw $rc"; }
jq -e '[.faults[] | select(.kind == "memory-pressure")] | length == 1' "$RUN/faults.json" >/dev/null ||
	fail "expected one memory-pressure in faults.json, saw: $(cat "$RUN/faults.json" 2>/dev/null)"
[ -n "$(fault_key memory-pressure t_end_real_ns)" ] || fail "the squeeze has no end in faults.json"
[ "$(fault_key memory-pressure rc)" = 0 ] || fail "memory.high was not set and reset: $(cat "$RUN/faults.json")"
scan=$(fault_key memory-pressure pgscan)
[ "${scan:-0}" -gt 0 ] || fail "expected the cgroup's reclaim during the squeeze (pgscan > 0), saw ${scan:-none}: $(cat "$RUN/faults.json")"
first=$(head -n 1 "$RUN/report.txt")
[[ $first == *"complete, with faults: memory-pressure at "*" stores)"* ]] ||
	fail "expected the first line to name the memory-pressure, saw: $first"
"$B/common/stalewin-logdump" "$RUN/writer.swlog" > "$E2E_TMP/writer.txt" || fail "writer.swlog is not whole"
last=$(tail -n 1 "$E2E_TMP/writer.txt")
[[ $last == *" END "*"reason=1 "* ]] || fail "the writer did not run its planned duration: $last"
own=/sys/fs/cgroup$(mp_own)
left=$(ls -d "${own%/}"/sw-run-* 2>/dev/null || true)
[ -z "$left" ] || fail "cgroup(s) left behind: $left"
sw_done "exit 4, pgscan $scan, pgsteal $(fault_key memory-pressure pgsteal), vm nr_written $(fault_key memory-pressure vm_nr_written) in the squeeze; $first"
