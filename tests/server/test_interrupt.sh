#!/usr/bin/env bash
# Description: stopping stalewin-writer mid-run loses nothing.
#  1. SIGTERM mid-run: exit 0, the log is complete (stalewin-logdump exit 0)
#     and ends with END reason=2 (signal) carrying the store count, and the
#     deferred policy's munmap update is there; --status-file says running,
#     then done.
#  2. SIGKILL mid-run: the log is readable up to the kill (logdump exit 0 or
#     3 = torn tail, never 1 = corrupt), with at least the stores of the
#     first flush interval, and no END.
#  3. Disk full while logging (log on a 256 KiB tmpfs): exit 1 with one line
#     naming the log, and everything before the failure still readable.
#  4. A SIGBUS that is not the uffd-sigbus trap's is never swallowed:
#     kill -BUS (si_code SI_USER), and a store to a page the file no longer
#     has (another process truncates it: shmem's own SIGBUS, BUS_ADRERR in
#     the mapping, but UFFDIO_CONTINUE finds no page) must each kill the
#     writer by SIGBUS (exit 128+7) at once.  A swallowing handler shows as
#     a writer that runs on (kill case) or spins on the faulting store until
#     the timeout (truncate case).  Skipped if uffd-sigbus is unavailable.
# A broken writer shows as a missing END, a corrupt log, or a hang.
# The cases, 1-4 in turn: sigterm, sigkill, disk-full, foreign-sigbus.
. "$(dirname "$0")/../lib/test-lib.sh"
set -u
sw_writer_scratch sw-writer-int
SMALL=""
cleanup() { [ -n "$SMALL" ] && umount "$SMALL" 2>/dev/null && rmdir "$SMALL"; rm -rf "$S"; }
trap cleanup EXIT

# 1. SIGTERM
sigterm() {
	local pid rc stores
	"$W" --file $S/f1 --policy deferred --workload rewrite --interval-ms 20 \
		--duration 30 --log $S/l1 --status-file $S/st1 2>$S/e1 & pid=$!
	sleep 1
	grep -q '"state":"running"' $S/st1 || fail "status file not running after 1 s: $(cat $S/st1)"
	kill -TERM $pid; wait $pid; rc=$?
	grep -q '"state":"done"' $S/st1 || fail "status file not done after SIGTERM: $(cat $S/st1)"
	[ $rc -eq 0 ] || fail "SIGTERM: exit $rc: $(cat $S/e1)"
	"$LD" $S/l1 >$S/d1; rc=$?
	[ $rc -eq 0 ] || fail "SIGTERM: logdump exit $rc"
	tail -1 $S/d1 | grep -q 'END .*reason=2' || fail "SIGTERM: last record is not END reason=2: $(tail -1 $S/d1)"
	stores=$(grep -c ' STORE ' $S/d1)
	grep -q "END .* a=$stores " $S/d1 || fail "SIGTERM: END count_a differs from the $stores STORE records"
	grep -q 'UPDATE .*cause=7' $S/d1 || fail "SIGTERM: deferred munmap update missing"
	echo "SIGTERM: END reason=2 after $stores stores, munmap update logged"
}

# 2. SIGKILL
sigkill() {
	local pid rc n
	"$W" --file $S/f2 --policy eager --workload random --rate 20000 --size 4M \
		--duration 30 --log $S/l2 2>/dev/null & pid=$!
	sleep 1; kill -KILL $pid; wait $pid 2>/dev/null
	"$LD" $S/l2 >$S/d2 2>$S/e2; rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then fail "SIGKILL: logdump exit $rc: $(cat $S/e2)"; fi
	n=$(grep -c ' STORE ' $S/d2)
	[ "$n" -gt 100 ] || fail "SIGKILL: only $n stores readable after 1 s at 20000/s"
	grep -q ' END ' $S/d2 && fail "SIGKILL: an END record after a kill"
	echo "SIGKILL: $n stores readable, logdump exit $rc"
}

# 3. disk full
disk_full() {
	local rc n
	if [ "$(id -u)" -ne 0 ]; then
		echo "not checked: needs root to mount a small tmpfs"
		return
	fi
	SMALL=$(mktemp -d /tmp/sw-writer-full-XXXXXX)
	mount -t tmpfs -o size=256k tmpfs $SMALL
	"$W" --file $S/f3 --policy eager --workload random --rate 0 --size 4M \
		--duration 20 --log $SMALL/l3 2>$S/e3; rc=$?
	[ $rc -eq 1 ] || fail "disk full: exit $rc (expected 1)"
	[ "$(grep -c '' $S/e3)" -eq 1 ] && grep -q "$SMALL/l3" $S/e3 ||
		fail "disk full: expected one line naming the log, saw: $(cat $S/e3)"
	"$LD" $SMALL/l3 >$S/d3 2>/dev/null; rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then fail "disk full: logdump exit $rc"; fi
	n=$(grep -c ' STORE ' $S/d3)
	[ "$n" -gt 1000 ] || fail "disk full: only $n stores readable"
	echo "disk full: exit 1 '$(cat $S/e3)', $n stores readable"
}

# 4. foreign SIGBUS under --trap uffd-sigbus
foreign_sigbus() {
	local pid rc
	"$W" --file $S/f4 --policy eager --workload random --rate 2000 --size 1M \
		--duration 0.3 --log $S/l4p --trap uffd-sigbus 2>$S/e4p; rc=$?
	if [ $rc -ne 0 ]; then
		echo "not checked: uffd-sigbus does not run here: $(cat $S/e4p)"
		return
	fi
	"$W" --file $S/f5 --policy eager --workload random --rate 2000 --size 1M \
		--duration 20 --log $S/l5 --trap uffd-sigbus 2>/dev/null & pid=$!
	sleep 1
	kill -BUS $pid; wait $pid 2>/dev/null; rc=$?
	[ $rc -eq 135 ] || fail "kill -BUS: writer exit $rc (expected 135, death by SIGBUS)"
	"$W" --file $S/f6 --policy eager --workload stream --rate 5000 --size 1M \
		--duration 20 --log $S/l6 --trap uffd-sigbus 2>/dev/null & pid=$!
	sleep 1
	truncate -s 0 $S/f6
	for _ in $(seq 50); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
	if kill -0 $pid 2>/dev/null; then
		kill -KILL $pid; wait $pid 2>/dev/null
		fail "truncated file: writer still running 5 s later (SIGBUS swallowed?)"
	else
		wait $pid 2>/dev/null; rc=$?
		[ $rc -eq 135 ] || fail "truncated file: writer exit $rc (expected 135, death by SIGBUS)"
	fi
}

sw_case sigterm sigterm
sw_case sigkill sigkill
sw_case disk-full disk_full
sw_case foreign-sigbus foreign_sigbus
sw_done
