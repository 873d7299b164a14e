#!/usr/bin/env bash
# Description: the ganesha fixture (scripts/ganesha-ns) starts a private
# nfs-ganesha on a tmpfs export, serves a file over NFSv3 and NFSv4 from
# inside its netns, survives kill+restart on the same ports, and tears down
# leaving no netns and no process behind -- twice in a row.  A broken fixture
# shows: no SW_ lines, nfs-cat returning the wrong bytes, a netns still listed
# after down, or a ganesha/rpcbind PID still alive.
. "$(dirname "$0")/../../lib/test-lib.sh"
sw_immediate=1 # each step needs the one before
set -euo pipefail
src=${SW_SOURCE_DIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
gns=$src/scripts/ganesha-ns
[ "$(id -u)" -eq 0 ] || skip "needs root (netns, tmpfs mount)"
command -v ganesha.nfsd >/dev/null || skip "ganesha.nfsd not installed"
command -v nfs-cat >/dev/null || skip "nfs-cat (libnfs-utils) not installed"

T=$(mktemp -d /tmp/sw-test-gns.XXXXXX)
cleanup() { "$gns" down --state "$T/st" || true; umount "$T/exp" 2>/dev/null || true; rm -rf "$T"; }
trap cleanup EXIT
mkdir "$T/exp"
mount -t tmpfs -o size=8m sw-test-gns "$T/exp"
tok="stalewin-$$-$RANDOM"
echo "$tok" > "$T/exp/f"

for round in 1 2; do
	out=$("$gns" up --state "$T/st" --export "$T/exp") || fail "round $round: up failed"
	eval "$out"
	[ -n "${SW_NS:-}" ] && [ -n "${SW_NFS_PORT:-}" ] && [ -n "${SW_MNT_PORT:-}" ] && [ "${SW_EXPORT_0:-}" = /sw0 ] ||
		fail "round $round: expected SW_NS/SW_NFS_PORT/SW_MNT_PORT/SW_EXPORT_0 lines, saw: $out"
	u="nfs://127.0.0.1$SW_EXPORT_0/f?nfsport=$SW_NFS_PORT&mountport=$SW_MNT_PORT"
	for v in 3 4; do
		got=$("$gns" exec --state "$T/st" -- nfs-cat "$u&version=$v") || fail "round $round: nfs-cat v$v failed"
		[ "$got" = "$tok" ] || fail "round $round: v$v read '$got', expected '$tok'"
	done
	gp=$(cat "$T/st/ganesha.pid"); rp=$(cat "$T/st/rpcbind.pid")
	"$gns" kill --state "$T/st"
	if "$gns" status --state "$T/st"; then fail "round $round: NFS still answers after kill"; fi
	"$gns" restart --state "$T/st" || fail "round $round: restart failed"
	got=$("$gns" exec --state "$T/st" -- nfs-cat "$u&version=3") || fail "round $round: nfs-cat after restart failed"
	[ "$got" = "$tok" ] || fail "round $round: after restart read '$got'"
	gp2=$(cat "$T/st/ganesha.pid")
	"$gns" down --state "$T/st" || fail "round $round: down failed"
	"$gns" down --state "$T/st" || fail "round $round: second down (idempotent) failed"
	[ ! -e "/run/netns/$SW_NS" ] || fail "round $round: netns $SW_NS still exists after down"
	for p in "$gp" "$rp" "$gp2"; do
		if [ -d "/proc/$p" ] && [ "$(awk '{print $3}' "/proc/$p/stat")" != Z ] &&
			[ "$(readlink /proc/$p/ns/net)" != "$(readlink /proc/self/ns/net)" ]; then
			fail "round $round: PID $p still running after down"
		fi
	done
	echo "round $round ok: ns $SW_NS ports $SW_NFS_PORT/$SW_MNT_PORT"
done
sw_done
