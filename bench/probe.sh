#!/usr/bin/env bash
# bench/probe.sh [--json] [--depth N] [--seconds S]: the probe's speed against
# one private nfs-ganesha (scripts/ganesha-ns, tmpfs export), all on this
# machine:
#   1. stalewin-nfs-bare: the smallest libnfs raw-async NFSv3 GETATTR loop
#   2. stalewin-probe NFSv3, same depth, flat out, logging every reply
#   3. stalewin-probe NFSv4 (PUTFH+GETATTR compounds), same depth
# interleaved (bare, v3, v4, bare, v3, v4, ...) for R rounds (--rounds,
# default 3) of S seconds each (default 4), depth N (default 8); rates are
# the median over the rounds (the machine is shared: interleaving keeps a
# load change from favouring one side), RTT percentiles over all replies.
# Rates are successful replies / (last reply - first send) on CLOCK_MONOTONIC
# (the bare loop: replies / its loop time).  RTT = recv - send, mono, per
# reply.  Client CPU (user+sys of the client process, /usr/bin/time) per
# reply is less sensitive to other load than the rates.
# Target: probe_rate_ratio >= 0.95.  Client, server and the log's
# flusher share the 2 cores: the ratio is what counts, not the absolute rate.
set -euo pipefail
json=0 depth=8 secs=4 rounds=3
while [ $# -gt 0 ]; do
	case $1 in
	--json) json=1; shift ;;
	--depth) depth=$2; shift 2 ;;
	--seconds) secs=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	*) echo "bench/probe.sh: unknown argument '$1' (expected --json, --depth N, --seconds S)" >&2; exit 2 ;;
	esac
done
top=$(cd "$(dirname "$0")/.." && pwd)
bld=${SW_BUILD_DIR:-$top/build}
gns=$top/scripts/ganesha-ns
probe=$bld/client/stalewin-probe bare=$bld/client/stalewin-nfs-bare check=$bld/tests/client/probe/probe_logcheck
for b in "$probe" "$bare" "$check"; do
	[ -x "$b" ] || { echo "bench/probe.sh: $b not built (cmake --build $bld)" >&2; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { echo "bench/probe.sh: needs root (netns, tmpfs)" >&2; exit 1; }

T=$(mktemp -d /tmp/sw-bench-probe.XXXXXX)
cleanup() { "$gns" down --state "$T/st" >/dev/null 2>&1 || true; umount "$T/exp" 2>/dev/null || true; rm -rf "$T"; }
trap cleanup EXIT
mkdir "$T/exp"
mount -t tmpfs -o size=16m sw-bench-probe "$T/exp"
printf 'stalewin bench\n' > "$T/exp/f"
eval "$("$gns" up --state "$T/st" --export "$T/exp")"
U3="nfs://127.0.0.1$SW_EXPORT_0/f?version=3&nfsport=$SW_NFS_PORT&mountport=$SW_MNT_PORT"
U4="nfs://127.0.0.1$SW_EXPORT_0/f?version=4&nfsport=$SW_NFS_PORT"
inns() { "$gns" exec --state "$T/st" -- "$@"; }

med() { sort -n | awk '{v[n++] = $1} END {printf "%.1f", n % 2 ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2}'; }
# probe_run URL NAME -> appends rtts to NAME.rtt, prints "rate replies errors"
probe_run() {
	inns /usr/bin/time -f '%U %S' -o "$T/$2.cpu" "$probe" --url "$1" --log "$T/$2.log" --rate wire --depth "$depth" --duration "$secs" --quiet --force
	"$check" "$T/$2.log" > "$T/$2.txt"
	awk '$1=="ATTR" && $5==0 {print $14}' "$T/$2.txt" >> "$T/$2.rtt"
	awk '$1=="ATTR" && $5==0 { n++; if (!s || $15 < s) s = $15; if ($16 > e) e = $16 }
	     $1=="ATTR" && $5!=0 { bad++ }
	     END { printf "%.1f %d %d", n / ((e - s) / 1e9), n, bad + 0 }' "$T/$2.txt"
	awk '{printf " %.0f\n", ($1 + $2) * 1e6}' "$T/$2.cpu"
}
pct() { sort -n "$1" | awk -v q="$2" '{v[n++] = $1} END {printf "%.1f", v[int(q * (n - 1))] / 1e3}'; }
: > "$T/v3.rtt"; : > "$T/v4.rtt"
bare_cpu=0 bare_n=0 v3_cpu=0 v4_cpu=0 v3_n=0 v3_bad=0 v4_n=0 v4_bad=0 bare_all="" v3_all="" v4_all="" rr_all=""
for ((r = 0; r < rounds; r++)); do
	bj=$(inns /usr/bin/time -f '%U %S' -o "$T/bare.cpu" "$bare" "$U3" "$depth" "$secs")
	b=$(sed 's/.*"rate_per_s":\([0-9.]*\).*/\1/' <<<"$bj")
	bn=$(sed 's/.*"replies":\([0-9]*\).*/\1/' <<<"$bj")
	bare_cpu=$((bare_cpu + $(awk '{printf "%.0f", ($1 + $2) * 1e6}' "$T/bare.cpu"))); bare_n=$((bare_n + bn))
	read -r x n bad c < <(probe_run "$U3" v3); v3_all+="$x "; v3_n=$((v3_n + n)); v3_bad=$((v3_bad + bad)); v3_cpu=$((v3_cpu + c))
	read -r y n bad c < <(probe_run "$U4" v4); v4_all+="$y "; v4_n=$((v4_n + n)); v4_bad=$((v4_bad + bad)); v4_cpu=$((v4_cpu + c))
	bare_all+="$b "
	rr_all+="$(awk -v a="$x" -v b="$b" 'BEGIN {printf "%.3f", a / b}') "
	[ $json = 1 ] || echo "round $((r + 1)): bare $b/s  probe v3 $x/s  probe v4 $y/s" >&2
done
bare_rate=$(tr ' ' '\n' <<<"$bare_all" | grep . | med)
v3_rate=$(tr ' ' '\n' <<<"$v3_all" | grep . | med)
v4_rate=$(tr ' ' '\n' <<<"$v4_all" | grep . | med)
v3_p50=$(pct "$T/v3.rtt" 0.5) v3_p99=$(pct "$T/v3.rtt" 0.99)
v4_p50=$(pct "$T/v4.rtt" 0.5) v4_p99=$(pct "$T/v4.rtt" 0.99)
cpu_per() { awk -v c="$1" -v n="$2" 'BEGIN {printf "%.2f", n ? c / n : 0}'; }
bare_cpr=$(cpu_per $bare_cpu $bare_n) v3_cpr=$(cpu_per $v3_cpu $v3_n) v4_cpr=$(cpu_per $v4_cpu $v4_n)
ratio=$(awk -v a="$v3_rate" -v b="$bare_rate" 'BEGIN {printf "%.3f", a / b}')
v4v3=$(awk -v a="$v4_rate" -v b="$v3_rate" 'BEGIN {printf "%.3f", a / b}')

if [ $json = 1 ]; then
	printf '{"probe_rate_ratio":%s,"probe_rtt_p50_us":%s,"probe_rtt_p99_us":%s,"v4_v3_rate_ratio":%s,"probe_v3_rate_per_s":%s,"probe_v4_rate_per_s":%s,"bare_v3_rate_per_s":%s,"probe_v4_rtt_p50_us":%s,"probe_v4_rtt_p99_us":%s,"probe_rate_ratio_per_round":[%s],"load_avg_1min":%s,"bare_cpu_us_per_reply":%s,"probe_v3_cpu_us_per_reply":%s,"probe_v4_cpu_us_per_reply":%s,"depth":%s,"seconds":%s,"rounds":%s,"probe_v3_replies":%s,"probe_v3_errors":%s,"probe_v4_replies":%s,"probe_v4_errors":%s}\n' \
		"$ratio" "$v3_p50" "$v3_p99" "$v4v3" "$v3_rate" "$v4_rate" "$bare_rate" "$v4_p50" "$v4_p99" \
		"$(sed 's/ *$//; s/ /,/g' <<<"$rr_all")" "$(cut -d' ' -f1 /proc/loadavg)" "$bare_cpr" "$v3_cpr" "$v4_cpr" "$depth" "$secs" "$rounds" "$v3_n" "$v3_bad" "$v4_n" "$v4_bad"
else
	printf 'probe bench: ganesha %s, tmpfs export, depth %s, %s rounds of %s s, loopback in one netns, medians\n' \
		"$(dpkg-query -W -f '${Version}' nfs-ganesha 2>/dev/null || echo '?')" "$depth" "$rounds" "$secs"
	printf '%-28s %12s %10s %10s %9s %14s\n' run "GETATTR/s" "p50 us" "p99 us" errors "client cpu us/reply"
	printf '%-28s %12s %10s %10s %9s %14s\n' "bare libnfs loop (v3)" "$bare_rate" - - - "$bare_cpr"
	printf '%-28s %12s %10s %10s %9s %14s\n' "stalewin-probe v3" "$v3_rate" "$v3_p50" "$v3_p99" "$v3_bad" "$v3_cpr"
	printf '%-28s %12s %10s %10s %9s %14s\n' "stalewin-probe v4 compound" "$v4_rate" "$v4_p50" "$v4_p99" "$v4_bad" "$v4_cpr"
	printf 'probe_rate_ratio (probe v3 / bare) = %s (target >= 0.95)\n' "$ratio"
	printf 'probe/bare per round: %s\n' "$rr_all"
	printf 'v4_v3_rate_ratio = %s\n' "$v4v3"
	printf 'load average (1 min) at the end: %s\n' "$(cut -d' ' -f1 /proc/loadavg)"
fi
