#!/usr/bin/env bash
# Description: the report's command line beyond one text report: compare of
# an eager and a deferred run (text and JSON) must show both policies with
# their own figures (deferred's first store waits for the flush: its truth
# p50 is larger), the SQLite archive must give back what was stored (list,
# query, compare @RUN_ID equal to compare of the folder), --plots must make
# SVG files through gnuplot, --profiles must replace the built-in table,
# and the front command ./stalewin report must reach the binary.  A broken
# CLI shows as a missing row, a figure that differs between the archive and
# the folder, no plot, or a wrong exit code.
. "$(dirname "$0")/../../lib/test-lib.sh"
# shellcheck source=tests/analysis/cli/lib.sh
. "$(dirname "$0")/lib.sh"

"$SYN" --out "$T/eager" --duration 40 --run-id e1 >/dev/null || { fail "synth eager"; sw_done; }
"$SYN" --out "$T/deferred" --duration 40 --policy deferred --run-id d1 >/dev/null || { fail "synth deferred"; sw_done; }

compare() {
	"$REP" compare "$T/eager" "$T/deferred" >"$T/cmp.txt" 2>"$T/cmp.err" || fail "compare exit $?: $(cat "$T/cmp.err")"
	grep -q "A 00000000000000e1 eager" "$T/cmp.txt" || fail "compare: no row for run A (eager)"
	grep -q "B 00000000000000d1 deferred" "$T/cmp.txt" || fail "compare: no row for run B (deferred)"
	awk 'length($0) > 72 { bad=1 } END { exit bad }' "$T/cmp.txt" || fail "compare: text wider than 72 columns"
	"$REP" compare --format json "$T/eager" "$T/deferred" >"$T/cmp.json" || fail "compare json exit $?"
	# eager: the 98 stores after the trap at 30.1 s are uncovered; deferred:
	# the munmap flush covers them, and its stores wait for the flush (max 30 s)
	python3 - "$T/cmp.json" <<'PY' || fail "compare json: per-run figures wrong"
import json, sys
j = json.load(open(sys.argv[1]))
r = {x["policy"]: x for x in j["runs"]}
def truth(run):
    return [f for f in run["figures"] if f["name"] == "truth"][0]
assert j["schema"] == "stalewin-compare"
assert truth(r["eager"])["unresolved"] == 98, truth(r["eager"])
assert truth(r["deferred"])["unresolved"] == 0, truth(r["deferred"])
assert truth(r["deferred"])["max_ns"] == 30 * 10**9, truth(r["deferred"])
assert truth(r["eager"])["max_ns"] is None
PY
}

archive() {
	local DB=$T/archive.db
	"$REP" archive add "$T/eager" "$T/deferred" --db "$DB" >"$T/add.txt" || fail "archive add exit $?"
	grep -c "^added" "$T/add.txt" | grep -q 2 || fail "archive add: expected 2 runs added"
	"$REP" archive list --db "$DB" >"$T/list.txt" || fail "archive list exit $?"
	grep -q "^00000000000000e1|eager" "$T/list.txt" || fail "archive list: eager run missing"
	"$REP" archive query --db "$DB" --policy deferred --figure truth >"$T/q.txt" || fail "archive query exit $?"
	[ "$(wc -l <"$T/q.txt")" -eq 2 ] || fail "archive query: expected header + 1 row, saw $(wc -l <"$T/q.txt") lines"
	"$REP" compare "$T/eager" "$T/deferred" >"$T/cmp.txt" 2>/dev/null
	"$REP" compare --db "$DB" @e1 @d1 >"$T/cmpdb.txt" || fail "compare from the archive exit $?"
	# same table from the archive as from the folders (the header lines name
	# the folder, so compare from the figure table on)
	diff <(sed -n '/^figure/,$p' "$T/cmp.txt") <(sed -n '/^figure/,$p' "$T/cmpdb.txt") >"$T/d.txt" ||
		fail "compare from the archive differs from compare of the folders: $(head -5 "$T/d.txt")"
	"$REP" compare --db "$DB" @ff >/dev/null 2>"$T/e.txt"
	[ $? -eq 2 ] && grep -q "expected a run id" "$T/e.txt" || fail "compare @unknown: expected exit 2 and a message"
}

plots() {
	"$REP" "$T/eager" --plots >/dev/null 2>"$T/plot.err" || fail "plots exit $?: $(cat "$T/plot.err")"
	for f in cdf.svg timeline.svg; do
		grep -q "<svg" "$T/eager/plots/$f" 2>/dev/null || fail "plots: expected $T/eager/plots/$f to be an SVG"
	done
}

profiles() {
	printf '# one profile\nmine vers=4 actimeo=2 period_ms=10\n' >"$T/prof.txt"
	"$REP" "$T/eager" --format json --profiles "$T/prof.txt" >"$T/p.json" || fail "--profiles exit $?"
	python3 - "$T/p.json" <<'PY' || fail "--profiles: expected exactly the profile 'mine'"
import json, sys
j = json.load(open(sys.argv[1]))
names = [f["name"] for f in j["results"]["figures"] if f["kind"] == "replay"]
assert names == ["mine"], names
PY
	printf 'bad vers=4 wrong=1\n' >"$T/bad.txt"
	"$REP" "$T/eager" --profiles "$T/bad.txt" >/dev/null 2>"$T/e.txt"
	[ $? -eq 2 ] && grep -q "bad.txt:1" "$T/e.txt" || fail "--profiles with a bad line: expected exit 2 naming file:line"
	"$REP" "$T/eager" --format yaml >/dev/null 2>&1
	[ $? -eq 2 ] || fail "--format yaml: expected exit 2"
}

front() {
	[ -x "$SRC/stalewin" ] && [ -d "$BLD" ] || return 0
	SW_BUILD_DIR=$BLD "$SRC/stalewin" report "$T/eager" >"$T/front.txt" 2>&1 || fail "./stalewin report exit $?"
	grep -q "^truth" "$T/front.txt" || fail "./stalewin report: no table"
	SW_BUILD_DIR=$BLD "$SRC/stalewin" compare "$T/eager" "$T/deferred" >/dev/null 2>&1 || fail "./stalewin compare"
}

sw_case compare compare
sw_case archive archive
sw_case plots plots
sw_case profiles profiles
sw_case front front
sw_done "compare, archive, plots, profiles, front command"
