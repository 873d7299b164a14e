#!/usr/bin/env bash
# Description: validate --vm-runs N (scripts/validate.jq, modes median_run,
# sides, row, line): of N runs of one side, the one compared is the run
# whose truth p50 is the median of the side's, ">end" (null) above every
# figure and the lower middle for an even N; the row keeps every run's
# figures and the folders compared, and its text line prints them.  A
# harness that compared the first run, or sorted ">end" as zero, would
# compare a kernel draw from the edge of its spread (the patched kernel's
# deferred p50 drew 1.39-1.70 s over seven runs of one command).
. "$(dirname "$0")/../lib/test-lib.sh"
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
J=$SRC/scripts/validate.jq
command -v jq >/dev/null || skip "jq missing"
T=$(mktemp -d /tmp/sw-runs-jq.XXXXXX)
trap 'rm -rf "$T"' EXIT
# a report.json with truth p50 $2 (ns or null) and $3 updates
rep() {
	mkdir -p "$(dirname "$1")"
	jq -n --argjson p "$2" --argjson u "$3" \
		'{results: {figures: [{kind: "truth", name: "truth", stores: 300, unresolved: 0,
		  p50_ns: $p, p90_ns: 4000000000, p99_ns: 5000000000, max_ns: 5100000000}],
		  cost: {updates: $u}}}' >"$1"
}
median() { jq -s -r -f "$J" --arg mode median_run "$@"; }
# the runs of sides a (1.70, 1.39, 1.49 s) and b (>end, 0.5, 0.9 s)
sides() {
	rep $T/a/real.1/report.json 1700000000 13
	rep $T/a/real.2/report.json 1390000000 17
	rep $T/a/real.3/report.json 1490000000 12
	rep $T/b/real.1/report.json null 2
	rep $T/b/real.2/report.json 500000000 20
	rep $T/b/real.3/report.json 900000000 18
}
sides
# three runs: 1.70 s, 1.39 s, 1.49 s -> run 3 (1.49 s)
three() {
	local k
	k=$(median $T/a/real.*/report.json)
	[ "$k" = 3 ] || fail "three runs 1.70/1.39/1.49 s: expected run 3 (1.49 s), saw '$k'"
}
# ">end" is above every figure: null, 0.5 s, 0.9 s -> run 3 (0.9 s)
end_above() {
	local k
	k=$(median $T/b/real.*/report.json)
	[ "$k" = 3 ] || fail "runs >end/0.5/0.9 s: expected run 3 (0.9 s, >end above it), saw '$k'"
}
# an even count: the lower middle (1.0 s of 0.8/1.0/1.2/1.4 s)
even() {
	local i k
	for i in 1 2 3 4; do rep $T/c/real.$i/report.json $((600000000 + 200000000 * i)) 10; done
	k=$(median $T/c/real.*/report.json)
	[ "$k" = 2 ] || fail "four runs 0.8-1.4 s: expected run 2 (1.0 s, the lower middle), saw '$k'"
}
# the row keeps every run and says which were compared; the line prints them
row() {
	local got
	jq -s -f "$J" --arg mode sides $T/a/real.*/report.json >$T/real.json
	jq -s -f "$J" --arg mode sides $T/b/real.*/report.json >$T/model.json
	jq -n --slurpfile m $T/model.json --slurpfile r $T/real.json \
		'{model: $m[0], real: $r[0], compared: {model: "model.3", real: "real.3"}}' >$T/runs.json
	jq -n --arg name vm-deferred-patched --arg fs ext4 --arg args rewrite --argjson wb 1000 \
		--argjson ex 5000 --argjson dur 30 --argjson res 100 --arg load x --argjson lead 25 \
		--slurpfile m $T/b/real.3/report.json --slurpfile r $T/a/real.3/report.json \
		--slurpfile runs $T/runs.json -f "$J" --arg mode row >$T/row.json ||
		fail "the row did not compute: $(cat $T/row.json)"
	got=$(jq -c '[.runs.real[].p50, .runs.compared.real]' $T/row.json)
	[ "$got" = '[1700000000,1390000000,1490000000,"real.3"]' ] ||
		fail "expected the row's runs.real p50s in run order and real.3 compared, saw $got"
	jq -r -f "$J" --arg mode line $T/row.json >$T/line.txt
	grep -q 'runs:  model p50 >end 0.5s 0.9s  real p50 1.7s 1.39s 1.49s  (compared: model.3, real.3' $T/line.txt ||
		fail "expected the text line to list the runs, saw: $(cat $T/line.txt)"
}
sw_case three three
sw_case end-above end_above
sw_case even even
sw_case row row
sw_done
