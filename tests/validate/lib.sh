# tests/validate/lib.sh: what every validate test needs (sourced).
SW_SOURCE_DIR=${SW_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
V=$SW_SOURCE_DIR/stalewin
export SW_BUILD_DIR=${SW_BUILD_DIR:?}
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
need_host() {
	[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (tmpfs, loop ext4, vm sysctls)"; exit 77; }
	command -v mkfs.ext4 >/dev/null || { echo "SKIP: mkfs.ext4 missing (e2fsprogs)"; exit 77; }
	command -v jq >/dev/null || { echo "SKIP: jq missing"; exit 77; }
	losetup -f >/dev/null 2>&1 || { echo "SKIP: no free loop device"; exit 77; }
	[ -w /proc/sys/vm/dirty_writeback_centisecs ] || { echo "SKIP: /proc/sys/vm not writable here"; exit 77; }
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
