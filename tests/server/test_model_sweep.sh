#!/usr/bin/env bash
# Description: stalewin-model-sweep drives the writeback model with a
# writer log's own stores, the model started at the writer's start (phase
# 0), and must reproduce what the emulating writer itself decided in real
# time: the same number of timestamp updates and truth p50/p90/max within
# 10 ms or 1 % (the report's histogram) of `stalewin-report`'s figures for
# that run.  A sweep that drives the model differently from the writer
# (ticks taken late, a trap missed, the munmap's update left out, windows
# measured from the wrong edge of a store) gives other updates and
# windows here, and the validate pairs built on it would judge the model
# by figures it never produced.  Also: N phases give N rows over the same
# stores; a non-writer log and --phases 0 are refused with the reason.
set -u
B=${SW_BUILD_DIR:?}
W=$B/server/stalewin-writer SW=$B/server/stalewin-model-sweep R=$B/analysis/stalewin-report
for x in "$W" "$SW" "$R"; do [ -x "$x" ] || { echo "FAIL: build $x first"; exit 1; }; done
command -v jq >/dev/null || { echo "SKIP: jq missing"; exit 77; }
[ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] || { echo "SKIP: /dev/shm is not tmpfs"; exit 77; }
S=$(mktemp -d /dev/shm/sw-sweep-XXXXXX)
trap 'rm -rf "$S"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

mkdir "$S/run"
"$W" run --file "$S/f" --policy deferred --workload rewrite --duration 6 \
	--writeback-ms 500 --expire-ms 1500 --log "$S/run/writer.swlog" >"$S/w.out" 2>&1 ||
	{ echo "FAIL: writer: $(tail -2 "$S/w.out")"; exit 1; }
"$R" "$S/run" --format json 2>"$S/r.err" | jq -c '[.results.figures[] | select(.kind == "truth")][0] as $t
	| {p50: $t.p50_ns, p90: $t.p90_ns, max: $t.max_ns, stores: $t.stores, updates: .results.cost.updates}' >"$S/rep" ||
	{ echo "FAIL: report: $(tail -2 "$S/r.err")"; exit 1; }
"$SW" --log "$S/run/writer.swlog" --policy deferred --writeback-ms 500 --expire-ms 1500 \
	--phases 1 >"$S/sw" 2>"$S/sw.err" || { echo "FAIL: sweep: $(cat "$S/sw.err")"; exit 1; }
echo "writer (report): $(cat "$S/rep")"
echo "sweep phase 0:   $(jq -c '.phases[0]' "$S/sw")"
jq -n --slurpfile r "$S/rep" --slurpfile s "$S/sw" '$r[0] as $r | $s[0].phases[0] as $p
	| def near($a; $b): ($a - $b | fabs) <= ([1e7, 0.01 * $b] | max);
	[ (if $p.updates != $r.updates then "updates \($p.updates), the writer made \($r.updates)" else empty end),
	  (if $p.stores != $r.stores then "stores \($p.stores), the log has \($r.stores)" else empty end),
	  (if near($p.p50_ns; $r.p50) | not then "p50 \($p.p50_ns) ns, the writer'"'"'s \($r.p50) ns" else empty end),
	  (if near($p.p90_ns; $r.p90) | not then "p90 \($p.p90_ns) ns, the writer'"'"'s \($r.p90) ns" else empty end),
	  (if near($p.max_ns; $r.max) | not then "max \($p.max_ns) ns, the writer'"'"'s \($r.max) ns" else empty end)
	] | .[]' -r >"$S/bad"
while IFS= read -r l; do fail "expected the sweep at phase 0 to match the writer's own run: $l"; done <"$S/bad"
[ "$(jq '.updates' "$S/rep")" -ge 3 ] || fail "expected at least 3 updates in 6 s (wb 500 ms, expire 1.5 s), the writer made $(jq '.updates' "$S/rep")"

"$SW" --log "$S/run/writer.swlog" --policy deferred --writeback-ms 500 --expire-ms 1500 --phases 8 >"$S/sw8" ||
	fail "sweep over 8 phases failed"
jq -e '(.phases | length) == 8 and all(.phases[]; .stores == 60) and .p50_ns.min <= .p50_ns.median and .p50_ns.median <= .p50_ns.max' "$S/sw8" >/dev/null ||
	fail "expected 8 phases of 60 stores with min <= median <= max: $(jq -c '{p50_ns, n: (.phases | length)}' "$S/sw8")"

head -c 100 /dev/zero >"$S/junk"
"$SW" --log "$S/junk" >/dev/null 2>"$S/e1"; rc=$?
[ $rc = 1 ] && grep -q 'STALEWIN\|magic\|header\|expected' "$S/e1" || fail "a non-log: expected exit 1 naming the problem, saw $rc: $(cat "$S/e1")"
"$SW" --log "$S/run/writer.swlog" --phases 0 >/dev/null 2>"$S/e2"; rc=$?
[ $rc = 2 ] && grep -q "expected --phases as an integer from 1" "$S/e2" || fail "--phases 0: expected exit 2 and the range, saw $rc: $(cat "$S/e2")"
[ $fails -eq 0 ] && echo PASS
exit $((fails > 0))
