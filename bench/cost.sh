#!/usr/bin/env bash
# bench/cost.sh - what `./stalewin cost` takes, and what its tracing costs.
#
#   bench/cost.sh [--json] [--base 6.1|7.2]
#
# cost_quick_s: wall seconds of `./stalewin cost --kernel patched:B --fs
#   ext4 --threads 1 --threads 2` (eager, deferred, lang; 500 pages,
#   2 rounds; one TCG guest boot included), goal <= 300 s here;
# cost_overhead_ratio: the fault p50 with the tracing on over the same
#   without it (`stalewin-cost measure --no-trace`), ext4 eager, 1 thread,
#   2000 stores, three of each alternated in one guest, median over
#   median; goal <= 1.10 (TCG guest: a ratio, not a machine's latency);
# cost_overhead_p50_traced_us, cost_overhead_p50_untraced_us: the medians.
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
vmlinux=$("$repo/vm/kernel/stalewin-vm-kernel" --print-path --base "$base") ||
	{ echo "bench/cost.sh: no patched $base kernel cached; ./stalewin vm kernel build --base $base" >&2; exit 1; }
tmp=$(mktemp -d /tmp/sw-bench-cost.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
kern=patched:$base; [ "$base" = 6.1 ] && kern=patched
t0=${EPOCHREALTIME/[.,]/}
"$repo/stalewin" cost --kernel "$kern" --fs ext4 --threads 1 --threads 2 \
	--out "$tmp/quick" --json >"$tmp/quick.json" 2>"$tmp/quick.err" ||
	{ tail -5 "$tmp/quick.err" >&2; echo "bench/cost.sh: ./stalewin cost failed" >&2; exit 1; }
quick=$(( (${EPOCHREALTIME/[.,]/} - t0) / 1000 ))

# the overhead: traced and untraced runs alternated in one guest
mkdir -p "$tmp/ovh"
truncate -s 512M "$tmp/disk.img"
mkfs.ext4 -q -F "$tmp/disk.img"
cat >"$tmp/ovh/guest.sh" <<'G'
mkdir -p /mnt/c /sys/kernel/tracing
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t ext4 /dev/vda /mnt/c || exit 3
for i in 1 2 3; do
	for tr in traced untraced; do
		a=; [ $tr = untraced ] && a=--no-trace
		echo "$tr $(/opt/stalewin/bin/stalewin-cost measure --dir /mnt/c --fs ext4 --policy eager --pages 2000 $a)" >>/sw/ovh.txt || exit 1
	done
done
G
"$repo/vm/boot-one.sh" --kernel "$vmlinux" --share "$tmp/ovh" --run "$tmp/ovh/guest.sh" \
	--disk "$tmp/disk.img" --smp 2 --mem 1024 --timeout 600 >"$tmp/ovh.out" 2>&1 ||
	{ tail -10 "$tmp/ovh.out" >&2; echo "bench/cost.sh: the overhead guest failed" >&2; exit 1; }
med() { grep "^$1 " "$tmp/ovh/ovh.txt" | cut -d' ' -f2- | jq -s 'map(.fault_p50_us) | sort | .[1]'; }
on=$(med traced) off=$(med untraced)
jq -n --argjson q "$((quick / 1000)).$(printf '%03d' $((quick % 1000)))" --argjson on "$on" \
	--argjson off "$off" --arg k "$kern" '{cost_quick_s: $q,
	cost_overhead_ratio: (if $off > 0 then ($on / $off * 100 | round / 100) else null end),
	cost_overhead_p50_traced_us: $on, cost_overhead_p50_untraced_us: $off,
	cost_kernel: $k, cost_tcg: true}' >"$tmp/out.json"
if [ $json = 1 ]; then
	cat "$tmp/out.json"
else
	jq -r 'to_entries[] | "\(.key)\t\(.value)"' "$tmp/out.json"
fi
