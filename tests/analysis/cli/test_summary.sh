#!/usr/bin/env bash
# Description: `stalewin-report summary` on fixed synthetic runs (eager
# rewrite with a cto kernel reader, deferred rewrite, lang random): the
# text and JSON against golden files, every text line <= 72 columns, the
# label made of what differs (policy, workload), the client view's source
# (k kernel reader, r replay).  Refresh after an intended change with
#   tests/analysis/cli/test_summary.sh --update-golden
. "$(dirname "$0")/../../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
golden_start "$@"
"$SYN" --out e --policy eager --duration 40 --kread-ms 500 \
	--mount-options rw,relatime,vers=3,actimeo=5 >/dev/null || fail "synth e"
"$SYN" --out d --policy deferred --duration 40 >/dev/null || fail "synth d"
"$SYN" --out l --policy lang --duration 40 --random --pages 16 >/dev/null || fail "synth l"
"$REP" summary e d l >summary.txt 2>err.txt || { fail "summary exit $?"; cat err.txt; }
"$REP" summary e d l --json >summary.json 2>>err.txt || fail "summary --json exit $?"

width() {
	awk 'length($0) > 72 { print "summary.txt line " NR " is " length($0) " columns: " $0; bad=1 } END { exit bad }' summary.txt ||
		fail "a summary line is wider than 72 columns"
}
# the figures the rows must carry, from the JSON (computed, not formatted)
rows() {
	jq -e '.rows | length == 3 and .[0].label == "eager rewrite" and
		.[0].view_cto.source == "kernel" and .[0].view_default.source == "replay" and
		.[1].uncovered_share == 0 and .[0].uncovered_share > 0.2 and
		.[2].updates_per_1k > .[0].updates_per_1k' summary.json >/dev/null ||
		fail "summary JSON rows: $(jq -c '.rows[] | [.label, .uncovered_share, .view_cto.source, .updates_per_1k]' summary.json)"
}
# repeats: runs of one command (--out aside) grouped with their spread;
# stalewin-synth's command does not name its policy, so the policies
# must keep e, d and l apart
repeats() {
	"$SYN" --out d2 --policy deferred --duration 40 >/dev/null || fail "synth d2"
	"$SYN" --out d3 --policy deferred --duration 40 >/dev/null || fail "synth d3"
	"$REP" summary e d l d2 d3 --json >rep.json 2>>err.txt || fail "summary (repeats) exit $?"
	jq -e '.repeats | length == 1 and .[0].runs == 3 and .[0].dirs == ["d", "d2", "d3"] and
		.[0].truth_p50_s.median == .[0].truth_p50_s.min' rep.json >/dev/null ||
		fail "expected one group of d, d2, d3, saw: $(jq -c .repeats rep.json)"
	# three runs: the interval of the median is their range, covering 75 %
	jq -e '.repeats[0].truth_p50_s | .ci_lo == .min and .ci_hi == .max and
		(.ci_coverage - 0.75 | fabs) < 1e-9 and .regimes.count == 1' rep.json >/dev/null ||
		fail "three runs: expected the interval min..max covering 0.75, one regime, saw: $(jq -c '.repeats[0].truth_p50_s' rep.json)"
	jq -e '.repeats == []' summary.json >/dev/null || fail "e, d, l are no repeats, saw: $(jq -c .repeats summary.json)"
	"$REP" summary e d l d2 d3 | grep -q '^repeats of one command' || fail "no repeats section in the text"
}
# one run: labelled by its policy
single() {
	"$REP" summary d | grep -q '^deferred ' || fail "a single run is not labelled by its policy"
}
# bad input: a clear error naming the folder
bad_input() {
	"$REP" summary e /nonexistent >/dev/null 2>bad.txt
	[ $? -eq 2 ] && grep -q nonexistent bad.txt || fail "missing folder: expected exit 2 naming it, saw: $(cat bad.txt)"
}
# compare: every line fits 72 columns, a long run folder included (the
# folders go to a legend at the end, folded)
compare() {
	local long=$T/run-folder-with-a-name-long-enough-to-pass-seventy-two-columns-alone
	cp -r d "$long"
	"$REP" compare e "$long" >cmp.txt 2>cmp.err || fail "compare exit $?: $(cat cmp.err)"
	awk 'length($0) > 72 { print "compare line " NR " is " length($0) " columns: " $0; bad=1 } END { exit bad }' cmp.txt ||
		fail "a compare line is wider than 72 columns"
	grep -q '^run folders:' cmp.txt && grep -q '^  B .*-pass-\\$' cmp.txt && grep -q '^    seventy-two-columns-alone$' cmp.txt ||
		fail "compare: expected the folders in a legend at the end, folded: $(sed -n '/^run folders/,$p' cmp.txt)"
}
sw_case width width
sw_case rows rows
sw_case repeats repeats
sw_case single single
sw_case bad-input bad_input
sw_case compare compare
sw_case golden golden_compare summary.txt summary.json
golden_done "text and JSON match, lines <= 72"
