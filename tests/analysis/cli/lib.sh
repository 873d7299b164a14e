# tests/analysis/cli/lib.sh: what the command-line tests share (sourced
# with the test's name): the binaries, a temporary folder removed at exit,
# a failure counter.
set -uo pipefail
SRC=${SW_SOURCE_DIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
BLD=${SW_BUILD_DIR:-$SRC/build-analysis}
SYN=$BLD/analysis/stalewin-synth
REP=$BLD/analysis/stalewin-report
T=$(mktemp -d "/tmp/sw-${1:-cli}-XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
# golden_start "$@": for the golden tests (summary, mail): G the golden
# folder, update=1 with --update-golden, the binaries checked, cd into $T.
golden_start() {
	G=$SRC/tests/analysis/cli/golden
	update=0
	[ "${1:-}" = "--update-golden" ] && update=1
	for x in "$SYN" "$REP"; do
		[ -x "$x" ] || { echo "expected $x to be built" >&2; exit 1; }
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
			fail "$f differs from $G/$f:"
			head -40 diff.txt >&2
		fi
	done
}
