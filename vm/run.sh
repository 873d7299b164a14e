#!/usr/bin/env bash
# vm/run.sh - `./stalewin vm run`: boot a knfsd server guest and a client
# guest wired together by a qemu stream netdev over a unix socket (no
# real network), run the experiments, collect the run folder(s) on the
# host, shut the guests down, print the report.
#
#   ./stalewin vm run [--policy P]... [--workload W]... [--fs FS]...
#        [--mount-opts O]... [--reader-mode kept-open|cto]... [--duration S]
#        [--kernel PATH|patched[:7.2]|stock|6.1|6.12|7.2] [--client-kernel K]
#        [--sysctl K=V]... [--vers 3|4.2|both] [--probe-vers 3|4|3+4]
#        [--query-rate N|wire] [--scenario deleg-none]
#        [--reader-every-ms N] [--reader-page N] [--size BYTES]
#        [--writer-args "..."] [--model-profile auto|none|NAME|FILE]
#        [--out DIR] [--build-dir DIR] [--no-report] [--repeats N]
#        [--timeout S] [--control auto|api|direct] [--lead S]
#        [--fault KIND@S[:D]]... [--outage-grace S]
#
# Default: the demo matrix, eager deferred lang none on tmpfs and native
# on ext4, rewrite workload, 10 s each, mounts vers=3,nolock and vers=4.2
# each read by a kept-open and a close-to-open reader, one probe with a
# v3 and a v4 target (ctime and the change attribute) at 100 GETATTRs/s
# each.  --vers 3 or 4.2: that version alone (its mount and probe target).
# --query-rate N|wire (old name --probe-rate): GETATTRs/s per probe
# target, above 0 and at most 1000, or wire (flat out, opt-in: on a
# multigrain kernel every query makes the next ctime fine-grained);
# meta.json records the planned queries of the file (query_rate_hz,
# query_rate) and whether the server's fs is multigrain (vm/query.sh).
# --scenario NAME: a set-up on purpose that the report explains
# (vm/scenario.sh): deleg-none.
# --policy/--fs pick
# a subset (every policy given runs on every --fs given; native defaults
# to ext4, the others to tmpfs).  --mount-opts may repeat: one kernel
# mount (nosharecache) per option set, each read in every reader mode;
# kread-<j>.swlog, j in order (mount, mode), listed in meta.json.
# --fs: tmpfs, ext4, xfs, btrfs (each disk filesystem on its own virtio
# disk: ext4 made on the host, xfs and btrfs made in the server guest with
# Debian 12's mkfs; xfs/btrfs run native only).  --workload may repeat:
# every (policy, fs) runs each workload, in one boot.  Kernel names
# (stock 6.1 6.12 7.2) are Debian's packages (vm/build.sh).
# --probe-vers 3+4: one probe with a v3 and a v4 target (probe-0/t0 v3,
# probe-0/t1 v4: ctime and the change attribute side by side).
# --kernel applies to the server guest (the writer's kernel); "patched"
# is vm/kernel/stalewin-vm-kernel --print-path (patched:7.2 adds --base
# 7.2; plain patched is the 6.1 series); with it eager, deferred
# and lang are the kernel's own policies: the server guest sets
# vm.mmap_cmtime_policy=P ($SW_VM_PATCHED_SYSCTL) and the writer runs
# native on ext4 (default matrix: eager deferred lang).  --sysctl is applied in
# the server guest before the writer starts.
# --model-profile: the writeback model's options for the emulated policies
# (server/model/profiles/NAME.profile).  auto (default): the profile
# validated for the server guest's kernel (guest-6.1 for stock / 6.1), or
# none when that kernel has none; every report names the profile and what
# it rests on, or says there was none.  --writer-args override its values.
# --control: auto (default) = the server guest runs stalewin-writer serve;
# the client estimates the clock offset through it (stalewin-ctl clock);
# the server guest starts each writer run itself with a run id chosen in
# advance, after the client's probe and readers took baseline samples
# (handshake through files in the share).  api = as auto, but the client
# starts each run through the API (stalewin-ctl start/status/fetch); the
# server picks the run id, so probe and readers start only after the
# writer did (its first stores may precede their first samples).
# direct = no control API: UDP clock exchange (stalewin-reader clock).
# Without stalewin-ctl in the build, auto falls back to direct.
# --lead S: every writer sets up and stores no sooner than S s after its
# file's creation (stalewin-writer --lead-ms; default 0: as soon as the
# client's readers are up, 2.5-7.5 s here).  That time picks the kernel's
# writeback regime (server/README.md), so runs meant to be compared, or
# repeated, give it; probe and readers run S s longer.
# --timeout S: how long one experiment may take from its start to the
# client's end (default duration + 90 s) before the run is failed.
# One experiment: the run folder is OUT; several: OUT/<n>-<policy>-<fs>/.
# --repeats N (1..100): every experiment N times in the one boot,
# interleaved (all experiments once, then again: a drift of the guests
# falls on every policy alike), folders <n>-<policy>-<fs>...-r<R>.
# OUT/vm/experiments.txt lists each: name, --policy, fs, workload, repeat
# and done (it finished: its logs are whole) or cut (interrupted, or a
# later experiment failed); a cut one's meta.json says interrupted.  A
# failure keeps the experiments that finished (exit 1 all the same).
# --fault KIND@S[:D] (repeatable; S s after each experiment's writer
# started, D s long, default 1; vm/guest/faults.sh):
#   knfsd-restart@S:D   the server guest stops knfsd (rpc.nfsd 0), starts
#                       it again after D s
#   partition@S:D       the client guest's eth0 down for D s: the guests'
#                       link is cut both ways, every process runs on
#   server-guest-kill@S the host SIGKILLs the server guest's qemu (one
#                       experiment only): the writer dies with it; what it
#                       logged (its log is in the share, the run folder on
#                       the host) is kept, the report says PARTIAL
#   Each fault, and each control-API outage the client saw (--control
#   api), goes into faults.json (stalewin-runfolder fault); the report's
#   first line names them.
# --outage-grace S (default 30): the writer runs its planned duration on
#   its own; the client polls the control API through outages with
#   back-off until the planned end + S (then fetches the log, or the host
#   takes it from the share); probe and kernel-mount readers keep going
#   through them and are stopped only S s after their planned end.
# Exit: the report's (0 complete, 4 complete with faults, 3 partial), 1
# runtime failure, 2 bad input.
set -euo pipefail
SW_VM_PROG="stalewin vm run"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$SW_VM_DIR/qemu.sh"
. "$SW_VM_DIR/query.sh"
. "$SW_VM_DIR/scenario.sh"

policies=() fss=() mounts=() modes=() sysctls=() workloads=()
duration=10 kernel=stock client_kernel=stock probe_vers="" vers=both
probe_rate=100 reader_every=100 reader_page=0 size=1M writer_args="" model_profile=auto
out="" build_dir=${SW_BUILD_DIR:-$SW_TOP/build} report=1 timeout="" shell=0 control=auto
faults=() grace=30 lead=0 scenario="" repeats=1
orig_cmd="$0 $*" orig_argv=("$0" "$@")
while [ $# -gt 0 ]; do
	case "$1" in
	--policy) policies+=("${2:?}"); shift 2 ;;
	--fs) fss+=("${2:?}"); shift 2 ;;
	--workload) workloads+=("${2:?}"); shift 2 ;;
	--mount-opts) mounts+=("${2:?}"); shift 2 ;;
	--reader-mode) modes+=("${2:?}"); shift 2 ;;
	--duration) duration=${2:?}; shift 2 ;;
	--kernel) kernel=${2:?}; shift 2 ;;
	--client-kernel) client_kernel=${2:?}; shift 2 ;;
	--sysctl) sysctls+=("${2:?}"); shift 2 ;;
	--probe-vers) probe_vers=${2:?}; shift 2 ;;
	--query-rate|--probe-rate) probe_rate=${2:?}; shift 2 ;;
	--vers) vers=${2:?}; shift 2 ;;
	--scenario) scenario=${2:?}; shift 2 ;;
	--reader-every-ms) reader_every=${2:?}; shift 2 ;;
	--reader-page) reader_page=${2:?}; shift 2 ;;
	--size) size=${2:?}; shift 2 ;;
	--writer-args) writer_args=${2?}; shift 2 ;;
	--model-profile) model_profile=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--build-dir) build_dir=${2:?}; shift 2 ;;
	--no-report) report=0; shift ;;
	--control) control=${2:?}; shift 2 ;;
	--timeout) timeout=${2:?}; shift 2 ;;
	--shell) shell=1; shift ;;
	--fault) faults+=("${2:?}"); shift 2 ;;
	--outage-grace) grace=${2:?}; shift 2 ;;
	--lead) lead=${2:?}; shift 2 ;;
	--repeats) repeats=${2:?}; shift 2 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) vm_usage_die "unknown option '$1' (see --help)" ;;
	esac
done

# ------------------------------------------------------------ binaries
# first: the names of policies and workloads are the writer's own
if [ ! -x "$build_dir/server/stalewin-writer" ] || [ ! -x "$build_dir/client/stalewin-reader" ]; then
	vm_log "building the project in $build_dir (writer, probe, reader, ctl)"
	cmake -S "$SW_TOP" -B "$build_dir" >/dev/null 2>&1 || vm_die "cmake configure of $build_dir failed (./stalewin build shows why)"
	for t in stalewin-writer stalewin-reader stalewin-probe stalewin-ctl stalewin-logdump stalewin-report; do
		cmake --build "$build_dir" -j2 --target "$t" >/dev/null 2>&1 || vm_log "could not build $t (not there yet?)"
	done
fi
[ -x "$build_dir/server/stalewin-writer" ] || vm_die "no stalewin-writer in $build_dir/server (./stalewin build)"
[ -x "$build_dir/client/stalewin-reader" ] || vm_die "no stalewin-reader in $build_dir/client (./stalewin build)"

# ------------------------------------------------------------ validation
. "$SW_TOP/scripts/lib/names.sh"
[ ${#workloads[@]} -gt 0 ] || workloads=(rewrite)
# lang-mem is only the patched kernel's (vm/kernel 0009: the fault's
# in-memory times persisted at the flush), no emulated policy: checked
# with --kernel below
wpols=()
for p in "${policies[@]}"; do [ "$p" = lang-mem ] || wpols+=("$p"); done
[ ${#wpols[@]} -eq 0 ] ||
	{ e=$(sw_name_check "$build_dir" policies --policy "${wpols[@]}") || vm_usage_die "$e"; }
e=$(sw_name_check "$build_dir" workloads --workload "${workloads[@]}") || vm_usage_die "$e"
for f in "${fss[@]}"; do
	case "$f" in tmpfs|ext4|xfs|btrfs) ;; *) vm_usage_die "--fs: expected tmpfs, ext4, xfs or btrfs, saw '$f'" ;; esac
done
for m in "${modes[@]}"; do
	case "$m" in kept-open|cto) ;; *) vm_usage_die "--reader-mode: expected kept-open or cto, saw '$m'" ;; esac
done
case "$control" in auto|api|direct) ;;
*) vm_usage_die "--control: expected auto, api or direct, saw '$control'" ;; esac
[ -z "$timeout" ] || [[ "$timeout" =~ ^[0-9]+$ ]] || vm_usage_die "--timeout: expected seconds per experiment, saw '$timeout'"
[[ "$lead" =~ ^[0-9]+$ ]] && [ "$lead" -le 600 ] || vm_usage_die "--lead: expected whole seconds from 0 to 600, saw '$lead'"
[[ "$repeats" =~ ^[0-9]+$ ]] && [ "$repeats" -ge 1 ] && [ "$repeats" -le 100 ] || vm_usage_die "--repeats: expected a whole number from 1 to 100, saw '$repeats'"
[[ "$duration" =~ ^[0-9]+$ ]] && [ "$duration" -ge 1 ] || vm_usage_die "--duration: expected whole seconds >= 1, saw '$duration'"
case "$vers" in 3) pv=3 ;; 4.2) pv=4 ;; both) pv=3+4 ;;
*) vm_usage_die "--vers: expected 3, 4.2 or both, saw '$vers'" ;; esac
probe_vers=${probe_vers:-$pv}
[[ "$probe_vers" =~ ^(3|4|3\+4)$ ]] || vm_usage_die "--probe-vers: expected 3, 4 or 3+4, saw '$probe_vers'"
vm_query_check "$probe_rate"
vm_scenario_check "$scenario" "$vers"
[[ "$reader_every" =~ ^[0-9]+$ ]] && [ "$reader_every" -ge 1 ] || vm_usage_die "--reader-every-ms: expected ms >= 1, saw '$reader_every'"
[[ "$reader_page" =~ ^[0-9]+$ ]] || vm_usage_die "--reader-page: expected a page index, saw '$reader_page'"
for kv in "${sysctls[@]}"; do
	[[ "$kv" =~ ^[a-z0-9_.]+=[^[:space:]]+$ ]] || vm_usage_die "--sysctl: expected KEY=VALUE (e.g. vm.dirty_expire_centisecs=500), saw '$kv'"
done
for m in "${mounts[@]}"; do
	[[ "$m" != *"|"* && "$m" != *" "* ]] || vm_usage_die "--mount-opts: expected comma-separated options without spaces or '|', saw '$m'"
done
[ ${#mounts[@]} -gt 0 ] || case "$vers" in 3) mounts=("vers=3,nolock") ;; 4.2) mounts=("vers=4.2") ;;
	*) mounts=("vers=3,nolock" "vers=4.2") ;; esac
kill_planned=0
for f in "${faults[@]}"; do
	[[ $f =~ ^(knfsd-restart|partition)@[0-9]+(\.[0-9]+)?(:[0-9]+(\.[0-9]+)?)?$ ||
	   $f =~ ^server-guest-kill@[0-9]+(\.[0-9]+)?$ ]] ||
		vm_usage_die "--fault: expected knfsd-restart|partition@SEC[:DOWN_SEC] or server-guest-kill@SEC, saw '$f'"
	[[ $f == server-guest-kill@* ]] && kill_planned=1
done
[[ "$grace" =~ ^[0-9]+$ ]] || vm_usage_die "--outage-grace: expected whole seconds, saw '$grace'"
[ ${#modes[@]} -gt 0 ] || modes=(kept-open cto)

why=$(vm_qemu_check) || { echo "$SW_VM_PROG: $why" >&2; exit 1; }

resolve_kernel() { # SPEC -> path or "stock"
	case "$1" in
	stock) echo stock ;;
	6.1|6.12|7.2) echo "$1" ;; # Debian's packages (vm/build.sh --kernel NAME)
	patched|patched:*) # the series on base B (patched = patched:6.1)
		local k=${SW_VM_KERNEL_TOOL:-$SW_VM_DIR/kernel/stalewin-vm-kernel} p b=${1#patched}
		b=${b#:}; b=${b:-6.1}
		[[ "$b" =~ ^[0-9]+\.[0-9]+$ ]] || vm_usage_die "--kernel $1: expected patched or patched:BASE such as patched:7.2"
		[ -x "$k" ] || vm_die "--kernel $1: vm/kernel/stalewin-vm-kernel is missing (the patched-kernel part has not landed)"
		p=$("$k" --print-path --base "$b") || vm_die "--kernel $1: no patched $b kernel is built (./stalewin vm kernel build --base $b, ~25 min)"
		[ -f "$p" ] || vm_die "--kernel $1: $k --print-path --base $b gave '$p', which is not a file"
		echo "$p" ;;
	*) [ -f "$1" ] || vm_usage_die "--kernel: expected a kernel name ($vm_kernel_names, patched, patched:7.2) or an ELF vmlinux; '$1' is neither"
		realpath "$1" ;;
	esac
}
kernel_spec=$kernel
mprof=$(vm_model_profile "$kernel_spec" "$model_profile") || vm_usage_die "$mprof"
kernel=$(resolve_kernel "$kernel")
client_kernel=$(resolve_kernel "$client_kernel")

# ------------------------------------------------------------ experiments
# With --kernel patched, eager/deferred/lang are the KERNEL's policies:
# the server sets $SW_VM_PATCHED_SYSCTL (default vm.mmap_cmtime_policy,
# the patched kernel's switch) to P before the run and the writer runs in
# native mode on ext4 (entries P:ext4:kernel).
patched_sysctl=${SW_VM_PATCHED_SYSCTL:-vm.mmap_cmtime_policy}
if [[ "$kernel_spec" == patched || "$kernel_spec" == patched:* ]]; then
	[ ${#policies[@]} -gt 0 ] || policies=(eager deferred lang)
	# every policy on every --fs (default ext4); deferred and lang only
	# on ext4, the one filesystem the series opts in: on xfs or btrfs the
	# patched kernel is eager whatever the sysctl (a control cell)
	[ ${#fss[@]} -gt 0 ] || fss=(ext4)
	exps=()
	for p in "${policies[@]}"; do
		for f in "${fss[@]}"; do
			case "$p:$f" in
			eager:ext4|deferred:ext4|lang:ext4|lang-mem:ext4|eager:xfs|eager:btrfs) exps+=("$p:$f:kernel") ;;
			native:ext4|native:xfs|native:btrfs) exps+=("native:$f") ;;
			deferred:*|lang:*|lang-mem:*) vm_usage_die "--kernel patched --policy $p --fs $f: expected ext4 (the series opts ext4 in; on $f only eager and native run), saw $f" ;;
			eager:*|native:*) vm_usage_die "--kernel patched --fs $f: expected ext4, xfs or btrfs, saw $f" ;;
			*) vm_usage_die "--kernel patched --policy $p: expected eager, deferred, lang, lang-mem (the kernel's $patched_sysctl) or native" ;;
			esac
		done
	done
elif [ ${#policies[@]} -eq 0 ] && [ ${#fss[@]} -eq 0 ]; then
	exps=(eager:tmpfs deferred:tmpfs lang:tmpfs none:tmpfs native:ext4)
else
	[ ${#policies[@]} -gt 0 ] || policies=(eager)
	exps=()
	for p in "${policies[@]}"; do
		[ "$p" != lang-mem ] || vm_usage_die "--policy lang-mem: a policy of the patched kernel only (vm/kernel 0009), not emulated: use --kernel patched or patched:7.2"
		if [ ${#fss[@]} -gt 0 ]; then
			for f in "${fss[@]}"; do exps+=("$p:$f"); done
		elif [ "$p" = native ]; then exps+=("$p:ext4")
		else exps+=("$p:tmpfs"); fi
	done
fi
[ "$shell" = 1 ] && exps=()
for e in "${exps[@]}"; do
	f=${e#*:}; f=${f%%:*}
	# P:ext4:kernel is the patched kernel's own policy P, not an emulation
	[ "$f" != tmpfs ] && [ "${e%%:*}" != native ] && [ "${e##*:}" != kernel ] &&
		vm_usage_die "--policy ${e%%:*} --fs $f: the emulated policies (eager, deferred, lang, none) run on tmpfs; on $f use --policy native (the kernel's own behaviour, e.g. a --kernel patched with --sysctl)"
done
# each (policy, fs) once per workload: entries P:FS[:kernel]@W
# and each of those --repeats times, interleaved: entries P:FS[:kernel]@W#R
wexps=()
for ((r = 1; r <= repeats; r++)); do
	for e in "${exps[@]}"; do for w in "${workloads[@]}"; do wexps+=("$e@$w#$r"); done; done
done
exps=("${wexps[@]}")
nexp=${#exps[@]}
[ "$kill_planned" = 0 ] || [ "$nexp" -le 1 ] ||
	vm_usage_die "--fault server-guest-kill ends the server guest: expected one experiment (one --policy, --fs, --workload), saw $nexp"
# the server's disks, in virtio order (vda, vdb, ...): SW_DISKS in the plan
disk_fss=()
for f in ext4 xfs btrfs; do
	for e in "${exps[@]}"; do g=${e#*:}; g=${g%%@*}; [ "${g%%:*}" = "$f" ] && { disk_fss+=("$f"); break; }; done
done
[ "$shell" = 1 ] && disk_fss=(ext4)
need_ext4=0; case " ${disk_fss[*]} " in *" ext4 "*) need_ext4=1 ;; esac

t_cmd=$(vm_now)
[ -n "$out" ] || out=$SW_TOP/runs/vm-$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$out" || vm_die "cannot create the run folder $out"
out=$(realpath "$out")
[ -z "$(ls -A "$out")" ] || vm_usage_die "--out: expected an empty or new folder, $out has files"
vm_space_check "$out" 200

# ------------------------------------------------------------ images
if [ "$kernel" = stock ]; then senv=$("$SW_VM_DIR/build.sh" --quiet --build-dir "$build_dir")
else senv=$("$SW_VM_DIR/build.sh" --quiet --build-dir "$build_dir" --kernel "$kernel"); fi
if [ "$client_kernel" = "$kernel" ]; then cenv=$senv
elif [ "$client_kernel" = stock ]; then cenv=$("$SW_VM_DIR/build.sh" --quiet --build-dir "$build_dir")
else cenv=$("$SW_VM_DIR/build.sh" --quiet --build-dir "$build_dir" --kernel "$client_kernel"); fi
eval "$senv"
s_vmlinux=$SW_VM_VMLINUX s_initrd=$SW_VM_INITRD s_kdesc=$SW_VM_KERNEL_DESC bins=$SW_VM_BINS
s_kpkg=${SW_VM_KPKG:-} s_kver=$SW_VM_KVER
eval "$cenv"
c_vmlinux=$SW_VM_VMLINUX c_initrd=$SW_VM_INITRD c_kdesc=$SW_VM_KERNEL_DESC c_kpkg=${SW_VM_KPKG:-}
kver_line="server=$s_kver client=$SW_VM_KVER" # OUT/vm/kernel-release.txt
case " $bins " in *" stalewin-probe "*) ;; *) vm_log "warning: no stalewin-probe in $build_dir: the run has no probe log (report partial)" ;; esac
ctl=""
case " $bins " in *" stalewin-ctl "*) ctl=1 ;; esac

work=$(mktemp -d /tmp/sw-vm-run.XXXXXX)
cleanup() {
	vm_stop_all
	[ -z "${share:-}" ] || rm -f "$share/ctl.token"
	rm -rf "$work"
}
trap cleanup EXIT
# First SIGINT/SIGTERM: ask the guests to end their runs cleanly (END
# records), collect, report partial.  A second one: kill them now.
interrupted=0
trap 'if [ "$interrupted" = 1 ]; then echo "$SW_VM_PROG: interrupted again: killing the guests" >&2; exit 130; fi; interrupted=1' INT TERM
disk_args=()
[ ${#disk_fss[@]} -eq 0 ] || vm_space_check /tmp $((600 * ${#disk_fss[@]}))
for f in "${disk_fss[@]}"; do
	disk=$work/$f.img
	truncate -s 512M "$disk" || vm_die "cannot create the $f disk image $disk"
	# ext4 as before (host mkfs); xfs and btrfs are made by the server
	# guest's mkfs (its kernel's module must accept them anyway)
	if [ "$f" = ext4 ]; then mkfs.ext4 -q -F "$disk" || vm_die "mkfs.ext4 -F $disk failed"; fi
	disk_args+=(--disk "$disk")
done

# ------------------------------------------------------------ plan
share=$out
# the emulated runs' model profile, in the share; every report names it
if [ -n "$mprof" ]; then
	mkdir -p "$share/vm" && cp "$mprof" "$share/vm/" || vm_die "cannot copy $mprof into $share/vm"
	writer_args="--model-profile /sw/vm/${mprof##*/}${writer_args:+ $writer_args}"
fi
{
	echo "SW_NEXP=$nexp"
	echo "SW_DURATION=$duration"
	echo "SW_TAIL=2"
	echo "SW_FILE_LEAD_S=$lead" # --lead (server.sh: --lead-ms; client.sh: readers run that much longer)
	echo "SW_SIZE=$size"
	printf 'SW_WRITER_ARGS=%q\n' "$writer_args"
	printf 'SW_SYSCTLS=%q\n' "${sysctls[*]:-}"
	printf 'SW_MOUNTS=%q\n' "$(IFS='|'; echo "${mounts[*]}")"
	printf 'SW_READER_MODES=%q\n' "${modes[*]}"
	echo "SW_READER_EVERY_MS=$reader_every"
	echo "SW_READER_PAGE=$reader_page"
	echo "SW_PROBE_VERS=$probe_vers"
	echo "SW_PROBE_RATE=$probe_rate"
	echo "SW_SCENARIO=$scenario" # vm/scenario.sh
	echo "SW_PROBE_ARGS="
	echo "SW_SERVER_IP=10.77.0.1"
	echo "SW_CLOCK_PORT=$((20000 + RANDOM % 40000))"
	echo "SW_CONTROL=$control"
	echo "SW_CTL_PORT=$((20000 + RANDOM % 40000))"
	echo "SW_FAULT=${SW_VM_FAULT:-}"  # tests only: knfsd, mkfs-xfs
	printf 'SW_FAULTS=%q\n' "${faults[*]:-}" # --fault (vm/guest/faults.sh)
	echo "SW_GRACE=$grace"
	echo "SW_QUIET_S=${SW_VM_QUIET_S:-}" # vm matrix: quiet runs of S s (vm/guest/server.sh)
	printf 'SW_DISKS=%q\n' "${disk_fss[*]:-}"
	printf 'SW_EXT4_OPTS=%q\n' "${SW_VM_EXT4_OPTS:-}" # ext4 export mount options (vm/guest/server.sh)
	printf 'SW_TRACE_EVENTS=%q\n' "${SW_VM_TRACE_EVENTS:-}" # more server tracepoints (vm/guest/trace.sh)
	k=1
	for e in "${exps[@]}"; do
		rep=${e##*#} e=${e%#*}
		workload=${e##*@} e=${e%@*}
		p=${e%%:*} f=${e#*:} kp="" wp=$p
		case "$f" in *:kernel) f=${f%%:*} kp="$patched_sysctl=$p" wp=native ;; esac
		if [ "$nexp" -eq 1 ]; then n=.; elif [ -n "$kp" ]; then n=$k-$p-$f-kernel; else n=$k-$p-$f; fi
		[ "$nexp" -eq 1 ] || [ ${#workloads[@]} -eq 1 ] || n=$n-$workload
		[ "$repeats" -eq 1 ] || n=$n-r$rep
		echo "$n $p $f $workload $rep" >>"$work/experiments.txt"
		echo "SW_EXP_${k}_NAME=$n SW_EXP_${k}_POLICY=$wp SW_EXP_${k}_KPOLICY=$kp SW_EXP_${k}_FS=$f SW_EXP_${k}_WORKLOAD=$workload SW_EXP_${k}_RUNID=$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
		k=$((k + 1))
	done
} >"$share/plan.sh"
cp "$SW_VM_DIR/guest/server.sh" "$share/server.sh"
cp "$SW_VM_DIR/guest/client.sh" "$share/client.sh"
mkdir -p "$share/vm"
echo "$kver_line" >"$share/vm/kernel-release.txt"

# ------------------------------------------------------------ boot
sock=$work/net.sock
s_console=$share/vm/server.console
c_console=$share/vm/client.console
vm_log "booting the server guest ($s_kdesc)"
vm_qemu_start server "$s_vmlinux" "$s_initrd" "$share" "$s_console" --ip 10.77.0.1/24 \
	--run server.sh --mac 52:54:00:77:00:01 --append sw.role=server "${disk_args[@]}" \
	--net "stream,id=n0,server=on,addr.type=unix,addr.path=$sock"
spid=$VM_PID
for ((i = 0; i < 100; i++)); do [ -S "$sock" ] && break; vm_alive "$spid" || break; sleep 0.05; done
if [ ! -S "$sock" ]; then
	# qemu that exits at once (a kernel it cannot load) is a dead guest, not
	# a slow one: say which, so the cause is never reported two ways
	if vm_alive "$spid"; then
		vm_fail_msg "the server's qemu did not create its network socket $sock within 5 s" "$s_console"
	else
		vm_fail_msg "the server guest died before its network came up (qemu PID $spid)" "$s_console"
	fi
	exit 1
fi
if [ "$shell" = 1 ]; then
	watch_for_ready_simple() {
		local i
		for ((i = 0; i < 750; i++)); do
			[ -e "$share/server.ready" ] && return 0
			[ -e "$share/server.failed" ] && vm_die "the server guest failed: $(cat "$share/server.failed")"
			vm_alive "$spid" || { vm_fail_msg "the server guest died" "$s_console"; exit 1; }
			sleep 0.2
		done
		vm_fail_msg "the server guest was not ready after 150 s" "$s_console"; exit 1
	}
	watch_for_ready_simple
	echo "$SW_VM_PROG: server 10.77.0.1 exports /export/tmpfs and /export/ext4 (knfsd v3, v4.x);" \
		"in the client: mount -t nfs -o vers=3,nolock 10.77.0.1:/export/tmpfs /mnt; binaries in /opt/stalewin/bin; share /sw = $share" >&2
	vm_qemu_start client "$c_vmlinux" "$c_initrd" "$share" "$c_console" --ip 10.77.0.2/24 \
		--mac 52:54:00:77:00:02 --append sw.role=client --stdio 1 \
		--net "stream,id=n0,server=off,addr.type=unix,addr.path=$sock"
	echo done >"$share/client.finished"
	vm_stop_pid "$spid" 20
	exit 0
fi
vm_log "booting the client guest ($c_kdesc)"
vm_qemu_start client "$c_vmlinux" "$c_initrd" "$share" "$c_console" --ip 10.77.0.2/24 \
	--run client.sh --mac 52:54:00:77:00:02 --append sw.role=client \
	--net "stream,id=n0,server=off,addr.type=unix,addr.path=$sock"
cpid=$VM_PID
[ "${SW_PROGRESS:-1}" = 0 ] || [ ! -x "$build_dir/client/stalewin-progress" ] || "$build_dir/client/stalewin-progress" --watch "$share" --experiments "$nexp" --duration "$duration" --pid $$ --until-file "$share/client.finished" --prefix "$SW_VM_PROG" --since $((t_cmd / 1000000)) </dev/null >/dev/null & # the progress line

# --fault server-guest-kill: the server guest asks for it in
# sync/server-kill.req (its realtime then: the writer's clock); SIGKILL its
# qemu at once, tell the client (server.killed), note how many bytes the
# writer's log (in the share) held.  One experiment only: its folder is
# the share itself.  The fault is recorded in collect_faults.
killed=0 kill_args=()
host_fault_tick() {
	[ "$kill_planned" = 1 ] && [ "$killed" = 0 ] && [ -e "$share/sync/server-kill.req" ] || return 0
	local t_seen t_dead t_req lg rid spec bytes
	t_seen=$(vm_now)
	kill -KILL "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
	t_dead=$(vm_now)
	killed=1
	touch "$share/server.killed"
	t_req=$(cat "$share/sync/server-kill.req")
	[[ $t_req =~ ^[0-9]+$ ]] || vm_die "expected the server guest's realtime (ns) in $share/sync/server-kill.req, saw '$t_req'"
	lg=writer.swlog rid=$(cat "$share/client/run_id" 2>/dev/null || true)
	[ -z "$rid" ] || lg=vm/ctl-runs/$rid/writer.swlog # --control api
	bytes=$(stat -c %s "$share/$lg" 2>/dev/null || echo 0)
	for spec in "${faults[@]}"; do [[ $spec == server-guest-kill@* ]] && break; done
	vm_log "fault $spec: killed the server guest (qemu PID $spid) $(( (t_dead - t_seen) / 1000 )) ms after it asked; $lg holds $bytes bytes"
	kill_args=(--str kind=server-guest-kill --str "spec=$spec" --str clock=writer
		--int "t_start_real_ns=$t_req" --int "kill_delay_us=$((t_dead - t_seen))"
		--str "writer_log=$lg" --int "writer_log_bytes=$bytes" --bool cut_short=true)
}

# Wait for FILE while both guests live and no side reported a failure.
watch_for() { # FILE TIMEOUT WHAT
	local t0 f=$1
	t0=$(vm_now)
	while [ ! -e "$f" ]; do
		[ "$interrupted" = 1 ] && return 1
		for side in server client; do
			if [ -e "$share/$side.failed" ]; then
				echo "$SW_VM_PROG: the $side guest failed: $(cat "$share/$side.failed")" >&2
				tail -n 15 "$share/vm/$side.console" 2>/dev/null | sed 's/^/    | /' >&2
				return 1
			fi
		done
		host_fault_tick
		if ! vm_alive "$spid" && [ ! -e "$share/server.rc" ] && [ "$killed" = 0 ]; then
			vm_fail_msg "$3: the server guest died (qemu PID $spid), $(vm_elapsed "$t_cmd") s after the command" "$s_console"
			return 1
		fi
		if ! vm_alive "$cpid" && [ ! -e "$share/client.rc" ]; then
			[ -e "$f" ] && return 0
			vm_fail_msg "$3: the client guest died (qemu PID $cpid), $(vm_elapsed "$t_cmd") s after the command" "$c_console"
			return 1
		fi
		if vm_older_than "$t0" "$2"; then
			local cons=$s_console
			[ "$f" = "$share/client.rc" ] && cons=$c_console
			vm_fail_msg "$3: nothing after waiting $(vm_elapsed "$t0") s" "$cons"
			return 1
		fi
		if [ "$kill_planned" = 1 ] && [ "$killed" = 0 ]; then sleep 0.05; else sleep 0.2; fi
	done
}
k=0 ndone=0 # (not the plan's counter: a server that never gets ready must fail the run)
if watch_for "$share/server.ready" 150 "the server guest did not get knfsd ready"; then
	vm_log "server ready (knfsd up) $(vm_elapsed "$t_cmd") s after the command"
	for ((k = 1; k <= nexp; k++)); do
		n=$(awk -F'[ =]' -v k="$k" '$1=="SW_EXP_"k"_NAME"{print $2}' "$share/plan.sh")
		watch_for "$share/$n/sync/client.go" 150 "experiment $k never started" || break
		[ "$k" -eq 1 ] && vm_log "first experiment started $(vm_elapsed "$t_cmd") s after the command"
		watch_for "$share/$n/sync/client.done" "${timeout:-$((duration + lead + grace + 90))}" "experiment $k did not finish" || break
		vm_log "experiment $k/$nexp ($n) done"
		ndone=$k
	done
fi
# a failure before any experiment finished leaves nothing to keep
failed=0
[ "$interrupted" = 1 ] || [ "$k" -gt "$nexp" ] || failed=1
[ "$failed" = 0 ] || [ "$ndone" -gt 0 ] || exit 1
if [ "$interrupted" = 1 ] || [ "$failed" = 1 ]; then
	[ "$failed" = 1 ] && echo "$SW_VM_PROG: keeping the $ndone experiments that finished: asking the guests to end (up to 20 s)" >&2
	[ "$interrupted" = 1 ] && echo "$SW_VM_PROG: interrupted: asking the guests to end their runs (END records; up to 20 s; again to kill)" >&2
	touch "$share/stop"
	for ((i = 0; i < 100; i++)); do
		vm_alive "$spid" || vm_alive "$cpid" || break
		sleep 0.2
	done
else
	watch_for "$share/client.rc" 60 "the client guest did not power off" || exit 1
	[ "$killed" = 1 ] || watch_for "$share/server.rc" 60 "the server guest did not power off" || exit 1
fi
vm_stop_pid "$spid" 15
vm_stop_pid "$cpid" 15
rm -f "$share/stop"
t_end=$(vm_now)

# ------------------------------------------------------------ collect
bad=0
for side in server client; do
	trouble=$(vm_dmesg_trouble "$share/$side.dmesg")
	if [ -n "$trouble" ]; then
		echo "$SW_VM_PROG: kernel trouble in the $side guest's dmesg ($share/vm/$side.dmesg):" >&2
		echo "$trouble" | sed -n 1,20p >&2
		bad=1
	fi
	for x in out rc dmesg; do [ -e "$share/$side.$x" ] && mv "$share/$side.$x" "$share/vm/$side.$x"; done
done
for x in server.ready client.finished server.sh client.sh serve.log ctl.url server.killed; do [ -e "$share/$x" ] && mv "$share/$x" "$share/vm/"; done
rm -f "$share/ctl.token" # the control API's bearer token: not for the run folder
mv "$share/plan.sh" "$share/vm/plan.sh"
for d in "$share"/sync "$share"/*/sync; do
	[ -d "$d" ] || continue
	p=$(basename "$(dirname "$d")"); [ "$d" = "$share/sync" ] && p=run
	mv "$d" "$share/vm/sync-$p"
done

qemu_ver=$(qemu-system-x86_64 --version | sed -n 1p)
{
	vm_apt_facts
	if [ -n "$s_kpkg" ]; then echo "${s_kpkg%%=*}=${s_kpkg#*=} (server kernel, downloaded, unpacked)"
	else echo "$SW_KPKG=$SW_KPKG_VER (downloaded, unpacked)"; fi
	[ -z "$c_kpkg" ] || [ "$c_kpkg" = "$s_kpkg" ] || echo "${c_kpkg%%=*}=${c_kpkg#*=} (client kernel, downloaded, unpacked)"
	echo "nfs-kernel-server=$SW_NKS_VER (downloaded, unpacked)"
	for p in qemu-system-x86 busybox-static rpcbind nfs-common libnfs13 libc6; do
		echo "$p=$(vm_pkg_installed "$p")"
	done
} >"$share/vm/packages.txt"
# meta.json and clock.json of each experiment: one shape for every run
# folder, written by common/stalewin-runfolder (docs/architecture.md).
rf=$build_dir/common/stalewin-runfolder
[ -x "$rf" ] || vm_die "expected $rf (./stalewin build), saw none: cannot write meta.json; the logs are in $out"
# shellcheck disable=SC1091
. "$share/vm/plan.sh"   # SW_EXP_<k>_*, SW_DURATION, ... (written above)
printf '%s\n' $SW_SYSCTLS >"$share/vm/sysctls.txt"
# The faults of experiment folder D into D/faults.json: the guests' lines
# of stalewin-runfolder fault options (vm/guest/faults.sh), the host's
# server-guest-kill.  With --control api the writer's log is taken from
# the share (vm/ctl-runs/ID) when the client could not fetch it; a fetched
# copy that equals it is not kept twice.
collect_faults() { # D
	local d=$1 rid side a c=$share/vm/ctl-runs
	rid=$(cat "$d/client/run_id" 2>/dev/null || true)
	if [ -n "$rid" ] && [ -s "$c/$rid/writer.swlog" ]; then
		if [ ! -s "$d/writer.swlog" ]; then
			vm_log "$d: the client could not fetch the writer's log: taking it from the share ($c/$rid)"
			cp "$c/$rid/writer.swlog" "$d/writer.swlog"
			cp "$c/$rid/stderr.txt" "$d/server/writer.out" 2>/dev/null || true
		elif cmp -s "$c/$rid/writer.swlog" "$d/writer.swlog"; then
			rm -f "$c/$rid/writer.swlog"
		fi
	fi
	for side in server client; do
		[ -s "$d/$side/faults.args" ] || continue
		while read -r -a a; do
			[ ${#a[@]} -eq 0 ] || "$rf" fault "$d" "${a[@]}" ||
				vm_log "cannot record the $side guest's fault (${a[*]}) in $d/faults.json"
		done <"$d/$side/faults.args"
	done
	[ ${#kill_args[@]} -eq 0 ] || "$rf" fault "$d" "${kill_args[@]}" ||
		vm_log "cannot record the server-guest-kill in $d/faults.json"
}
# each experiment, done or cut (the study keeps the done ones)
# (kernel trouble in a dmesg taints every one of the boot: "dmesg")
awk -v n="$ndone" -v bad="$bad" '{ print $0, (bad == 1 ? "dmesg" : (NR <= n ? "done" : "cut")) }' "$work/experiments.txt" >"$share/vm/experiments.txt"
names=()
for ((k = 1; k <= nexp; k++)); do
	v=SW_EXP_${k}_NAME; n=${!v}; names+=("$n"); d=$share/$n
	[ -d "$d" ] || continue # interrupted before it started
	collect_faults "$d"
	[ -s "$d/client/clock-before.json" ] &&
		"$rf" clock "$d" --before "$d/client/clock-before.json" \
			--after "$d/client/clock-after.json" \
			--note "two qemu TCG guests: their clocks drift apart; offset (server - client CLOCK_REALTIME) measured before and after the run"
	pol=SW_EXP_${k}_POLICY kpol=SW_EXP_${k}_KPOLICY fsv=SW_EXP_${k}_FS
	wl=SW_EXP_${k}_WORKLOAD rid=SW_EXP_${k}_RUNID
	policy=${!pol}; [ -n "${!kpol:-}" ] && policy=${!kpol#*=}
	run_id=$(cat "$d/client/run_id" 2>/dev/null || true); run_id=${run_id:-${!rid}}
	ctl="started by the server guest (writer CLI, run id chosen in advance)"
	[ -e "$d/client/run_id" ] && ctl="started through the control API (stalewin-ctl start)"
	case ${!fsv} in
	tmpfs) src=tmpfs ;;
	ext4) src="raw image, mkfs.ext4 -F on the host" ;;
	*) src="raw image, mkfs in the server guest (Debian 12 progs)" ;;
	esac
	up=""; [ "$n" != . ] && up=../
	b=false; [ "$bad" = 0 ] || b=true
	i=false; [ "$k" -le "$ndone" ] || i=true # it did not finish: cut short
	pa=$i; [ "$killed" = 0 ] || pa=true
	args=(--str "tool=stalewin vm run" --str setup=vm --str "command=$orig_cmd"
		--argv ${#orig_argv[@]} "${orig_argv[@]}"
		--int "experiment=$k" --int "experiments=$nexp"
		--str "policy=$policy" --str "writer_policy=${!pol}"
		--str "kernel_policy_sysctl=${!kpol:-}"
		--str "fs=${!fsv}" --str "workload=${!wl}" --str "run_id=$run_id"
		--str "writer_control=$ctl"
		--int "duration_s=$SW_DURATION" --str "size=$SW_SIZE"
		--str "writer_args=${SW_WRITER_ARGS:-}"
		--kv-file "sysctls=$share/vm/sysctls.txt"
		--str "filesystem.type=${!fsv}" --str "filesystem.where=server guest"
		--str "filesystem.source=$src"
		--kv-file "packages=$share/vm/packages.txt"
		--str "server.kernel=$s_kdesc" --str "server.ip=$SW_SERVER_IP"
		--str "server.nfs=knfsd (Debian 12 nfs-kernel-server), NFSv3 + v4.x, v4 grace ended"
		--str "server.export=/export/${!fsv}"
		--str "server.export_options=rw,sync,no_subtree_check,no_root_squash,insecure,fsid=N"
		--str "client.kernel=$c_kdesc" --str "client.ip=10.77.0.2"
		--int "reader_every_ms=$SW_READER_EVERY_MS" --int "reader_page=$SW_READER_PAGE"
		--str "qemu=$qemu_ver" --str accel=tcg --str "guest_tsc_early_khz=${SW_VM_TSC_KHZ:-}"
		--str "clock_note=TCG guest clocks drift: see clock.json before/after/drift_ns"
		--int "t_command_real_us=$t_cmd" --int "t_end_real_us=$t_end"
		--bool "dmesg_trouble=$b" --bool "interrupted=$i" --bool "partial=$pa"
		--str "fault_specs=${faults[*]:-}" --int "outage_grace_s=$grace"
		--json "console_logs=[\"${up}vm/server.console\",\"${up}vm/client.console\"]"
		--json "dmesg=[\"${up}vm/server.dmesg\",\"${up}vm/client.dmesg\"]")
	[ -s "$share/vm/client-tick.txt" ] && args+=(--kv-file "client_tick=$share/vm/client-tick.txt")
	[ -s "$d/client/readers.txt" ] &&
		args+=(--table "readers=$d/client/readers.txt:index,mode,mount_opts_requested,mount_point")
	[ -s "$d/client/probe-0.url" ] && args+=(--str probe.log=probe-0.swlog
		--str "probe.url=$(cat "$d/client/probe-0.url")" --str "probe.rate=$SW_PROBE_RATE")
	[ -s "$d/server/writer.rc" ] && args+=(--int "writer_rc=$(cat "$d/server/writer.rc")")
	vm_query_meta_args "$d" # query_rate_hz, query_rate, multigrain
	[ -z "$scenario" ] || args+=(--str "scenario=$scenario" --str "scenario_note=$(vm_scenario_note "$scenario")")
	"$rf" meta "$d" "${args[@]}" || vm_die "cannot write $d/meta.json"
done
if [ "$nexp" -gt 1 ]; then
	printf '%s\n' "${names[@]}" >"$share/vm/runs.txt"
	"$rf" meta "$share" --str "tool=stalewin vm run" --str "command=$orig_cmd" \
		--table "runs=$share/vm/runs.txt:name" --str "server_kernel=$s_kdesc" \
		--str "client_kernel=$c_kdesc" --str "qemu=$qemu_ver" ||
		vm_die "cannot write $share/meta.json"
fi
vm_log "run folder: $out ($(vm_elapsed "$t_cmd") s)"

# ------------------------------------------------------------ report
runs=()
if [ "$nexp" -eq 1 ]; then runs=("$out")
else for ((k = 1; k <= nexp; k++)); do
	r=$out/$(awk -F'[ =]' -v k="$k" '$1=="SW_EXP_"k"_NAME"{print $2}' "$share/vm/plan.sh")
	[ -f "$r/meta.json" ] && runs+=("$r")
done; fi
rrc=0
if [ "$report" = 1 ]; then
	rep=$(command -v stalewin-report 2>/dev/null || true)
	[ -n "$rep" ] || rep=$build_dir/analysis/stalewin-report
	if [ -x "$rep" ]; then
		for r in "${runs[@]}"; do
			"$rep" "$r" --format all --out "$r" >/dev/null 2>&1 || true
			c=0; "$rep" "$r" --format text || c=$?
			# the worst: a failure, then 3 (partial), then 4 (with faults)
			case "$rrc:$c" in
			*:0|[12]:*|3:4) ;;
			*) rrc=$c ;;
			esac
		done
		[ "${#runs[@]}" -gt 1 ] && { "$rep" compare "${runs[@]}" --format text || true; }
		"$rep" summary "${runs[@]}" | tee "$out/summary.txt" || true # the one-table summary
	else
		echo "$SW_VM_PROG: stalewin-report is not built yet ($rep): no report; the logs are in $out" >&2
		rrc=3
	fi
fi
[ "$bad" = 0 ] || exit 1
[ "$failed" = 0 ] || exit 1
[ "$killed" = 0 ] || [ "$report" = 1 ] || exit 3 # no report: the run is partial all the same
if [ "$interrupted" = 1 ]; then
	echo "$SW_VM_PROG: interrupted by the user after $(vm_elapsed "$t_cmd") s: the run is partial (meta.json \"interrupted\": true)" >&2
	exit 3
fi
exit "$rrc"
