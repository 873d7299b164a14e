#!/usr/bin/env bash
# bench/writer.sh [--json] - stalewin-writer's speed, measured side by side
# in one run (targets are printed, never asserted):
#  - emulated trap latency (eager, 64 MiB tmpfs mapping, random stores to
#    clean pages; the default mechanism, and mprotect, uffd, uffd-sigbus
#    each by name) p50/p99, vs the native
#    first-store fault on a loop-mounted ext4 (same workload, --populate so
#    every first store is a write fault on a clean mapped page); both fstat
#    after each trapping store (the writer's default: the query makes the
#    next kernel stamp fine-grained, as a polling NFS client does), and native
#    is also measured with --native-poll-only (no fstat after stores); all are
#    t_after - t_before of the trapping STORE records (CLOCK_MONOTONIC),
#    ratio target <= 2.0 at p50;
#  - traps/s on a 1 GiB mapping (262144 pages), random stores flat out,
#    deferred policy, kupdate every 200 ms with expire 0 so pages keep being
#    cleaned and trapped again (target >= 100000/s, and the run must not fail
#    on vm.max_map_count): the default mechanism (traps_per_s_1gib), and uffd
#    and uffd-sigbus by name (traps_per_s_1gib_uffd, _uffd_sigbus), one
#    after the other in the same bench run; also traps per second of the
#    writer's CPU time (all threads) and the share of the wall time the
#    storing thread was given (status file cpu_process_s, cpu_main_s), and
#    the load average at the end;
#  - writer memory per page: RssAnon at the end of the 1 GiB run minus that
#    of the 64 MiB run, over the page difference.
# Needs root (mount tmpfs, losetup).  Prints a table, or one JSON object.
set -euo pipefail
JSON=0; [ "${1:-}" = "--json" ] && JSON=1
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${SW_BUILD_DIR:-$TOP/build}
W=$B/server/stalewin-writer; ST=$B/server/stalewin-writer-benchstat
if [ ! -x "$W" ] || [ ! -x "$ST" ]; then
	echo "bench/writer.sh: expected $W and $ST (build first: ./stalewin build)" >&2; exit 2
fi
[ "$(id -u)" -eq 0 ] || { echo "bench/writer.sh: expected root (mounts a tmpfs and a loop ext4), saw uid $(id -u)" >&2; exit 2; }
D=$(mktemp -d /tmp/sw-bench-writer-XXXXXX); T=$D/tmpfs; E=$D/ext4; LOOP=""
mkdir $T $E
cleanup() {
	umount $T 2>/dev/null || true; umount $E 2>/dev/null || true
	[ -n "$LOOP" ] && losetup -d $LOOP 2>/dev/null || true
	rm -rf $D
}
trap cleanup EXIT
mount -t tmpfs -o size=1300m tmpfs $T
truncate -s 512M $D/ext4.img; mkfs.ext4 -q -F $D/ext4.img
LOOP=$(losetup -f --show $D/ext4.img); mount -t ext4 $LOOP $E

key() { grep -o "\"$1\":[^,}]*" | head -1 | cut -d: -f2 | tr -d '"'; }
run() { # LOG STATUS ARGS...
	local log=$1 st=$2; shift 2
	"$W" --log $log --status-file $st "$@" >/dev/null 2>$D/err ||
		{ echo "bench/writer.sh: writer failed: $(cat $D/err)" >&2; exit 1; }
}
# 64 MiB, eager: the default mechanism, then each mechanism by name (a
# mechanism that is the default is not run twice: its figures are A's)
echo "bench/writer.sh: emulated traps on tmpfs (64 MiB), default mechanism ..." >&2
run $D/a.log $D/a.st --file $T/a --size 64M --policy eager --workload random \
	--rate 0 --duration 3 --writeback-ms 0
A=$("$ST" $D/a.log); A_TRAP=$(key trap < $D/a.st); rm -f $T/a
small() { # MECH -> benchstat JSON of a 64 MiB eager run through MECH
	if [ "$1" = "$A_TRAP" ]; then echo "$A"; return; fi
	echo "bench/writer.sh: emulated traps, $1 (64 MiB) ..." >&2
	run $D/s-$1.log $D/s-$1.st --file $T/s-$1 --size 64M --policy eager \
		--workload random --rate 0 --duration 3 --writeback-ms 0 --trap $1
	"$ST" $D/s-$1.log; rm -f $T/s-$1
}
P=$(small mprotect); U=$(small uffd); S=$(small uffd-sigbus)
echo "bench/writer.sh: native faults on loop ext4 (64 MiB) ..." >&2
run $D/n.log $D/n.st --file $E/n --size 64M --policy native --populate \
	--workload random --rate 0 --duration 3
N=$("$ST" $D/n.log)
echo "bench/writer.sh: native faults on loop ext4, no fstat after stores ..." >&2
rm -f $E/n
run $D/m.log $D/m.st --file $E/m --size 64M --policy native --populate \
	--native-poll-only --workload random --rate 0 --duration 3
M=$("$ST" $D/m.log)
# 1 GiB, deferred: the default mechanism, then uffd and uffd-sigbus by name
# (mprotect cannot take it: vm.max_map_count)
echo "bench/writer.sh: 1 GiB random, deferred, default mechanism ..." >&2
run $D/g.log $D/g.st --file $T/g --size 1G --policy deferred --workload random \
	--rate 0 --duration 4 --writeback-ms 200 --expire-ms 0
G="$("$ST" $D/g.log) $(cat $D/g.st)"; G_TRAP=$(key trap < $D/g.st); rm -f $T/g
big() { # MECH -> benchstat JSON of a 1 GiB deferred run through MECH
	if [ "$1" = "$G_TRAP" ]; then echo "$G"; return; fi
	echo "bench/writer.sh: 1 GiB random, deferred, $1 ..." >&2
	run $D/g-$1.log $D/g-$1.st --file $T/g-$1 --size 1G --policy deferred \
		--workload random --rate 0 --duration 4 --writeback-ms 200 \
		--expire-ms 0 --trap $1
	echo "$("$ST" $D/g-$1.log) $(cat $D/g-$1.st)"; rm -f $T/g-$1
}
GU=$(big uffd); GS=$(big uffd-sigbus)

trap_p50=$(key trap_p50_ns <<<"$A"); trap_p99=$(key trap_p99_ns <<<"$A")
uffd_p50=$(key trap_p50_ns <<<"$U"); uffd_p99=$(key trap_p99_ns <<<"$U")
sb_p50=$(key trap_p50_ns <<<"$S"); sb_p99=$(key trap_p99_ns <<<"$S")
mp_p50=$(key trap_p50_ns <<<"$P"); mp_p99=$(key trap_p99_ns <<<"$P")
nat_p50=$(key trap_p50_ns <<<"$N"); nat_p99=$(key trap_p99_ns <<<"$N")
unob_p50=$(key trap_p50_ns <<<"$M"); unob_p99=$(key trap_p99_ns <<<"$M")
tps=$(key traps_per_s <<<"$G"); g_traps=$(key traps <<<"$G")
tps_u=$(key traps_per_s <<<"$GU"); tps_s=$(key traps_per_s <<<"$GS")
g_p50=$(key trap_p50_ns <<<"$G"); gu_p50=$(key trap_p50_ns <<<"$GU"); gs_p50=$(key trap_p50_ns <<<"$GS")
# traps per second of the writer's CPU time (all threads, RUSAGE_SELF,
# user+sys, kernel fault work included: uffd's handler thread counts), and
# the share of the wall time the storing thread got (RUSAGE_THREAD): on a
# loaded 2-core host the wall figure mostly says how much CPU the writer
# was given
cpu_rate() { awk -v t=$(key traps <<<"$1") -v c=$(key cpu_process_s <<<"$1") 'BEGIN{printf "%.1f", (c > 0) ? t / c : 0}'; }
cpu_share() { awk -v s=$(key span_s <<<"$1") -v c=$(key cpu_main_s <<<"$1") 'BEGIN{printf "%.3f", (s > 0) ? c / s : 0}'; }
tpc=$(cpu_rate "$G"); tpc_u=$(cpu_rate "$GU"); tpc_s=$(cpu_rate "$GS")
sh_g=$(cpu_share "$G"); sh_u=$(cpu_share "$GU"); sh_s=$(cpu_share "$GS")
load1=$(cut -d' ' -f1 /proc/loadavg)
rss_a=$(key rss_anon_kib < $D/a.st); rss_g=$(key rss_anon_kib < $D/g.st)
ratio=$(awk -v a=$trap_p50 -v b=$nat_p50 'BEGIN{printf "%.3f", (b > 0) ? a / b : 0}')
uratio=$(awk -v a=$uffd_p50 -v b=$nat_p50 'BEGIN{printf "%.3f", (b > 0) ? a / b : 0}')
sratio=$(awk -v a=$sb_p50 -v b=$nat_p50 'BEGIN{printf "%.3f", (b > 0) ? a / b : 0}')
mratio=$(awk -v a=$mp_p50 -v b=$nat_p50 'BEGIN{printf "%.3f", (b > 0) ? a / b : 0}')
unratio=$(awk -v a=$trap_p50 -v b=$unob_p50 'BEGIN{printf "%.3f", (b > 0) ? a / b : 0}')
bpp=$(awk -v g=$rss_g -v a=$rss_a 'BEGIN{printf "%.2f", (g-a)*1024/(262144-16384)}')
if [ $JSON -eq 1 ]; then
	printf '{"trap_native_p50_ratio":%s,"traps_per_s_1gib":%s,"trap_p50_ns":%s,"trap_p99_ns":%s,"trap_mechanism":"%s","trap_uffd_p50_ns":%s,"trap_uffd_p99_ns":%s,"trap_uffd_native_p50_ratio":%s,"trap_uffd_sigbus_p50_ns":%s,"trap_uffd_sigbus_p99_ns":%s,"trap_uffd_sigbus_native_p50_ratio":%s,"trap_mprotect_p50_ns":%s,"trap_mprotect_p99_ns":%s,"trap_mprotect_native_p50_ratio":%s,"native_fault_p50_ns":%s,"native_fault_p99_ns":%s,"traps_1gib":%s,"trap_mechanism_1gib":"%s","trap_p50_ns_1gib":%s,"traps_per_s_1gib_uffd":%s,"trap_p50_ns_1gib_uffd":%s,"traps_per_s_1gib_uffd_sigbus":%s,"trap_p50_ns_1gib_uffd_sigbus":%s,"writer_bytes_per_page":%s,"native_fault_unobserved_p50_ns":%s,"native_fault_unobserved_p99_ns":%s,"trap_native_unobserved_p50_ratio":%s,"traps_per_cpu_s_1gib":%s,"traps_per_cpu_s_1gib_uffd":%s,"traps_per_cpu_s_1gib_uffd_sigbus":%s,"cpu_share_1gib":%s,"cpu_share_1gib_uffd":%s,"cpu_share_1gib_uffd_sigbus":%s,"loadavg_1min_end":%s}\n' \
		$ratio $tps $trap_p50 $trap_p99 "$A_TRAP" $uffd_p50 $uffd_p99 $uratio $sb_p50 $sb_p99 $sratio $mp_p50 $mp_p99 $mratio $nat_p50 $nat_p99 $g_traps "$G_TRAP" $g_p50 $tps_u $gu_p50 $tps_s $gs_p50 $bpp $unob_p50 $unob_p99 $unratio $tpc $tpc_u $tpc_s $sh_g $sh_u $sh_s $load1
else
	printf '%-46s %12s %10s\n' "measure" "value" "target"
	printf '%-46s %12s %10s\n' "emulated trap p50, eager, $A_TRAP (ns)" $trap_p50 ""
	printf '%-46s %12s %10s\n' "emulated trap p99, eager, $A_TRAP (ns)" $trap_p99 ""
	printf '%-46s %12s %10s\n' "emulated trap p50, eager, mprotect (ns)" $mp_p50 ""
	printf '%-46s %12s %10s\n' "emulated trap p50, eager, uffd (ns)" $uffd_p50 ""
	printf '%-46s %12s %10s\n' "emulated trap p50, eager, uffd-sigbus (ns)" $sb_p50 ""
	printf '%-46s %12s %10s\n' "native first-store fault p50, ext4 (ns)" $nat_p50 ""
	printf '%-46s %12s %10s\n' "native first-store fault p99, ext4 (ns)" $nat_p99 ""
	printf '%-46s %12s %10s\n' "native fault p50, ext4, no fstat after (ns)" $unob_p50 ""
	printf '%-46s %12s %10s\n' "trap / native p50 ($A_TRAP)" $ratio "<= 2.0"
	printf '%-46s %12s %10s\n' "trap / native-without-fstat p50 ($A_TRAP)" $unratio "<= 2.0"
	printf '%-46s %12s %10s\n' "trap / native p50 (mprotect)" $mratio "<= 2.0"
	printf '%-46s %12s %10s\n' "trap / native p50 (uffd)" $uratio "<= 2.0"
	printf '%-46s %12s %10s\n' "trap / native p50 (uffd-sigbus)" $sratio "<= 2.0"
	printf '%-46s %12s %10s\n' "traps/s, 1 GiB random, $G_TRAP (default)" $tps ">= 100000"
	printf '%-46s %12s %10s\n' "traps/s, 1 GiB random, uffd" $tps_u ""
	printf '%-46s %12s %10s\n' "traps/s, 1 GiB random, uffd-sigbus" $tps_s ""
	printf '%-46s %12s %10s\n' "trap p50, 1 GiB, uffd / uffd-sigbus (ns)" "$gu_p50/$gs_p50" ""
	printf '%-46s %12s %10s\n' "traps per writer CPU-s, $G_TRAP" $tpc ""
	printf '%-46s %12s %10s\n' "traps per CPU-s, uffd / uffd-sigbus" "$tpc_u/$tpc_s" ""
	printf '%-46s %12s %10s\n' "CPU share of the storing thread, uffd/uffd-sigbus" "$sh_u/$sh_s" ""
	printf '%-46s %12s %10s\n' "1-min load average at the end" $load1 ""
	printf '%-46s %12s %10s\n' "writer bytes per page (RssAnon delta)" $bpp ""
fi
