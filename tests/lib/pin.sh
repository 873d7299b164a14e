# tests/lib/pin.sh: sourced (after test-lib.sh) by tests that pin the
# host's writeback sysctls (scripts/lib/sysctl-pin.sh).  sw_skip_if_pinned
# skips while another stalewin process holds a pin lock (its pinned values
# are not the host's, and the test would only wait for it, then read them
# as the originals), and sets O_WB / O_EX to the host's dirty_writeback /
# dirty_expire centisecs.
sw_skip_if_pinned() {
	local l
	for l in /run/stalewin-sysctl.lock /run/lock/stalewin-validate.lock; do
		[ -e "$l" ] || continue
		flock -n "$l" true || skip "$l is held: another stalewin process pins the sysctls now"
	done
	O_WB=$(cat /proc/sys/vm/dirty_writeback_centisecs)
	O_EX=$(cat /proc/sys/vm/dirty_expire_centisecs)
}
