#!/usr/bin/env bash
# bench/vm.sh - how long `./stalewin vm run` takes to its first samples.
#   bench/vm.sh [--json] [--runs N] [--build-dir DIR] [--no-matrix] [--full-matrix]
# Runs N (default 1) one-experiment eager runs (4 s) with a warm image
# cache and measures, on the host clock, from the command to:
#   vm_server_ready_s   knfsd up in the server guest (its ready file)
#   vm_first_sample_s   the first probe GETATTR reply in probe-0.swlog
#                       (target <= 30 s under TCG)
#   vm_first_kread_s    the first kernel-mount read in kread-0.swlog
#   vm_run_total_s      the whole command, guests shut down
#   vm_first_sample_s_7_2  vm_first_sample_s with both guests on sid's
#                       7.2 kernel (--kernel 7.2; target <= 30 s)
#   vm_matrix_quick_s   `stalewin vm matrix --quick` wall seconds (2
#                       kernels x ext4,xfs,tmpfs, 4 s each; target <= 360)
#                       (once, not per run; --no-matrix skips it, null)
#   vm_matrix_full_s    the default matrix (3 kernels x 4 fs x 3
#                       workloads, 10 s each, quiet runs; target <= 1200),
#                       only with --full-matrix (else null)
# Median of the runs.  The log files are polled every 0.1 s and appear
# after the writer's 100 ms flush: each figure is late by up to ~0.2 s.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
json=0 runs=1 b=${SW_BUILD_DIR:-$top/build} matrix=1 full=0
while [ $# -gt 0 ]; do
	case "$1" in
	--json) json=1; shift ;;
	--runs) runs=${2:?}; shift 2 ;;
	--build-dir) b=${2:?}; shift 2 ;;
	--no-matrix) matrix=0; shift ;;
	--full-matrix) full=1; shift ;;
	*) echo "bench/vm.sh: unknown option '$1' (expected --json, --runs N, --build-dir DIR, --no-matrix, --full-matrix)" >&2; exit 2 ;;
	esac
done
. "$top/vm/lib.sh"
why=$(vm_qemu_check) || { echo "bench/vm.sh: qemu cannot run: $why" >&2; exit 1; }
dump=$b/common/stalewin-logdump
[ -x "$dump" ] || { echo "bench/vm.sh: no $dump (./stalewin build)" >&2; exit 1; }
"$top/vm/build.sh" --quiet --build-dir "$b" >/dev/null # warm the cache first
"$top/vm/build.sh" --quiet --kernel 7.2 --build-dir "$b" >/dev/null
T=$(mktemp -d /tmp/sw-vm-bench.XXXXXX)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$T"' EXIT
now_us() { echo "${EPOCHREALTIME/[.,]/}"; }
el() { local d=$(($2 - $1)); printf '%d.%02d' $((d / 1000000)) $((d / 10000 % 100)); }
# a record of TYPE in LOG; logdump runs only when the file grew (the
# host's two cores also run the guests)
declare -A seen_size
has_rec() {
	[ -s "$1" ] || return 1
	local sz
	sz=$(stat -c %s "$1")
	[ "${seen_size[$1]:-0}" != "$sz" ] || return 1
	seen_size[$1]=$sz
	"$dump" "$1" 2>/dev/null | grep " $2 " >/dev/null
}
one_run() { # I RESULTS [vm run args...]
	local i=$1 res=$2 now ready first kfirst total
	shift 2
	out=$T/run-$i
	t0=$(now_us)
	"$top/vm/run.sh" --policy eager --duration 4 --no-report --build-dir "$b" --out "$out" "$@" \
		>"$T/out-$i" 2>"$T/err-$i" &
	pid=$!
	ready="" first="" kfirst=""
	while kill -0 "$pid" 2>/dev/null; do
		now=$(now_us)
		[ -z "$ready" ] && [ -e "$out/vm/server.ready" -o -e "$out/server.ready" ] && ready=$(el "$t0" "$now")
		[ -z "$first" ] && has_rec "$out/probe-0.swlog" ATTR && first=$(el "$t0" "$now")
		[ -z "$kfirst" ] && has_rec "$out/kread-0.swlog" KREAD && kfirst=$(el "$t0" "$now")
		sleep 0.1
	done
	wait "$pid" || { pid=""; echo "bench/vm.sh: vm run $i failed:" >&2; tail -5 "$T/err-$i" >&2; exit 1; }
	pid=""
	total=$(el "$t0" "$(now_us)")
	echo "${ready:-nan} ${first:-nan} ${kfirst:-nan} $total" >>"$res"
}
for ((i = 1; i <= runs; i++)); do
	one_run "$i" "$T/results"
	one_run "72-$i" "$T/results-72" --kernel 7.2 --client-kernel 7.2
done
mq=null
if [ "$matrix" = 1 ]; then
	t0=$(now_us)
	"$top/vm/matrix.sh" --quick --build-dir "$b" --out "$T/matrix" >"$T/matrix.out" 2>"$T/matrix.err" ||
		{ echo "bench/vm.sh: vm matrix --quick failed:" >&2; tail -8 "$T/matrix.err" >&2; exit 1; }
	mq=$(el "$t0" "$(now_us)")
fi
mf=null
if [ "$full" = 1 ]; then
	t0=$(now_us)
	"$top/vm/matrix.sh" --build-dir "$b" --out "$T/matrix-full" >"$T/matrix-full.out" 2>"$T/matrix-full.err" ||
		{ echo "bench/vm.sh: vm matrix (full) failed:" >&2; tail -8 "$T/matrix-full.err" >&2; exit 1; }
	mf=$(el "$t0" "$(now_us)")
fi
med() { awk -v c="$1" '{print $c}' "${2:-$T/results}" | grep -v nan | sort -n | awk '{a[NR]=$1} END{if(NR==0) print "null"; else print a[int((NR+1)/2)]}'; }
r=$(med 1) f=$(med 2) k=$(med 3) t=$(med 4) f72=$(med 2 "$T/results-72")
if [ "$json" = 1 ]; then
	printf '{"vm_first_sample_s":%s,"vm_server_ready_s":%s,"vm_first_kread_s":%s,"vm_run_total_s":%s,"vm_first_sample_s_7_2":%s,"vm_matrix_quick_s":%s,"vm_matrix_full_s":%s,"runs":%d,"accel":"tcg","target_first_sample_s":30,"target_matrix_quick_s":360,"target_matrix_full_s":1200}\n' \
		"$f" "$r" "$k" "$t" "$f72" "$mq" "$mf" "$runs"
else
	printf '%-22s %8s\n' metric seconds
	printf '%-22s %8s\n' vm_server_ready_s "$r" vm_first_sample_s "$f" vm_first_kread_s "$k" vm_run_total_s "$t" \
		vm_first_sample_s_7_2 "$f72" vm_matrix_quick_s "$mq" vm_matrix_full_s "$mf"
	echo "(median of $runs run(s), TCG, warm image cache; targets vm_first_sample_s(_7_2) <= 30, vm_matrix_quick_s <= 360, vm_matrix_full_s <= 1200)"
	[ "$f" = null ] && echo "(no probe sample: stalewin-probe not built in $b?)"
fi
exit 0
