#!/usr/bin/env bash
# Description: scripts/lib/sysctl-pin.sh pins host vm sysctls and restores
# them always.  Two pinners at once: the second waits for the first's
# window and saves the true originals (not the first's pinned values), so
# the host ends unpinned; a pinner killed with SIGKILL leaves its saved
# originals and the next pinner restores them; INT and TERM restore and
# exit 130 / 143, or with SW_PIN_ON_INT=continue restore and tell the
# caller (SW_PIN_GOT_INT=1).  A broken lock or trap leaves the host pinned here.
# Needs root (writes /proc/sys/vm); ~10 s.
. "$(dirname "$0")/../lib/test-lib.sh"
set -uo pipefail
SRC=${SW_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
LIB=$SRC/scripts/lib/sysctl-pin.sh
[ "$(id -u)" -eq 0 ] || skip "needs root to write /proc/sys/vm"
[ -w /proc/sys/vm/dirty_expire_centisecs ] || skip "/proc/sys/vm not writable"
. "$SRC/tests/lib/pin.sh"
sw_skip_if_pinned
T=$(mktemp -d /tmp/sw-pin-XXXXXX)
# a value this test set and failed to restore is put back (only those:
# another pinner's values are its own to restore)
trap 'case $(cat /proc/sys/vm/dirty_expire_centisecs) in 17[1-7]) echo $O_WB > /proc/sys/vm/dirty_writeback_centisecs; echo $O_EX > /proc/sys/vm/dirty_expire_centisecs ;; esac; rm -rf "$T"' EXIT
# job control: background pinners get INT like a terminal's Ctrl-C would
# give them (not ignored, as a non-interactive shell's & would make it)
set -m
vals() { echo "$(cat /proc/sys/vm/dirty_writeback_centisecs) $(cat /proc/sys/vm/dirty_expire_centisecs)"; }
waitfor() { for _ in $(seq 100); do [ -e "$1" ] && return 0; sleep 0.1; done; return 1; }
orig="$O_WB $O_EX"
# a pinner: NAME WB EX HOLD_S (writes T/NAME.pinned, T/NAME.orig)
pinner() {
	exec bash -c '. "$1"; set -e
		sw_sysctl_pin "$2" dirty_writeback_centisecs=$3 dirty_expire_centisecs=$4
		sw_sysctl_originals > "$6/$2.orig"; touch "$6/$2.pinned"
		sleep "$5" & wait $!
		sw_sysctl_unpin' _ "$LIB" "$@" "$T"
}

# 1. two pinners at once
pinner A 71 171 3 2>"$T/A.err" & pa=$!
waitfor "$T/A.pinned" || fail "pinner A never pinned: $(cat "$T/A.err")"
[ "$(vals)" = "71 171" ] || fail "A pinned: expected 71 171, saw $(vals)"
pinner B 72 172 1 2>"$T/B.err" & pb=$!
sleep 1
[ ! -e "$T/B.pinned" ] && [ "$(vals)" = "71 171" ] ||
	fail "B pinned while A held the lock (values $(vals))"
wait $pa; wait $pb
[ "$(awk '{printf "%s ", $2}' "$T/B.orig" | sed 's/ $//')" = "$orig" ] ||
	fail "B saved '$(tr '\n' ' ' < "$T/B.orig")' as originals, expected $orig"
[ "$(vals)" = "$orig" ] || fail "after two pinners: expected $orig, saw $(vals)"
grep -q "waiting for it" "$T/B.err" || fail "B did not say it waited: $(cat "$T/B.err")"
grep -q "held by PID $pa (A, since" "$T/B.err" || fail "B did not name the holder (PID $pa, A): $(cat "$T/B.err")"

# 2. a pinner killed with SIGKILL: the next one restores first
pinner C 73 173 30 2>/dev/null & pc=$!
waitfor "$T/C.pinned" || fail "pinner C never pinned"
kids=$(pgrep -P $pc) # its sleep holds the lock's fd too (inherited)
kill -KILL $pc; wait $pc 2>/dev/null
[ -n "$kids" ] && kill -KILL $kids
[ "$(vals)" = "73 173" ] || fail "C killed: expected its pinned 73 173 left, saw $(vals)"
(pinner D 74 174 0) 2>"$T/D.err"
[ "$(awk '{printf "%s ", $2}' "$T/D.orig" | sed 's/ $//')" = "$orig" ] ||
	fail "D saved '$(tr '\n' ' ' < "$T/D.orig")' after a killed pinner, expected $orig"
[ "$(vals)" = "$orig" ] || fail "after D: expected $orig, saw $(vals)"

# 3. INT and TERM restore and exit 130 / 143
for sig in INT TERM; do
	rm -f "$T/E.pinned"
	pinner E 75 175 30 2>/dev/null & pe=$!
	waitfor "$T/E.pinned" || fail "pinner E never pinned"
	kill -$sig $pe; wait $pe; rc=$?
	want=130; [ $sig = TERM ] && want=143
	[ $rc -eq $want ] || fail "$sig: expected exit $want, saw $rc"
	[ "$(vals)" = "$orig" ] || fail "after $sig: expected $orig, saw $(vals)"
done
# 3b. SW_PIN_ON_INT=continue (the demo): INT restores, the caller goes on
# and learns it was interrupted (SW_PIN_GOT_INT=1), even with no child of
# its running to get the INT (a Ctrl-C between the pin and the run)
rm -f "$T/G.pinned" "$T/G.after"
SW_PIN_ON_INT=continue bash -c '. "$1"; set -e
	sw_sysctl_pin G dirty_writeback_centisecs=77 dirty_expire_centisecs=177
	touch "$2/G.pinned"
	for _ in $(seq 100); do [ "${SW_PIN_GOT_INT:-0}" = 1 ] && break; sleep 0.1; done
	echo "got_int=${SW_PIN_GOT_INT:-0}" > "$2/G.after"' _ "$LIB" "$T" 2>/dev/null & pg=$!
waitfor "$T/G.pinned" || fail "pinner G never pinned"
kill -INT $pg; wait $pg; rc=$?
[ $rc -eq 0 ] || fail "INT with SW_PIN_ON_INT=continue: expected the caller to go on (exit 0), saw $rc"
[ "$(cat "$T/G.after" 2>/dev/null)" = got_int=1 ] ||
	fail "INT with SW_PIN_ON_INT=continue: expected SW_PIN_GOT_INT=1 in the caller, saw '$(cat "$T/G.after" 2>/dev/null)'"
[ "$(vals)" = "$orig" ] || fail "after INT (continue): expected $orig, saw $(vals)"
# 4. a `stalewin validate` of main's (its own lock, held for its run)
# keeps a pinner waiting too
flock /run/lock/stalewin-validate.lock sleep 2 & pv=$!
sleep 0.3
rm -f "$T/F.pinned"
pinner F 76 176 0 2>"$T/F.err" & pf=$!
sleep 1
[ ! -e "$T/F.pinned" ] || fail "F pinned while validate's lock was held"
wait $pv; wait $pf
[ -e "$T/F.pinned" ] && [ "$(vals)" = "$orig" ] ||
	fail "F after validate's lock: expected pinned then $orig, saw $(vals): $(cat "$T/F.err")"
grep -q "A: restored vm.dirty_writeback_centisecs=$O_WB vm.dirty_expire_centisecs=$O_EX" "$T/A.err" ||
	fail "A did not say what it restored: $(cat "$T/A.err")"
[ ! -e /run/stalewin-sysctl.lock.saved ] || fail "saved originals left in /run"
sw_done "sysctl-pin: one pinner at a time, restored after kill -9, INT, TERM"
