#!/usr/bin/env bash
# bench/cost.sh - what `./stalewin cost` takes, and what its tracing costs.
#
#   bench/cost.sh [--json] [--base 6.1|7.2]
#
# cost_quick_s: wall seconds of `./stalewin cost --kernel patched:B --fs
#   ext4 --threads 1 --threads 2` (eager, deferred, lang; 500 pages,
#   2 rounds; one TCG guest boot included), goal <= 300 s here;
# cost_overhead_ratio: the fault p50 with the tracing on over the same
#   without it (--no-trace), measured side by side on this machine
#   (`./stalewin cost --host`, ext4, 1 thread, 2000 stores, --query statx
#   so that every fault journals and fires its events), three of each
#   alternated, median over median; goal <= 1.10; null without root;
# cost_overhead_p50_traced_us, cost_overhead_p50_untraced_us: the medians;
# cost_overhead_ratio_tcg: the same in the patched guest (TCG: a ratio).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$here/..
json=0 base=7.2
while [ $# -gt 0 ]; do
	case $1 in
	--json) json=1 ;;
	--base) base=${2:?--base needs 6.1 or 7.2}; shift ;;
	*) echo "bench/cost.sh: unknown argument '$1' (expected --json or --base 6.1|7.2)" >&2; exit 2 ;;
	esac
	shift
done
"$repo/vm/kernel/stalewin-vm-kernel" --print-path --base "$base" >/dev/null ||
	{ echo "bench/cost.sh: no patched $base kernel cached; ./stalewin vm kernel build --base $base" >&2; exit 1; }
tmp=$(mktemp -d /tmp/sw-bench-cost.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
kern=patched:$base; [ "$base" = 6.1 ] && kern=patched
t0=${EPOCHREALTIME/[.,]/}
"$repo/stalewin" cost --kernel "$kern" --fs ext4 --threads 1 --threads 2 \
	--out "$tmp/quick" --json >"$tmp/quick.json" 2>"$tmp/quick.err" ||
	{ tail -5 "$tmp/quick.err" >&2; echo "bench/cost.sh: ./stalewin cost failed" >&2; exit 1; }
quick=$(( (${EPOCHREALTIME/[.,]/} - t0) / 1000 ))

# overhead WHERE...: traced and untraced runs alternated, 3 each; prints
# "traced_p50 untraced_p50" (medians, us)
overhead() {
	local i tr a
	for i in 1 2 3; do
		for tr in traced untraced; do
			a=; [ $tr = untraced ] && a=--no-trace
			"$repo/stalewin" cost "$@" --fs ext4 --threads 1 --pages 2000 --repeats 1 \
				--query statx $a --json --out "$tmp/ovh-$*-$i-$tr" 2>"$tmp/ovh.err" |
				jq -c --arg t $tr '.rows[0] | {t: $t, p50: .fault_p50_us}' >>"$tmp/ovh-$1.txt" ||
				{ tail -5 "$tmp/ovh.err" >&2; return 1; }
		done
	done
	jq -rs '[(map(select(.t == "traced").p50) | sort | .[1]),
		 (map(select(.t == "untraced").p50) | sort | .[1])] | "\(.[0]) \(.[1])"' "$tmp/ovh-$1.txt"
}
on=null off=null
if [ "$(id -u)" -eq 0 ]; then
	read -r on off < <(overhead --host) || { echo "bench/cost.sh: the host overhead runs failed" >&2; exit 1; }
fi
read -r on_g off_g < <(overhead --kernel "$kern") || { echo "bench/cost.sh: the guest overhead runs failed" >&2; exit 1; }
jq -n --argjson q "$((quick / 1000)).$(printf '%03d' $((quick % 1000)))" --argjson on "$on" \
	--argjson off "$off" --argjson ong "$on_g" --argjson offg "$off_g" --arg k "$kern" '
	def r(a; b): if a == null or b == null or b <= 0 then null else (a / b * 100 | round / 100) end;
	{cost_quick_s: $q, cost_overhead_ratio: r($on; $off),
	 cost_overhead_p50_traced_us: $on, cost_overhead_p50_untraced_us: $off,
	 cost_overhead_ratio_tcg: r($ong; $offg), cost_kernel: $k}' >"$tmp/out.json"
if [ $json = 1 ]; then
	cat "$tmp/out.json"
else
	jq -r 'to_entries[] | "\(.key)\t\(.value)"' "$tmp/out.json"
fi
