#!/usr/bin/env bash
# Description: bounded libFuzzer run of one target (fuzz_tables: the
# profile table and faults.json parsers; fuzz_control: the control API's
# request handling, corpus given as $2) in the test suite: build it with
# clang (the fuzz_* custom target), run it for SW_FUZZ_SECONDS (default
# 20) over its corpus in tests/analysis/pass/corpus/<name> (new inputs go
# to a scratch folder, the corpus in git stays as it is).  0 crashes and
# no sanitizer report, else it fails with the crashing input kept in the
# log.  Without clang: exit 77.
. "$(dirname "$0")/../../lib/test-lib.sh"
set -uo pipefail
name=${1:?usage: test_fuzz.sh TARGET [CORPUS_DIR]}
B=${SW_BUILD_DIR:?SW_BUILD_DIR not set}
SRC=${SW_SOURCE_DIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
command -v clang >/dev/null || skip "clang not installed (optional: scripts/packages.d/analysis.txt)"
corpus=${2:-$SRC/tests/analysis/pass/corpus/${name#fuzz_}}
[ -d "$corpus" ] || { fail "expected a corpus at $corpus, saw none"; sw_done; }
if ! cmake --build "$B" --target "$name" > /tmp/sw-$name-build.log 2>&1; then
	# only the runtime's own absence skips: the command line echoed in the
	# log names -fsanitize=fuzzer whatever failed (a missing -l once read
	# as "no libFuzzer runtime" and skipped the test)
	grep -q "cannot find.*fuzzer\|libclang_rt\.fuzzer.*No such file\|unsupported argument 'fuzzer'" \
		/tmp/sw-$name-build.log && skip "this clang has no libFuzzer runtime"
	tail -n 20 /tmp/sw-$name-build.log
	fail "expected $name to build, saw the errors above"
	sw_done
fi
bin=$(find "$B" -name "$name" -type f -perm -u+x | head -n 1)
T=$(mktemp -d /tmp/sw-$name-XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
"$bin" -max_total_time="${SW_FUZZ_SECONDS:-20}" -timeout=10 -rss_limit_mb=2048 \
	"$T" "$corpus" > "$T/log" 2>&1
rc=$?
if [ $rc != 0 ]; then
	grep -E 'ERROR|runtime error|SUMMARY|Test unit written|outside|deadly signal' "$T/log" | head -n 20
	fail "expected $name to exit 0, saw $rc (crash input in the lines above)"
	sw_done
fi
sw_done "$name $(grep -o '#[0-9]*.*DONE.*' "$T/log" | tail -n 1 || tail -n 1 "$T/log")"
