#!/usr/bin/env bash
# Description: a report of more observers than its rows hold (report.h
# SW_MAX_OBS 128, SW_ROWS_OBS 8), on synthetic run folders (no guest):
# one writer (synth's eager rewrite, 30 s, a store every 20 ms, a
# writeback every 100 ms) and 100 probe logs of one target each, probe-K
# polling every 10 + K ms, probe-57 every 900 ms (its p99 "> run end":
# the worst).  many: exit 0;
# report.json has the 100 observers, each with its own window (stores,
# p50/p90/p99/max) and achieved rate; observers_in_rows says 8 of 100;
# the figures table, the CSV's columns and the text's table hold 8; the
# spread (min <= median <= max of p50, p99's max "> run end") names
# probe-57 as the worst, in the text within 72 columns.  cap: a 129th probe log is left
# out and said so (exit 3, partial).  few: with 8 observers none of it
# appears (the <= 8 report is the goldens').
. "$(dirname "$0")/../../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
[ -x "$SYN" ] && [ -x "$REP" ] || { fail "expected $SYN and $REP to be built"; sw_done; }
command -v jq >/dev/null || skip "jq not installed"
N=100
mkdir -p "$T/run"
for ((k = 0; k <= 128; k++)); do
	poll=$((10000 + k * 1000)); [ $k = 57 ] && poll=900000
	"$SYN" --out "$T/s" --duration 30 --interval-us 20000 --expire-ms 200 --writeback-ms 100 \
		--poll-us $poll --offset-ns 250000 --err-ns 20000 >/dev/null || { fail "synth probe $k"; sw_done; }
	[ $k = 0 ] && cp "$T/s/writer.swlog" "$T/s/meta.json" "$T/s/clock.json" "$T/run/"
	cmp -s "$T/s/writer.swlog" "$T/run/writer.swlog" || { fail "synth $k: expected the same writer log"; sw_done; }
	mv "$T/s/probe-0.swlog" "$T/probe-$k.swlog"
	rm -rf "$T/s"
done
for ((k = 0; k < N; k++)); do cp "$T/probe-$k.swlog" "$T/run/"; done
rj() { jq -r "$@" "$T/out/report.json"; }

many() {
	local rc=0 bad
	mkdir -p "$T/out"
	"$REP" "$T/run" --format all --out "$T/out" >/dev/null 2>"$T/err" || rc=$?
	[ $rc = 0 ] || { fail "expected exit 0 with $N observers, saw $rc: $(cat "$T/err")"; return; }
	[ "$(rj '.results.observers | length')" = $N ] ||
		fail "expected $N observers in report.json, saw $(rj '.results.observers | length')"
	# (a quantile among the stores no reply revealed before the end is
	# null: "> run end")
	bad=$(rj '[.results.observers[] | select((.window.stores // 0) == 0 or .window.p50_ns == null
		or ([.window | has("p90_ns", "p99_ns", "max_ns")] | all | not)
		or (.achieved_replies_per_s // 0) <= 0 or .consistency.checked == 0) | .name] | join(", ")')
	[ -z "$bad" ] || fail "expected each observer's window, rate and consistency, saw none for: $bad"
	[ "$(rj -c '.results.observers_in_rows | [.rows, .of]')" = "[8,$N]" ] ||
		fail "expected observers_in_rows 8 of $N, saw $(rj -c .results.observers_in_rows)"
	[ "$(rj '[.results.figures[] | select(.kind == "observed")] | length')" = 8 ] ||
		fail "expected 8 observed figures (the rows'), saw $(rj '[.results.figures[] | select(.kind == "observed")] | length')"
	[ "$(rj -c '.results.observer_spread | [.observers, .judged, .worst]')" = "[$N,$N,\"probe-57/t0 v3\"]" ] ||
		fail "expected the spread over $N observers, worst probe-57/t0 v3, saw $(rj -c .results.observer_spread)"
	[ "$(rj '.results.observer_spread | (.p50_ns[0] > 0 and .p50_ns[0] <= .p50_ns[1] and
		.p50_ns[1] < .p50_ns[2] and .p99_ns[0] > 0 and .p99_ns[0] <= .p99_ns[1] and .p99_ns[2] == null)')" = true ] ||
		fail "expected min <= median <= max, p99's max null (> run end), saw $(rj -c .results.observer_spread)"
	[ "$(head -n 1 "$T/out/report.csv" | tr ',' '\n' | grep -c '_status$')" = 8 ] ||
		fail "expected 8 observers' columns in report.csv, saw: $(head -n 1 "$T/out/report.csv")"
	grep -q '^probe-7/t0 v3 ' "$T/out/report.txt" && ! grep -q '^probe-8/t0 v3 ' "$T/out/report.txt" ||
		fail "expected the text's table to end at probe-7, saw: $(grep '^probe-' "$T/out/report.txt")"
	tr -d ' \n' <"$T/out/report.txt" >"$T/joined.txt"
	grep -q "observers:${N}probetargets:[^;]*holdthefirst8" "$T/joined.txt" ||
		fail "expected the text to say the rows hold 8 of $N, saw: $(grep -A2 '^observers' "$T/out/report.txt")"
	grep -q "spread:W_obsoverthe${N}observersthatjudgedastore(min/median/max):p50[^;]*,p99[^;]*/>end;worstprobe-57/t0v3(p99>end)" "$T/joined.txt" ||
		fail "expected the text's spread naming probe-57 the worst, saw: $(grep -A3 '^spread' "$T/out/report.txt")"
	grep -q "observed:all${N}:[0-9]*checked" "$T/joined.txt" || fail "expected the summed consistency line"
	awk 'length($0) > 72 { print "line " NR " is " length($0) " columns: " $0; bad = 1 } END { exit bad }' \
		"$T/out/report.txt" || fail "expected report.txt within 72 columns, saw the lines above"
	[ "$(grep -c '^      probe-[0-9]*/t0 v3: [0-9]* checked' "$T/out/report.txt")" = 8 ] ||
		fail "expected 8 consistency blocks in the text, saw $(grep -c '^      probe-[0-9]*/t0 v3: [0-9]* checked' "$T/out/report.txt")"
}

cap() {
	local rc=0
	for ((k = N; k <= 128; k++)); do cp "$T/probe-$k.swlog" "$T/run/"; done
	"$REP" "$T/run" --format json >"$T/cap.json" 2>"$T/cap.err" || rc=$?
	[ $rc = 3 ] || fail "expected exit 3 (partial) with 129 probe logs, saw $rc"
	[ "$(jq '.results.observers | length' "$T/cap.json")" = 128 ] ||
		fail "expected 128 observers, saw $(jq '.results.observers | length' "$T/cap.json")"
	grep -q 'probe-128.swlog: more than 128 probe logs: left out' "$T/cap.err" ||
		fail "expected probe-128.swlog named as left out, saw: $(cat "$T/cap.err")"
	for ((k = N; k <= 128; k++)); do rm -f "$T/run/probe-$k.swlog"; done
}

few() {
	mkdir -p "$T/few"
	cp "$T/run/writer.swlog" "$T/run/meta.json" "$T/run/clock.json" "$T/few/"
	for ((k = 0; k < 8; k++)); do cp "$T/probe-$k.swlog" "$T/few/"; done
	"$REP" "$T/few" --format all --out "$T/few" >/dev/null 2>"$T/few.err" ||
		{ fail "expected exit 0 with 8 observers, saw $?: $(cat "$T/few.err")"; return; }
	[ "$(jq -c '.results | [has("observers_in_rows"), has("observer_spread"),
		(.observers | length), ([.observers[] | has("window")] | any)]' "$T/few/report.json")" = '[false,false,8,false]' ] ||
		fail "expected 8 observers and none of the many-observer keys, saw $(jq -c '.results | keys' "$T/few/report.json")"
	! grep -q '^observers:\|^spread' "$T/few/report.txt" || fail "expected no spread lines with 8 observers"
}

sw_case many many
sw_case cap cap
sw_case few few
sw_done "$N observers: each its figures in report.json, 8 in the rows, the spread in the text"
