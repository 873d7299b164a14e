# vm/qemu.sh - start, watch and stop qemu guests (sourced after lib.sh).
# Guests run under TCG only (-accel tcg): -enable-kvm aborts on this PVM
# host.  Each guest is one qemu process, remembered by PID in
# $SW_VM_WORK/NAME.pid and killed by that PID only.

SW_VM_MEM=${SW_VM_MEM:-512}
SW_VM_SMP=${SW_VM_SMP:-1}
SW_VM_PIDS=()

# The host's TSC rate in kHz (common/tsc_khz.c), measured once per script
# and passed to every guest as tsc_early_khz=.  Under TCG a guest's TSC is
# the host's; its kernel's own calibration against the PIT fails in about
# one boot of three, and the patched kernel, which has no ACPI and so no
# HPET or PM timer to fall back on, would then keep time in jiffies (4 ms
# steps; measured: 4 of 12 boots, vm/kernel/README.md).  A kernel given
# tsc_early_khz skips that calibration (determine_cpu_tsc_frequencies);
# one with ACPI still refines the rate against the HPET.  And tsc=reliable:
# without an HPET or PM timer the clocksource watchdog checks the TSC
# against jiffies, which lose ticks under TCG, so it took the TSC for the
# broken one and switched the guest to jiffies mid-run (measured: a
# patched server guest's clock fell 82 ms behind in a 30 s run); the
# host's TSC, which the guest reads, is constant and reliable.
# SW_VM_TSC_KHZ=N uses N; SW_VM_TSC_KHZ=none passes neither.
vm_tsc_khz() {
	[ -n "${SW_VM_TSC_KHZ:-}" ] && return 0
	local b=${SW_BUILD_DIR:-$SW_TOP/build} k
	[ -x "$b/common/stalewin-tsc-khz" ] ||
		cmake --build "$b" --target stalewin-tsc-khz >/dev/null 2>&1 ||
		vm_die "no $b/common/stalewin-tsc-khz and it did not build (./stalewin build)"
	k=$("$b/common/stalewin-tsc-khz") ||
		vm_die "cannot measure the host's TSC rate for the guests' tsc_early_khz (set SW_VM_TSC_KHZ=kHz, or none to let the guests calibrate)"
	SW_VM_TSC_KHZ=$k
}

# vm_qemu_start NAME VMLINUX INITRD SHARE CONSOLE [options...]
#   --ip A.B.C.D/N   --run FILE   --disk IMG (repeatable: vda, vdb, ...)
#   --net QEMU_NETDEV_SPEC
#   --mac MAC        --append "more kernel args"   --stdio 1 (interactive,
#   in the foreground: returns when the guest powers off; VM_PID empty)
# Starts qemu in the background; sets VM_PID.
vm_qemu_start() {
	local name=$1 vmlinux=$2 initrd=$3 share=$4 console=$5
	shift 5
	local ip="" run="" disks=() net="" mac="52:54:00:77:00:99" append="" stdio=0
	while [ $# -gt 0 ]; do
		case "$1" in
		--ip) ip=$2 ;; --run) run=$2 ;; --disk) disks+=("$2") ;;
		--net) net=$2 ;; --mac) mac=$2 ;; --append) append=$2 ;;
		--stdio) stdio=$2 ;;
		*) vm_die "vm_qemu_start: unknown option $1" ;;
		esac
		shift 2
	done
	vm_tsc_khz
	[ "$SW_VM_TSC_KHZ" = none ] || append="tsc_early_khz=$SW_VM_TSC_KHZ tsc=reliable${append:+ $append}"
	local cmd=(qemu-system-x86_64 -accel tcg -M pc -cpu "${SW_VM_CPU:-max}" -m "$SW_VM_MEM" -smp "$SW_VM_SMP"
		-nodefaults -no-user-config -display none -no-reboot -monitor none
		-kernel "$vmlinux" -initrd "$initrd"
		-append "console=ttyS0 panic=-1 mitigations=off random.trust_cpu=on loglevel=4 sw.name=$name${ip:+ sw.ip=$ip}${run:+ sw.run=$run} $append"
		-serial "file:$console"
		-device virtio-rng-pci
		-virtfs "local,path=$share,mount_tag=swshare,security_model=none,id=swfs")
	local d
	for d in "${disks[@]}"; do cmd+=(-drive "file=$d,if=virtio,format=raw,cache=writeback"); done
	[ -n "$net" ] && cmd+=(-netdev "$net" -device "virtio-net-pci,netdev=n0,mac=$mac")
	: >"$console"
	if [ "$stdio" = 1 ]; then
		# interactive: the console on this terminal (and in the log)
		cmd=("${cmd[@]/#file:$console/mon:stdio}")
		echo "(console of $name on this terminal; leave with 'reboot -f' or Ctrl-a x)" >&2
		"${cmd[@]}" 2>"$console.qemu" | tee "$console"
		VM_PID=""
		return 0
	fi
	# its own session: a Ctrl-C at the terminal reaches the scripts (which
	# end the runs cleanly, then stop qemu by PID), not qemu, which would
	# die at once on SIGINT.  (setsid execs qemu: same PID, no fork, as a
	# background job is never a process group leader here)
	setsid "${cmd[@]}" </dev/null >"$console.qemu" 2>&1 &
	VM_PID=$!
	SW_VM_PIDS+=("$VM_PID")
	echo "$VM_PID" >"$console.pid"
	printf '%q ' "${cmd[@]}" >"$console.cmd"
}

vm_alive() { kill -0 "$1" 2>/dev/null; }

# vm_wait_file PID FILE TIMEOUT_S CONSOLE WHAT: wait until FILE exists or
# qemu PID exits or the timeout passes.  On failure prints what was
# expected, the time waited and the console's last lines; returns 1.
vm_wait_file() {
	local pid=$1 f=$2 tmo=$3 console=$4 what=$5 t0
	t0=$(vm_now)
	while [ ! -e "$f" ]; do
		if ! vm_alive "$pid"; then
			[ -e "$f" ] && return 0
			vm_fail_msg "$what: the guest exited (qemu PID $pid) after $(vm_elapsed "$t0") s" "$console"
			return 1
		fi
		if vm_older_than "$t0" "$tmo"; then
			vm_fail_msg "$what: nothing after waiting $(vm_elapsed "$t0") s (timeout $tmo s)" "$console"
			return 1
		fi
		sleep 0.2
	done
}

vm_fail_msg() { # MSG CONSOLE
	echo "$SW_VM_PROG: $1; last console lines of $2:" >&2
	tail -n 25 "$2" 2>/dev/null | sed 's/^/    | /' >&2
	[ -s "$2.qemu" ] && sed 's/^/    qemu: /' "$2.qemu" | tail -5 >&2
	return 0
}

# Wait up to S seconds for PID to exit, then kill it (TERM, then KILL).
vm_stop_pid() { # PID [S]
	local pid=$1 s=${2:-0} i
	for ((i = 0; i < s * 5; i++)); do vm_alive "$pid" || break; sleep 0.2; done
	if vm_alive "$pid"; then
		kill -TERM "$pid" 2>/dev/null || true
		for ((i = 0; i < 15; i++)); do vm_alive "$pid" || break; sleep 0.2; done
		vm_alive "$pid" && kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" 2>/dev/null || true
}

vm_stop_all() {
	local p
	for p in "${SW_VM_PIDS[@]}"; do vm_stop_pid "$p" 0; done
	SW_VM_PIDS=()
}

# Scan a dmesg for kernel trouble; prints the matching lines.
# (and a clock that changed under the run: a guest that left the TSC)
vm_dmesg_trouble() { grep -E 'WARNING:|BUG:|Oops|Call Trace:|general protection|Kernel panic|Marking clocksource|Marking TSC unstable|Switched to clocksource (refined-)?jiffies' "$1" 2>/dev/null || true; }
