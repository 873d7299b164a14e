#!/usr/bin/env bash
# Description: native mode credits a change of the file's times to a store
# only when the store itself faulted and the change fell inside it.  Another
# process (standing in for a deferred kernel's flusher, which stamps the file
# at writeback so that the next store faults on the cleaned page) sets the
# file's mtime between the stores, and the writer looks only around stores
# (--native-poll-ms far longer than the run).  Every such change must be
# logged unattributed (page=-1), seen before the next store began (the
# UPDATE's done <= that STORE's t_before), and no STORE may carry the
# UPDATED flag for it.  A writer that looks only after each store credits
# the foreign change to the next store's page: that is what made a patched
# kernel's deferred policy look as if it stamped at the fault.
. "$(dirname "$0")/../lib/test-lib.sh"
set -u
sw_writer_scratch sw-native-attr
wpid=""
cleanup() { [ -n "$wpid" ] && kill "$wpid" 2>/dev/null; rm -rf "$S"; }
trap cleanup EXIT

"$W" --file "$S/f" --policy native --workload rewrite --interval-ms 200 \
	--duration 4 --native-poll-ms 600000 --log "$S/log" 2>"$S/err" &
wpid=$!
for _ in $(seq 100); do [ -s "$S/f" ] && break; sleep 0.05; done
[ -s "$S/f" ] || { fail "expected the writer to make its file, saw none: $(cat "$S/err")"; sw_done; }
# distinct mtimes, a second apart, set every 330 ms (never a divisor of
# the 200 ms store period, so the touches fall at all phases of it)
touched=0
for i in $(seq 9); do
	sleep 0.33
	touch -m -d "@$((1000000000 + i))" "$S/f" && touched=$((touched + 1))
done
wait "$wpid"; rc=$?; wpid=""
[ "$rc" -eq 0 ] || { fail "expected the writer to exit 0, saw $rc: $(cat "$S/err")"; sw_done; }
"$LD" "$S/log" >"$S/dump" || { fail "expected a readable log, saw logdump fail"; sw_done; }

# mtime=1000000001000000000.. are ours: seconds 1000000001..1000000009;
# awk's FAIL lines are the test's failures
awk -v touched="$touched" '
/ STORE / {
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^t_before=/) tb = substr($i, 10)
		if ($i ~ /^flags=/) fl = substr($i, 7)
	}
	if (pending != "") {
		if (pend_done > tb) {
			printf "FAIL: update %s seen at %s, after the next store began at %s\n", pending, pend_done, tb
			bad++
		}
		if (fl != "0x0" && fl != "0" && fl != "0x1") {
			printf "FAIL: store at %s carries flags=%s (UPDATED) for the foreign change %s\n", tb, fl, pending
			bad++
		}
		pending = ""
	}
	next
}
/ UPDATE / {
	m = ""; pg = ""; done = ""
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^mtime=/) m = substr($i, 7)
		if ($i ~ /^page=/) pg = substr($i, 6)
		if ($i ~ /^done=/) done = substr($i, 6)
	}
	s = substr(m, 1, length(m) - 9)
	if (length(m) == 19 && s + 0 >= 1000000001 && s + 0 <= 1000000009) {
		ours++
		if (pg != "-1") {
			printf "FAIL: the foreign mtime %s was credited to page %s\n", m, pg
			bad++
		}
		pending = m; pend_done = done
	}
}
END {
	if (ours < touched - 1) {
		printf "FAIL: %d foreign changes logged, expected at least %d of the %d touches\n", ours, touched - 1, touched
		bad++
	}
	if (bad) exit 1
	printf "%d foreign changes, all unattributed and seen before the next store\n", ours
}' "$S/dump" >"$S/check"
rc=$?
[ $rc -eq 0 ] || grep -q '^FAIL: ' "$S/check" || fail "expected the check (awk) to run, saw it exit $rc"
while IFS= read -r l; do
	case $l in
	"FAIL: "*) fail "${l#FAIL: }" ;;
	*) echo "$l" ;;
	esac
done <"$S/check"
sw_done
