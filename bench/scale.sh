#!/usr/bin/env bash
# bench/scale.sh - how many clients one client guest sustains on one run
# (vm run --ns-clients N: N kernel NFS clients, one per network namespace;
# --probes P: P libnfs probes), tried from the most down: one guest pair
# per try, so a ladder that holds at its top is two runs in all.
#
#   bench/scale.sh [--json] [--duration S] [--probe-rate R]
#
# fanin_kernel_clients_max: the largest N (of 8 4 2 1) whose run is
#   complete with every kernel reader's log whole (END), no failed read,
#   and the clock estimate's error <= 5 ms; goal >= 8 (8 is the report's
#   limit: its kernel readers);
# fanin_probes_max: the largest P (of 100 50 25 8 4 2 1, --vers 3: one
#   target each, at --query-rate R) whose run is complete with every probe
#   log whole, no gap in any and each of the P an observer of the report;
#   goal >= 100;
# fanin_probe_rate_asked: R, GETATTRs/s per probe (--probe-rate, default
#   2: a hundred pollers at 100/s are 10000 GETATTRs/s, more than a TCG
#   guest pair serves);
# fanin_probe_replies_per_s: the slowest probe's rate at that P, from its
#   median interval between requests;
# fanin_cap: the report's kernel readers (8), fanin_kernel_clients_max
#   never exceeds it; fanin_probes_cap: its observers (128);
# scale_ci_s: the three-guest test's wall time: null, there is none yet;
# scale_load_avg: the 1-minute load average at the end (TCG guests slow
#   down with the machine's other work).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$here/..
json=0 dur=10 prate=2
while [ $# -gt 0 ]; do
	case $1 in
	--json) json=1 ;;
	--duration) dur=${2:?--duration needs seconds}; shift ;;
	--probe-rate) prate=${2:?--probe-rate needs GETATTRs/s}; shift ;;
	*) echo "bench/scale.sh: unknown argument '$1' (expected --json, --duration S or --probe-rate R)" >&2; exit 2 ;;
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
for p in 100 50 25 8 4 2 1; do
	run p$p --probes $p --probe-vers 3 --query-rate "$prate" || continue
	ok=1
	for ((j = 0; j < p; j++)); do whole "$tmp/p$p/probe-$j.swlog" || ok=0; done
	[ "$(jq '.results.observers | length' "$tmp/p$p/report.json")" = "$p" ] || ok=0
	if [ $ok = 1 ]; then
		pmax=$p
		rate=$(jq '[.results.observers[] | .poll_p50_ns] | max | 1e9 / . * 10 | round / 10' "$tmp/p$p/report.json")
		break
	fi
done
out=$(jq -n --argjson k $kmax --argjson p $pmax --argjson r "$rate" --arg a "$prate" \
	--arg l "$(cut -d' ' -f1 /proc/loadavg)" '{
	fanin_kernel_clients_max: $k, fanin_probes_max: $p, fanin_probe_rate_asked: ($a | tonumber),
	fanin_probe_replies_per_s: $r, fanin_cap: 8, fanin_probes_cap: 128, scale_ci_s: null,
	scale_load_avg: ($l | tonumber)}')
if [ $json = 1 ]; then echo "$out"; else echo "$out" | jq -r 'to_entries[] | "\(.key) \(.value)"'; fi
