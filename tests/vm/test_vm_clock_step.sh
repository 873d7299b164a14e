#!/usr/bin/env bash
# Description: `stalewin vm run --fault clock-step@3:+30` (argument
# server, the default) or `--fault client-clock-step@3:+30` (client): the
# server's (the writer's) or the client guest's (the probe's and the
# kernel readers') CLOCK_REALTIME steps 30 s forward 3 s into a 7 s eager
# run on tmpfs.  Cases:
#  - injected: the stepped side's own log shows it (realtime - monotonic
#    of the writer's STOREs, or of kread-0's KREADs, jumps by 30 s, once),
#    faults.json holds the step made (rc 0, within 50 ms of +30 s);
#  - named: exit 4, the report's first line names the fault (at ~3 s, to
#    the end, its stores, the step seen in writer.swlog or probe-0.swlog),
#    the same count
#    of stores as report.csv's after its start;
#  - clock_estimate: the report names the side's realtime step and the
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
side=${1:-server}
case $side in
server) kind=clock-step log=writer.swlog rec=STORE f=t_before who=writer sign=1 ;;
client) kind=client-clock-step log=probe-0.swlog rec=KREAD f=t_before who=client sign=-1 ;;
*) echo "expected server or client, saw '$side'" >&2; exit 2 ;;
esac
dump=$b/common/stalewin-logdump
run=$T/run
set +e
PATH=$b/analysis:$PATH "$top/vm/run.sh" --policy eager --fs tmpfs --duration 7 --lead 6 \
	--mount-opts vers=3,nolock --reader-mode cto --probe-rate 50 --fault $kind@3:+30 \
	--build-dir "$b" --out "$run" >"$T/report.txt" 2>"$T/run.err"
rc=$?
set -e
[ -s "$run/report.json" ] || { tail -n 30 "$T/run.err"; fail "vm run (exit $rc) left no report.json"; }
first=$(sed -n 1p "$run/report.txt")
echo "report: $first"

injected() {
	# the stepped side's records: realtime - monotonic, in ms (the writer's
	# STOREs; the client's: kread-0's KREADs, the dump shows their clocks)
	local src=writer.swlog
	[ $side = server ] || src=kread-0.swlog
	"$dump" "$run/$src" | awk -v r=$rec -v f=$f '$2 == r {
		for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "%.0f\n", (v[f] - v[f "_mono"]) / 1e6 }' >"$T/off.txt"
	[ -s "$T/off.txt" ] || { "$dump" "$run/$src" | grep -m 2 $rec; fail "no $rec with $f and ${f}_mono in $src (the dump's fields above)"; }
	local jumps
	jumps=$(awk 'NR > 1 && ($1 - p > 100 || p - $1 > 100) { printf "%+d ", $1 - p } { p = $1 }' "$T/off.txt")
	[[ $jumps =~ ^\+(29[0-9]{3}|30[0-9]{3})\ $ ]] ||
		fail "expected one jump of realtime - monotonic of ~+30000 ms in $src's ${rec}s, saw '${jumps:-none}'"
	jq -e --arg k $kind '[.faults[] | select(.kind == $k)] | length == 1' "$run/faults.json" >/dev/null ||
		fail "expected one $kind in faults.json, saw: $(cat "$run/faults.json" 2>/dev/null)"
	jq -e --arg k $kind '.faults[] | select(.kind == $k) | .rc == 0 and .step_asked_ns == 30000000000
		and (.step_ns - 30000000000 | fabs) < 50000000' "$run/faults.json" >/dev/null ||
		fail "expected the step made, rc 0, within 50 ms of +30 s, saw: $(jq -c --arg k $kind '.faults[] | select(.kind == $k)' "$run/faults.json")"
}

named() {
	[ "$rc" = 4 ] || fail "expected exit 4 (complete, with faults), saw $rc"
	local pre=""
	[ $side = server ] || pre="client "
	[[ $first =~ complete,\ with\ faults:\ $kind\ at\ 3\.[0-9]+\ s,\ to\ the\ end\ \(([0-9]+)\ stores\;\ ${pre}realtime\ \+([0-9]+\.[0-9]{3})\ s,\ seen\ in\ ${log/./\\.}\ at\ [34]\.[0-9]+\ s ]] ||
		fail "expected the first line to name $kind at ~3 s, to the end, its stores and the +30 s step seen in $log, saw: $first"
	local n=${BASH_REMATCH[1]} step=${BASH_REMATCH[2]} t0 after
	# the step as seen is a difference of two clock reads, each pair taken
	# with a delay between its reads: within 50 ms of +30 s, either side
	awk -v s="$step" 'BEGIN { exit !(s > 29.95 && s < 30.05) }' ||
		fail "expected the step seen within 50 ms of +30 s, saw +$step s in: $first"
	t0=$(jq -r --arg k $kind '.faults[] | select(.kind == $k) | .t_start_real_ns' "$run/faults.json")
	# (the client's fault is on the observers' clock, report.csv's t_s on
	# the writer's: offset = server - client)
	[ $side = server ] || t0=$((t0 + $(jq .start.clock.offset_ns "$run/report.json")))
	after=$(awk -F, -v t="$t0" 'NR > 1 && $4 >= t' "$run/report.csv" | wc -l)
	[ "$n" -gt 0 ] && [ "$n" = "$after" ] || fail "the first line counts $n stores during the step, report.csv $after after its start"
}

clock_estimate() {
	# (the text wraps at 72 columns: its lines joined; the step as seen
	# within 50 ms of +30 s, either side, as in named)
	local want='writer realtime stepped \+(29\.9[5-9]|30\.0[0-4])[0-9]* s at [34]\.[0-9]* s \(estimate after it corrected\)'
	[ $side = server ] || want='client realtime stepped \+(29\.9[5-9]|30\.0[0-4])[0-9]* s at [34]\.[0-9]* s \(probe-0\.swlog\), estimate after it corrected'
	tr -s ' \n' '  ' <"$run/report.txt" | grep -Eq "clock : offset [^;]*; $want" ||
		fail "expected the clock line to name the step, saw: $(grep -A1 '^clock' "$run/report.txt")"
	jq -e --arg s "${who}_realtime_steps" --argjson sg $sign '.start.clock | (.[$s] | length) == 1
		and .after_offset_raw_ns != null and (.after_offset_raw_ns - .offset_ns) * $sg > 29000000000
		and .err_ns < 1000000000' "$run/report.json" >/dev/null ||
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
sw_done "$kind +30 s: injected, named, estimate corrected, windows on the monotonic clock"
