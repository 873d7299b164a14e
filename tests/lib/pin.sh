# tests/lib/pin.sh: sourced (after test-lib.sh) by tests that pin the
# host's writeback sysctls (scripts/lib/sysctl-pin.sh).  sw_skip_if_pinned
# waits while another stalewin process holds a pin lock (its pinned values
# are not the host's: read then, they would pass for the originals), up to
# SW_PIN_WAIT_S (900 s), and skips only past that; then sets O_WB / O_EX to
# the host's dirty_writeback / dirty_expire centisecs.  (Skipping at once
# made a parallel ctest, or a validate elsewhere on the host, skip the demo.)
sw_skip_if_pinned() {
	local l
	for l in /run/stalewin-sysctl.lock /run/lock/stalewin-validate.lock; do
		[ -e "$l" ] || continue
		flock -n "$l" true && continue
		echo "waiting for $l: another stalewin process pins the sysctls now"
		flock -w "${SW_PIN_WAIT_S:-900}" "$l" true ||
			skip "$l held for ${SW_PIN_WAIT_S:-900} s: another stalewin process pins the sysctls"
	done
	O_WB=$(cat /proc/sys/vm/dirty_writeback_centisecs)
	O_EX=$(cat /proc/sys/vm/dirty_expire_centisecs)
}
