#!/usr/bin/env bash
# Description: replacing the polled file (write a new one, rename it over)
# must make the probe log the NFS ESTALE it gets for the old handle (v3
# status 70, v4 NFS4ERR_STALE 70) as an ATTR record and an ESTALE event, look
# the path up again (RELOOKUP event, err 0, new fileid) and keep polling the
# new file.  A broken probe stops polling, crashes, loops on the stale
# handle, or reports the new file under the old fileid.
. "$(dirname "$0")/../../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"

echo old > "$T/exp/f"
gns_up
start_probe --url "$U3" --url "$U4" --rate 200 --depth 2 --duration 0
wait_for 10 '$1=="ATTR" && $5==0 {ok[$2]=1} END {exit !(ok[0] && ok[1])}' ||
	fail "no successful GETATTR from both targets within 10 s: $(cat "$T/probe.err")"
old_ino=$(stat -c %i "$T/exp/f")
echo "new contents" > "$T/exp/f.new"
new_ino=$(stat -c %i "$T/exp/f.new")
mv "$T/exp/f.new" "$T/exp/f"
t1=$(now_ns)
wait_for 10 "\$1==\"EVENT\" && \$3==4 && \$4==0 {r[\$2]=1} END {exit !(r[0] && r[1])}" ||
	fail "no successful RELOOKUP event for both targets within 10 s"
wait_for 10 "\$1==\"ATTR\" && \$5==0 && \$12==$new_ino {n[\$2]++} END {exit !(n[0]>=3 && n[1]>=3)}" ||
	fail "polling did not continue on the new file (fileid $new_ino)"
for tg in 0 1; do
	awk -v tg=$tg '$1=="ATTR" && $2==tg && $5==70 {f=1} END {exit !f}' "$T/p.txt" ||
		fail "target $tg: no ATTR record with status 70 (ESTALE)"
	awk -v tg=$tg '$1=="EVENT" && $2==tg && $3==3 && $4==70 {f=1} END {exit !f}' "$T/p.txt" ||
		fail "target $tg: no ESTALE event"
	sz=$(awk -v tg=$tg -v ino=$new_ino '$1=="ATTR" && $2==tg && $5==0 && $12==ino {s=$8} END {print s}' "$T/p.txt")
	[ "$sz" = 13 ] || fail "target $tg: new file's size $sz, expected 13"
done
stop_probe
sw_done "fileid $old_ino -> $new_ino on v3 and v4; $(grep -c '^EVENT [01] 3 ' "$T/p.txt") ESTALE events"
