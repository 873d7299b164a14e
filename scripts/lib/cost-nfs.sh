# scripts/lib/cost-nfs.sh (sourced by scripts/stalewin-cost): the two
# guests of `--query nfs`.  cost_nfs_pair boots the server guest (the
# plan, knfsd, the disk; eth0 10.77.0.1) and, once its qemu listens on
# the stream socket, the client guest (eth0 10.77.0.2, 1 vCPU, share
# $out/client, scripts/lib/cost-client.sh): the private link of vm/run.sh.
# The client polls the file through its NFS mount while the server
# measures (the handshake: server/cost/clientpoll.h).  When the server
# guest is done, every poll is told to stop and the client to end; it is
# waited for 60 s, then ended by its boot-one.sh's PID.  Uses $out, $work,
# $n, $qrate, $prog and the array boot; sets rc (the server's exit, else
# 1 when the client failed) and cost_pids.
cost_nfs_pair() {
	local sock=$work/net.sock spid cpid crc i d
	mkdir -p "$out/client"
	cp "$SW_TOP/scripts/lib/cost-client.sh" "$out/client/cost-client.sh"
	echo "SERVER=10.77.0.1 RATE=$qrate COST=/opt/stalewin/bin/stalewin-cost sh /sw/cost-client.sh" \
		>"$out/client/guest.sh"
	"${boot[@]}" --share "$out" --run "$out/guest.sh" --disk "$work/disk.img" --smp 2 \
		--mem 1024 --timeout $((300 + n * 90)) --ip 10.77.0.1/24 --mac 52:54:00:77:00:01 \
		--net "stream,id=n0,server=on,addr.type=unix,addr.path=$sock" >"$out/run.out" 2>&1 &
	spid=$!
	cost_pids=("$spid")
	for ((i = 0; i < 1200; i++)); do
		[ -S "$sock" ] && break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.25
	done
	if [ ! -S "$sock" ]; then
		wait "$spid"
		rc=$?
		[ "$rc" -ne 0 ] || rc=1
		echo "$prog: the server guest's qemu never listened on $sock" >>"$out/run.out"
		return 0
	fi
	"${boot[@]}" --share "$out/client" --run "$out/client/guest.sh" --smp 1 --mem 512 \
		--append sw.role=client --timeout $((360 + n * 90)) --ip 10.77.0.2/24 \
		--mac 52:54:00:77:00:02 \
		--net "stream,id=n0,server=off,addr.type=unix,addr.path=$sock" >"$out/client/run.out" 2>&1 &
	cpid=$!
	cost_pids+=("$cpid")
	wait "$spid"
	rc=$?
	for d in "$out"/client/m-*; do [ -d "$d" ] && : >"$d/stop"; done
	: >"$out/client/end"
	for ((i = 0; i < 240; i++)); do kill -0 "$cpid" 2>/dev/null || break; sleep 0.25; done
	kill -0 "$cpid" 2>/dev/null && kill -TERM "$cpid"
	wait "$cpid"
	crc=$?
	cost_pids=()
	if [ "$crc" -ne 0 ]; then
		echo "$prog: the client guest: exit $crc (its messages: $out/client/client-err.txt)" >>"$out/run.out"
		[ "$rc" -ne 0 ] || rc=1
	fi
}
