#!/usr/bin/env bash
# bench/kernel.sh - cost of building the patched guest kernel.
#
#   bench/kernel.sh [--base 6.1|7.2] [--json]
#
# kernel_build_cold_s: `stalewin-vm-kernel build --cold` (empty build
#   folder, empty ccache, the configuration step included; the unpacked
#   source tree is reused when present), wall seconds;
# kernel_build_warm_s: then touch mm/mmap_cmtime.c (a file the series
#   adds) and `build --force` (incremental), wall seconds.
# *_cpu_s: user+sys of the whole build from /usr/bin/time (the wall time
#   under load is not a quiet machine's; the CPU seconds travel better).
# loadavg_*: 1-min load average before and after the cold build.
# config_enabled_options: `=y` lines of the resulting .config.
# --base: the series' base (6.1 by default), as `stalewin vm kernel build`.
# The build runs under nice -n 19 with -j2 (the script's defaults).
# Takes ~30 min on the shared 2-core machine.  Removes and rebuilds the
# kernel cache's build folder and ccache (the cached vmlinux of the same
# key is replaced by an identical one); never touches other cache entries.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
kern=$here/../vm/kernel/stalewin-vm-kernel
K=${SW_KERNEL_CACHE:-/var/cache/stalewin/kernel}
json=0 base=6.1
while [ $# -gt 0 ]; do
	case $1 in
	--json) json=1 ;;
	--base) base=${2:-}; shift ;;
	*) echo "bench/kernel.sh: unknown argument '$1' (expected --json or --base 6.1|7.2)" >&2; exit 2 ;;
	esac
	shift
done
case $base in
6.1) W=$K ;;
7.2) W=$K/$base ;;
*) echo "bench/kernel.sh: --base: expected 6.1 or 7.2, got '$base'" >&2; exit 2 ;;
esac
[ -x /usr/bin/time ] || { echo "bench/kernel.sh: /usr/bin/time missing (package time)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/sw-bench-kernel.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# timed OUT ARGS...: run the build, leave "wall user sys" in OUT.
timed() {
	local out=$1; shift
	/usr/bin/time -f '%e %U %S' -o "$out" "$kern" "$@" >"$tmp/path" 2>"$tmp/log" ||
		{ tail -5 "$tmp/log" >&2; echo "bench/kernel.sh: $kern $* failed" >&2; exit 1; }
}
load() { cut -d' ' -f1 /proc/loadavg; }

l0=$(load)
timed "$tmp/cold" build --base "$base" --cold
l1=$(load)
vmlinux=$(tail -1 "$tmp/path")
src=$W/src/linux-source-$base/mm/mmap_cmtime.c
[ -f "$src" ] || { echo "bench/kernel.sh: expected $src in the patched tree, none" >&2; exit 1; }
touch "$src"
timed "$tmp/warm" build --base "$base" --force
l2=$(load)
opts=$(grep -c '=y$' "$(dirname "$vmlinux")/config")
read -r cw cu cs <"$tmp/cold"
read -r ww wu ws <"$tmp/warm"
jq -n --argjson cw "$cw" --argjson cu "$cu" --argjson cs "$cs" \
	--argjson ww "$ww" --argjson wu "$wu" --argjson ws "$ws" \
	--argjson l0 "$l0" --argjson l1 "$l1" --argjson l2 "$l2" \
	--argjson n "$opts" --arg h "$(basename "$(dirname "$vmlinux")")" \
	--argjson cpus "$(nproc)" --arg base "$base" '{
	kernel_base: $base,
	kernel_build_cold_s: $cw, kernel_build_cold_cpu_s: ($cu + $cs),
	kernel_build_warm_s: $ww, kernel_build_warm_cpu_s: ($wu + $ws),
	kernel_loadavg_before: $l0, kernel_loadavg_after_cold: $l1,
	kernel_loadavg_after_warm: $l2, kernel_cpus: $cpus,
	kernel_config_enabled_options: $n, kernel_hash: $h }' >"$tmp/out.json"
if [ $json = 1 ]; then
	cat "$tmp/out.json"
else
	jq -r 'to_entries[] | "\(.key)\t\(.value)"' "$tmp/out.json"
fi
