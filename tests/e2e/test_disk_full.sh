#!/usr/bin/env bash
# Description: the run folder on a small tmpfs (8.5 MiB: stalewin-run
# holds 8 MiB back while logging) fills up while the probe logs.  The
# probe must stop with a clear error naming its log and ENOSPC, which
# stalewin-run repeats ("probe 0 exited early") and keeps in faults.json;
# the writer (its log on its own file system) runs its planned duration;
# the report is written (the reserve is freed at the end), exit 3, its
# first line PARTIAL naming probe-0.swlog as cut short; and no torn
# record is accepted: the probe's replies in the report are exactly the
# whole ATTR records before the torn tail.  A harness that loses the run
# on a full disk, or a report that counts a torn record, fails here.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
SMALL=$E2E_TMP/small
mkdir -p "$SMALL"
mount -t tmpfs -o size=8704k sw-e2e-full "$SMALL" || skip "cannot mount a tmpfs on $SMALL"
trap 'umount "$SMALL" 2>/dev/null; rm -rf "$E2E_TMP"' EXIT
RUN=$SMALL/run
set +e
"$S/scripts/stalewin-run" --out "$RUN" --policy eager --workload rewrite --duration 5 \
	--interval-ms 50 --writeback-ms 300 --expire-ms 900 > "$E2E_TMP/out" 2> "$E2E_TMP/err"
rc=$?
set -e
[ $rc = 3 ] || { cat "$E2E_TMP/err" >&2; fail "expected exit 3 (partial), saw $rc"; }
grep -q 'probe 0 exited early (exit 1): .*probe-0.swlog.*No space left on device' "$E2E_TMP/err" ||
	fail "no clear error naming the probe's log and ENOSPC: $(grep -i probe "$E2E_TMP/err")"
[ -s "$RUN/report.json" ] || fail "no report.json in the full run folder"
first=$(head -n 1 "$RUN/report.txt")
[[ $first == *"PARTIAL: probe-exit at "*"cut short: probe-0.swlog"* ]] ||
	fail "expected the first line to name probe-exit and probe-0.swlog, saw: $first"
jq -e '.faults | map(select(.kind == "probe-exit" and .exit_code == 1)) | length == 1' "$RUN/faults.json" >/dev/null ||
	fail "faults.json lacks the probe's exit: $(cat "$RUN/faults.json")"
D=$B/common/stalewin-logdump
"$D" "$RUN/writer.swlog" > "$E2E_TMP/writer.txt" || fail "writer.swlog is not whole"
tail -n 1 "$E2E_TMP/writer.txt" | grep -q ' END .*reason=1 ' || fail "the writer did not run its planned duration: $(tail -n 1 "$E2E_TMP/writer.txt")"
"$D" "$RUN/probe-0.swlog" > "$E2E_TMP/probe.txt" 2> "$E2E_TMP/probe.err" && fail "logdump accepted the full probe log as whole"
grep -qi 'torn' "$E2E_TMP/probe.err" || fail "logdump does not call the probe log's tail torn: $(cat "$E2E_TMP/probe.err")"
whole=$(awk '$2 == "ATTR" && $0 !~ /status=-/' "$E2E_TMP/probe.txt" | wc -l)
all=$(awk '$2 == "ATTR"' "$E2E_TMP/probe.txt" | wc -l)
jqr --argjson n "$all" '.results.observers[0].replies + .results.observers[0].failures == $n' ||
	fail "the report counts $(jq '.results.observers[0] | .replies + .failures' "$RUN/report.json") probe requests, the log holds $all whole ATTR records ($whole good)"
sw_done "exit 3, $all whole ATTR records used; $first"
