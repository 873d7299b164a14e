#!/usr/bin/env bash
# Description: `stalewin-run --fs ext4 --policy native --fault enospc@2`:
# 2 s in, the run's own loop-mounted ext4 export is filled (fallocate, the
# root reserve included) to the end of the run.  Asserts faults.json holds
# it with a new 4 KiB write then refused (the file system is really full),
# the report's first line names it with its stores, and the writer either
# survives (its planned duration, exit 4) or ends PARTIAL with its reason
# (exit 3); either way its log is whole (every record up to its END, each
# STORE counted by the report), and no mount, loop device or filler is
# left.  A fault that does not fill the file system, a report that does
# not name it, or a log torn by it fails here.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
RUN=$E2E_TMP/enospc
set +e
"$S/scripts/stalewin-run" --out "$RUN" --fs ext4 --policy native --workload rewrite --duration 6 \
	--interval-ms 50 --writeback-ms 300 --expire-ms 900 --fault enospc@2 > "$E2E_TMP/out" 2> "$E2E_TMP/err"
rc=$?
set -e
[ -s "$RUN/report.json" ] || { cat "$E2E_TMP/err" >&2; fail "no report.json (exit $rc)"; }
jq -e '[.faults[] | select(.kind == "enospc")] | length == 1' "$RUN/faults.json" >/dev/null ||
	fail "expected one enospc in faults.json, saw: $(cat "$RUN/faults.json" 2>/dev/null)"
jq -e '.faults[] | select(.kind == "enospc") | .new_write_refused == true' "$RUN/faults.json" >/dev/null ||
	fail "expected the export full (a new 4 KiB write refused), saw: $(cat "$RUN/faults.json")"
"$B/common/stalewin-logdump" "$RUN/writer.swlog" > "$E2E_TMP/writer.txt" 2> "$E2E_TMP/logdump.err" ||
	fail "writer.swlog is not whole: $(cat "$E2E_TMP/logdump.err")"
last=$(tail -n 1 "$E2E_TMP/writer.txt")
[[ $last == *" END "* ]] || fail "writer.swlog does not end with END: $last"
logged=$(awk '$2 == "STORE"' "$E2E_TMP/writer.txt" | wc -l)
jqr --argjson n "$logged" '.end.stores == $n' ||
	fail "writer.swlog has $logged STORE records, the report counts $(jq .end.stores "$RUN/report.json")"
first=$(head -n 1 "$RUN/report.txt")
if [[ $last == *"reason=1 "* ]]; then # survived
	[ $rc = 4 ] || { cat "$E2E_TMP/err" >&2; fail "expected exit 4 (the writer survived the full file system), saw $rc"; }
	[[ $first == *"complete, with faults: enospc at "*", to the end ("*" stores)"* ]] ||
		fail "expected the first line to name the enospc, saw: $first"
else # ended early: PARTIAL, with the writer's reason in Problems
	[ $rc = 3 ] || fail "expected exit 3 (the writer ended early: $last), saw $rc"
	[[ $first == *"PARTIAL: enospc at "* ]] || fail "expected a PARTIAL first line naming the enospc, saw: $first"
	grep -q 'END reason' "$RUN/report.txt" || fail "the report does not give the writer's end reason"
fi
w=$(grep -o '/tmp/sw-run-[A-Za-z0-9]*' "$RUN/server/ganesha.conf" | head -n 1)
[ -n "$w" ] || fail "no work folder named in $RUN/server/ganesha.conf"
mounts=$(cat /proc/mounts)
[[ $mounts != *" $w"* ]] || fail "$w still mounted"
loops=$(losetup -a)
[[ $loops != *"$w/"* ]] || fail "a loop device of $w left: $loops"
[ ! -e "$w" ] || fail "the work folder $w (its image, its filler) is left"
sw_done "exit $rc, $(jq '.faults[] | select(.kind == "enospc") | .free_before_bytes' "$RUN/faults.json") bytes filled, writer: $last; $first"
