# vm/guest/cwriter.sh - `vm run --scenario client-writer` in the client
# guest (busybox sh, sourced by client.sh; vm/scenario.sh says what the
# scenario is).  The writer runs here, on a vers=4.2 mount of each export
# the run uses (/mnt/cw/FS, this guest's own NFS client in its first
# network namespace), started, watched and fetched by client.sh through a
# control API of its own on the loopback (stalewin-writer serve, plain
# HTTP to 127.0.0.1 only): the writer, the probe and the namespace
# clients share this guest's clock.
cw_pid=""

# sw_cw_start: the mounts and the serve; sets client.sh's ctl and api
sw_cw_start() {
	local k=1 fs n=0
	while [ $k -le "$SW_NEXP" ]; do
		eval "fs=\$SW_EXP_${k}_FS"
		if ! grep -q " /mnt/cw/$fs nfs" /proc/mounts; then
			mkdir -p "/mnt/cw/$fs"
			mount -t nfs -o vers=4.2 "$SW_SERVER_IP:/export/$fs" "/mnt/cw/$fs" 2>/tmp/cw.err ||
				fail "client-writer: mount -t nfs -o vers=4.2 $SW_SERVER_IP:/export/$fs /mnt/cw/$fs failed: $(cat /tmp/cw.err)"
		fi
		k=$((k + 1))
	done
	grep " /mnt/cw/" /proc/mounts >/sw/vm/client-writer-mounts.txt
	mkdir -p /sw/vm/cw-runs
	stalewin-writer serve --listen "127.0.0.1:$SW_CTL_PORT" --token-file /tmp/cw.token \
		--root /mnt/cw --runs /sw/vm/cw-runs >/sw/vm/client-writer-serve.log 2>&1 &
	cw_pid=$!
	while [ ! -s /tmp/cw.token ] && kill -0 $cw_pid 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
	[ -s /tmp/cw.token ] && kill -0 $cw_pid 2>/dev/null ||
		fail "client-writer: stalewin-writer serve did not start: $(tail -n 2 /sw/vm/client-writer-serve.log | tr '\n' ' ')"
	ctl="stalewin-ctl --url http://127.0.0.1:$SW_CTL_PORT --token-file /tmp/cw.token --timeout 60" api=1
	echo "client: client-writer: the writer runs here on $(grep -c " /mnt/cw/" /proc/mounts) vers=4.2 mount(s), its control API on 127.0.0.1:$SW_CTL_PORT"
}

# sw_cw_stop: the serve ended, the writer's mounts gone
sw_cw_stop() {
	local m
	[ -n "$cw_pid" ] || return 0
	kill $cw_pid 2>/dev/null
	wait $cw_pid 2>/dev/null
	cw_pid=""
	for m in $(awk '$2 ~ /^\/mnt\/cw\// {print $2}' /proc/mounts); do umount "$m" 2>/dev/null || umount -f -l "$m"; done
}
