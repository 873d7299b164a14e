#!/usr/bin/env bash
# Description: one fault of `stalewin-run --fault KIND@2[:3]` in a real 8 s
# eager run through nfs-ganesha (KIND: ganesha-pause, partition,
# writer-kill, probe-kill).  Asserts, for each:
#  - the run lasts its planned duration (writer END reason=1 after >= 8 s
#    of stores), unless the fault kills the writer;
#  - no store logged before the fault is lost: every STORE record of
#    writer.swlog is in the report (.end.stores) and the stores before the
#    fault are as many as the planned rate made (20/s);
#  - the report's first line names the fault ("complete, with faults:" or
#    "PARTIAL:" for the kills) and its store count equals the stores of
#    report.csv inside the fault's [start, end] (counted here
#    independently), faults.json holds it, the exit code is 4 (complete,
#    with faults) or 3 (partial: a log ended early);
#  - nothing of the run is left running (no process naming its work
#    folder or run folder), and the writer's run child was named
#    stalewin-writer (comm and argv[0]) while it ran.
# A partition that stops the experiment early, a report that says
# `complete` over a fault, or a fault lost from faults.json fails here.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
kind=${1:?usage: test_faults.sh KIND}
case $kind in
ganesha-pause|partition) spec=$kind@2:3 want_rc=4 want_status="complete, with faults: $kind at" ;;
writer-kill|probe-kill) spec=$kind@2 want_rc=3 want_status="PARTIAL: $kind at" ;;
*) echo "unknown fault kind '$kind'" >&2; exit 2 ;;
esac
dur=8
RUN=$E2E_TMP/$kind
echo "== stalewin-run --fault $spec"
"$S/scripts/stalewin-run" --out "$RUN" --policy eager --workload rewrite --duration $dur \
	--interval-ms 50 --writeback-ms 300 --expire-ms 900 --fault "$spec" \
	> "$E2E_TMP/out" 2> "$E2E_TMP/err" &
pid=$!
# while it runs: the writer's run child by its run id
for _ in $(seq 300); do grep -q "starting the writer: run-id=" "$E2E_TMP/err" && break; sleep 0.1; done
rid=$(sed -n 's/.*starting the writer: run-id=\([0-9a-f]*\).*/\1/p' "$E2E_TMP/err" | head -n 1)
named=""
# until the writer's run child shows, or stalewin-run ends (no wall-clock
# bound: a CI trial's writer took over 2 s to appear and the old 2 s
# loop saw nothing)
while kill -0 "$pid" 2>/dev/null; do
	[ -n "$rid" ] || break
	# one grep over every cmdline (a grep per process took seconds under
	# CI load: a CI trial's writer was killed at 2 s before one scan
	# ended, and the test saw no writer)
	for c in $(grep -la -- "wruns/$rid/writer.swlog" /proc/[0-9]*/cmdline 2>/dev/null); do
		p=${c%/cmdline} comm=$(cat "${c%/cmdline}/comm" 2>/dev/null)
		[ -n "$comm" ] || continue # it ended meanwhile
		named="$comm / $(tr '\0' ' ' < "$p/cmdline" 2>/dev/null | cut -d' ' -f1-2)"
	done
	# the run child is exec'd through /proc/self/exe and names itself
	# after (comm 'exe' until then): keep looking until it has
	[ "$named" = "stalewin-writer / stalewin-writer run" ] && break
	sleep 0.1
done
set +e
wait "$pid"
rc=$?
set -e
[ -s "$RUN/report.json" ] || { cat "$E2E_TMP/err" >&2; fail "no report.json (exit $rc)"; }
[ "$named" = "stalewin-writer / stalewin-writer run" ] ||
	fail "expected the writer's run child named 'stalewin-writer / stalewin-writer run' (comm / argv), saw '$named'"
[ $rc = $want_rc ] || { cat "$E2E_TMP/err" >&2; fail "expected exit $want_rc, saw $rc"; }

# the fault as recorded
jq -e --arg k "$kind" '[.faults[] | select(.kind == $k)] | length == 1' "$RUN/faults.json" >/dev/null ||
	fail "expected one $kind in faults.json, saw: $(cat "$RUN/faults.json" 2>/dev/null)"
f_n=$(jq -r --arg k "$kind" '.end.faults[] | select(.kind == $k) | .stores' "$RUN/report.json")
f_t0=$(fault_key "$kind" t_start_real_ns) f_t1=$(fault_key "$kind" t_end_real_ns)
[ -n "$f_t0" ] || fail "no t_start_real_ns for $kind in faults.json"

# the first line names it
first=$(head -n 1 "$RUN/report.txt")
[[ $first == *"$want_status"* ]] || fail "expected the first line to say '$want_status', saw: $first"
[[ $first == *"($f_n stores)"* ]] || fail "the first line does not count the fault's $f_n stores: $first"

# the stores inside the fault, counted from report.csv (exact ns digits)
# (ns digits compared as strings of equal length: exact)
incsv() { awk -F, -v a="$f_t0" -v b="${f_t1:-9999999999999999999}" '
	function cmp(x, y) { if (length(x) != length(y)) return length(x) < length(y) ? -1 : 1
		return (x "") < (y "") ? -1 : (x "") > (y "") }
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }'"$1" "$RUN/report.csv"; }
n_in=$(incsv '
	cmp($col["t_s_real_ns"], a) >= 0 && cmp($col["t_s_real_ns"], b) <= 0 { n++ } END { print n + 0 }')
[ "$n_in" = "$f_n" ] || fail "the report says $f_n stores in the $kind, report.csv has $n_in inside it"
n_before=$(incsv '
	cmp($col["t_s_real_ns"], a) < 0 { n++ } END { print n + 0 }')
[ "$n_before" -ge 30 ] || fail "only $n_before stores before the fault at 2 s (20/s planned): stores before it were lost"

# every store the writer logged is in the report
D=$B/common/stalewin-logdump
"$D" "$RUN/writer.swlog" > "$E2E_TMP/writer.txt" 2>/dev/null || true
logged=$(awk '$2 == "STORE"' "$E2E_TMP/writer.txt" | wc -l)
jqr --argjson n "$logged" '.end.stores == $n' ||
	fail "writer.swlog has $logged STORE records, the report counts $(jq .end.stores "$RUN/report.json")"
case $kind in
writer-kill)
	tail -n 1 "$E2E_TMP/writer.txt" | grep -q ' END ' && fail "writer.swlog ends with END: the writer was not killed"
	# (a store may land between the clock read and the kill: one at 20/s)
	[ "$f_n" -le 1 ] || fail "the writer was killed, yet $f_n stores are counted after it"
	[[ $first == *writer.swlog* ]] || fail "the first line does not name writer.swlog as cut short: $first" ;;
*)
	tail -n 1 "$E2E_TMP/writer.txt" | grep -q ' END .*reason=1 ' ||
		fail "the writer did not run its planned duration: $(tail -n 1 "$E2E_TMP/writer.txt")"
	jqr --argjson d $dur '(.end.t_end_real_ns - .end.t_start_real_ns) >= ($d - 0.2) * 1e9' ||
		fail "the writer's stores span less than the planned $dur s"
	[ "$f_n" -ge 20 ] || fail "only $f_n stores inside a fault of 3 s at 20/s" ;;
esac
[ $kind != probe-kill ] || [[ $first == *probe-0.swlog* ]] || fail "the first line does not name probe-0.swlog as cut short: $first"
[ $kind != partition ] || grep -q "control API answers again" "$E2E_TMP/err" ||
	fail "stalewin-run did not log the control API outage's end: $(grep -i 'control API' "$E2E_TMP/err")"

# nothing left running
sleep 1
w=$(grep -o '/tmp/sw-run-[A-Za-z0-9]*' "$RUN/server/ganesha.conf" | head -n 1)
[ -n "$w" ] || fail "no work folder named in $RUN/server/ganesha.conf"
. "$(dirname "$0")/../lib/left.sh"
left=$(sw_procs_naming "$w" "$RUN")
[ -z "$left" ] || fail "processes of the run still alive:$left"
grep -q " $w" /proc/mounts && fail "$w still mounted"
sw_done "$kind: exit $rc, $f_n stores in the fault, $n_before before it; $first"
