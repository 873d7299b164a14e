#!/usr/bin/env bash
# vm/kernel/cover-letter.sh - the series' cover letter for one base, as
# `git format-patch --cover-letter` writes it, with the subject and the
# blurb (its measured tables) from vm/kernel/cover/blurb-B.txt.
#
#   vm/kernel/cover-letter.sh [--base 6.1|7.2]
#
# Copies the pristine files the series touches (from the kernel cache:
# `./stalewin vm kernel build --base B` unpacks them) into a scratch git
# repository, applies patches/B/ with `git am` (each patch keeps its
# author), runs `git format-patch --cover-letter` and writes
# vm/kernel/cover/B/0000-cover-letter.patch.  Kept out of patches/B/, whose
# 000N-*.patch files are the series the build applies.  No network.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
base=${SW_KERNEL_BASE:-6.1}
while [ $# -gt 0 ]; do
	case $1 in
	--base) base=${2:?--base needs a value}; shift 2 ;;
	*) echo "usage: $0 [--base 6.1|7.2]" >&2; exit 2 ;;
	esac
done
cache=${SW_KERNEL_CACHE:-/var/cache/stalewin/kernel}
if [ "$base" = 6.1 ]; then pristine=$cache/pristine; else pristine=$cache/$base/pristine; fi
pristine=$(ls -d "$pristine"/linux-source-"$base" 2>/dev/null) || {
	echo "cover-letter: no pristine linux-source-$base under $cache; run ./stalewin vm kernel build --base $base" >&2
	exit 1
}
blurb=$here/cover/blurb-$base.txt
[ -f "$blurb" ] || { echo "cover-letter: no $blurb" >&2; exit 1; }
patches=("$here/patches/$base"/[0-9][0-9][0-9][0-9]-*.patch)
[ -f "${patches[0]}" ] || { echo "cover-letter: no series under $here/patches/$base" >&2; exit 1; }
tmp=$(mktemp -d /tmp/sw-cover.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
git init -q "$tmp/src"
grep -h '^--- a/' "${patches[@]}" | sed 's#^--- a/##' | sort -u | while read -r f; do
	[ -f "$pristine/$f" ] || continue
	mkdir -p "$tmp/src/$(dirname "$f")"
	cp "$pristine/$f" "$tmp/src/$f"
done
g() { git -C "$tmp/src" -c user.name="stalewin developers" -c user.email=stalewin-devel@example.org "$@"; }
g add -A
g commit -q -m "linux-source-$base: the files the series touches"
g tag base
g am -q "${patches[@]}"
g format-patch -q --cover-letter -o "$tmp/out" base..HEAD
mkdir -p "$here/cover/$base"
subject=$(sed -n 1p "$blurb")
python3 - "$tmp/out/0000-cover-letter.patch" "$blurb" "$subject" \
	"$here/cover/$base/0000-cover-letter.patch" <<'EOF'
import sys
letter, blurb, subject, out = sys.argv[1:]
text = open(letter).read()
body = open(blurb).read().split("\n", 2)[2]  # line 1 subject, line 2 blank
text = text.replace("*** SUBJECT HERE ***", subject).replace("*** BLURB HERE ***\n", body)
open(out, "w").write(text)
EOF
echo "cover-letter: wrote $here/cover/$base/0000-cover-letter.patch (${#patches[@]} patches)"
