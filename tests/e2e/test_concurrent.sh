#!/usr/bin/env bash
# Description: two experiments at once on one host.  Three
# `stalewin run`s of 4 s start together: A and B without --out (their
# default folders under SW_RUNS_DIR are made of the same second: the
# start is timed just after a second begins), C with --out X; once C
# holds X, D is started with --out X too.  Cases:
#  - both_complete: A and B exit 0, in two folders (the second one's
#    name with -2), each report complete;
#  - own_stores: each report's run id is its meta.json's and its own
#    writer and probe logs' (and A's differs from B's), each report's
#    stores are its writer log's STORE records, each writer wrote under
#    its own root (its own export, its own ganesha);
#  - busy_out_refused: D exits 2 at once naming the run that holds X (C's
#    PID), C completes, and C's folder holds C's logs only;
#  - nothing_left: no claim file, no process, mount or namespace of the
#    four runs is left.
# Forcing one name (default folders without the -N suffix, or a claim
# that is not a lock) fails both_complete or busy_out_refused.
# ~15 s: the three runs overlap.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
. "$S/tests/lib/left.sh"

R=$E2E_TMP/runs X=$E2E_TMP/x
mkdir -p "$R"
args=(--policy eager --workload rewrite --duration 4 --probe-rate 200 --interval-ms 50)
# just after a second begins: A and B compute their stamps in one second
while [ "$(date +%N | cut -c1)" != 0 ]; do sleep 0.02; done
for n in A B; do
	SW_RUNS_DIR=$R "$S/scripts/stalewin-run" "${args[@]}" > "$E2E_TMP/$n.out" 2> "$E2E_TMP/$n.err" &
	eval "pid_$n=$!"
done
"$S/scripts/stalewin-run" "${args[@]}" --out "$X" > "$E2E_TMP/C.out" 2> "$E2E_TMP/C.err" &
pid_C=$!
for _ in $(seq 200); do [ -s "$X/.stalewin-claim" ] && break; sleep 0.05; done
set +e
t0=$SECONDS
timeout 20 "$S/scripts/stalewin-run" "${args[@]}" --out "$X" > "$E2E_TMP/D.out" 2> "$E2E_TMP/D.err"
rc_D=$? t_D=$((SECONDS - t0))
c_alive=0; kill -0 "$pid_C" 2>/dev/null && c_alive=1
for n in A B C; do eval "wait \$pid_$n; rc_$n=\$?"; done
set -e

folder() { sed -n 's/^stalewin-run: run folder \(.*\)$/\1/p' "$E2E_TMP/$1.err" | tail -n 1; }
rid() { "$B/common/stalewin-logdump" "$1" | sed -n '1s/.*run_id=\([0-9a-f]*\).*/\1/p'; }

both_complete() {
	local n d
	for n in A B; do
		eval "[ \$rc_$n = 0 ]" || { cat "$E2E_TMP/$n.err"; fail "run $n exited $(eval echo \$rc_$n), expected 0"; continue; }
		d=$(folder $n)
		[ -s "$d/report.json" ] || { fail "run $n: no report.json in '$d'"; continue; }
		jq -e '.end.complete == true' "$d/report.json" >/dev/null || fail "run $n's report is not complete: $(jq -c .end "$d/report.json")"
	done
	[ "$(folder A)" != "$(folder B)" ] || fail "A and B wrote into one folder, $(folder A)"
	[ "$(dirname "$(folder A)")" = "$R" ] && [ "$(dirname "$(folder B)")" = "$R" ] ||
		fail "expected A's and B's folders under SW_RUNS_DIR $R, saw $(folder A) and $(folder B)"
	[ "$(ls "$R" | sed 's/-2$//' | sort -u | wc -l)" = 1 ] ||
		echo "note: A and B started in two seconds (folders $(ls "$R" | tr '\n' ' ')): the -N suffix was not needed this time"
}

own_stores() {
	local n d r ids="" stores logged root roots=""
	for n in A B C; do
		d=$(folder $n)
		[ -s "$d/report.json" ] || { fail "run $n has no report (folder '$d')"; continue; }
		r=$(jq -r .run_id "$d/meta.json")
		[ "$(jq -r .start.run_id "$d/report.json")" = "$r" ] || fail "run $n: report names run $(jq -r .start.run_id "$d/report.json"), meta.json $r"
		[ "$(rid "$d/writer.swlog")" = "$r" ] || fail "run $n: writer.swlog is run $(rid "$d/writer.swlog"), expected its own $r"
		[ "$(rid "$d/probe-0.swlog")" = "$r" ] || fail "run $n: probe-0.swlog is run $(rid "$d/probe-0.swlog"), expected its own $r"
		stores=$(jq -r .end.stores "$d/report.json")
		logged=$("$B/common/stalewin-logdump" "$d/writer.swlog" | awk '$2 == "STORE"' | wc -l)
		[ "$stores" = "$logged" ] && [ "$stores" -gt 0 ] || fail "run $n: report counts $stores stores, its writer.swlog holds $logged"
		root=$(jq -r .server.info.root "$d/meta.json")
		case " $roots " in *" $root "*) fail "run $n's writer wrote under $root, another run's root" ;; esac
		case " $ids " in *" $r "*) fail "run $n has run id $r, another run's" ;; esac
		roots="$roots $root" ids="$ids $r"
	done
}

busy_out_refused() {
	[ "$rc_D" = 2 ] || { cat "$E2E_TMP/D.err"; fail "D on C's busy --out exited $rc_D, expected 2"; }
	grep -q "run folder $X is in use by another run, held by PID $pid_C (stalewin-run, since" "$E2E_TMP/D.err" ||
		fail "D did not name the holder (PID $pid_C, stalewin-run): $(cat "$E2E_TMP/D.err")"
	[ "$t_D" -le 5 ] || fail "D took $t_D s to refuse, expected at once"
	[ "$c_alive" = 1 ] || echo "note: C had ended when D was refused"
	[ "$rc_C" = 0 ] || { cat "$E2E_TMP/C.err"; fail "C exited $rc_C beside D, expected 0"; }
	[ -s "$X/report.json" ] && jq -e '.end.complete == true' "$X/report.json" >/dev/null ||
		fail "C's report is missing or not complete"
	# C's server logs are C's: its control log names C's run id only
	grep -q "$(jq -r .run_id "$X/meta.json")" "$X/server/control.log" ||
		fail "C's server/control.log does not name C's run $(jq -r .run_id "$X/meta.json")"
	[ "$(ls "$X"/probe-*.swlog | wc -l)" = 1 ] || fail "C's folder holds $(ls "$X"/probe-*.swlog | wc -l) probe logs, expected its own one"
}

nothing_left() {
	local n d w
	for n in A B C; do
		d=$(folder $n)
		[ -n "$d" ] || continue
		[ ! -e "$d/.stalewin-claim" ] || fail "run $n left its claim $d/.stalewin-claim"
		# its work folder (the export's parent): gone, unmounted, no
		# process naming it (ganesha and rpcbind name it: their netns
		# went with them, else ganesha-ns down said so)
		w=$(dirname "$(jq -r .server.info.root "$d/meta.json")")
		[[ $w == /tmp/sw-run-* ]] || { fail "run $n: expected its work folder /tmp/sw-run-*, saw '$w'"; continue; }
		[ ! -e "$w" ] || fail "run $n left its work folder $w"
		! grep -q "$w" /proc/mounts || fail "run $n left a mount: $(grep "$w" /proc/mounts)"
		[ -z "$(sw_procs_naming "$w" "$d")" ] || fail "run $n left processes:$(sw_procs_naming "$w" "$d")"
		! grep -q "down failed" "$E2E_TMP/$n.err" || fail "run $n: $(grep "down failed" "$E2E_TMP/$n.err")"
	done
	[ ! -e "$X/.stalewin-claim" ] || fail "D or C left a claim in $X"
}

sw_case both_complete both_complete
sw_case own_stores own_stores
sw_case busy_out_refused busy_out_refused
sw_case nothing_left nothing_left
sw_done "three concurrent runs, a fourth refused"
