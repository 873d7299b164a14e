#!/usr/bin/env bash
# Description: nfs-ganesha is SIGKILLed 1.5 s into a real eager run and
# started again 1 s later (stalewin-run --fault).  The probe must log a gap
# at least as long as the time ganesha was surely down (killed .. restart),
# the report must show that gap for the probe, the writer's run must be
# unaffected (complete ground truth), and the stores whose windows the gap
# distorted must be explained by it, not counted as unexplained.  A probe
# that hides outages, or a report that ignores them, fails here.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
ALLOW_FAULTS=1 run_exp fault --policy eager --fs tmpfs --workload rewrite --duration 5 \
	--interval-ms 100 --writeback-ms 300 --expire-ms 900 --fault ganesha-restart@1.5:1
[ -s "$RUN/faults.json" ] || fail "no faults.json: the fault was not injected"
[ "$(fault_key ganesha-restart restart_rc)" = 0 ] || fail "ganesha did not come back: $(cat "$RUN/faults.json")"
# down time in ns, exactly (digits, not doubles): t_restart - t_killed
down=$(echo "$(fault_key ganesha-restart t_restart_real_ns) $(fault_key ganesha-restart t_killed_real_ns)" |
	awk '{ l = length($1); printf "%d", (substr($1, 1, l - 9) - substr($2, 1, l - 9)) * 1000000000 + substr($1, l - 8) - substr($2, l - 8) }')
[ "$down" -gt 0 ] || fail "bad fault times in $(cat "$RUN/faults.json")"
head -n 1 "$RUN/report.txt" | grep -q 'complete, with faults: ganesha-restart at' ||
	fail "the report's first line does not name the restart: $(head -n 1 "$RUN/report.txt")"
jqr '.results.observers[0].gaps >= 1' || fail "the report shows no gap for the probe: $(jq -c '.results.observers[0] | {gaps, gap_ns, failures}' "$RUN/report.json")"
jqr --argjson d "$down" '.results.observers[0].gap_ns >= $d' ||
	fail "gap $(jq .results.observers[0].gap_ns "$RUN/report.json") ns shorter than the $down ns ganesha was down"
jqr '.end.stores >= 20' || fail "writer stored too little (50 planned): $(jq .end.stores "$RUN/report.json")"
check_consistency
sw_done "gap $(jq .results.observers[0].gap_ns "$RUN/report.json") ns >= down $down ns"
