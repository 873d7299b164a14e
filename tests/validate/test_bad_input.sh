#!/usr/bin/env bash
# Description: bad input to `stalewin validate` ends with exit 2 and one
# message naming what was expected and what was seen, and changes nothing:
# a --native-dir that is not on ext4 (tmpfs), sysctls that cannot be
# written (a read-only /proc/sys in a private mount namespace), not root,
# an unknown pair name, an unknown option, --vm-runs outside 1-9.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
need_host
before=$(sysctls)
t=$(mktemp -d /dev/shm/sw-validate-bad.XXXXXX)
trap 'rm -rf "$t"' EXIT
check() { # what rc pattern cmd...
	local what=$1 want=$2 pat=$3; shift 3
	local e; e=$("$@" 2>&1 >/dev/null); local rc=$?
	[ $rc -eq "$want" ] || fail "$what: expected exit $want, saw $rc: $e"
	echo "$e" | grep -q -- "$pat" || fail "$what: expected a message matching '$pat', saw: $e"
	echo "$what -> $e"
}
check "native dir on tmpfs" 2 "expected a folder on ext4.*saw tmpfs" \
	"$V" validate --native-dir "$t" --pairs rewrite-100ms
check "read-only /proc/sys" 2 "expected to write vm.dirty_writeback_centisecs.*saw: Read-only file system" \
	unshare -m bash -c "mount --bind -o ro /proc/sys /proc/sys && exec $V validate --pairs rewrite-100ms"
check "not root" 2 "expected root.*saw uid 65534" \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$V" validate --pairs rewrite-100ms
check "unknown pair" 2 "expected a pair name (see --list), saw 'nope'" \
	"$V" validate --pairs nope
check "unknown option" 2 "unknown option '--bogus'" "$V" validate --bogus
for v in 0 10 x; do
	check "--vm-runs $v" 2 "--vm-runs: expected a whole number from 1 to 9, saw '$v'" \
		"$V" validate --vm --vm-runs "$v"
done
[ "$(sysctls)" = "$before" ] || fail "sysctls changed: before $before, after $(sysctls)"
sw_done
