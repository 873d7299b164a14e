#!/usr/bin/env bash
# Description: the Cost section from a fixed cost.json
# (tests/server/cost/data/cost.json: `stalewin-cost table --json` of
# cost-rows.jsonl there, TCG guest rows and one host row):
#   section   `stalewin-report cost-section FILE`: counts per 1000 stores
#             and ratios to eager as they are, "TCG: ratio only" and no
#             latency in us for a TCG group, the host row's in us, "-"
#             for null, the findings ("500x fewer"), 72 columns, no
#             emulator trap
#   json      --json: a TCG row has no fault_p50_us, the host row has
#   bad       a missing file, a file without rows: exit 2, said
#   verdict   `verdict DIR` gives it when DIR/cost/cost.json exists (text
#             and --json), not otherwise
#   mail      the mail of a study folder gives it from STUDY/cost/cost.json,
#             with no reason to refuse it
#   refuse    a crafted cost.json whose host row's tcg is missing, then
#             null: mail refuses (exit 2), the reason naming the row
. "$(dirname "$0")/../../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
golden_start "$@"
CJ=$SRC/tests/server/cost/data/cost.json

section() {
	"$REP" cost-section "$CJ" >s.txt 2>err.txt || { fail "cost-section: exit $?: $(cat err.txt)"; return; }
	grep -q '^Cost (' s.txt && grep -q "^  from $CJ" s.txt || fail "no Cost heading and source"
	# the 1-thread ext4 TCG group: ratios, never its 10.1 / 96.7 us
	sed -n '/7.2.13), ext4, 1 thread/,/^$/p' s.txt >g.txt
	grep -q 'TCG: ratio only' g.txt || fail "the TCG group is not labelled 'TCG: ratio only'"
	grep -Eq '^  deferred +2\.0 +2\.0 +2\.0 +2\.0 +0\.48 +0\.10$' g.txt ||
		fail "deferred's counts and ratios: $(grep deferred g.txt)"
	grep -Eq '10\.1|96\.7|4\.8 |9\.3 ' s.txt && fail "a TCG row's latency in us: $(grep -E '10\.1|96\.7|4\.8 |9\.3 ' s.txt)"
	grep -Eq '^  stock +2\.0 +0\.0 +- +2\.0 +2\.1 +1\.00 +7\.5 +1\.00$' s.txt ||
		fail "the host row (tcg false) in us: $(grep stock s.txt)"
	grep -Eq '^  deferred +1000\.0 +- +1000\.0' s.txt || fail "xfs: a null commit count not '-'"
	tr '\n' ' ' <s.txt | tr -s ' ' | grep -q "deferred: 2 timestamp updates per 1000 stores against eager's 1000 (500x fewer)" ||
		fail "no saving finding"
	awk 'length($0) > 72 { bad=1 } END { exit bad }' s.txt || fail "a line over 72 columns"
	grep -qi 'trap' s.txt && fail "the emulator's trap in the Cost section"
}
json() {
	"$REP" cost-section "$CJ" --json >s.json || { fail "--json: exit $?"; return; }
	jq -e '[.rows[] | select(.tcg == true) | has("fault_p50_us")] | any | not' s.json >/dev/null ||
		fail "--json: a TCG row with fault_p50_us"
	jq -e '.rows[] | select(.policy == "stock") | .fault_p50_us == 2.1 and .latency == "us"' s.json >/dev/null ||
		fail "--json: the host row's latency"
	jq -e '[.rows[] | select(.tcg == true) | .latency == "TCG: ratio only"] | all' s.json >/dev/null ||
		fail "--json: a TCG row not 'TCG: ratio only'"
}
bad() {
	"$REP" cost-section nosuch.json >/dev/null 2>err.txt
	[ $? -eq 2 ] && grep -q "expected a cost.json" err.txt || fail "a missing file: expected exit 2, said"
	echo '{"rows": []}' >empty.json
	"$REP" cost-section empty.json >/dev/null 2>err.txt
	[ $? -eq 2 ] && grep -q "saw no rows" err.txt || fail "no rows: expected exit 2: $(cat err.txt)"
}
# a study folder: study.json without comparisons, its runs, its cost/
study() { # DIR COST.JSON
	mkdir -p "$1/cells/c1" "$1/cost"
	jq -n '{cells: [{id: "c1", kernel: "synthetic", policy: "deferred", fs: "tmpfs",
		workload: "rewrite", runnable: true, planned: 5, n: 5,
		runs: [range(1; 6) | {dir: "cells/c1/run-\(.)", truth_p50_s: 1.0}]}]}' >"$1/study.json"
	printf '[c1]\nkernel = stock:6.1\npolicy = eager\nfs = tmpfs\n' >"$1/plan.ini"
	cp "$2" "$1/cost/cost.json"
	for i in 1 2 3 4 5; do
		[ -d "$1/cells/c1/run-$i" ] ||
			"$SYN" --out "$1/cells/c1/run-$i" --policy deferred --duration 20 >/dev/null || fail "synth"
	done
}
verdict() {
	study st "$CJ"
	"$REP" verdict st >v.txt 2>err.txt || fail "verdict: exit $?: $(cat err.txt)"
	grep -q '^Cost (stalewin cost' v.txt && grep -q 'TCG: ratio only' v.txt ||
		fail "verdict: no Cost section: $(cat v.txt)"
	"$REP" verdict st --json >v.json || fail "verdict --json: exit $?"
	jq -e '.cost.rows | length == 10' v.json >/dev/null || fail "verdict --json: no cost rows"
	rm -r st/cost
	"$REP" verdict st >v.txt 2>&1
	grep -q '^Cost' v.txt && fail "verdict: a Cost section without cost/cost.json"
	"$REP" verdict st --json | jq -e 'has("cost") | not' >/dev/null || fail "verdict --json: cost without a cost.json"
}
mail() {
	study st "$CJ"
	"$REP" mail st --sketch >m.txt 2>err.txt || fail "mail: exit $?: $(cat err.txt)"
	grep -q '^Cost (stalewin cost' m.txt && grep -q '^  from st/cost/cost.json' m.txt ||
		fail "mail: no Cost section from st/cost/cost.json"
	grep -q 'Cost section' err.txt m.txt && fail "mail: the Cost section refused: $(grep 'Cost section' m.txt err.txt)"
	sed -n '/^Cost (/,/^To reproduce/p' m.txt >mc.txt
	grep -Eq '10\.1|96\.7' mc.txt && fail "mail: a TCG latency in us: $(grep -E '10\.1|96\.7' mc.txt)"
	"$REP" mail --check m.txt >/dev/null 2>ck.txt || fail "mail --check: $(cat ck.txt)"
}
refuse() {
	local how
	for how in 'del(.tcg)' '(.tcg = null)'; do
		rm -rf st
		jq "(.rows[] | select(.policy == \"stock\")) |= $how" "$CJ" >crafted.json
		study st crafted.json
		"$REP" mail st >m.txt 2>err.txt
		local rc=$?
		[ $rc -eq 2 ] || fail "$how: expected mail to refuse (exit 2), saw $rc"
		grep -q "a sketch, not evidence to post: .*the Cost section would give stock's fault latency on host 6.18.44 (ext4, 1 thread(s)) in us, but its tcg is missing or null" err.txt ||
			fail "$how: the reason: $(cat err.txt)"
		[ ! -s m.txt ] || fail "$how: a refused mail wrote to stdout"
	done
}
# summary: the Cost section of a run folder's own cost/cost.json
summary() {
	"$SYN" --out r1 --policy deferred --duration 20 >/dev/null || fail "synth"
	"$REP" summary r1 >s.txt 2>err.txt || fail "summary: exit $?: $(cat err.txt)"
	grep -q '^Cost' s.txt && fail "summary: a Cost section without cost/cost.json"
	mkdir -p r1/cost && cp "$CJ" r1/cost/cost.json
	"$REP" summary r1 >s.txt 2>err.txt || fail "summary: exit $?: $(cat err.txt)"
	grep -q '^Cost (stalewin cost' s.txt && grep -q 'TCG: ratio only' s.txt || fail "summary: no Cost section: $(cat s.txt)"
}
sw_case section section
sw_case json json
sw_case bad bad
sw_case verdict verdict
sw_case mail mail
sw_case summary summary
sw_case refuse refuse
sw_done "cost-section text and JSON, bad input, verdict and mail give it, mail refuses tcg unknown"
