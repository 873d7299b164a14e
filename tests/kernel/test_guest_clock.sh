#!/usr/bin/env bash
# Description: the guests' clock, on which every store, read and file time
# rests.  Under TCG the kernel's TSC calibration against the PIT fails in
# about one boot of three; a kernel that then has no HPET or PM timer to
# calibrate against (one built without ACPI) marks the TSC unstable and
# keeps time in jiffies, so CLOCK_REALTIME moves in 4 ms steps and a
# multigrain ctime is no finer than a tick (the patched kernel has no ACPI:
# vm/qemu.sh passes the host's TSC rate as tsc_early_khz instead).
# Checks, on the patched guest kernel (SW_KERNEL_BASE, default 6.1):
#   1. a normal boot, 5 s after /init started (the clocksource watchdog
#      looks every 0.5 s): the clocksource is not jiffies-based, the TSC
#      was not marked unstable (neither by a failed calibration nor by the
#      watchdog, which without an HPET or PM timer checks it against
#      jiffies that lose ticks under TCG), the guest has a rate that does
#      not hang on the PIT (tsc_early_khz= on its command line, or an
#      hpet or acpi_pm clocksource to calibrate against), a TSC that no
#      jiffies watchdog judges (tsc=reliable, or hpet/acpi_pm as the
#      watchdog: a quiet boot rarely shows the false alarm, a loaded host
#      does), and
#      CLOCK_REALTIME read in a loop moves in steps well under a tick
#      (< 100 us);
#   2. a boot with clocksource=jiffies: vm/init refuses to run the script
#      (boot-one exits 3 and prints "sw-init: ERROR: clocksource jiffies").
# vm/qemu.sh without tsc_early_khz (SW_VM_TSC_KHZ=none) fails 1 on every
# boot of the ACPI-less kernel, and so does one without tsc=reliable
# ("expected tsc=reliable"); an init without the guard fails 2 (exit 0).
# SW_KERNEL_VMLINUX runs it on another vmlinux.  Skips (77) when no
# patched kernel of that base is cached.
. "$(dirname "$0")/../lib/test-lib.sh"
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
base=${SW_KERNEL_BASE:-6.1}
. "$repo/tests/kernel/lib.sh"
vmlinux=${SW_KERNEL_VMLINUX:-}
if [ -z "$vmlinux" ] && ! vmlinux=$("$repo/vm/kernel/stalewin-vm-kernel" --print-path --base "$base" 2>/dev/null); then
	skip "no patched $base guest kernel is cached; build one with ./stalewin vm kernel build --base $base"
fi
kernel_test_start clock 16
cat >"$share/clock_steps.c" <<'EOF'
/* clock_steps: read CLOCK_REALTIME 20000 times; print the smallest
 * non-zero step between two readings and how many distinct values. */
#include <stdio.h>
#include <time.h>
int main(void)
{
	struct timespec a, b;
	long long min = -1, distinct = 0;
	int i;
	clock_gettime(CLOCK_REALTIME, &a);
	for (i = 0; i < 20000; i++) {
		long long d;
		clock_gettime(CLOCK_REALTIME, &b);
		d = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
		if (d > 0) {
			distinct++;
			if (min < 0 || d < min)
				min = d;
		}
		a = b;
	}
	printf("min_step_ns=%lld distinct=%lld\n", min, distinct);
	return 0;
}
EOF
gcc -static -O2 -std=gnu11 -Wall -Wextra -Werror -o "$share/clock_steps" "$share/clock_steps.c"
cat >"$share/guest.sh" <<'EOF'
cd /sw
sleep 5
echo "clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
echo "available=$(cat /sys/devices/system/clocksource/clocksource0/available_clocksource)"
echo "tsc_early_khz=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^tsc_early_khz=//p')"
echo "tsc_param=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^tsc=//p')"
echo "tsc_unstable=$(dmesg | grep -c -E 'Marking TSC unstable|Marking clocksource')"
./clock_steps
EOF
rc=0
"$repo/vm/boot-one.sh" --kernel "$vmlinux" --share "$share" --run "$share/guest.sh" \
	--timeout 300 >"$share/boot1.out" 2>&1 || rc=$?
out=$share/boot-one.out
[ "$rc" = 0 ] && [ -s "$out" ] || { tail -5 "$share/boot1.out"; fail "normal boot: expected boot-one exit 0 and its output, saw exit $rc (its last lines above)"; sw_done; }
cat "$out"
cs=$(sed -n 's/^clocksource=//p' "$out")
avail=$(sed -n 's/^available=//p' "$out")
step=$(sed -n 's/^min_step_ns=\([0-9-]*\).*/\1/p' "$out")
case " $cs " in
*jiffies*) fail "normal boot: expected a clocksource that reads between ticks, saw '$cs'" ;;
esac
khz=$(sed -n 's/^tsc_early_khz=//p' "$out")
case " $avail " in
*" hpet "*|*" acpi_pm "*) ;;
*)
	[ -n "$khz" ] || fail "normal boot: expected tsc_early_khz= on the guest's command line or hpet/acpi_pm among its clocksources (else a failed PIT calibration leaves it in jiffies), saw neither (clocksources '$avail')"
	tp=$(sed -n 's/^tsc_param=//p' "$out")
	[ "$tp" = reliable ] || fail "normal boot: expected tsc=reliable on the guest's command line when it has no hpet or acpi_pm (else the clocksource watchdog judges the TSC by jiffies, which lose ticks under TCG), saw tsc='$tp'"
	;;
esac
if [ "$(sed -n 's/^tsc_unstable=//p' "$out")" != 0 ]; then
	fail "normal boot: expected the TSC kept, saw it marked unstable in the guest's dmesg"
fi
if ! [[ "$step" =~ ^[0-9]+$ ]] || [ "$step" -ge 100000 ]; then
	fail "normal boot: expected CLOCK_REALTIME steps under 100000 ns, saw min_step_ns=$step"
fi
rc=0
"$repo/vm/boot-one.sh" --kernel "$vmlinux" --share "$share" --run "$share/guest.sh" \
	--timeout 300 --append "clocksource=jiffies" >"$share/boot2.out" 2>&1 || rc=$?
if [ "$rc" != 3 ] || ! grep -q '^sw-init: ERROR: clocksource jiffies' "$share/boot2.out"; then
	tail -5 "$share/boot2.out"
	fail "clocksource=jiffies: expected boot-one exit 3 and 'sw-init: ERROR: clocksource jiffies', saw exit $rc (its last lines above)"
else
	grep '^sw-init: ERROR' "$share/boot2.out"
fi
sw_done "guest clock (base $base, clocksource $cs, min step ${step} ns)"
