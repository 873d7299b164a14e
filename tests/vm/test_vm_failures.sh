#!/usr/bin/env bash
# Description: failures of `stalewin vm run` must be clear and leave
# nothing running.  Cases: a client mount that fails (vers=2: the guest
# client has no NFSv2), knfsd failing to start (an export that does not
# exist, injected with SW_VM_FAULT=knfsd), a "kernel" that cannot boot
# (an ELF without a PVH note), and the server guest dying mid-run (its
# qemu killed by PID).  Each must exit 1 with a one-line cause naming
# what failed (plus console lines), and every qemu it started must be
# gone.  A broken harness shows as a hang (test timeout), exit 0, a
# message that does not say what failed, or a qemu left running.
# Skips (77) only when qemu cannot run at all.  Cases: mount, knfsd,
# nopvh, die, keep (a failure keeps the experiments that finished).
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
for t in server/stalewin-writer client/stalewin-reader; do
	[ -x "$b/$t" ] || fail "$b/$t is not built"
done
T=$(mktemp -d /tmp/sw-vm-fail.XXXXXX)
bgpid=""
trap '[ -n "$bgpid" ] && kill "$bgpid" 2>/dev/null; rm -rf "$T"' EXIT

no_qemu_left() { # RUN_DIR
	local f p
	for f in "$1"/vm/*.pid; do
		[ -e "$f" ] || continue
		p=$(cat "$f")
		if kill -0 "$p" 2>/dev/null && grep -q qemu "/proc/$p/cmdline" 2>/dev/null; then
			kill -KILL "$p"
			fail "qemu PID $p ($f) was left running"
		fi
	done
}
expect() { # NAME PATTERN -- vm run args...
	local name=$1 pat=$2 rc
	shift 3
	"$top/vm/run.sh" --no-report --duration 3 --build-dir "$b" --out "$T/$name" "$@" \
		>"$T/$name.out" 2>"$T/$name.err"
	rc=$?
	[ $rc -eq 1 ] || { cat "$T/$name.err"; fail "$name: expected exit 1, saw $rc"; }
	grep -Eq "$pat" "$T/$name.err" || { cat "$T/$name.err"; fail "$name: the message does not match /$pat/"; }
	no_qemu_left "$T/$name"
	echo "$name: $(grep -E "$pat" "$T/$name.err" | head -1 | cut -c1-160)"
}

bad_mount() {
	expect mount 'client guest failed: mount -t nfs -o vers=2' -- --policy eager --mount-opts vers=2,nolock
}
knfsd_down() {
	SW_VM_FAULT=knfsd expect knfsd 'server guest failed: knfsd failed to start' -- --policy eager
}
no_pvh() {
	expect nopvh 'server guest died.*' -- --policy eager --kernel /bin/true
	grep -q 'PVH' "$T/nopvh.err" || { cat "$T/nopvh.err"; fail "nopvh: qemu's complaint (no PVH ELF note) is not shown"; }
}
# the server guest dies mid-run: kill its qemu once the experiment started
guest_dies() {
	local i rc
	"$top/vm/run.sh" --no-report --policy eager --duration 20 --build-dir "$b" --out "$T/die" \
		>"$T/die.out" 2>"$T/die.err" &
	bgpid=$!
	for ((i = 0; i < 1800; i++)); do [ -e "$T/die/sync/client.go" ] && break; sleep 0.1; done
	[ -e "$T/die/sync/client.go" ] || { kill "$bgpid"; cat "$T/die.err"; fail "die: the experiment never started"; }
	kill -KILL "$(cat "$T/die/vm/server.console.pid")"
	wait "$bgpid"; rc=$?; bgpid=""
	[ $rc -eq 1 ] || { cat "$T/die.err"; fail "die: expected exit 1, saw $rc"; }
	grep -q 'the server guest died' "$T/die.err" || { cat "$T/die.err"; fail "die: no 'the server guest died' message"; }
	no_qemu_left "$T/die"
	echo "die: $(grep 'server guest died' "$T/die.err" | head -1 | cut -c1-160)"
}
# a failure keeps what finished: two experiments in one boot, the server
# guest killed once the second started: exit 1, the first one whole
# (done in vm/experiments.txt, its meta.json not interrupted, its writer
# log there), the second listed cut (what `stalewin study` keeps)
keeps_finished() {
	local i rc d=$T/keep
	"$top/vm/run.sh" --no-report --policy eager --policy none --duration 4 --build-dir "$b" --out "$d" \
		>"$d.out" 2>"$d.err" &
	bgpid=$!
	for ((i = 0; i < 1800; i++)); do [ -e "$d/2-none-tmpfs/sync/client.go" ] && break; sleep 0.1; done
	[ -e "$d/2-none-tmpfs/sync/client.go" ] || { kill "$bgpid"; cat "$d.err"; fail "keep: the second experiment never started"; }
	kill -KILL "$(cat "$d/vm/server.console.pid")"
	wait "$bgpid"; rc=$?; bgpid=""
	[ $rc -eq 1 ] || { cat "$d.err"; fail "keep: expected exit 1, saw $rc"; }
	printf '1-eager-tmpfs eager tmpfs rewrite 1 done\n2-none-tmpfs none tmpfs rewrite 1 cut\n' | diff - "$d/vm/experiments.txt" ||
		fail "keep: expected the first experiment done and the second cut in vm/experiments.txt"
	jq -e '.interrupted == false' "$d/1-eager-tmpfs/meta.json" >/dev/null && [ -s "$d/1-eager-tmpfs/writer.swlog" ] ||
		fail "keep: the finished experiment has no meta.json saying it was whole, or no writer log"
	no_qemu_left "$d"
	echo "keep: $(cat "$d/vm/experiments.txt" | tr '\n' ';')"
}
sw_case mount bad_mount
sw_case knfsd knfsd_down
sw_case nopvh no_pvh
sw_case die guest_dies
sw_case keep keeps_finished
sw_done
