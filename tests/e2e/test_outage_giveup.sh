#!/usr/bin/env bash
# Description: a partition that outlasts the run (partition@1:60, planned
# 4 s, --outage-grace 1).  stalewin-run must wait for the writer's
# planned end plus the grace, no longer and no shorter, then give up
# waiting, end the partition, copy the writer's log (one host) and report:
# the writer ran its planned 4 s (END reason=1), faults.json holds the
# control-outage with no end, the first line says "complete, with faults:
# control-outage at ..., to the end" (nothing was lost), exit 4.  An
# orchestrator that stops the writer at the first failed poll, waits the
# whole 60 s, or calls the run partial though every log is whole fails.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
t0=$(date +%s)
ALLOW_FAULTS=1 run_exp giveup --policy eager --workload rewrite --duration 4 --interval-ms 50 \
	--writeback-ms 300 --expire-ms 900 --fault partition@1:60 --outage-grace 1
took=$(($(date +%s) - t0))
[ -f "$E2E_TMP/giveup.err" ] && grep -q "giving up" "$E2E_TMP/giveup.err" ||
	fail "stalewin-run did not say it gave up waiting: $(cat "$E2E_TMP/giveup.err")"
[ $took -lt 40 ] || fail "the run took $took s: it waited out the 60 s partition instead of planned end + grace"
D=$B/common/stalewin-logdump
"$D" "$RUN/writer.swlog" | tail -n 1 | grep -q ' END .*reason=1 ' || fail "the writer did not run its planned duration"
jq -e '[.faults[] | select(.kind == "control-outage" and (has("t_end_real_ns") | not))] | length == 1' \
	"$RUN/faults.json" > /dev/null || fail "faults.json lacks an open control-outage: $(cat "$RUN/faults.json")"
first=$(head -n 1 "$RUN/report.txt")
[[ $first == *"complete, with faults: "*"control-outage at "*", to the end ("* ]] ||
	fail "expected the first line to name the open outage, saw: $first"
jqr '.end.exit_code == 4' || fail "expected exit code 4 in report.json"
sw_done "$took s; $first"
