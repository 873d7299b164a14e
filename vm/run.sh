#!/usr/bin/env bash
# vm/run.sh - `./stalewin vm run`: boot a knfsd server guest and a client
# guest wired together by a qemu stream netdev over a unix socket (no
# real network), run the experiments, collect the run folder(s) on the
# host, shut the guests down, print the report.
#
#   ./stalewin vm run [options]
#
# @options
#
# Default: the demo matrix, eager deferred lang none on tmpfs and native
# on ext4, rewrite workload, 10 s each, mounts vers=3,nolock and vers=4.2
# each read by a kept-open and a close-to-open reader, one probe with a
# v3 and a v4 target (ctime and the change attribute) at 100 GETATTRs/s
# each.  --query-rate: above 0 and at most 1000, or wire (flat out,
# opt-in: on a multigrain kernel every query makes the next ctime fine-grained);
# meta.json records the planned queries of the file (query_rate_hz,
# query_rate) and whether the server's fs is multigrain (vm/query.sh).
# --policy/--fs pick a subset (every policy given runs on every --fs
# given).  --mount-opts may repeat: one kernel mount (nosharecache) per
# option set, each read in every reader mode; kread-<j>.swlog, j in order
# (mount, mode), listed in meta.json.  --fs: tmpfs, ext4, xfs, btrfs (each
# disk filesystem on its own virtio disk: ext4 made on the host, xfs and
# btrfs made in the server guest with Debian 12's mkfs; xfs/btrfs run
# native only).  --workload may repeat: every (policy, fs) runs each
# workload, in one boot.  Kernel names
# (stock 6.1 6.12 7.2) are Debian's packages (vm/build.sh).
# --kernel applies to the server guest (the writer's kernel); "patched"
# is vm/kernel/stalewin-vm-kernel --print-path (patched:7.2 adds --base
# 7.2; plain patched is the 6.1 series); with it eager, deferred
# and lang are the kernel's own policies: the server guest sets
# vm.mmap_cmtime_policy=P ($SW_VM_PATCHED_SYSCTL) and the writer runs
# native on ext4 or xfs (patch 0018 opts xfs in on both bases; default
# matrix: eager deferred lang on ext4).
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
# --lead S (stalewin-writer --lead-ms; 0: as soon as the client's readers
# are up, 2.5-7.5 s here): that time picks the kernel's writeback regime
# (server/README.md), so runs meant to be compared, or repeated, give it;
# probe and readers run S s longer.
# --probes M: M stalewin-probe processes side by side, each with the
# --probe-vers targets at --query-rate (probe-J.swlog); M x targets at
# most 128, the report's observers (so 128 with --vers 3, 64 with both;
# its per-store rows and table hold the first 8, report.json every one).
# --ns-clients N (1..8): in place of the kernel mounts, N kernel NFS
# clients in the one client guest, one per network namespace sw-nsK
# (vm/guest/nsclients.sh): each a macvlan on eth0 with 10.77.0.(10+K),
# its own mount (the one --mount-opts; default vers=3,nolock, vers=4.2
# with --vers 4.2) and one reader in the one --reader-mode (default
# kept-open), kread-K; client/ns-clients.txt names each kread's namespace
# and address, the report flags them.  They share the guest's clock: one
# estimate, its error applies to every client.  Not with client-reboot.
# One experiment: the run folder is OUT; several: OUT/<n>-<policy>-<fs>/.
# --repeats N (1..100): every experiment N times in the one boot,
# interleaved (all experiments once, then again: a drift of the guests
# falls on every policy alike), folders <n>-<policy>-<fs>...-r<R>.
# OUT/vm/experiments.txt lists each: name, --policy, fs, workload, repeat
# and done (it finished: its logs are whole) or cut (interrupted, or a
# later experiment failed); a cut one's meta.json says interrupted.  A
# failure keeps the experiments that finished (exit 1 all the same).
# --fault KIND@S[:D]: S s after each experiment's writer started, D s
# long (default 1; vm/guest/faults.sh):
#   knfsd-restart@S:D   the server guest stops knfsd (rpc.nfsd 0), starts
#                       it again after D s
#   partition@S:D       the client guest's eth0 down for D s: the guests'
#                       link is cut both ways, every process runs on
#   server-guest-kill@S the host SIGKILLs the server guest's qemu (one
#                       experiment only): the writer dies with it; what it
#                       logged (its log is in the share, the run folder on
#                       the host) is kept, the report says PARTIAL
#   client-reboot@S     the client guest reboots (one experiment, not with
#                       --control api): readers and probe end their logs
#                       (END), the host boots it again, the readers come
#                       back on a new mount (client/reboot/); the writer
#                       runs on; the gap is until they read again
#   io-error@S:D        the export's disk (a dm table under --fs ext4, xfs
#                       or btrfs; one experiment) fails every write for D
#                       s; the report says what the filesystem did
#   enospc@S            the export's disk (--fs ext4, xfs or btrfs; one
#                       experiment) filled to the run's end, root's
#                       reserve too (stalewin-writer fill)
#   server-crash@S[:R]  (--fs ext4 alone, one experiment, the only
#                       fault, not --control api) the server guest
#                       commits the export's journal, writes the
#                       writer's file back (sync_file_range, data only),
#                       shuts the ext4 down without a journal commit
#                       (EXT4_IOC_SHUTDOWN NOLOGFLUSH) and takes its link
#                       down; the host SIGKILLs its qemu and boots it
#                       again on the same disks (journal recovery at the
#                       mount; knfsd, same fsid); the client guest keeps
#                       its hard mounts, its readers read on R s (default
#                       10) once the server is back.  The writer dies
#                       with it (PARTIAL, its log kept); the first line
#                       gives the stores before the crash on the disk
#                       after it that the client never saw changed
#   clock-step@S:+D|-D  the server guest's realtime clock steps by D s
#                       (signed; the monotonic clock does not move); the
#                       windows stay on the writer's monotonic clock
#   client-clock-step@S:+D|-D  the client guest's, likewise: the probe's
#                       and readers' records stay on their monotonic
#                       clock (the report names the step it saw)
#   memory-pressure@S:D the writer (or its serve) runs in a cgroup v2 of
#                       its own in the server guest; its memory.high is
#                       set to a quarter of its memory.current for D s,
#                       so the kernel reclaims and writes back its pages
#                       (--fs ext4, xfs or btrfs; a kernel with a memcg:
#                       the stock ones, not the patched)
#   S at or past --duration, negative times, a clock step without its
#   sign and the host path's kinds are refused (exit 2).
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
. "$SW_TOP/scripts/lib/names.sh"
. "$SW_TOP/scripts/lib/experiment.sh"
. "$SW_VM_DIR/run-plan.sh"    # resolve_kernel, plan_experiments, plan_write
. "$SW_VM_DIR/run-watch.sh"   # watch_for, host_fault_tick
. "$SW_VM_DIR/run-collect.sh" # collect_guests, collect_faults, write_metas

sw_opt --policy policies P... '' 'a policy to run (default: the demo matrix)'
sw_opt --workload workloads W... '' 'a workload to run (default rewrite)'
sw_opt --fs fss FS... '' 'tmpfs|ext4|xfs|btrfs (default: native on ext4, the others on tmpfs)'
sw_opt --mount-opts mounts O... '' 'a kernel mount of its own with these options'
sw_opt --reader-mode modes kept-open\|cto... '' 'a reader mode (default both)'
sw_opt --duration duration S 10 "each writer's run"
sw_opt --kernel kernel PATH\|patched[:7.2]\|stock\|6.1\|6.12\|7.2 stock "the server guest's kernel"
sw_opt --client-kernel client_kernel K stock "the client guest's kernel"
sw_opt --sysctl sysctls K=V... '' 'set in the server guest before the writer starts'
sw_opt --vers vers 3\|4.2\|both both 'the mounts and probe targets: 3 or 4.2 alone, or both'
sw_opt --probe-vers probe_vers 3\|4\|3+4 '' "the probe's targets (3+4: probe-0/t0 v3, t1 v4, side by side)"
sw_opt --query-rate probe_rate N\|wire 100 'GETATTRs/s per probe target'
sw_opt --probe-rate probe_rate N\|wire '' 'the old name of --query-rate'
sw_opt --probes probes M 1 'libnfs probes side by side (probe-0 .. probe-<M-1>), at most 128 targets in all'
sw_opt --scenario scenario NAME '' 'a set-up on purpose the report explains (vm/scenario.sh): deleg-none, deleg-recall, client-writer'
sw_opt --ns-clients ns_clients N '' 'N (1..8) kernel NFS clients, one per network namespace, in place of the mounts'
sw_opt --reader-every-ms reader_every N 100 "the kernel-mount readers' period"
sw_opt --reader-page reader_page N 0 'the page they read'
sw_opt --size size BYTES 1M "the writer's file"
sw_opt --writer-args writer_args_l '"..."...' '' "the writer's own options, over the profile's (given again: appended)"
sw_opt --model-profile model_profile auto\|none\|NAME\|FILE auto "the emulated policies' model profile"
sw_opt --out out DIR '' 'the run folder(s)'
sw_opt --build-dir build_dir DIR "${SW_BUILD_DIR:-$SW_TOP/build}" "the host's build"
sw_opt --no-report report =0 1 'no report at the end'
sw_opt --repeats repeats N 1 'every experiment N times, interleaved'
sw_opt --timeout timeout S '' "from an experiment's start to the client's end (default duration + 90)"
sw_opt --control control auto\|api\|direct auto 'how writer runs start and clocks are compared'
sw_opt --lead lead S 0 "every writer sets up and stores no sooner than S s after its file's creation"
sw_opt --fault faults KIND@S[:D]... '' 'a fault to inject, see below'
sw_opt --outage-grace grace S 30 'how long past the planned end outages are waited out'
sw_opt --shell shell =1 0 'boot the guests and open a shell (stalewin vm shell)'
orig_cmd="$0 $*" orig_argv=("$0" "$@")
SW_OPTS_NONEMPTY=1 SW_OPTS_EMPTY_OK=--writer-args
sw_opt_missing() { vm_die "$1 needs a value"; }
sw_opt_other() { vm_usage_die "unknown option '$1' (see --help)"; }
sw_opts_parse "$@"
writer_args="${writer_args_l[*]}"

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
check_options # vm/run-plan.sh

why=$(vm_qemu_check) || { echo "$SW_VM_PROG: $why" >&2; exit 1; }
export SW_BUILD_DIR=$build_dir # vm/qemu.sh's helpers (stalewin-tsc-khz) take the same build

kernel_spec=$kernel
mprof=$(vm_model_profile "$kernel_spec" "$model_profile") || vm_usage_die "$mprof"
kernel=$(resolve_kernel "$kernel")
mp_kernel_check "$kernel" # vm/run-plan.sh: memory-pressure needs a memcg
client_kernel=$(resolve_kernel "$client_kernel")

plan_experiments # vm/run-plan.sh

t_cmd=$(vm_now)
. "$SW_TOP/scripts/lib/claim.sh" # the run folder ours alone: busy or not empty --out, exit 2; the default -N
sw_claim_run_dir "$SW_VM_PROG" "$out" "${SW_RUNS_DIR:-$SW_TOP/runs}/vm-$(date -u +%Y%m%d-%H%M%S)" || exit $?
out=$SW_CLAIMED
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
	sw_claim_release
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
plan_write # vm/run-plan.sh

# ------------------------------------------------------------ boot
sock=$work/net.sock
s_console=$share/vm/server.console
c_console=$share/vm/client.console
# the link's socket: the server guest's qemu listens, the client's
# connects; with --fault server-crash the other way round, so that the
# server guest booted again connects to the client's (qemu 7.2's stream
# netdev listens again after a disconnect; a connecting one never
# reconnects)
s_srv=on c_srv=off cpid=""
if [ "$crash_planned" = 1 ] && [ "$shell" = 0 ]; then
	s_srv=off c_srv=on
	vm_log "booting the client guest ($c_kdesc) first: it listens on the guests' link (--fault server-crash)"
	vm_qemu_start client "$c_vmlinux" "$c_initrd" "$share" "$c_console" --ip 10.77.0.2/24 \
		--run client.sh --mac 52:54:00:77:00:02 --append sw.role=client \
		--net "stream,id=n0,server=on,addr.type=unix,addr.path=$sock"
	cpid=$VM_PID
	for ((i = 0; i < 100; i++)); do [ -S "$sock" ] && break; vm_alive "$cpid" || break; sleep 0.05; done
	[ -S "$sock" ] || { vm_fail_msg "the client's qemu did not create its network socket $sock within 5 s" "$c_console"; exit 1; }
fi
vm_log "booting the server guest ($s_kdesc)"
vm_qemu_start server "$s_vmlinux" "$s_initrd" "$share" "$s_console" --ip 10.77.0.1/24 \
	--run server.sh --mac 52:54:00:77:00:01 --append sw.role=server "${disk_args[@]}" \
	--net "stream,id=n0,server=$s_srv,addr.type=unix,addr.path=$sock"
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
if [ -z "$cpid" ]; then
	vm_log "booting the client guest ($c_kdesc)"
	vm_qemu_start client "$c_vmlinux" "$c_initrd" "$share" "$c_console" --ip 10.77.0.2/24 \
		--run client.sh --mac 52:54:00:77:00:02 --append sw.role=client \
		--net "stream,id=n0,server=$c_srv,addr.type=unix,addr.path=$sock"
	cpid=$VM_PID
fi
[ "${SW_PROGRESS:-1}" = 0 ] || [ ! -x "$build_dir/client/stalewin-progress" ] || "$build_dir/client/stalewin-progress" --watch "$share" --experiments "$nexp" --duration "$duration" --pid $$ --until-file "$share/client.finished" --prefix "$SW_VM_PROG" --since $((t_cmd / 1000000)) </dev/null >/dev/null & # the progress line

killed=0 kill_args=() rebooted=0 crashed=0 # host_fault_tick, host_client_reboot, host_server_crash, watch_for: vm/run-watch.sh
k=0 ndone=0 # (not the plan's counter: a server that never gets ready must fail the run)
if watch_for "$share/server.ready" 150 "the server guest did not get knfsd ready"; then
	vm_log "server ready (knfsd up) $(vm_elapsed "$t_cmd") s after the command"
	for ((k = 1; k <= nexp; k++)); do
		n=$(awk -F'[ =]' -v k="$k" '$1=="SW_EXP_"k"_NAME"{print $2}' "$share/plan.sh")
		watch_for "$share/$n/sync/client.go" 150 "experiment $k never started" || break
		[ "$k" -eq 1 ] && vm_log "first experiment started $(vm_elapsed "$t_cmd") s after the command"
		watch_for "$share/$n/sync/client.done" "${timeout:-$((duration + lead + grace + 90 + (reboot_planned + crash_planned) * 120))}" "experiment $k did not finish" || break
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
collect_guests # vm/run-collect.sh
write_metas

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
