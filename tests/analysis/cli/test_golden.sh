#!/usr/bin/env bash
# Description: golden files of the text, CSV and JSON reports of a fixed
# synthetic run (eager rewrite, lost replies at the update, a READ every 50
# GETATTRs, clock.json, a kernel-mount reader), and the text report of a
# lang run over 4 pages with msync(MS_ASYNC) every 7 s (trap updates,
# pending flushes).  Any change in a figure, a column, a key or the layout
# shows as a diff; a broken analysis shows as different numbers.  synth
# runs the writer's own policies in its model (libswmodel), so a broken policy
# (server/policy/*.c) shows here too.  Refresh after an intended change with
#   tests/analysis/cli/test_golden.sh --update-golden
# (needs SW_BUILD_DIR, or a build in build-analysis/).
. "$(dirname "$0")/../../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
golden_start "$@"
"$SYN" --out run --duration 40 --lost 30050-30150 --read-every 50 \
	--offset-ns 250000 --err-ns 20000 --kread-ms 500 \
	--mount-options rw,relatime,vers=3,actimeo=5 >/dev/null || { fail "synth run"; sw_done; }
"$SYN" --out lang --policy lang --duration 40 --msync-async-ms 7000 \
	--pages 4 --interval-us 50000 >/dev/null || { fail "synth lang"; sw_done; }
mkdir -p out
"$REP" lang >out/report-lang.txt 2>err-lang.txt ||
	{ fail "expected exit 0 on the lang run, saw $?: $(cat err-lang.txt)"; sw_done; }
rc=0
"$REP" run --format all --out out 2>err.txt || rc=$?
[ $rc -eq 0 ] || { fail "expected exit 0 on a complete synthetic run, saw $rc: $(cat err.txt)"; sw_done; }

# the text report must fit a mail
width() {
	awk 'length($0) > 72 { print "report.txt line " NR " is " length($0) " columns: " $0; bad=1 } END { exit bad }' \
		out/report.txt || fail "expected report.txt within 72 columns, saw the lines above"
}
golden() {
	cd out || return
	golden_compare report.txt report.csv report.json report-lang.txt
	cd "$T" || exit 1
}
sw_case width width
sw_case golden golden
golden_done "text, CSV, JSON and the lang run match"
