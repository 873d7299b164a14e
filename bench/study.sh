#!/usr/bin/env bash
# bench/study.sh - what `./stalewin study quick` takes, a fresh boot for
# every run (the default) and with --boot-reuse, side by side.
#
#   bench/study.sh [--json] [--no-reuse]
#
# study_quick_s: wall seconds of `./stalewin study quick` (6 runs of the
#   patched 6.1 guest, a boot each), goal <= 600 s on a quiet 2-core
#   machine;
# study_overhead_per_run_s: (wall - the runs' own lead + duration) / runs:
#   what the study adds around each run (boot, clock, readers, report);
# study_quick_reuse_s, study_overhead_per_run_reuse_s: the same with
#   --boot-reuse (one boot for the six; not the default: runs after the
#   first of a boot draw another writeback regime, docs/validation-log.md);
#   null with --no-reuse;
# study_reuse_speedup: study_quick_s / study_quick_reuse_s;
# study_load_avg: the 1-minute load average at the end (TCG guests slow
#   down with the machine's other work: compare figures of equal load).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$here/..
json=0 reuse=1
while [ $# -gt 0 ]; do
	case $1 in
	--json) json=1 ;;
	--no-reuse) reuse=0 ;;
	*) echo "bench/study.sh: unknown argument '$1' (expected --json or --no-reuse)" >&2; exit 2 ;;
	esac
	shift
done
"$repo/vm/kernel/stalewin-vm-kernel" --print-path --base 6.1 >/dev/null ||
	{ echo "bench/study.sh: no patched 6.1 kernel cached; ./stalewin vm kernel build" >&2; exit 1; }
rep=${SW_BUILD_DIR:-$repo/build}/analysis/stalewin-report
tmp=$(mktemp -d /tmp/sw-bench-study.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# the runs' own seconds: lead + duration of every planned run
own=$("$rep" plan "$repo/scripts/plans/quick.ini" --json |
	jq '[.cells[] | select(.runnable) | .repeats * (.lead_s + (.args | capture("--duration (?<d>[0-9]+)").d | tonumber))] | add')
runs=$("$rep" plan "$repo/scripts/plans/quick.ini" --json | jq '[.cells[] | select(.runnable) | .repeats] | add')
one() { # NAME ARGS...: wall seconds of a study
	local t0 name=$1
	shift
	t0=${EPOCHREALTIME/[.,]/}
	SW_NO_BUILD=1 "$repo/stalewin" study quick --out "$tmp/$name" "$@" >"$tmp/$name.log" 2>&1 ||
		{ tail -5 "$tmp/$name.log" >&2; echo "bench/study.sh: ./stalewin study quick $* failed" >&2; exit 1; }
	echo $(( (${EPOCHREALTIME/[.,]/} - t0) / 1000000 ))
}
fresh=$(one fresh)
shared=null
[ $reuse = 0 ] || shared=$(one shared --boot-reuse)
load=$(cut -d' ' -f1 /proc/loadavg)
out=$(jq -n --argjson f "$fresh" --argjson s "$shared" --argjson own "$own" --argjson n "$runs" --argjson l "$load" '{
	study_quick_s: $f, study_overhead_per_run_s: ((($f - $own) / $n) * 10 | round / 10),
	study_quick_reuse_s: $s,
	study_overhead_per_run_reuse_s: (if $s == null then null else ((($s - $own) / $n) * 10 | round / 10) end),
	study_reuse_speedup: (if $s == null then null else (($f / $s) * 100 | round / 100) end),
	study_runs: $n, study_load_avg: $l}')
if [ $json = 1 ]; then echo "$out"; else echo "$out" | jq -r 'to_entries[] | "\(.key) \(.value)"'; fi
