#!/usr/bin/env bash
# Description: the data probe: READs of stamped pages (struct sw_stamp at
# offset 0 of a page, as the writer stores them) over NFSv3 (READ, post-op
# attributes) and NFSv4 (PUTFH+READ+GETATTR).  A new generation written
# locally must be the one the first READ sent after it returns, with the
# attributes the server returned alongside; a page with a wrong check word
# is flagged TORN, a page never stamped NOSTAMP, another run's stamp
# OTHERRUN.  A broken probe logs the wrong generation or invents attributes.
. "$(dirname "$0")/../../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"

head -c 16384 /dev/zero > "$T/exp/f"
"$check" stamp "$T/exp/f" 0 1 abcd
"$check" stamp "$T/exp/f" 1 1 abcd torn
"$check" stamp "$T/exp/f" 3 9 ffff
gns_up
start_probe --url "$U3" --url "$U4" --rate 200 --depth 1 --read-page 0,1,2,3 --read-every 1 \
	--writer-run-id abcd --duration 0
# READ columns: 1 READ 2 target 3 vers 4 seq 5 status 6 page 7 gen 8 flags 9 t_send 10 mtime 11 valid
wait_for 10 '$1=="READ" && $5==0 && $6==3 {ok[$2]=1} END {exit !(ok[0] && ok[1])}' ||
	fail "no READ of page 3 from both targets within 10 s: $(cat "$T/probe.err")"
for tg in 0 1; do
	awk -v tg=$tg '$1=="READ" && $2==tg && $5==0 && $6==0 && $7==1 && $8==0 {f=1} END {exit !f}' "$T/p.txt" ||
		fail "target $tg: page 0 not read as generation 1 with no flags"
	awk -v tg=$tg '$1=="READ" && $2==tg && $5==0 && $6==1 && $8==1 {f=1} END {exit !f}' "$T/p.txt" ||
		fail "target $tg: page 1 (bad check word) not flagged TORN (1)"
	awk -v tg=$tg '$1=="READ" && $2==tg && $5==0 && $6==2 && $7==0 && $8==2 {f=1} END {exit !f}' "$T/p.txt" ||
		fail "target $tg: page 2 (never stamped) not flagged NOSTAMP (2)"
	awk -v tg=$tg '$1=="READ" && $2==tg && $5==0 && $6==3 && $7==9 && $8==4 {f=1} END {exit !f}' "$T/p.txt" ||
		fail "target $tg: page 3 (run ffff) not flagged OTHERRUN (4)"
done
"$check" stamp "$T/exp/f" 0 2 abcd
t1=$(now_ns)
M=$(stat -c %.9Y "$T/exp/f" | tr -d .)
wait_for 10 "\$1==\"READ\" && \$6==0 && \$9+0 > $t1 {n[\$2]++} END {exit !(n[0]>=1 && n[1]>=1)}" ||
	fail "no READ of page 0 sent after the new stamp within 10 s"
for tg in 0 1; do
	read -r st gen fl mt valid < <(awk -v tg=$tg -v t=$t1 '$1=="READ" && $2==tg && $6==0 && $9+0 > t+0 {print $5, $7, $8, $10, $11; exit}' "$T/p.txt")
	[ "$st" = 0 ] && [ "$gen" = 2 ] && [ "$fl" = 0 ] ||
		fail "target $tg: first READ of page 0 after the new stamp: status $st gen $gen flags $fl, expected 0 2 0"
	[ $((valid & 2)) = 2 ] && [ "$mt" = "$M" ] ||
		fail "target $tg: READ's attributes: mtime $mt (valid $valid), expected $M as stat says"
done
stop_probe
sw_done "generation 2 seen by the first READ after the store on v3 and v4, with mtime $M"
