#!/usr/bin/env bash
# Description: stalewin-probe against a real nfs-ganesha (tmpfs export,
# Attr_Expiration_Time=0) over NFSv3 and NFSv4 at once: a local futimens of
# the file's mtime must show, exactly (ns), as the new mtime and ctime in the
# first GETATTR sent after the change (v3 and v4) and as a new change
# attribute (v4); a size change likewise.  SIGTERM ends the log cleanly.  A
# broken probe (wrong fattr3/fattr4 decoding, a cached or invented reply,
# lost records) or a fixture whose server caches attributes fails here.
. "$(dirname "$0")/../../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"

printf 0123456789 > "$T/exp/f"
gns_up
start_probe --url "$U3" --url "$U4" --rate 200 --depth 2 --duration 0
wait_for 10 '$1=="ATTR" && $5==0 {ok[$2]=1} END {exit !(ok[0] && ok[1])}' ||
	fail "no successful GETATTR from both targets within 10 s: $(cat "$T/probe.err")"

# first successful ATTR of target $1 sent after t=$2: "status size mtime ctime change"
first_after() {
	awk -v tg="$1" -v t="$2" '$1=="ATTR" && $2==tg && $6+0 > t+0 {print $5, $8, $9, $10, $11; exit}' "$T/p.txt"
}
last_before() {
	awk -v tg="$1" -v t="$2" '$1=="ATTR" && $2==tg && $5==0 && $7+0 < t+0 {l=$11} END {print l}' "$T/p.txt"
}

# 1. mtime/ctime via futimens
t0=$(now_ns)
read -r M C < <("$check" futimens "$T/exp/f" 981173106123456789)
t1=$(now_ns)
[ "$M" = 981173106123456789 ] || fail "futimens did not set mtime (fstat says $M)"
wait_for 10 "\$1==\"ATTR\" && \$6+0 > $t1 {n[\$2]++} END {exit !(n[0]>=1 && n[1]>=1)}" ||
	fail "no GETATTR sent after the futimens within 10 s"
for tg in 0 1; do
	read -r st sz m c ch < <(first_after $tg "$t1")
	[ "$st" = 0 ] || fail "target $tg: first GETATTR after futimens failed with status $st"
	[ "$m" = "$M" ] || fail "target $tg: first GETATTR after futimens shows mtime $m, expected $M"
	[ "$c" = "$C" ] || fail "target $tg: first GETATTR after futimens shows ctime $c, expected $C"
	[ "$sz" = 10 ] || fail "target $tg: size $sz, expected 10"
done
before=$(last_before 1 "$t0")
read -r st sz m c ch < <(first_after 1 "$t1")
[ -n "$before" ] && [ "$ch" != "$before" ] || fail "v4 change attribute did not change ($before -> $ch)"
echo "futimens seen by the first poll after it: v3 and v4 mtime $M ctime $C, v4 change $before -> $ch"

# 2. size change
truncate -s 5000 "$T/exp/f"
t2=$(now_ns)
wait_for 10 "\$1==\"ATTR\" && \$6+0 > $t2 {n[\$2]++} END {exit !(n[0]>=1 && n[1]>=1)}" ||
	fail "no GETATTR sent after the truncate within 10 s"
for tg in 0 1; do
	read -r st sz m c ch < <(first_after $tg "$t2")
	[ "$st" = 0 ] && [ "$sz" = 5000 ] || fail "target $tg: first GETATTR after truncate: status $st size $sz, expected 0 5000"
done
echo "size 10 -> 5000 seen by the first poll after the truncate on both targets"

stop_probe
n3=$(awk '$1=="ATTR" && $2==0' "$T/p.txt" | wc -l)
n4=$(awk '$1=="ATTR" && $2==1' "$T/p.txt" | wc -l)
bad=$(awk '$1=="ATTR" && $5!=0' "$T/p.txt" | wc -l)
[ "$bad" = 0 ] || fail "$bad failed GETATTRs against a healthy server"
sw_done "$n3 v3 and $n4 v4 replies logged, END clean"
