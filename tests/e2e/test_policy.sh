#!/usr/bin/env bash
# Description: one real experiment per policy (tmpfs through nfs-ganesha,
# rewrite of one page every 100 ms, writeback model every 300 ms / expire
# 900 ms, 3 s) and the shape of its windows from the report:
#   eager: each trapping store's truth window is 0 (its own update), every
#     other store's window ends exactly at the update of the next trapping
#     store (the first trap after the next cleaning), none longer than
#     expire + writeback + interval;
#   deferred: no update at a trap, updates only from cleaning / munmap,
#     every covered window <= expire + writeback + interval;
#   lang: an update at the first trap and again at cleaning;
#   none: no update at all, every store uncovered;
#   native (ext4, msync(MS_SYNC) every 400 ms cleans): like eager.
# The probe's consistency check must pass for each.  A harness or policy
# that updates at the wrong moment, loses records or mis-aligns clocks
# fails one of these.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
P=${1:?usage: test_policy.sh eager|deferred|lang|none|native}
I=100 WB=300 EX=900
BOUND=$(( (EX + WB + I) * 1000000 ))
if [ "$P" = native ]; then
	run_exp "$P" --policy native --fs ext4 --workload rewrite --duration 3 \
		--interval-ms $I --msync-sync-ms 400
	BOUND=$(( (400 + I + 100) * 1000000 ))
else
	run_exp "$P" --policy "$P" --fs tmpfs --workload rewrite --duration 3 \
		--interval-ms $I --writeback-ms $WB --expire-ms $EX
fi
jqr '.end.complete == true' || fail "report not complete: $(jq -c .end "$RUN/report.json")"
jqr --arg p "$P" '.start.policy == $p' || fail "report names policy $(jq -r .start.policy "$RUN/report.json"), expected $P"
n=$(jq '.end.stores' "$RUN/report.json")
[ "$n" -ge 10 ] || fail "expected about 30 stores in 3 s at 100 ms (>= 10), saw $n"
upd=$(jq '.results.cost.updates' "$RUN/report.json")

# eager-like structure: trapped stores 0, others end at the next trap's update
eager_shape() {
	csv_awk '
	{ n++; ts[n] = rel($col["t_s_real_ns"]); fl[n] = $col["flags"]; w[n] = $col["w_truth_ns"];
	  gap[n] = $col["race_gap_ns"]; own[n] = $col["own_update"]; unc[n] = $col["uncovered"] }
	END {
		bad = 0; traps = 0; next_end = ""
		for (i = n; i >= 1; i--) {
			if (fl[i] % 2 == 1) {
				traps++
				if (own[i] != 1 || w[i] != 0) { print "trapping store " i " has window " w[i] " own_update " own[i]; bad++ }
			} else if (w[i] != "" && unc[i] == 0) {
				if (next_end == "") { print "store " i " covered but no later trap"; bad++ }
				else if (ts[i] + w[i] != next_end) { print "store " i " ends at " ts[i] + w[i] ", next trap update at " next_end; bad++ }
				if (w[i] > bound) { print "store " i " window " w[i] " > bound " bound; bad++ }
			}
			if (fl[i] % 2 == 1) next_end = ts[i] - gap[i]
		}
		if (traps < 2) { print "expected >= 2 trapping stores (a cleaning in between), saw " traps; bad++ }
		exit bad > 0
	}' || fail "$P: windows do not have the eager shape"
}

case $P in
eager|native)
	eager_shape
	[ "$upd" -ge 2 ] || fail "expected >= 2 timestamp updates, saw $upd"
	;;
deferred)
	jqr '(.results.cost.updates_by_cause.trap // 0) == 0' || fail "deferred updated at a trap: $(jq -c .results.cost "$RUN/report.json")"
	[ "$upd" -ge 2 ] || fail "expected >= 2 deferred updates (kupdate), saw $upd"
	csv_awk '$col["w_truth_ns"] != "" && $col["uncovered"] == 0 { c++; if ($col["w_truth_ns"] > bound) { print "store " $1 " window " $col["w_truth_ns"] " > " bound; bad++ } }
		END { if (c == 0) { print "no covered store"; bad++ } exit bad > 0 }' ||
		fail "deferred: a window exceeds expire + writeback + interval"
	;;
lang)
	jqr '(.results.cost.updates_by_cause.trap // 0) >= 1 and (.results.cost.updates_by_cause.kupdate // 0) >= 1' ||
		fail "lang: expected updates at a trap and at writeback: $(jq -c .results.cost "$RUN/report.json")"
	csv_awk 'NR == 2 { if ($col["w_truth_ns"] != 0) { print "first store window " $col["w_truth_ns"]; exit 1 } }' ||
		fail "lang: the first (trapping) store must be covered by its own update"
	;;
none)
	[ "$upd" -eq 0 ] || fail "none made $upd updates"
	jqr --argjson n "$n" '.results.figures[] | select(.kind == "truth") | .unresolved == $n' ||
		fail "none: expected all $n stores uncovered: $(jq -c '.results.figures[] | select(.kind == "truth")' "$RUN/report.json")"
	;;
*) fail "unknown policy $P" ;;
esac
[ "$P" = none ] || check_consistency
sw_done "$P: $n stores, $upd updates"
