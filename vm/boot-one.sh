#!/usr/bin/env bash
# vm/boot-one.sh - boot ONE stalewin guest, run a script in it, power off.
#
#   vm/boot-one.sh --kernel VMLINUX --share DIR --run SCRIPT [--disk IMG]
#                  [--timeout S] [--mem MIB] [--smp N] [--build-dir DIR]
#                  [--append "KERNEL ARGS"] [--ip A.B.C.D/N --net SPEC [--mac MAC]]
#
# The guest is the stock-kernel-free image of vm/build.sh (busybox, knfsd
# tools, mount.nfs, the project's binaries in /opt/stalewin/bin, on PATH)
# booted from VMLINUX (an ELF vmlinux with a PVH note; "stock" = Debian's
# kernel with its modules; 6.1, 6.12, 7.2 = Debian's packages by name,
# vm/build.sh).  DIR is shared read-write over 9p at /sw.
# SCRIPT is copied to DIR/boot-one.sh.run and run by /init as its last step
# with sh; its output goes to the console and to DIR/boot-one.out; the
# guest's dmesg to DIR/boot-one.dmesg, the console to DIR/boot-one.console.
# IMG (raw) is attached as virtio-blk /dev/vda.  No network but lo, unless
# --ip and --net: eth0 at that address on qemu's -netdev SPEC (a stream
# socket, as vm/run.sh joins its two guests; stalewin cost --query nfs).
# Exit: the script's exit code; 1 when the guest did not finish (the
# console's last lines and the time waited are printed; qemu is killed by
# PID); 2 for bad arguments.
set -euo pipefail
SW_VM_PROG="boot-one"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$SW_VM_DIR/qemu.sh"

kernel="" share="" script="" disk="" timeout=300 build_args=() append="" net_args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=${2:?}; shift 2 ;;
	--share) share=${2:?}; shift 2 ;;
	--run) script=${2:?}; shift 2 ;;
	--disk) disk=${2:?}; shift 2 ;;
	--timeout) timeout=${2:?}; shift 2 ;;
	--mem) SW_VM_MEM=${2:?}; shift 2 ;;
	--smp) SW_VM_SMP=${2:?}; shift 2 ;;
	--build-dir) build_args+=(--build-dir "${2:?}"); shift 2 ;;
	--append) append=${2:?}; shift 2 ;;
	--ip|--net|--mac) net_args+=("$1" "${2:?}"); shift 2 ;;
	-h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) vm_usage_die "unknown option '$1' (see --help)" ;;
	esac
done
[ -n "$kernel" ] || vm_usage_die "--kernel VMLINUX is required (or --kernel stock)"
[ -n "$share" ] && [ -d "$share" ] || vm_usage_die "--share: expected a directory, got '${share}'"
[ -n "$script" ] && [ -f "$script" ] || vm_usage_die "--run: expected a script file, got '${script}'"
[ -z "$disk" ] || [ -f "$disk" ] || vm_usage_die "--disk: expected a raw image file, none at $disk"
[[ "$timeout" =~ ^[0-9]+$ ]] || vm_usage_die "--timeout: expected seconds, got '$timeout'"
why=$(vm_qemu_check) || vm_die "$why"

if [ "$kernel" = stock ]; then
	env=$("$SW_VM_DIR/build.sh" --quiet "${build_args[@]}")
else
	env=$("$SW_VM_DIR/build.sh" --quiet --kernel "$kernel" "${build_args[@]}")
fi
eval "$env"

share=$(realpath "$share")
rm -f "$share/boot-one.rc" "$share/boot-one.out" "$share/boot-one.dmesg" "$share/boot-one.failed"
cp "$script" "$share/boot-one.sh.run"
console=$share/boot-one.console
trap 'vm_stop_all' EXIT
trap 'exit 130' INT TERM
t0=$(vm_now)
vm_qemu_start boot-one "$SW_VM_VMLINUX" "$SW_VM_INITRD" "$share" "$console" \
	--run boot-one.sh.run ${disk:+--disk "$(realpath "$disk")"} ${append:+--append "$append"} \
	"${net_args[@]}"
pid=$VM_PID
if ! vm_wait_file "$pid" "$share/boot-one.rc" "$timeout" "$console" "guest did not finish the script"; then
	exit 1
fi
vm_stop_pid "$pid" 20
rc=$(cat "$share/boot-one.rc")
trouble=$(vm_dmesg_trouble "$share/boot-one.dmesg")
[ -z "$trouble" ] || { echo "boot-one: kernel trouble in the guest's dmesg:" >&2; echo "$trouble" | sed -n 1,20p >&2; }
# what the guest's init refused (e.g. a clock in jiffies): on the console only
grep -h '^sw-init: ERROR' "$console" >&2 || true
echo "boot-one: script exit $rc after $(vm_elapsed "$t0") s ($SW_VM_KERNEL_DESC)" >&2
[[ "$rc" =~ ^[0-9]+$ ]] || rc=1
exit "$rc"
