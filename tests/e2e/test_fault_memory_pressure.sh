#!/usr/bin/env bash
# Description: `stalewin-run --fs ext4 --policy native --fault
# memory-pressure@2:2`: the writer's serve (and its run child) runs in a
# child of stalewin-run's own memory cgroup; 2 s in, it is squeezed to a
# quarter of what it uses for 2 s (cgroup v2: memory.high; v1:
# memory.limit_in_bytes, raised until the kernel takes it), so the kernel
# reclaims (and writes back) the writer's pages of the export's file.
# Asserts the run completes with faults (exit 4), faults.json holds the
# squeeze, its knob and a limit below the usage, the usage right after it
# below the usage before (the kernel reclaimed at once), with the reclaim
# the cgroup counted (v2: memory.stat pgscan > 0; v1: memory.stat pgpgout
# > 0, pages uncharged), the report's first line names it, the writer
# ran its planned duration, and the cgroup is gone afterwards.  Where
# there is no writable memory cgroup (v2 or v1), stalewin-run must refuse
# the fault up front (exit 1, saying why), and the test then skips (77).
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
knob=$(jq -r '.faults[] | select(.kind == "memory-pressure") | .knob' "$RUN/faults.json")
cur=$(fault_key memory-pressure memory_current_bytes) lim=$(fault_key memory-pressure limit_bytes)
sq=$(fault_key memory-pressure usage_squeezed_bytes)
[ "${lim:-0}" -gt 0 ] && [ "$lim" -lt "${cur:-0}" ] ||
	fail "expected a $knob below the usage ($cur bytes), saw ${lim:-none}: $(cat "$RUN/faults.json")"
# the kernel reclaims at once when the knob is written (memory.high: until
# under it; memory.limit_in_bytes: or it refuses the limit)
[ "${sq:-0}" -gt 0 ] && [ "$sq" -lt "$cur" ] ||
	fail "expected the usage after the squeeze below the $cur bytes before it, saw ${sq:-none}: $(cat "$RUN/faults.json")"
case $knob in
memory.high) ctr=pgscan ;;
memory.limit_in_bytes) ctr=pgpgout ;;
*) fail "expected knob memory.high (cgroup v2) or memory.limit_in_bytes (v1) in faults.json, saw '$knob'" ;;
esac
scan=$(fault_key memory-pressure $ctr)
[ "${scan:-0}" -gt 0 ] || fail "expected the cgroup's reclaim during the squeeze ($ctr > 0), saw ${scan:-none}: $(cat "$RUN/faults.json")"
first=$(head -n 1 "$RUN/report.txt")
[[ $first == *"complete, with faults: memory-pressure at "*" stores)"* ]] ||
	fail "expected the first line to name the memory-pressure, saw: $first"
"$B/common/stalewin-logdump" "$RUN/writer.swlog" > "$E2E_TMP/writer.txt" || fail "writer.swlog is not whole"
last=$(tail -n 1 "$E2E_TMP/writer.txt")
[[ $last == *" END "*"reason=1 "* ]] || fail "the writer did not run its planned duration: $last"
own=$(mp_where); own=${own#* }
left=$(ls -d "${own%/}"/sw-run-* 2>/dev/null || true)
[ -z "$left" ] || fail "cgroup(s) left behind: $left"
sw_done "exit 4, $knob $cur -> $lim bytes (usage $sq after), $ctr $scan, vm nr_written $(fault_key memory-pressure vm_nr_written) in the squeeze; $first"
