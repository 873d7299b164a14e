#!/usr/bin/env bash
# Description: Ctrl-C during a real 30 s run (SIGINT to stalewin-run's
# whole process group, as a terminal sends it).  Both sides must stop
# cleanly and nothing may be lost: exit 3 (partial), the writer's log and
# the probe's log whole with an END record saying "stopped by a signal"
# (reason 2), the writer's store count in its END equal to the STORE
# records, meta.json "interrupted": true, a report printed, the ganesha
# log kept, and nothing of the run left running or mounted.  An
# orchestrator that dies on SIGINT (or lets its servers die first) loses
# the tail of the logs or leaves a namespace behind.
#   test_interrupt.sh early: the SIGINT as soon as stalewin-run says it
# starts the writer, while the start request may be in flight: the same
# (the writer may have made no store yet), never exit 130 "before the
# run started" with a writer left running or its log unfetched.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
RUN=$E2E_TMP/int
set -m # the run gets its own process group, with SIGINT not ignored
"$S/scripts/stalewin-run" --out "$RUN" --policy eager --workload rewrite --duration 30 \
	--interval-ms 50 --writeback-ms 300 --expire-ms 900 > "$E2E_TMP/out" 2> "$E2E_TMP/err" &
pid=$!
set +m
for _ in $(seq 300); do grep -q "starting the writer" "$E2E_TMP/err" && break; sleep 0.1; done
grep -q "starting the writer" "$E2E_TMP/err" || { kill -TERM -- -"$pid"; fail "the run did not start: $(cat "$E2E_TMP/err")"; }
when=${1:-later}
[ "$when" = early ] || sleep 2
kill -INT -- -"$pid"
set +e
wait "$pid"
rc=$?
set -e
[ $rc = 3 ] || fail "expected exit 3 (partial) after Ctrl-C, saw $rc: $(tail -n 5 "$E2E_TMP/err")"
sleep 1 # a process still exiting is not a leftover; one alive after 1 s is
left=""
for p in $(pgrep -g "$pid" || true); do
	[ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" = Z ] && continue
	[ -d "/proc/$p" ] && left="$left $(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null)"
done
[ -z "$left" ] || fail "processes of the run's process group still alive:$left"
D=$B/common/stalewin-logdump
for f in writer probe-0; do
	[ -s "$RUN/$f.swlog" ] || fail "$f.swlog missing after Ctrl-C"
	"$D" "$RUN/$f.swlog" > "$E2E_TMP/$f.txt" || fail "$f.swlog is not a whole log after Ctrl-C"
	tail -n 1 "$E2E_TMP/$f.txt" | grep -q ' END .*reason=2 ' ||
		fail "$f.swlog does not end with END reason=2 (signal): $(tail -n 1 "$E2E_TMP/$f.txt")"
done
stores=$(awk '$2 == "STORE"' "$E2E_TMP/writer.txt" | wc -l)
a=$(tail -n 1 "$E2E_TMP/writer.txt" | sed -E 's/.* a=([0-9]+).*/\1/')
{ [ "$stores" -gt 0 ] || [ "$when" = early ]; } && [ "$stores" = "$a" ] ||
	fail "writer log has $stores STORE records, its END says $a"
[ "$stores" -lt 590 ] || fail "the writer ran to its end (600 planned): Ctrl-C did not stop it"
jq -e '.interrupted == true' "$RUN/meta.json" >/dev/null || fail "meta.json does not say interrupted"
[ -s "$RUN/report.txt" ] || fail "no report after Ctrl-C"
[ -s "$RUN/server/ganesha.log" ] || fail "ganesha log not kept"
grep -q "partial" "$E2E_TMP/err" || fail "stalewin-run did not say the report is partial"
# this run's own work folder (other runs may mount theirs meanwhile)
w=$(grep -o '/tmp/sw-run-[A-Za-z0-9]*' "$RUN/server/ganesha.conf" | head -n 1)
[ -n "$w" ] || fail "no work folder named in $RUN/server/ganesha.conf"
! grep -q " $w/" /proc/mounts || fail "the run's tmpfs under $w is still mounted"
sw_done "stopped after $stores stores, exit 3"
