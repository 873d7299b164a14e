#!/bin/sh
# scripts/lib/cost-plan.sh - runs the plan of `./stalewin cost` where the
# kernel under test is: in the server guest (busybox sh, from the 9p share)
# or on the host (--host).  For each line "FS POLICY THREADS" of
# $D/plan.txt: FS made and mounted at $MNT (ext4 and ext4-lazytime from the
# ext4 already on $DEV, xfs and btrfs by their mkfs, tmpfs its own mount),
# then `$COST measure` with $ARGS; rows to $D/rows.jsonl, messages to
# $D/err.txt.  The plan lists ext4 before xfs and btrfs (the guest has no
# mkfs.ext4 to go back).  Knows no row: only runs and collects.
# NFS=1 (the server guest, --query nfs): knfsd exports $MNT, and the
# client guest (cost-client.sh, its share $D/client) polls the file through
# its own NFSv4.2 mount at RATE statx a second: for the Kth measurement
# this writes $D/client/m-K/export ("$MNT FS", or "skip"), the measurer
# runs in step with the client's poll through that folder (--client-poll,
# server/cost/clientpoll.h), and m-K/stop ends the poll whatever happened;
# $D/client/end, after the last, has the client unmount (knfsd waits up
# to 30 s for its $D/client/done) and power off.
#   D=DIR DEV=/dev/X MNT=DIR COST=BIN K=LABEL ARGS='...' [NFS=1 RATE=N] sh cost-plan.sh
# Exit: 0, or the last failing measurement's status (2: refused input).
: >"$D/rows.jsonl"
: >"$D/err.txt"
cur="" rc=0
knfsd="" k=0
nfs_down() {
	[ "${NFS:-0}" = 1 ] && [ -n "$cur" ] || return 0
	sw_knfsd_down >>"$D/err.txt" 2>&1
}
nfs_up() { # knfsd exports the freshly mounted $MNT (to the client guest)
	[ "${NFS:-0}" = 1 ] || return 0
	. /opt/stalewin/guest/knfsd.sh
	if [ -z "$knfsd" ]; then
		sw_knfsd_up "$MNT" >>"$D/err.txt" 2>&1 || return 1
		knfsd=1
	else
		sw_knfsd_again >>"$D/err.txt" 2>&1 || return 1
	fi
}
fsmount() { # FS: $MNT holds it
	[ "$cur" = "$1" ] && return 0
	nfs_down
	umount "$MNT" 2>/dev/null
	cur=""
	case $1 in
	ext4) mount -t ext4 "$DEV" "$MNT" ;;
	ext4-lazytime) mount -t ext4 -o lazytime "$DEV" "$MNT" ;;
	xfs|btrfs)
		for m in $(cat /lib/modules/sw-insmod-fs-$1.list 2>/dev/null); do insmod "$m" 2>/dev/null; done
		mkfs.$1 -q -f "$DEV" >/dev/null 2>>"$D/err.txt" && mount -t $1 "$DEV" "$MNT" ;;
	tmpfs) mount -t tmpfs -o size=400m tmpfs "$MNT" ;;
	esac || { echo "cannot make or mount $1 on $MNT" >>"$D/err.txt"; return 1; }
	cur=$1
	nfs_up || { echo "cannot export $1 over NFS" >>"$D/err.txt"; return 1; }
}
client_says() { # WHAT: m-$k/export for the client guest
	[ "${NFS:-0}" = 1 ] || return 0
	mkdir -p "$D/client/m-$k" && echo "$1" >"$D/client/m-$k/export.tmp" &&
		mv "$D/client/m-$k/export.tmp" "$D/client/m-$k/export"
}
while read -r fs pol t; do
	k=$((k + 1))
	fsmount "$fs" || { rc=1; client_says skip; continue; }
	echo "measure $fs $pol $t" >>"$D/err.txt"
	poll=""
	if [ "${NFS:-0}" = 1 ]; then
		client_says "$MNT $fs"
		poll="--client-poll $D/client/m-$k --query-rate $RATE"
	fi
	# shellcheck disable=SC2086 # ARGS, poll: several words
	"$COST" measure --dir "$MNT" --fs "$fs" --policy "$pol" --threads "$t" \
		--kernel "$K" $ARGS $poll >>"$D/rows.jsonl" 2>>"$D/err.txt" || rc=$?
	[ "${NFS:-0}" = 1 ] && : >"$D/client/m-$k/stop"
done <"$D/plan.txt"
if [ "${NFS:-0}" = 1 ]; then # the client unmounts before knfsd goes
	: >"$D/client/end"
	w=0
	while [ ! -e "$D/client/done" ] && [ $w -lt 150 ]; do sleep 0.2; w=$((w + 1)); done
fi
nfs_down
umount "$MNT" 2>/dev/null
exit $rc
