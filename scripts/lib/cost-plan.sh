#!/bin/sh
# scripts/lib/cost-plan.sh - runs the plan of `./stalewin cost` where the
# kernel under test is: in the server guest (busybox sh, from the 9p share)
# or on the host (--host).  For each line "FS POLICY THREADS" of
# $D/plan.txt: FS made and mounted at $MNT (ext4 and ext4-lazytime from the
# ext4 already on $DEV, xfs and btrfs by their mkfs, tmpfs its own mount),
# then `$COST measure` with $ARGS; rows to $D/rows.jsonl, messages to
# $D/err.txt.  The plan lists ext4 before xfs and btrfs (the guest has no
# mkfs.ext4 to go back).  Knows no row: only runs and collects.
# NFS=1 (the guest, --query nfs): knfsd exports $MNT, a loopback NFSv4.2
# mount with noac and lookupcache=none sees it at /mnt/nfs, and the
# measurer's --poll thread statx()es the file there every ms (each a
# GETATTR) while it measures.
#   D=DIR DEV=/dev/X MNT=DIR COST=BIN K=LABEL ARGS='...' [NFS=1] sh cost-plan.sh
# Exit: 0, or the last failing measurement's status (2: refused input).
: >"$D/rows.jsonl"
: >"$D/err.txt"
cur="" rc=0
NM=/mnt/nfs knfsd=""
nfs_down() {
	[ "${NFS:-0}" = 1 ] && [ -n "$cur" ] || return 0
	umount "$NM" 2>/dev/null
	sw_knfsd_down >>"$D/err.txt" 2>&1
}
nfs_up() { # knfsd exports the freshly mounted $MNT, mounted again at $NM
	[ "${NFS:-0}" = 1 ] || return 0
	. /opt/stalewin/guest/knfsd.sh
	mkdir -p "$NM"
	if [ -z "$knfsd" ]; then
		sw_knfsd_up "$MNT" >>"$D/err.txt" 2>&1 || return 1
		knfsd=1
	else
		sw_knfsd_again >>"$D/err.txt" 2>&1 || return 1
	fi
	mount -t nfs -o vers=4.2,noac,lookupcache=none 127.0.0.1:"$MNT" "$NM" 2>>"$D/err.txt"
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
while read -r fs pol t; do
	fsmount "$fs" || { rc=1; continue; }
	echo "measure $fs $pol $t" >>"$D/err.txt"
	poll=""
	[ "${NFS:-0}" = 1 ] && poll="--poll $NM/stalewin-cost.dat"
	# shellcheck disable=SC2086 # ARGS, poll: several words
	"$COST" measure --dir "$MNT" --fs "$fs" --policy "$pol" --threads "$t" \
		--kernel "$K" $ARGS $poll >>"$D/rows.jsonl" 2>>"$D/err.txt" || rc=$?
done <"$D/plan.txt"
nfs_down
umount "$MNT" 2>/dev/null
exit $rc
