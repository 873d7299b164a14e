# tests/validate/lib.sh: what every validate test needs (sourced after
# tests/lib/test-lib.sh).
SW_SOURCE_DIR=${SW_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
V=$SW_SOURCE_DIR/stalewin
export SW_BUILD_DIR=${SW_BUILD_DIR:?}
# need_host: skips without root, mkfs.ext4, jq, a loop device or a
# writable /proc/sys/vm
need_host() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (tmpfs, loop ext4, vm sysctls)"
	command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 missing (e2fsprogs)"
	command -v jq >/dev/null || skip "jq missing"
	losetup -f >/dev/null 2>&1 || skip "no free loop device"
	[ -w /proc/sys/vm/dirty_writeback_centisecs ] || skip "/proc/sys/vm not writable here"
}
# host_test NAME: need_host, no other pinner at work, before = the host's
# sysctls, out = a fresh folder removed at exit
host_test() {
	need_host
	. "$SW_SOURCE_DIR/tests/lib/pin.sh"
	sw_skip_if_pinned
	before=$(sysctls)
	out=$(mktemp -d "/tmp/sw-validate-$1.XXXXXX")
	trap 'rm -rf "$out"' EXIT
}
sysctls() { echo "$(cat /proc/sys/vm/dirty_writeback_centisecs) $(cat /proc/sys/vm/dirty_expire_centisecs)"; }
