# tests/analysis/cli/lib.sh: what the command-line tests share, sourced
# after tests/lib/test-lib.sh: the binaries, a temporary folder removed
# at exit, and the golden files' helpers.
set -uo pipefail
SRC=${SW_SOURCE_DIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
BLD=${SW_BUILD_DIR:-$SRC/build-analysis}
SYN=$BLD/analysis/stalewin-synth
REP=$BLD/analysis/stalewin-report
T=$(mktemp -d "/tmp/sw-$sw_test-XXXXXX")
trap 'rm -rf "$T"' EXIT
# golden_start "$@": for the golden tests: G the golden folder, update=1
# with --update-golden, the binaries checked, cd into $T.
golden_start() {
	G=$SRC/tests/analysis/cli/golden
	update=0
	[ "${1:-}" = "--update-golden" ] && update=1
	for x in "$SYN" "$REP"; do
		[ -x "$x" ] || { fail "expected $x to be built"; sw_done; }
	done
	cd "$T" || exit 1
}
# golden_compare FILE...: each FILE against $G/FILE (after golden_start);
# with --update-golden, copied there instead.
golden_compare() {
	local f
	for f in "$@"; do
		if [ "$update" -eq 1 ]; then
			cp "$f" "$G/$f" && echo "updated $G/$f"
		elif ! diff -u "$G/$f" "$f" >diff.txt; then
			fail "expected $f as in $G/$f, saw it differ:"
			head -40 diff.txt
		fi
	done
}
# golden_done WHAT: sw_done WHAT, or "golden files updated" with --update-golden
golden_done() {
	[ "$update" -eq 0 ] || set -- "golden files updated"
	sw_done "$1"
}
