# vm/guest/knfsd.sh - start the in-kernel NFS server inside a guest
# (sourced by guest scripts; busybox sh).  Usage:
#   . /sw/knfsd.sh; sw_knfsd_up "/export/tmpfs" "/export/ext4" ...
# Each export directory must exist (a tmpfs or a mounted fs); they are
# exported rw to everyone with fsid=1,2,... (tmpfs has no UUID: knfsd
# needs fsid=), NFSv3 and v4.x, and the v4 grace period is ended.
# Returns 0 when rpcbind, mountd and nfsd run; else prints what failed.
sw_knfsd_up() {
	local i=1 d
	: >/etc/exports
	for d in "$@"; do
		[ -d "$d" ] || { echo "knfsd: expected a directory to export, nothing at $d"; return 1; }
		echo "$d *(rw,sync,no_subtree_check,no_root_squash,insecure,fsid=$i)" >>/etc/exports
		i=$((i + 1))
	done
	grep -q nfsd /proc/filesystems || modprobe nfsd 2>/dev/null
	mount -t nfsd nfsd /proc/fs/nfsd || { echo "knfsd: cannot mount the nfsd filesystem (is nfsd in the kernel?)"; return 1; }
	mount -t rpc_pipefs rpc_pipefs /var/lib/nfs/rpc_pipefs 2>/dev/null
	rpcbind -w || { echo "knfsd: rpcbind did not start"; return 1; }
	exportfs -ra || { echo "knfsd: exportfs -ra failed for: $*"; return 1; }
	rpc.mountd -p 20048 || { echo "knfsd: rpc.mountd did not start"; return 1; }
	# client tracking: legacy (nfsdcltrack/usermode) on 6.1 and 6.12;
	# 7.x only has nfsdcld, without which v4_end_grace is refused and
	# NFSv4 opens wait out a 90 s grace period
	if [ ! -e /proc/fs/nfsd/nfsdcld_pid ] && command -v nfsdcld >/dev/null; then
		nfsdcld -p /var/lib/nfs/rpc_pipefs 2>/dev/null || echo "knfsd: warning: nfsdcld did not start"
	fi
	sw_knfsd_threads || return 1
	echo "knfsd: up, versions $(cat /proc/fs/nfsd/versions), exports: $*"
}
# nfsd's 8 threads on port 2049, the v4 grace period ended
sw_knfsd_threads() {
	rpc.nfsd -p 2049 8 || { echo "knfsd: rpc.nfsd failed"; return 1; }
	echo Y >/proc/fs/nfsd/v4_end_grace 2>/dev/null ||
		echo "knfsd: warning: could not end the v4 grace period"
	[ "$(cat /proc/fs/nfsd/threads 2>/dev/null)" -gt 0 ] 2>/dev/null ||
		{ echo "knfsd: nfsd has no threads after rpc.nfsd"; return 1; }
}

# knfsd-restart (vm/guest/faults.sh): stop the in-kernel server as its
# service does (rpc.nfsd 0: no threads, listeners closed; exports
# flushed), and start it again with the same exports, ending the new v4
# grace period.  rpcbind and mountd stay.
sw_knfsd_down() {
	rpc.nfsd 0 || { echo "knfsd: rpc.nfsd 0 failed"; return 1; }
	exportfs -au; exportfs -f
	echo "knfsd: down, threads $(cat /proc/fs/nfsd/threads 2>/dev/null)"
}
sw_knfsd_again() {
	exportfs -ra || { echo "knfsd: exportfs -ra failed"; return 1; }
	sw_knfsd_threads || return 1
	echo "knfsd: up again, threads $(cat /proc/fs/nfsd/threads)"
}

# sw_nfsd_stats OUT: the uptime, knfsd's RPC counters (/proc/net/rpc/nfsd)
# and the client addresses its export cache holds, as the kernel gives
# them (analysis/pass/nfsdstat.c reads them)
sw_nfsd_stats() {
	{
		echo "uptime $(cut -d' ' -f1 /proc/uptime)"
		cat /proc/net/rpc/nfsd
		grep -v '^#' /proc/net/rpc/auth.unix.ip/content | sed 's/^/auth.unix.ip /'
	} >"$1" 2>/dev/null
}
