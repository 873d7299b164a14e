#!/usr/bin/env bash
# bench/obs.sh: how much later the probe sees a change than it happened.
#
#   bench/obs.sh [--json] [--duration SEC]
#
# One short eager + rewrite run on tmpfs through ganesha (scripts/stalewin-run,
# 1 probe, NFSv3, writeback every 200 ms, expire 600 ms) and, from the
# report's per-store rows (report.csv), the distribution of
#     W_obs(s) - W_truth(s)
# over the stores that have both (probe 0).  Prints a table, or with --json
# one object: obs_minus_truth_p50_us (and _p90_us, _max_us, stores,
# resolution_us from report.json).  Needs root and nfs-ganesha.
set -euo pipefail
SW_TOP=${SW_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
json=0 duration=5
while [ $# -gt 0 ]; do
	case $1 in
	--json) json=1; shift ;;
	--duration) duration=$2; shift 2 ;;
	*) echo "bench/obs.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
tmp=$(mktemp -d /tmp/sw-benchobs-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$SW_TOP/scripts/stalewin-run" --policy eager --workload rewrite --fs tmpfs \
	--duration "$duration" --probes 1 --vers 3 --interval-ms 50 \
	--writeback-ms 200 --expire-ms 600 --out "$tmp/run" > /dev/null 2>"$tmp/run.err" ||
	{ tail -n 5 "$tmp/run.err" >&2; echo "bench/obs.sh: the run failed" >&2; exit 1; }
csv=$tmp/run/report.csv
[ -s "$csv" ] || { echo "bench/obs.sh: no report.csv" >&2; exit 1; }
# columns by name; differences in ns, sorted
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["w_truth_ns"] != "" && $c["obs0_w_ns"] != "" && $c["obs0_status"] == "ok" {
		print $c["obs0_w_ns"] - $c["w_truth_ns"] }' "$csv" | sort -n > "$tmp/d"
n=$(wc -l < "$tmp/d")
[ "$n" -gt 0 ] || { echo "bench/obs.sh: no store with both a truth and an observed window" >&2; exit 1; }
q() { awk -v q="$1" -v n="$n" 'NR == (int((n - 1) * q) + 1) { printf "%.1f", $1 / 1000 }' "$tmp/d"; }
p50=$(q 0.5) p90=$(q 0.9) max=$(q 1.0)
res=$(jq '[.. | objects | .resolution_ns? // empty] | max // null' "$tmp/run/report.json" 2>/dev/null || echo null)
resus=$( [ "$res" = null ] && echo null || awk -v r="$res" 'BEGIN { printf "%.1f", r / 1000 }')
if [ $json = 1 ]; then
	jq -n --argjson p50 "$p50" --argjson p90 "$p90" --argjson max "$max" --argjson n "$n" \
		--argjson res "$resus" \
		'{obs_minus_truth_p50_us: $p50, obs_minus_truth_p90_us: $p90,
		  obs_minus_truth_max_us: $max, obs_stores: $n, obs_resolution_us: $res}'
else
	printf '%-28s %s\n' "stores (both windows)" "$n" "obs-truth p50 (us)" "$p50" \
		"obs-truth p90 (us)" "$p90" "obs-truth max (us)" "$max" "resolution (us)" "$resus"
fi
