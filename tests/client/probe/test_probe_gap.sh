#!/usr/bin/env bash
# Description: ganesha killed (SIGKILL) and restarted on the same ports in
# the middle of a run: the probe must log the failed requests as ATTR records
# with a status != 0 (never an invented observation), open a gap
# (GAP_START event), reconnect with a fresh context (RECONNECT event), log a
# GAP record with start < end, and resume polling (successful replies sent
# after the gap's end) on both NFSv3 and NFSv4.  Then ganesha is paused
# (SIGSTOP: connections stay open, nothing answers): requests must time out
# (TIMEOUT event, ATTR status -110), a second gap opens and closes after
# SIGCONT.  A broken probe hangs, exits, spins without back-off, waits
# forever on a silent server, or never closes the gap.
. "$(dirname "$0")/../../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"

echo data > "$T/exp/f"
gns_up
start_probe --url "$U3" --url "$U4" --rate wire --depth 4 --timeout-ms 300 --duration 0
wait_for 10 '$1=="ATTR" && $5==0 {ok[$2]=1} END {exit !(ok[0] && ok[1])}' ||
	fail "no successful GETATTR from both targets within 10 s: $(cat "$T/probe.err")"
"$gns" kill --state "$T/st"
tk=$(now_ns)
sleep 1
"$gns" restart --state "$T/st" || fail "ganesha-ns restart failed"
tr=$(now_ns)
wait_for 15 '$1=="GAP" {g[$2]=1} END {exit !(g[0] && g[1])}' ||
	fail "no GAP record for both targets within 15 s of the restart"
for tg in 0 1; do
	read -r gs ge < <(awk -v tg=$tg '$1=="GAP" && $2==tg {print $3, $4; exit}' "$T/p.txt")
	[ "$ge" -gt "$gs" ] || fail "target $tg: GAP start $gs is not before end $ge"
	[ "$ge" -gt "$tr" ] || [ "$ge" -gt "$tk" ] || fail "target $tg: gap ended ($ge) before ganesha was killed ($tk)"
	wait_for 10 "\$1==\"ATTR\" && \$2==$tg && \$5==0 && \$6+0 > $ge {n++} END {exit !(n>=10)}" ||
		fail "target $tg: polling did not resume after the gap"
	awk -v tg=$tg '$1=="EVENT" && $2==tg && $3==1 {f=1} END {exit !f}' "$T/p.txt" || fail "target $tg: no GAP_START event"
	awk -v tg=$tg '$1=="EVENT" && $2==tg && $3==2 && $4==0 {f=1} END {exit !f}' "$T/p.txt" || fail "target $tg: no RECONNECT event"
	echo "target $tg: gap $(( (ge - gs) / 1000000 )) ms (kill to restart-ready $(( (tr - tk) / 1000000 )) ms)"
done
# hung server
"$gns" pause --state "$T/st"
tp=$(now_ns)
sleep 1.5
"$gns" resume --state "$T/st"
wait_for 15 "\$1==\"GAP\" {g[\$2]++} END {exit !(g[0]>=2 && g[1]>=2)}" ||
	fail "no second GAP (after the pause) for both targets within 15 s"
for tg in 0 1; do
	awk -v tg=$tg -v t=$tp '$1=="EVENT" && $2==tg && $3==5 && $4==-110 && $5+0 > t+0 {f=1} END {exit !f}' "$T/p.txt" ||
		fail "target $tg: no TIMEOUT event while ganesha was paused"
	awk -v tg=$tg -v t=$tp '$1=="ATTR" && $2==tg && $5==-110 && $7+0 > t+0 {f=1} END {exit !f}' "$T/p.txt" ||
		fail "target $tg: no ATTR record with status -110 (timed out) while ganesha was paused"
	wait_for 10 "\$1==\"ATTR\" && \$2==$tg && \$5==0 && \$6+0 > $tp + 1500000000 {n++} END {exit !(n>=10)}" ||
		fail "target $tg: polling did not resume after the pause"
done
echo "pause: TIMEOUT events, -110 ATTR records, second gap closed, polling resumed"
stop_probe
awk '$1=="END" {exit !($4>=4)}' "$T/p.txt" || fail "END record counts fewer than 4 gaps"
sw_done
