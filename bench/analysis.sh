#!/usr/bin/env bash
# bench/analysis.sh [--json]: speed and memory of stalewin-report.
# Generates synthetic runs (stalewin-synth: eager, 256 pages written at
# random every 2 us, kupdate every 100 ms, a probe polling every 2 us) of
# ~1 M and ~10 M log events, reports each (text) and measures wall time and
# peak RSS (getrusage ru_maxrss of the child, via GNU time).  RSS must stay
# flat when events grow with pages fixed.  Targets: >= 5 M events/s.
# The report is single-threaded: events/s is events / (user + sys CPU s)
# of the report process, which equals wall time on an idle machine and
# stays meaningful when other jobs load the 2 cores (wall is printed too).
# JSON keys: analysis_events_per_s, analysis_peak_rss_mib (10 M run), plus
# the 1 M run's figures for the comparison.
set -euo pipefail
json=0
[ "${1:-}" = "--json" ] && json=1
TOP=${SW_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
BLD=${SW_BUILD_DIR:-$TOP/build}
SYN=$BLD/analysis/stalewin-synth
REP=$BLD/analysis/stalewin-report
for x in "$SYN" "$REP"; do
	[ -x "$x" ] || { echo "bench/analysis.sh: expected $x to be built (./stalewin build)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "bench/analysis.sh: expected GNU time at /usr/bin/time (package time)" >&2; exit 2; }
T=$(mktemp -d /tmp/sw-bench-analysis-XXXXXX)
trap 'rm -rf "$T"' EXIT

one() { # NAME DURATION_S -> "events wall_s rss_kib cpu_s"
	local d=$T/$1
	local ev
	ev=$("$SYN" --out "$d" --duration "$2" --interval-us 2 --poll-us 2 --rtt-us 1 \
		--pages 256 --random --writeback-ms 100 --expire-ms 100)
	/usr/bin/time -f "%e %M %U %S" -o "$T/$1.time" "$REP" "$d" >"$T/$1.txt"
	read -r w m u s <"$T/$1.time"
	echo "$ev $w $m $(awk "BEGIN { print $u + $s }")"
	rm -rf "$d"
}

read -r ev1 wall1 rss1 cpu1 < <(one small 1)
read -r ev10 wall10 rss10 cpu10 < <(one large 10)
calc() { awk "BEGIN { printf \"%.${2}f\", $1 }"; }
eps1=$(calc "$ev1 / $cpu1" 0)
eps10=$(calc "$ev10 / $cpu10" 0)
mib1=$(calc "$rss1 / 1024" 1)
mib10=$(calc "$rss10 / 1024" 1)
if [ $json -eq 1 ]; then
	printf '{"analysis_events_per_s":%s,"analysis_peak_rss_mib":%s,"events":%s,"cpu_s":%s,"wall_s":%s,' \
		"$eps10" "$mib10" "$ev10" "$cpu10" "$wall10"
	printf '"events_1m":%s,"events_per_s_1m":%s,"peak_rss_mib_1m":%s,"pages":256,"target_events_per_s":5000000}\n' \
		"$ev1" "$eps1" "$mib1"
else
	printf '%-22s %10s %7s %7s %10s %8s\n' "run (256 pages)" "events" "cpu s" "wall s" "events/s" "RSS MiB"
	printf '%-22s %10s %7s %7s %10s %8s\n' "~1 M events (1 s)" "$ev1" "$cpu1" "$wall1" "$eps1" "$mib1"
	printf '%-22s %10s %7s %7s %10s %8s\n' "~10 M events (10 s)" "$ev10" "$cpu10" "$wall10" "$eps10" "$mib10"
	echo "events/s = events / CPU s of the (single-threaded) report"
	echo "target: >= 5000000 events/s; RSS bounded by pages, not events"
fi
