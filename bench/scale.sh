#!/usr/bin/env bash
# bench/scale.sh - how many clients one client guest sustains on one run
# (vm run --ns-clients N: N kernel NFS clients, one per network namespace;
# --probes P: P libnfs probes), tried from the most down.
#
#   bench/scale.sh [--json] [--duration S]
#
# fanin_kernel_clients_max: the largest N (of 8 4 2 1) whose run is
#   complete with every kernel reader's log whole (END), no failed read,
#   and the clock estimate's error <= 5 ms; goal >= 8 (8 is the report's
#   limit: its kernel readers);
# fanin_probes_max: the largest P (of 8 4 2 1, --vers 3: one target each)
#   whose run is complete with every probe log whole and no gap in any;
#   goal >= 100, capped at 8 by the report's observers today;
# fanin_probe_replies_per_s: the slowest probe's rate at that P, from its
#   median interval between requests (asked: 100/s);
# fanin_cap: the report's limit (8), fanin_*_max never exceeds it;
# scale_ci_s: the three-guest test's wall time: null, there is none yet;
# scale_load_avg: the 1-minute load average at the end (TCG guests slow
#   down with the machine's other work).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$here/..
json=0 dur=10
while [ $# -gt 0 ]; do
	case $1 in
	--json) json=1 ;;
	--duration) dur=${2:?--duration needs seconds}; shift ;;
	*) echo "bench/scale.sh: unknown argument '$1' (expected --json or --duration S)" >&2; exit 2 ;;
	esac
	shift
done
b=${SW_BUILD_DIR:-$repo/build}
tmp=$(mktemp -d /tmp/sw-bench-scale.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
run() { # NAME OPTIONS...: one native ext4 run into $tmp/NAME; 0 when complete
	local name=$1
	shift
	PATH=$b/analysis:$PATH "$repo/vm/run.sh" --policy native --fs ext4 --duration "$dur" \
		--vers 3 --build-dir "$b" --out "$tmp/$name" "$@" >"$tmp/$name.txt" 2>"$tmp/$name.err"
}
whole() { # LOG: it ends with END and holds no failed read and no gap
	"$b/common/stalewin-logdump" "$1" >"$tmp/d.txt" 2>/dev/null || return 1
	tail -n 1 "$tmp/d.txt" | grep -q ' END ' && ! grep -q ' GAP \| KREAD .* err=-' "$tmp/d.txt"
}
kmax=0
for n in 8 4 2 1; do
	run k$n --ns-clients $n || continue
	ok=1
	for ((j = 0; j < n; j++)); do whole "$tmp/k$n/kread-$j.swlog" || ok=0; done
	[ "$(jq '.start.clock.err_ns <= 5000000' "$tmp/k$n/report.json")" = true ] || ok=0
	[ $ok = 1 ] && { kmax=$n; break; }
done
pmax=0 rate=null
for p in 8 4 2 1; do
	run p$p --probes $p || continue
	ok=1
	for ((j = 0; j < p; j++)); do whole "$tmp/p$p/probe-$j.swlog" || ok=0; done
	if [ $ok = 1 ]; then
		pmax=$p
		rate=$(jq '[.results.observers[] | .poll_p50_ns] | max | 1e9 / . * 10 | round / 10' "$tmp/p$p/report.json")
		break
	fi
done
out=$(jq -n --argjson k $kmax --argjson p $pmax --argjson r "$rate" --arg l "$(cut -d' ' -f1 /proc/loadavg)" '{
	fanin_kernel_clients_max: $k, fanin_probes_max: $p, fanin_probe_replies_per_s: $r,
	fanin_cap: 8, scale_ci_s: null, scale_load_avg: ($l | tonumber)}')
if [ $json = 1 ]; then echo "$out"; else echo "$out" | jq -r 'to_entries[] | "\(.key) \(.value)"'; fi
