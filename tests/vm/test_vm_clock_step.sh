#!/usr/bin/env bash
# Description: `stalewin vm run --fault clock-step@3:+30`: the
# server guest's CLOCK_REALTIME steps 30 s forward 3 s into a 7 s eager
# run on tmpfs.  Cases:
#  - injected: the writer's own log shows it (realtime - monotonic of its
#    records jumps by 30 s, once), faults.json holds the step made (rc 0,
#    within 50 ms of +30 s);
#  - named: exit 4, the report's first line names the fault (at ~3 s, to
#    the end, its stores, the step seen in writer.swlog), the same count
#    of stores as report.csv's after its start;
#  - clock_estimate: the report names the writer's realtime step and the
#    after-run estimate that carried it is corrected: the offset stays
#    within a second of the before-run one, its error below one;
#  - windows_right: no truth or probe window negative or shifted by the
#    step: every one in [0, 15 s) (the run lasts 7 s; a window over the
#    step left uncorrected is 30 s longer).
# Not injecting the step, not recording it, or analysing on the realtime
# as logged fails here.  ~45 s (one vm run, --lead 6).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
vm_needs_bins server/stalewin-writer client/stalewin-reader client/stalewin-probe \
	common/stalewin-logdump analysis/stalewin-report
vm_test_dir vm-clock-step run
dump=$b/common/stalewin-logdump
run=$T/run
set +e
PATH=$b/analysis:$PATH "$top/vm/run.sh" --policy eager --fs tmpfs --duration 7 --lead 6 \
	--mount-opts vers=3,nolock --reader-mode cto --probe-rate 50 --fault clock-step@3:+30 \
	--build-dir "$b" --out "$run" >"$T/report.txt" 2>"$T/run.err"
rc=$?
set -e
[ -s "$run/report.json" ] || { tail -n 30 "$T/run.err"; fail "vm run (exit $rc) left no report.json"; }
first=$(sed -n 1p "$run/report.txt")
echo "report: $first"

injected() {
	# the writer's records: realtime - monotonic, in ms, from its STOREs
	"$dump" "$run/writer.swlog" | awk '$2 == "STORE" {
		for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "%.0f\n", (v["t_before"] - v["t_before_mono"]) / 1e6 }' >"$T/off.txt"
	[ -s "$T/off.txt" ] || { "$dump" "$run/writer.swlog" | grep -m 2 STORE; fail "no STORE with t_before and t_before_mono in writer.swlog (the dump's fields above)"; }
	local jumps
	jumps=$(awk 'NR > 1 && ($1 - p > 100 || p - $1 > 100) { printf "%+d ", $1 - p } { p = $1 }' "$T/off.txt")
	[[ $jumps =~ ^\+(29[0-9]{3}|30[0-9]{3})\ $ ]] ||
		fail "expected one jump of realtime - monotonic of ~+30000 ms in the writer's STOREs, saw '${jumps:-none}'"
	jq -e '[.faults[] | select(.kind == "clock-step")] | length == 1' "$run/faults.json" >/dev/null ||
		fail "expected one clock-step in faults.json, saw: $(cat "$run/faults.json" 2>/dev/null)"
	jq -e '.faults[] | select(.kind == "clock-step") | .rc == 0 and .step_asked_ns == 30000000000
		and (.step_ns - 30000000000 | fabs) < 50000000' "$run/faults.json" >/dev/null ||
		fail "expected the step made, rc 0, within 50 ms of +30 s, saw: $(jq -c '.faults[] | select(.kind == "clock-step")' "$run/faults.json")"
}

named() {
	[ "$rc" = 4 ] || fail "expected exit 4 (complete, with faults), saw $rc"
	[[ $first =~ complete,\ with\ faults:\ clock-step\ at\ 3\.[0-9]+\ s,\ to\ the\ end\ \(([0-9]+)\ stores\;\ realtime\ \+30\.0[0-9]{2}\ s,\ seen\ in\ writer\.swlog\ at\ [34]\.[0-9]+\ s ]] ||
		fail "expected the first line to name clock-step at ~3 s, to the end, its stores and the +30 s step seen, saw: $first"
	local n=${BASH_REMATCH[1]} t0 after
	t0=$(jq -r '.faults[] | select(.kind == "clock-step") | .t_start_real_ns' "$run/faults.json")
	after=$(awk -F, -v t="$t0" 'NR > 1 && $4 >= t' "$run/report.csv" | wc -l)
	[ "$n" -gt 0 ] && [ "$n" = "$after" ] || fail "the first line counts $n stores during the step, report.csv $after after its start"
}

clock_estimate() {
	# (the text wraps at 72 columns: its lines joined)
	tr -s ' \n' '  ' <"$run/report.txt" | grep -q 'clock : offset [^;]*; writer realtime stepped +30\.0[0-9]* s at [34]\.[0-9]* s (estimate after it corrected)' ||
		fail "expected the clock line to name the step, saw: $(grep -A1 '^clock' "$run/report.txt")"
	jq -e '.start.clock | (.writer_realtime_steps | length) == 1 and .after_offset_raw_ns != null
		and (.after_offset_raw_ns - .offset_ns) > 29000000000 and .err_ns < 1000000000' "$run/report.json" >/dev/null ||
		fail "expected one step, the raw after-offset ~30 s off the corrected one, an error below 1 s, saw $(jq -c .start.clock "$run/report.json")"
	! grep -q 'clock offset moved by' "$run/report.txt" || fail "the report says the clock offset moved: $(grep 'clock offset moved' "$run/report.txt")"
}

windows_right() {
	local bad
	# w_truth_ns (9) and obs0_w_ns (14) of every store that has one
	bad=$(awk -F, 'NR > 1 { if ($9 != "" && ($9 < 0 || $9 >= 15e9)) print "truth " $1 ": " $9
		if ($14 != "" && ($14 < -1e9 || $14 >= 15e9)) print "obs " $1 ": " $14 }' "$run/report.csv" | head -n 5)
	[ -z "$bad" ] || fail "windows negative or shifted by the step (store: ns): $bad"
	[ "$(awk -F, 'NR > 1 && $9 != ""' "$run/report.csv" | wc -l)" -gt 0 ] || fail "no store has a truth window"
	jq -e '.results.figures[] | select(.kind == "truth") | (.max_ns // 0) < 15000000000' "$run/report.json" >/dev/null ||
		fail "the truth max is past 15 s: $(jq -c '.results.figures[] | select(.kind == "truth")' "$run/report.json")"
}

sw_case injected injected
sw_case named named
sw_case clock_estimate clock_estimate
sw_case windows_right windows_right
nothing_left "$run"
sw_done "clock-step +30 s: injected, named, estimate corrected, windows on the monotonic clock"
