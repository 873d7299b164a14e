#!/usr/bin/env bash
# Description: the report's delegations from nfsd's trace and the kernel
# readers' logs (analysis/pass/deleg.c), on a synthetic run folder (no
# guest): synth's kernel reader (every 100 ms, 450 ms behind the writer,
# stores every 100 ms from the writer's CLOCK_MONOTONIC 0) and a
# server/trace.txt of real 6.1 nfsd lines at chosen times.  recall: a
# grant at 0.05 s, a recall fired by the writer's open at 0.15 s (its
# nfsd_deleg_recall merged into it), the DELEGRETURN at 0.16 s, the
# CB_RECALL reply at 0.165 s (after it, as on 6.1 in 4 of 6 runs): 1
# grant, 1 recall of latency 10 ms; the reader read generation 0 last
# before it, 3 more reads of it, then new data (generation 1) in the read
# that ended at 0.5003 s: 350.3 ms after the recall; the text names each
# with its time and clock.  unreturned: a second grant and a recall with
# no DELEGRETURN: said so, latency null.  expected: deleg-recall with no
# grant traced says what it expected.  many: 10 grants and recalls, the
# first 8 given and the report says so.
. "$(dirname "$0")/../../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
[ -x "$SYN" ] && [ -x "$REP" ] || { fail "expected $SYN and $REP to be built"; sw_done; }
"$SYN" --out "$T/r" --duration 3 --interval-us 100000 --kread-ms 100 --kread-lag-ms 450 \
	--mount-options vers=4.2 > /dev/null || { fail "synth"; sw_done; }
mkdir -p "$T/r/server"
jq '. + {scenario: "deleg-recall", scenario_note: "the client held a read delegation"}' "$T/r/meta.json" > "$T/m" &&
	mv "$T/m" "$T/r/meta.json"
hdr() {
	printf '# trace_clock: mono\n'
	for e in nfsd_deleg_read nfsd_deleg_recall nfsd_deleg_return nfsd_cb_recall nfsd_cb_recall_done; do
		printf '# enabled: nfsd:%s\n' $e
	done
}
ev() { # SECONDS TASK EVENT
	printf '%16s     [000] .....    %s: %s: client 6b163fbb:1f8b8839 stateid 00000002:00000001\n' "$2" "$1" "$3"
}
report() { "$REP" "$1" --format all --out "$1" > /dev/null 2>"$1.err"; }

recall() {
	local j
	{ hdr; ev 0.050000 nfsd-168 nfsd_deleg_read; ev 0.150000 stalewin-writer-229 nfsd_cb_recall
	  ev 0.150500 nfsd-169 nfsd_deleg_recall; ev 0.160000 nfsd-169 nfsd_deleg_return
	  ev 0.165000 kworker/u2:0-9 nfsd_cb_recall_done; } > "$T/r/server/trace.txt"
	report "$T/r" || fail "report exited $?: $(cat "$T/r.err")"
	j=$(jq -c '.results.delegations | [.granted, .recalls, .returns, .grants[0].t_srv_mono_ns,
		.recall_events[0].t_srv_mono_ns, .recall_events[0].task, .recall_events[0].latency_ns,
		.recall_events[0].t_cb_done_srv_mono_ns, .readers_after_recall[0].new_data_after_recall_ns,
		.readers_after_recall[0].stale_reads_after_recall]' "$T/r/report.json")
	[ "$j" = '[1,1,1,50000000,150000000,"stalewin-writer",10000000,165000000,350300000,3]' ] ||
		fail "report.json delegations: expected [1,1,1,50000000,150000000,\"stalewin-writer\",10000000,165000000,350300000,3], saw $j"
	local r
	r=$(tr '\n' ' ' < "$T/r/report.txt" | tr -s ' ')
	for x in "grant 1 : nfsd_deleg_read at 0.050000 s (server CLOCK_MONOTONIC, nfsd's trace clock mono, 1 us)" \
		"recall 1 : nfsd_cb_recall at 0.150000 s (server CLOCK_MONOTONIC, 1 us), fired by the open of stalewin-writer" \
		"the client's CB_RECALL reply +15.0ms; DELEGRETURN +10.0ms: the recall's latency" \
		"refetch : reader 0 (cto, vers=4.2): new data read by +350ms, after 3 reads of the old"; do
		grep -qF -- "$x" <<< "$r" || fail "the report lacks '$x': $(sed -n '/^deleg/,/^Consistency/p' "$T/r/report.txt")"
	done
}

unreturned() {
	local j
	{ hdr; ev 0.050000 nfsd-168 nfsd_deleg_read; ev 0.150000 stalewin-writer-229 nfsd_cb_recall
	  ev 0.160000 nfsd-169 nfsd_deleg_return; ev 1.000000 nfsd-168 nfsd_deleg_read
	  ev 1.500000 stalewin-writer-229 nfsd_cb_recall; } > "$T/r/server/trace.txt"
	report "$T/r" || fail "report exited $?: $(cat "$T/r.err")"
	j=$(jq -c '.results.delegations | [.granted, .recalls, (.recall_events | map(.latency_ns))]' "$T/r/report.json")
	[ "$j" = '[2,2,[10000000,null]]' ] || fail "report.json: expected [2,2,[10000000,null]], saw $j"
	grep -A3 '^recall 2' "$T/r/report.txt" | tr '\n' ' ' | tr -s ' ' | grep -qF "no DELEGRETURN traced after it" ||
		fail "recall 2 does not say it was never returned: $(grep -A3 '^recall 2' "$T/r/report.txt")"
}

expected() {
	{ hdr; } > "$T/r/server/trace.txt"
	report "$T/r" || fail "report exited $?: $(cat "$T/r.err")"
	tr '\n' ' ' < "$T/r/report.txt" | tr -s ' ' | grep -qF "scenario deleg-recall expected a grant and a recall (the client held a read delegation), saw nfsd traced 0 grants, 0 recalls, 0 returns" ||
		fail "deleg-recall without a grant: $(grep -A3 '^deleg' "$T/r/report.txt")"
	! grep -q '^refetch' "$T/r/report.txt" || fail "a refetch line without a recall"
}
many() {
	local i
	{ hdr; for i in 0 1 2 3 4 5 6 7 8 9; do
		ev 0.${i}10000 nfsd-168 nfsd_deleg_read; ev 0.${i}20000 stalewin-writer-229 nfsd_cb_recall
		ev 0.${i}30000 nfsd-169 nfsd_deleg_return
	  done; } > "$T/r/server/trace.txt"
	report "$T/r" || fail "report exited $?: $(cat "$T/r.err")"
	tr '\n' ' ' < "$T/r/report.txt" | tr -s ' ' | grep -qF "the first 8 of 10 grants and 8 of 10 recalls are given below" ||
		fail "10 grants: the report does not say it gives the first 8: $(sed -n '/^deleg/,/^grant 1/p' "$T/r/report.txt")"
	[ "$(grep -c '^grant [0-9]' "$T/r/report.txt") $(grep -c '^recall [0-9]' "$T/r/report.txt")" = "8 8" ] ||
		fail "10 grants: expected 8 grant and 8 recall lines"
}
sw_case recall recall
sw_case unreturned unreturned
sw_case expected expected
sw_case many many
sw_done
