#!/usr/bin/env bash
# Description: golden files of the text, CSV and JSON reports of a fixed
# synthetic run (eager rewrite, lost replies at the update, a READ every 50
# GETATTRs, clock.json, a kernel-mount reader), and the text report of a
# lang run over 4 pages with msync(MS_ASYNC) every 7 s (trap updates,
# pending flushes).  Any change in a figure, a column, a key or the layout
# shows as a diff; a broken analysis shows as different numbers.  synth
# runs the writer's own policies (libswpolicy), so a broken policy
# (server/policy/*.c) shows here too.  Refresh after an intended change with
#   tests/analysis/cli/test_golden.sh --update-golden
# (needs SW_BUILD_DIR, or a build in build-analysis/).
set -euo pipefail
SRC=${SW_SOURCE_DIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
BLD=${SW_BUILD_DIR:-$SRC/build-analysis}
B=$BLD/analysis
G=$SRC/tests/analysis/cli/golden
update=0
[ "${1:-}" = "--update-golden" ] && update=1
for x in stalewin-synth stalewin-report; do
	[ -x "$B/$x" ] || { echo "expected $B/$x to be built" >&2; exit 1; }
done
T=$(mktemp -d /tmp/sw-golden-XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T"
"$B/stalewin-synth" --out run --duration 40 --lost 30050-30150 --read-every 50 \
	--offset-ns 250000 --err-ns 20000 --kread-ms 500 \
	--mount-options rw,relatime,vers=3,actimeo=5 >/dev/null
"$B/stalewin-synth" --out lang --policy lang --duration 40 --msync-async-ms 7000 \
	--pages 4 --interval-us 50000 >/dev/null
mkdir -p out
"$B/stalewin-report" lang >out/report-lang.txt 2>err-lang.txt ||
	{ echo "FAIL: expected exit 0 on the lang run, saw $?:" >&2; cat err-lang.txt >&2; exit 1; }
rc=0
"$B/stalewin-report" run --format all --out out 2>err.txt || rc=$?
if [ $rc -ne 0 ]; then
	echo "FAIL: expected exit 0 on a complete synthetic run, saw $rc:" >&2
	cat err.txt >&2
	exit 1
fi
# the text report must fit a mail
awk 'length($0) > 72 { print "FAIL: report.txt line " NR " is " length($0) " columns: " $0; bad=1 } END { exit bad }' out/report.txt >&2
fail=0
for f in report.txt report.csv report.json report-lang.txt; do
	if [ $update -eq 1 ]; then
		mkdir -p "$G"
		cp "out/$f" "$G/$f"
		echo "updated $G/$f"
	elif ! diff -u "$G/$f" "out/$f" >diff.txt; then
		echo "FAIL: out/$f differs from the golden file $G/$f:" >&2
		head -60 diff.txt >&2
		fail=1
	fi
done
[ $fail -eq 0 ] && [ $update -eq 0 ] && echo "golden: text, CSV, JSON and the lang run match"
exit $fail
