# vm/guest/nsclients.sh - `vm run --ns-clients N` in the client guest
# (busybox sh, sourced by client.sh).  The Linux NFS client is per network
# namespace: each of N namespaces sw-nsK (K 0..N-1) has its own nfs_client
# and attribute cache, so knfsd sees N clients from one guest.  Each gets
# a macvlan (bridge mode) on eth0, swmvK, with its own MAC and the address
# 10.77.0.(10+K)/24 on the guests' link, its own mount of the export (made
# from inside it, under a UTS hostname of its own, so that NFSv4 client
# ids differ too) and one reader run inside it.  All share the guest's
# clock.  iproute2's ip is in the image as sw-ip (busybox's has neither
# netns nor macvlan); nsenter and unshare are busybox's.

# sw_ns_up N: the namespaces and their links; 1 and a reason on failure
sw_ns_up() {
	local i=0 ns m
	command -v sw-ip >/dev/null ||
		{ echo "ns-clients: expected iproute2's ip in the guest image (sw-ip, host package iproute2; ./stalewin setup), saw none"; return 1; }
	if [ ! -d /sys/module/macvlan ]; then
		while read -r m; do insmod "$m" 2>/dev/null; done </lib/modules/sw-insmod-ns.list 2>/dev/null
	fi
	[ -d /sys/module/macvlan ] ||
		{ echo "ns-clients: kernel $(uname -r) has no macvlan (expected it in the image's sw-insmod-ns.list)"; return 1; }
	# the macvlans' MACs are not eth0's: let virtio-net take their frames
	sw-ip link set eth0 promisc on
	while [ "$i" -lt "$1" ]; do
		ns=sw-ns$i
		{ sw-ip netns add $ns &&
			sw-ip link add link eth0 name swmv$i type macvlan mode bridge &&
			sw-ip link set swmv$i netns $ns &&
			sw-ip -n $ns link set lo up &&
			sw-ip -n $ns addr add "$(sw_ns_addr $i)/24" dev swmv$i &&
			sw-ip -n $ns link set swmv$i up; } 2>/tmp/ns.err ||
			{ echo "ns-clients: namespace $ns: $(tail -n 1 /tmp/ns.err)"; return 1; }
		i=$((i + 1))
	done
}
sw_ns_addr() { echo "10.77.0.$((10 + $1))"; }

# sw_ns_mount K OPTS SRC MP: the mount, made by namespace K's own client
sw_ns_mount() {
	nsenter --net=/run/netns/sw-ns$1 unshare --uts sh -c 'hostname "$0" && exec mount -t nfs -o "$1" "$2" "$3"' \
		"sw-client-ns$1" "$2" "$3" "$4"
}

# sw_ns_record K OUT: what namespace K's kernel client says of itself
# (/proc/net/nfsfs is the reading task's namespace's)
sw_ns_record() {
	{
		echo "# sw-ns$1 $(sw_ns_addr "$1"): /proc/net/nfsfs/servers and volumes from inside it"
		nsenter --net=/run/netns/sw-ns$1 cat /proc/net/nfsfs/servers /proc/net/nfsfs/volumes
	} >"$2" 2>&1
}

# sw_ns_down N: the namespaces (and their macvlans) gone; mounts first
sw_ns_down() {
	local i=0
	while [ "$i" -lt "$1" ]; do
		sw-ip netns del sw-ns$i 2>/dev/null
		i=$((i + 1))
	done
	sw-ip link set eth0 promisc off 2>/dev/null
	return 0
}

# sw_ns_readers K FS RID: client.sh's start_observers for --ns-clients:
# SW_NS_CLIENTS namespaces, each one mount (the one option set) and one
# reader (the one mode) kread-J; client/ns-clients.txt says which
# namespace and address each kread is.  Uses and sets client.sh's d, lim,
# pids, j; fails the guest (fail) when a namespace or its mount fails.
sw_ns_readers() {
	local k=$1 fs=$2 rid=$3 opts mode mp i=0 why
	opts=$(sed -n 1p /tmp/mounts) mode=${SW_READER_MODES%% *}
	why=$(sw_ns_up "$SW_NS_CLIENTS") || fail "$why"
	echo "# kread netns address: each a kernel NFS client of its own; one guest, one clock" >"$d/client/ns-clients.txt"
	while [ "$i" -lt "$SW_NS_CLIENTS" ]; do
		mp=/mnt/$k-$j
		mkdir -p "$mp"
		sw_ns_mount $i "$opts,nosharecache" "$SW_SERVER_IP:/export/$fs" "$mp" 2>/tmp/mount.err ||
			fail "namespace sw-ns$i: mount -t nfs -o $opts $SW_SERVER_IP:/export/$fs failed: $(cat /tmp/mount.err)"
		echo "$j $mode $opts,nosharecache $mp" >>"$d/client/readers.txt"
		echo "$j sw-ns$i $(sw_ns_addr $i)" >>"$d/client/ns-clients.txt"
		echo "# dev: $j $(awk -v m="$mp" '$5 == m {print $3; exit}' /proc/self/mountinfo)" >>/tmp/trace-devs
		nsenter --net=/run/netns/sw-ns$i stalewin-reader --path "$mp/f-$k" --page "$SW_READER_PAGE" \
			--every-ms "$SW_READER_EVERY_MS" --mode "$mode" --log "$d/kread-$j.swlog" --duration "${olim:-$lim}" \
			--run-id "$rid" >"$d/client/kread-$j.out" 2>&1 &
		pids="$pids $!"
		echo "# pid: $j $!" >>/tmp/trace-devs
		j=$((j + 1)) i=$((i + 1))
	done
}
