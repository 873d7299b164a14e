#!/bin/sh
# scripts/lib/cost-client.sh - the client guest of `./stalewin cost --query
# nfs` (busybox sh, from its 9p share at /sw, which the server guest sees
# as /sw/client).  For each measurement K the server's cost-plan.sh writes
# /sw/m-K/export ("DIR FS": knfsd exports DIR, which now holds FS; or
# "skip"); this mounts SERVER:DIR at /mnt/nfs (NFSv4.2, noac,
# lookupcache=none: each statx a GETATTR to the server), again whenever
# DIR or FS changes, and polls the measurer's file there at RATE statx a
# second until m-K/stop (`stalewin-cost poll`, server/cost/clientpoll.h).
# Ends at /sw/end (or after WAIT_S s without news), unmounted, saying
# /sw/done.  Messages to
# /sw/client-err.txt.
#   SERVER=10.77.0.1 RATE=N COST=BIN [WAIT_S=S] sh cost-client.sh
# Exit: 0, or 1 when a mount or a poll failed.
E=/sw/client-err.txt NM=/mnt/nfs
: >"$E"
mkdir -p "$NM"
k=0 cur="" rc=0
while :; do
	k=$((k + 1))
	w=0
	while [ ! -e "/sw/m-$k/export" ] && [ ! -e /sw/end ]; do
		sleep 0.2
		w=$((w + 1))
		[ "$w" -lt $((${WAIT_S:-900} * 5)) ] || { echo "no /sw/m-$k/export after ${WAIT_S:-900} s" >>"$E"; exit 1; }
	done
	[ -e "/sw/m-$k/export" ] || break
	what=$(cat "/sw/m-$k/export")
	[ "$what" = skip ] && continue
	if [ "$what" != "$cur" ]; then
		[ -z "$cur" ] || umount -f -l "$NM" 2>>"$E"
		cur=""
		mount -t nfs -o vers=4.2,noac,lookupcache=none "$SERVER:${what%% *}" "$NM" 2>>"$E" ||
			{ echo "m-$k: cannot mount $SERVER:${what%% *}" >>"$E"; rc=1; continue; }
		cur=$what
	fi
	echo "m-$k: polling $SERVER:${what%% *} ($(echo "$what" | cut -d' ' -f2)) at $RATE/s" >>"$E"
	"$COST" poll --path "$NM/stalewin-cost.dat" --rate "$RATE" --ctl "/sw/m-$k" 2>>"$E" || rc=1
done
# unmounted while the server still serves (it waits for /sw/done): an
# NFS mount of a server gone can hang even umount -f -l
[ -z "$cur" ] || umount -f -l "$NM" 2>>"$E"
: >/sw/done
exit $rc
