#!/usr/bin/env bash
# Description: docs/architecture.md gives every C file its room.  Fails
# when a .c file under common/, server/, client/, analysis/, bench/ or vm/
# is not named there by its whole path (a file added without a room), and
# when the document names a .c path under those folders or tests/ that
# does not exist (a file moved, renamed or removed without the document),
# and when a comment or document cites a tracker's issue number, and
# when a C file of the tree is over 800 lines or a runtime shell script
# (the front command, scripts/, vm/) over 400 (the house's limits: a file
# a reviewer reads whole).
# Reads the source tree only: no build, no root.
. "$(dirname "$0")/../lib/test-lib.sh"
set -u
S=${SW_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
doc=$S/docs/architecture.md
[ -r "$doc" ] || { fail "expected $doc, saw none"; sw_done; }

rooms=(common server client analysis bench vm)
# the .c paths the document names: every word ending in ".c" that starts
# with a room or tests/ (kernel paths such as mm/filemap.c, and templates
# such as server/policy/<name>.c, are no path of this tree)
named=$(grep -oE '[A-Za-z0-9_./-]*[A-Za-z0-9_]\.c\b' "$doc" |
	grep -E '^(common|server|client|analysis|bench|vm|tests)/' | sort -u)
files=$(cd "$S" && for r in "${rooms[@]}"; do [ -d "$r" ] && find "$r" -name '*.c' -type f; done | sort)
n=$(grep -c . <<<"$files")

every_file_named() {
	local f
	[ -n "$files" ] || fail "expected .c files under ${rooms[*]} in $S, saw none"
	while IFS= read -r f; do
		[ -n "$f" ] || continue
		grep -qxF -- "$f" <<<"$named" ||
			fail "$f has no room: docs/architecture.md does not name it (give it its line under \"Every file's room\")"
	done <<<"$files"
}
every_name_a_file() {
	local f
	while IFS= read -r f; do
		[ -n "$f" ] || continue
		[ -f "$S/$f" ] || fail "docs/architecture.md names $f, which does not exist"
	done <<<"$named"
}
# the tracker is not in the repository: a comment or a document that
# cites an issue by its number sends its reader nowhere (the closing
# notes carry that)
no_tracker_numbers() {
	local hits
	hits=$(cd "$S" && git ls-files -- '*.c' '*.h' '*.sh' '*.md' '*.ini' '*.jq' 'CMakeLists.txt' '*/CMakeLists.txt' \
		'stalewin' 'scripts/stalewin-*' 2>/dev/null | grep -v '^tests/.*/data/' |
		xargs -r grep -nE '\b[Ii]ssues? #?[0-9]+' 2>/dev/null | head -n 5)
	[ -z "$hits" ] || fail "expected no tracker issue numbers in the tree's comments and documents, saw: $hits"
}
# the house's size limits, on what git tracks (tests/ apart: a test file
# is as long as its cases)
file_sizes() {
	local over
	over=$(cd "$S" && git ls-files -- '*.c' '*.h' 2>/dev/null | grep -v '^tests/' |
		xargs -r wc -l | awk '$2 != "total" && $1 > 800 { print $2 " " $1 " lines" }')
	[ -z "$over" ] || fail "expected no C file over 800 lines, saw: $over"
	over=$(cd "$S" && git ls-files -- stalewin 'scripts/*' 'vm/*' 2>/dev/null | while IFS= read -r f; do
		case $f in *.sh) echo "$f" ;; *) head -n 1 "$f" | grep -qE '^#!.*\b(ba)?sh\b' && echo "$f" ;; esac
	done | xargs -r wc -l | awk '$2 != "total" && $1 > 400 { print $2 " " $1 " lines" }')
	[ -z "$over" ] || fail "expected no runtime shell script over 400 lines, saw: $over"
}
sw_case every-file-named every_file_named
sw_case every-name-a-file every_name_a_file
sw_case no-tracker-numbers no_tracker_numbers
sw_case file-sizes file_sizes
sw_done "docs/architecture.md names all $n .c files of ${rooms[*]}, and no .c file that is not there"
