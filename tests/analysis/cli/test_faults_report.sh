#!/usr/bin/env bash
# Description: the report's status line and exit code from faults.json
# on synthetic run folders (no root, no NFS): without faults `complete`,
# exit 0; a partition recorded by `stalewin-runfolder fault`
# -> "complete, with faults: partition at 2.00 s for 3.00 s (N stores)",
# exit 4, N the stores synth made inside it (one every 100 ms: 31, the
# bounds included); a fault that cut the run short -> "PARTIAL: ...", exit
# 3; a writer log without END -> PARTIAL naming writer.swlog; a
# faults.json that is not JSON -> partial with a message that says what
# was expected.  A status line that hides a fault fails here.
. "$(dirname "$0")/../../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
RF=$BLD/common/stalewin-runfolder
[ -x "$RF" ] || skip "$RF not built"
first() { head -n 1 "$1/report.txt"; }
report() { "$REP" "$1" --format all --out "$1" > /dev/null 2>"$1.err"; echo $?; }

"$SYN" --out "$T/ok" --duration 10 --interval-us 100000 > /dev/null || { fail "synth ok"; sw_done; }
# the writer's first record is the run's start: faults relative to it
t0=$("$BLD/common/stalewin-logdump" "$T/ok/writer.swlog" | awk '$2 == "STORE" { sub(/.*t_after=/, ""); sub(/ .*/, ""); print; exit }')
[ -n "$t0" ] || t0=$("$BLD/common/stalewin-logdump" "$T/ok/writer.swlog" | sed -n '2s/.* t=\([0-9]*\).*/\1/p')

no_faults() {
	local rc
	rc=$(report "$T/ok")
	[ "$rc" = 0 ] || fail "no faults: expected exit 0, saw $rc"
	[[ $(first "$T/ok") == *"  complete  [synthetic logs]" ]] || fail "no faults: expected 'complete', saw: $(first "$T/ok")"
}

partition() {
	local rc n want
	cp -r "$T/ok" "$T/part"
	"$RF" fault "$T/part" --str kind=partition --int "t_start_real_ns=$((t0 + 2000000000))" \
		--int "t_end_real_ns=$((t0 + 5000000000))" || fail "stalewin-runfolder fault"
	jq -e '.faults[0].dur_ns == 3000000000' "$T/part/faults.json" > /dev/null || fail "faults.json lacks dur_ns: $(cat "$T/part/faults.json")"
	rc=$(report "$T/part")
	[ "$rc" = 4 ] || fail "partition: expected exit 4 (complete, with faults), saw $rc"
	n=$(jq '.end.faults[0].stores' "$T/part/report.json")
	want=$(awk -F, -v a="$((t0 + 2000000000))" -v b="$((t0 + 5000000000))" 'NR > 1 && $4 >= a && $4 <= b { n++ } END { print n + 0 }' "$T/part/report.csv")
	[ "$n" = "$want" ] && [ "$n" -ge 29 ] || fail "partition: expected $want stores inside (>= 29), the report says $n"
	[[ $(first "$T/part") == *"complete, with faults: partition at 2.00 s for 3.00 s ($n stores)  "* ]] ||
		fail "partition: status line: $(first "$T/part")"
}

cut_short() {
	local rc
	cp -r "$T/ok" "$T/cut"; rm -f "$T/cut/faults.json"
	"$RF" fault "$T/cut" --str kind=control-outage --int "t_start_real_ns=$((t0 + 8000000000))" --bool cut_short=true
	rc=$(report "$T/cut")
	[ "$rc" = 3 ] || fail "cut short: expected exit 3, saw $rc"
	[[ $(first "$T/cut") == *"PARTIAL: control-outage at 8.00 s, to the end ("*" stores); cut short: faults.json (see Problems)  "* ]] ||
		fail "cut short: status line: $(first "$T/cut")"
}

no_end() {
	local rc
	"$SYN" --out "$T/noend" --duration 5 --interval-us 100000 --no-end > /dev/null || fail "synth noend"
	rc=$(report "$T/noend")
	[ "$rc" = 3 ] || fail "no END: expected exit 3, saw $rc"
	[[ $(first "$T/noend") == *"PARTIAL: cut short: writer.swlog (see Problems)  "* ]] || fail "no END: status line: $(first "$T/noend")"
}

bad_json() {
	local rc
	cp -r "$T/ok" "$T/bad"; echo '{"faults": [' > "$T/bad/faults.json"
	rc=$(report "$T/bad")
	[ "$rc" = 3 ] || fail "bad faults.json: expected exit 3, saw $rc"
	grep -q 'expected faults.json as JSON' "$T/bad.err" || fail "bad faults.json: no clear error: $(cat "$T/bad.err")"
}

sw_case no-faults no_faults
sw_case partition partition
sw_case cut-short cut_short
sw_case no-end no_end
sw_case bad-json bad_json
sw_done "status line and exit code from faults.json"
