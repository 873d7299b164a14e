# tests/client/probe/lib.sh: shared set-up of the probe's integration
# tests (sourced after tests/lib/test-lib.sh).  Each test gets its own
# tmpfs export and its own ganesha (scripts/ganesha-ns), torn down on exit
# whatever happens; each step needs the one before (immediate mode).
sw_immediate=1
set -euo pipefail
src=${SW_SOURCE_DIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
bld=${SW_BUILD_DIR:-$src/build}
gns=$src/scripts/ganesha-ns
probe=$bld/client/stalewin-probe
check=$bld/tests/client/probe/probe_logcheck

[ "$(id -u)" -eq 0 ] || skip "needs root (netns, tmpfs mount)"
command -v ganesha.nfsd >/dev/null || skip "ganesha.nfsd not installed (nfs-ganesha)"
[ -x "$probe" ] || fail "stalewin-probe not built at $probe"
[ -x "$check" ] || fail "probe_logcheck not built at $check"

T=$(mktemp -d /tmp/sw-test-probe.XXXXXX)
PROBE_PID=""
cleanup() {
	[ -n "$PROBE_PID" ] && kill "$PROBE_PID" 2>/dev/null && wait "$PROBE_PID" 2>/dev/null || true
	"$gns" down --state "$T/st" >/dev/null 2>&1 || true
	umount "$T/exp" 2>/dev/null || true
	rm -rf "$T"
}
trap cleanup EXIT
[ -n "${SW_KEEP:-}" ] && trap "cp \"\$T\"/p.txt \"\$SW_KEEP\" 2>/dev/null; cleanup" EXIT
mkdir "$T/exp"
mount -t tmpfs -o size=16m sw-test-probe "$T/exp"

gns_up() {
	local out
	out=$("$gns" up --state "$T/st" --export "$T/exp") || fail "ganesha-ns up failed"
	eval "$out"
	U3="nfs://127.0.0.1$SW_EXPORT_0/f?version=3&nfsport=$SW_NFS_PORT&mountport=$SW_MNT_PORT"
	U4="nfs://127.0.0.1$SW_EXPORT_0/f?version=4&nfsport=$SW_NFS_PORT"
}

# start_probe ARGS...: the probe in the fixture's netns, in the background
start_probe() {
	"$gns" exec --state "$T/st" -- "$probe" --log "$T/p.log" --quiet "$@" 2>"$T/probe.err" &
	PROBE_PID=$!
}

stop_probe() {
	local rc=0
	kill -TERM "$PROBE_PID"
	wait "$PROBE_PID" || rc=$?
	PROBE_PID=""
	[ $rc -eq 0 ] || { cat "$T/probe.err"; fail "probe exited $rc after SIGTERM (expected 0)"; }
	"$check" "$T/p.log" > "$T/p.txt" || fail "log not clean after SIGTERM: $(tail -1 "$T/p.txt")"
	grep -q '^END 2 ' "$T/p.txt" || fail "no END record with reason SIGNAL (2)"
}

dump() { "$check" "$T/p.log" > "$T/p.txt" 2>/dev/null || true; }

# wait_for SECONDS AWK-PROGRAM: until awk (run on the dumped log) exits 0
wait_for() {
	local end=$((SECONDS + $1))
	while :; do
		dump
		awk "$2" "$T/p.txt" && return 0
		[ -n "$PROBE_PID" ] && ! kill -0 "$PROBE_PID" 2>/dev/null && { cat "$T/probe.err"; fail "probe died"; }
		[ $SECONDS -ge $end ] && return 1
		sleep 0.1
	done
}
now_ns() { date +%s%N; }
