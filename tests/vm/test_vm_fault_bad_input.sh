#!/usr/bin/env bash
# Description: `stalewin vm run --fault` specs it cannot inject are
# refused before any guest boots or any run folder is made: exit 2 and
# one line naming what was expected and what was seen.  A time at or past
# the run's end, a negative time or down time, a malformed spec, a down
# time on a kind that has none, a host-path kind (writer-kill),
# io-error, enospc or memory-pressure without a disk filesystem,
# memory-pressure on a kernel without a memcg (a vmlinux whose config,
# beside it, lacks CONFIG_MEMCG, as the patched kernels' does), client-reboot, io-error
# or enospc with more than one experiment, client-reboot with --control api, a
# clock step without its sign, of 0, at a negative time or past the end;
# server-crash on anything but --fs ext4 alone, with more than one
# experiment, beside another fault, with --control api, past the end.  No
# guest is booted (~5 s); 77 when qemu cannot run here (the checks after
# the qemu check need it).
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
vm_needs_bins server/stalewin-writer client/stalewin-reader
vm_test_dir vm-fault-bad
# a kernel as the patched ones are kept: vmlinux (ELF) and its config
mkdir "$T/k" && printf '\177ELF' >"$T/k/vmlinux" && echo '# CONFIG_MEMCG is not set' >"$T/k/config"
vm_refused --duration 10 <<'CASES'
--fault client-reboot@10|--fault client-reboot@10: expected a time before the run's end (S < --duration 10), saw S = 10
--fault partition@12.5:1|--fault partition@12.5:1: expected a time before the run's end (S < --duration 10), saw S = 12.5
--fault client-reboot@-1|with SEC and DOWN_SEC >= 0, saw 'client-reboot@-1' (a negative time)
--fault io-error@3:-2|with SEC and DOWN_SEC >= 0, saw 'io-error@3:-2' (a negative time)
--fault io-error@abc|expected knfsd-restart|partition|io-error|memory-pressure|server-crash@SEC[:DOWN_SEC] or server-guest-kill|client-reboot|enospc@SEC or clock-step|client-clock-step@SEC:+-STEP, saw 'io-error@abc'
--fault client-reboot@3:2|expected knfsd-restart|partition|io-error|memory-pressure|server-crash@SEC[:DOWN_SEC] or server-guest-kill|client-reboot|enospc@SEC or clock-step|client-clock-step@SEC:+-STEP, saw 'client-reboot@3:2'
--fault writer-kill@1|saw 'writer-kill@1': writer-kill is injected only on the host path (stalewin run), not in vm run's guests
--fault memory-pressure@1:2|--fault memory-pressure squeezes the writer's pages into writeback (tmpfs pages have none to force): expected --fs ext4, xfs or btrfs, saw no --fs (the default matrix has tmpfs)
--fs tmpfs --fault memory-pressure@1:2|expected --fs ext4, xfs or btrfs, saw tmpfs
--fs ext4 --kernel @T@/k/vmlinux --fault memory-pressure@1:2|--fault memory-pressure: expected a server kernel with CONFIG_MEMCG=y (cgroup v2 memory.high), saw none in
--fault enospc@1|--fault enospc fills the export's disk (a tmpfs export would take the guest's memory): expected --fs ext4, xfs or btrfs, saw no --fs (the default matrix has tmpfs)
--fs tmpfs --fault enospc@1|expected --fs ext4, xfs or btrfs, saw tmpfs
--fs ext4 --fault enospc@1:2|saw 'enospc@1:2'
--policy native --fs ext4 --workload rewrite --workload burst --fault enospc@3|--fault enospc leaves the export full for the rest of the boot: expected one experiment (one --policy, --fs, --workload), saw 2
--fault io-error@3:2|--fault io-error fails the export's block device: expected --fs ext4, xfs or btrfs (a disk), saw no --fs (the default matrix has tmpfs)
--fs tmpfs --fault io-error@3:2|expected --fs ext4, xfs or btrfs (a disk), saw tmpfs
--policy native --fs ext4 --workload rewrite --workload burst --fault io-error@3:2|--fault io-error may leave the export's filesystem read-only for the rest of the boot: expected one experiment (one --policy, --fs, --workload), saw 2
--policy eager --policy none --fault client-reboot@3|--fault client-reboot reboots the client guest mid-run: expected one experiment (one --policy, --fs, --workload), saw 2
--policy eager --control api --fault client-reboot@3|--fault client-reboot: expected --control auto or direct, saw api
--fault clock-step@3:5|saw 'clock-step@3:5': the step has no sign (+D steps the clock forward, -D back)
--fault clock-step@-1:+5|expected clock-step@SEC:+STEP or clock-step@SEC:-STEP (SEC >= 0; a step of seconds, not 0, its sign required), saw 'clock-step@-1:+5'
--fault clock-step@3:+0|expected clock-step@SEC:+STEP or clock-step@SEC:-STEP (SEC >= 0; a step of seconds, not 0, its sign required), saw 'clock-step@3:+0'
--fault clock-step@12:-5|--fault clock-step@12:-5: expected a time before the run's end (S < --duration 10), saw S = 12
--fault server-crash@3|--fault server-crash shuts an ext4 export down (EXT4_IOC_SHUTDOWN) and recovers its journal at the reboot: expected --fs ext4 alone, saw no --fs (the default matrix has tmpfs)
--fs tmpfs --fault server-crash@3|expected --fs ext4 alone, saw tmpfs
--policy native --fs ext4 --fs xfs --fault server-crash@3|expected --fs ext4 alone, saw ext4 xfs
--policy native --fs ext4 --workload rewrite --workload burst --fault server-crash@3|--fault server-crash crashes and reboots the server guest: expected one experiment (one --policy, --fs, --workload, --repeats 1), saw 2
--policy native --fs ext4 --fault server-crash@3 --fault knfsd-restart@5:1|--fault server-crash reboots the server guest: expected it as the only --fault, saw server-crash@3 knfsd-restart@5:1
--policy native --fs ext4 --control api --fault server-crash@3|--fault server-crash: expected --control auto or direct, saw api
--policy native --fs ext4 --fault server-crash@10|--fault server-crash@10: expected a time before the run's end (S < --duration 10), saw S = 10
CASES
[ $n = 30 ] || fail "expected 30 specs refused, saw $n"
sw_done "$n specs refused with exit 2, no guest booted"
