#!/usr/bin/env bash
# vm/matrix.sh - `./stalewin vm matrix`: the native matrix, stock kernels
# x filesystems x workloads, NFSv3 ctime beside the NFSv4 change attribute.
#
#   ./stalewin vm matrix [--kernels 6.1,6.12,7.2] [--fs ext4,xfs,btrfs,tmpfs]
#        [--workload W]... [--duration S] [--quick] [--json] [--out DIR]
#        [--build-dir DIR]
#
# For each kernel: ONE `vm run` (server and client guests both on that
# kernel, Debian's package, vm/build.sh) running the writer in `native`
# mode on every --fs and every --workload (default rewrite, random, burst;
# 10 s each), with the guests' writeback pinned:
#   vm.dirty_writeback_centisecs=100 vm.dirty_expire_centisecs=100
# (pages are cleaned within ~1-2 s, so the eager re-fault after cleaning
# shows inside a run); the writer maps its pages first (--populate:
# MADV_POPULATE_READ), so every fs starts from read-only mapped pages and
# tmpfs's silence for pre-mapped pages shows; one libnfs probe with a v3 and a v4 target (100
# GETATTR/s each); kernel mounts vers=3,nolock and vers=4.2, each read by a
# kept-open reader every 100 ms.  Run folders: OUT/<kernel>/<n>-native-
# <fs>[-<workload>]/, each with report.json (stalewin-report), from which
# stalewin-matrix (analysis/validate/matrix*.c) builds one table per
# workload, the findings, and OUT/matrix.json (the --json output).
# Before knfsd serves anyone, the server guest runs the quiet runs
# (SW_MATRIX_QUIET_S, default 2 s; 0 = none): the writer alone, burst, on
# each fs, once stat-ing after every store and once never, the kernel's
# timestamp tracepoints on (OUT/<kernel>/quiet/<fs>-<mode>/): how many
# faults leave ctime equal to the previous stamp with and without a query.
# --quick: kernels 6.1,7.2, fs ext4,xfs,tmpfs, workload rewrite, 4 s (tests;
# options given explicitly win).
# Exit: 0 every cell present and every report complete; 1 a kernel's run
# failed (its cells are missing, the others are reported); 2 bad usage;
# 3 interrupted (Ctrl-C: the current kernel's runs end cleanly, no other
# starts, the table of what exists is printed).
set -euo pipefail
SW_VM_PROG="stalewin vm matrix"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

kernels="" fss="" workloads=() duration="" quick=0 json=0 out=""
build_dir=${SW_BUILD_DIR:-$SW_TOP/build}
SW_MATRIX_SYSCTLS="vm.dirty_writeback_centisecs=100 vm.dirty_expire_centisecs=100"
SW_MATRIX_WRITER_ARGS=${SW_MATRIX_WRITER_ARGS---populate} # env: tests only
# the quiet runs (vm/guest/server.sh): S s each, 2 per fs, before knfsd
# serves anyone; 0 leaves them out
SW_MATRIX_QUIET_S=${SW_MATRIX_QUIET_S:-2}
while [ $# -gt 0 ]; do
	case "$1" in
	--kernels) kernels=${2:?}; shift 2 ;;
	--fs) fss=${2:?}; shift 2 ;;
	--workload) workloads+=("${2:?}"); shift 2 ;;
	--duration) duration=${2:?}; shift 2 ;;
	--quick) quick=1; shift ;;
	--json) json=1; shift ;;
	--out) out=${2:?}; shift 2 ;;
	--build-dir) build_dir=${2:?}; shift 2 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) vm_usage_die "unknown option '$1' (see --help)" ;;
	esac
done
if [ "$quick" = 1 ]; then
	: "${kernels:=6.1,7.2}" "${fss:=ext4,xfs,tmpfs}" "${duration:=4}"
	[ ${#workloads[@]} -gt 0 ] || workloads=(rewrite)
fi
: "${kernels:=6.1,6.12,7.2}" "${fss:=ext4,xfs,btrfs,tmpfs}" "${duration:=10}"
[ ${#workloads[@]} -gt 0 ] || workloads=(rewrite random burst)
IFS=, read -r -a klist <<<"$kernels"
IFS=, read -r -a flist <<<"$fss"
for k in "${klist[@]}"; do
	[ "$k" != stock ] && vm_kernel_known "$k" ||
		vm_usage_die "--kernels: unknown kernel '$k' (known: 6.1 6.12 7.2 - Debian's packages; stock = 6.1)"
done
for f in "${flist[@]}"; do
	case "$f" in ext4|xfs|btrfs|tmpfs) ;; *) vm_usage_die "--fs: expected ext4, xfs, btrfs or tmpfs, saw '$f'" ;; esac
done
. "$SW_TOP/scripts/lib/names.sh"
e=$(sw_name_check "$build_dir" workloads --workload "${workloads[@]}") || vm_usage_die "$e"
[[ "$duration" =~ ^[0-9]+$ ]] && [ "$duration" -ge 1 ] || vm_usage_die "--duration: expected whole seconds >= 1, saw '$duration'"
why=$(vm_qemu_check) || vm_die "$why"
mx=$build_dir/analysis/stalewin-matrix
[ -x "$mx" ] || cmake --build "$build_dir" -j2 --target stalewin-matrix >/dev/null 2>&1 ||
	vm_die "expected $mx (the matrix's table and findings; ./stalewin build), saw none"

[ -n "$out" ] || out=$SW_TOP/runs/matrix-$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$out" || vm_die "cannot create $out"
out=$(realpath "$out")
[ -z "$(ls -A "$out")" ] || vm_usage_die "--out: expected an empty or new folder, $out has files"

t0=$(vm_now)
fsargs=() wargs=() sargs=()
for f in "${flist[@]}"; do fsargs+=(--fs "$f"); done
for w in "${workloads[@]}"; do wargs+=(--workload "$w"); done
for kv in $SW_MATRIX_SYSCTLS; do sargs+=(--sysctl "$kv"); done
rc=0 failed=() interrupted=0
# Ctrl-C: vm run ends the current runs cleanly (END records, partial
# report); no further kernel starts; the table of what exists is printed
trap 'interrupted=1' INT TERM
# one kernel at a time (2 guests under TCG already fill this machine)
[ ! -x "$build_dir/client/stalewin-progress" ] || { "$build_dir/client/stalewin-progress" --watch "$out" --experiments $((${#klist[@]} * ${#flist[@]} * ${#workloads[@]})) --duration "$duration" --pid $$ --prefix "$SW_VM_PROG" --since $((t0 / 1000000)) </dev/null >/dev/null & export SW_PROGRESS=0; } # the progress line
for k in "${klist[@]}"; do
	[ "$interrupted" = 0 ] || break
	vm_log "kernel $k: ${flist[*]} x ${workloads[*]}, ${duration} s each"
	if ! SW_VM_QUIET_S=${SW_MATRIX_QUIET_S#0} "$SW_VM_DIR/run.sh" --kernel "$k" --client-kernel "$k" --policy native "${fsargs[@]}" "${wargs[@]}" \
		--duration "$duration" --probe-vers 3+4 --mount-opts vers=3,nolock --mount-opts vers=4.2 \
		--reader-mode kept-open "${sargs[@]}" --writer-args "$SW_MATRIX_WRITER_ARGS" --build-dir "$build_dir" --out "$out/$k" \
		>"$out/$k.report.txt" 2>"$out/$k.err"; then
		rc=1 failed+=("$k")
		echo "$SW_VM_PROG: kernel $k: vm run failed ($out/$k.err):" >&2
		grep -v '^stalewin vm run: \(booting\|server ready\|first exp\|experiment [0-9]*/\)' "$out/$k.err" | tail -n 30 | sed 's/^/    /' >&2
	fi
	vm_log "kernel $k done, $(vm_elapsed "$t0") s since the start"
done
wall=$(vm_elapsed "$t0")
args=("$out" --kernels "$kernels" --fs "$fss" --workloads "$(IFS=,; echo "${workloads[*]}")"
	--sysctls "$SW_MATRIX_SYSCTLS" --writer-args="$SW_MATRIX_WRITER_ARGS" --duration "$duration" --wall "$wall")
[ "$json" = 1 ] && args+=(--json)
"$mx" "${args[@]}" || rc=1
# the one-table summary of every cell's run (stalewin summary); with
# --json only to OUT/summary.txt, so that stdout stays JSON
mapfile -t sw_runs < <(find "$out" -mindepth 2 -maxdepth 3 -name writer.swlog -printf '%h\n' | sort)
if [ ${#sw_runs[@]} -gt 0 ]; then
	"$build_dir/analysis/stalewin-report" summary "${sw_runs[@]}" |
		if [ "$json" = 1 ]; then cat >"$out/summary.txt"; else tee "$out/summary.txt"; fi || true
fi
[ ${#failed[@]} -eq 0 ] || echo "$SW_VM_PROG: kernel(s) ${failed[*]}: vm run did not complete (see above): their cells are missing or partial" >&2
if [ "$interrupted" = 1 ]; then
	echo "$SW_VM_PROG: interrupted after $wall s: the matrix is partial (cells missing above)" >&2
	exit 3
fi
exit "$rc"
