#!/usr/bin/env bash
# Description: docs/architecture.md gives every C file its room.  Fails
# when a .c file under common/, server/, client/, analysis/, bench/ or vm/
# is not named there by its whole path (a file added without a room), and
# when the document names a .c path under those folders or tests/ that
# does not exist (a file moved, renamed or removed without the document).
# Reads the source tree only: no build, no root.
set -u
S=${SW_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
doc=$S/docs/architecture.md
[ -r "$doc" ] || { echo "FAIL: expected $doc, saw none" >&2; exit 1; }
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

rooms=(common server client analysis bench vm)
# the .c paths the document names: every word ending in ".c" that starts
# with a room or tests/ (kernel paths such as mm/filemap.c, and templates
# such as server/policy/<name>.c, are no path of this tree)
named=$(grep -oE '[A-Za-z0-9_./-]*[A-Za-z0-9_]\.c\b' "$doc" |
	grep -E '^(common|server|client|analysis|bench|vm|tests)/' | sort -u)
files=$(cd "$S" && for r in "${rooms[@]}"; do [ -d "$r" ] && find "$r" -name '*.c' -type f; done | sort)
[ -n "$files" ] || fail "expected .c files under ${rooms[*]} in $S, saw none"

n=0
while IFS= read -r f; do
	[ -n "$f" ] || continue
	n=$((n + 1))
	grep -qxF -- "$f" <<<"$named" || fail "$f has no room: docs/architecture.md does not name it"
done <<<"$files"
while IFS= read -r f; do
	[ -n "$f" ] || continue
	[ -f "$S/$f" ] || fail "docs/architecture.md names $f, which does not exist"
done <<<"$named"

[ "$fails" -eq 0 ] || { echo "$fails problem(s): give each .c file its line in docs/architecture.md (\"Every file's room\")" >&2; exit 1; }
echo "docs/architecture.md names all $n .c files of ${rooms[*]}, and no .c file that is not there"
