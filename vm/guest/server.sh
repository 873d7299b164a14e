# vm/guest/server.sh - the server guest's part of `stalewin vm run`
# (busybox sh, run by /init from the share).  Reads /sw/plan.sh, starts
# knfsd on a tmpfs (fsid=1) and the disks of SW_DISKS (ext4 fsid=2, xfs
# fsid=3, btrfs fsid=4; xfs and btrfs made here with mkfs), then for
# each experiment: pre-creates the file, waits for the client's go, runs
# stalewin-writer with its log in the share.  Failures go to
# /sw/server.failed (one line) and end the script with exit 1.
. /sw/plan.sh
. /opt/stalewin/guest/knfsd.sh
. /opt/stalewin/guest/faults.sh # SW_FAULTS: knfsd-restart, server-guest-kill
. /opt/stalewin/guest/trace.sh
fail() { echo "$*" >/sw/server.failed; echo "server: FAILED: $*"; exit 1; }
stopped() { # the host asked to stop: let the client finish (its clock estimate needs us)
	local n=0
	echo "server: stop requested by the host"
	while [ ! -e /sw/client.finished ] && [ $n -lt 150 ]; do sleep 0.1; n=$((n + 1)); done
	kill $clock_pid $serve_pid 2>/dev/null
	exit 0
}
waitfor() { # FILE TIMEOUT_S: 0 when FILE appears, 1 on timeout or client failure
	local n=0
	while [ ! -e "$1" ]; do
		[ -e /sw/stop ] && stopped
		# the client's own failure is the cause: do not add a second one
		[ -e /sw/client.failed ] && { echo "server: the client failed: $(cat /sw/client.failed)"; kill $clock_pid $serve_pid 2>/dev/null; exit 1; }
		n=$((n + 1)); [ $n -gt $(($2 * 10)) ] && return 1
		sleep 0.1
	done
}
echo "server: $(uname -r), $(nproc) cpu, uptime $(cut -d' ' -f1 /proc/uptime)s"
# back from --fault server-crash (one experiment): this boot recovers the
# export and serves it again (crash_resume below)
crash_resume=0
[ "${SW_CRASH_PLANNED:-0}" = 1 ] && [ -e "/sw/$SW_EXP_1_NAME/sync/server-crash.req" ] && crash_resume=1
for kv in $SW_SYSCTLS; do
	sysctl -w "$kv" || fail "sysctl -w $kv failed in the server guest (kernel $(uname -r))"
done
mkdir -p /export/tmpfs /export/ext4 /export/xfs /export/btrfs
mount -t tmpfs -o size=${SW_TMPFS_SIZE:-256m} tmpfs /export/tmpfs || fail "cannot mount the tmpfs export"
# the disks in virtio order: SW_DISKS="ext4 xfs ..." is vda, vdb, ...
# (older plans: /dev/vda alone is ext4)
[ -n "${SW_DISKS+x}" ] || { [ -b /dev/vda ] && SW_DISKS=ext4; }
set -- a b c d e
for dfs in $SW_DISKS; do
	dev=/dev/vd$1; shift
	[ -b "$dev" ] || fail "expected the $dfs disk at $dev, no such block device"
	sw_dm_under "$dev" "$dfs" >/tmp/dm.why || fail "$(cat /tmp/dm.why)"
	cat /tmp/dm.why
	dev=$dm_dev
	[ "$dfs" = ext4 ] && jbd=$dm_kname-8 # ext4's journal is inode 8
	case "$dfs" in
	ext4) mount -t ext4 ${SW_EXT4_OPTS:+-o $SW_EXT4_OPTS} "$dev" /export/ext4 ||
		fail "cannot mount the ext4 disk $dev on /export/ext4" ;;
	xfs|btrfs)
		if ! grep -qw "$dfs" /proc/filesystems; then
			[ -f /lib/modules/sw-insmod-fs-$dfs.list ] ||
				fail "filesystem $dfs: kernel $(uname -r) has no $dfs module in the image (and none built in)"
			while read -r m; do insmod "$m" 2>/dev/null; done </lib/modules/sw-insmod-fs-$dfs.list
			grep -qw "$dfs" /proc/filesystems ||
				fail "filesystem $dfs: loading its modules failed in kernel $(uname -r) ($(dmesg | tail -n 2 | tr '\n' ' '))"
		fi
		mk=mkfs.$dfs; [ "$SW_FAULT" = mkfs-$dfs ] && mk=mkfs.$dfs-missing # tests
		command -v $mk >/dev/null ||
			fail "filesystem $dfs: mkfs.$dfs is not in the guest image (host package $([ $dfs = xfs ] && echo xfsprogs || echo btrfs-progs); ./stalewin setup)"
		$mk -q -f "$dev" >/tmp/mkfs.log 2>&1 || fail "filesystem $dfs: $mk -f $dev failed: $(tail -n 2 /tmp/mkfs.log | tr '\n' ' ')"
		mount -t "$dfs" "$dev" /export/$dfs || fail "cannot mount the $dfs disk $dev on /export/$dfs"
		echo "server: $dfs on $dev ($(grep " /export/$dfs " /proc/mounts | cut -d' ' -f4))" ;;
	*) fail "unknown disk filesystem '$dfs' in SW_DISKS" ;;
	esac
done
sw_mp_setup >/tmp/mp.why || fail "$(cat /tmp/mp.why)" # --fault memory-pressure: sw_cgx
cat /tmp/mp.why
# after the crash: the export was just mounted again (ext4 replayed its
# journal); what the disk kept of the writer's file, before knfsd serves
# it: its times and size, and a copy (the report reads its pages' stamps)
if [ $crash_resume = 1 ]; then
	cd_=/sw/$SW_EXP_1_NAME
	t_mounted=$(sw_now_ns)
	dmesg | grep -i 'ext4\|jbd2\|recover' >"$cd_/server/crash-recovery-dmesg.txt"
	crash_after=$(stalewin-writer crash-after "/export/$SW_EXP_1_FS/f-1" "$cd_/server/file-after-crash.bin" 2>>"$cd_/server/crash.log") ||
		echo "server: after the crash: stalewin-writer crash-after failed: $(tail -n 1 "$cd_/server/crash.log")"
	echo "server: after the crash: /export/$SW_EXP_1_FS mounted again (journal recovery: $(grep -c -i recover "$cd_/server/crash-recovery-dmesg.txt") kernel lines): $crash_after"
fi
# --scenario deleg-recall, client-writer: nfsd grants no delegation while any lock
# manager is in its grace period (locks_in_grace); nfsd's own is ended
# (knfsd.sh), lockd's lasts nlm_timeout * 5 = 50 s from its start unless
# nlm_grace_period is set (then rounded up to nlm_timeout): 3 s, set
# before nfsd starts lockd (vm/scenario.sh)
if [ "$SW_SCENARIO" = deleg-recall ] || [ "$SW_SCENARIO" = client-writer ]; then
	modprobe lockd 2>/dev/null
	sysctl -w fs.nfs.nlm_timeout=3 >/dev/null && sysctl -w fs.nfs.nlm_grace_period=3 >/dev/null ||
		fail "--scenario $SW_SCENARIO: cannot shorten lockd's grace period (fs.nfs.nlm_grace_period) in kernel $(uname -r)"
fi
# fsid 1..4 by position, whatever is mounted: tmpfs ext4 xfs btrfs
exports="/export/tmpfs /export/ext4 /export/xfs /export/btrfs"
[ "$SW_FAULT" = knfsd ] && exports="$exports /export/missing" # tests: knfsd fails
sw_knfsd_up $exports >/tmp/knfsd.log 2>&1 ||
	fail "knfsd failed to start: $(tail -n 3 /tmp/knfsd.log | tr '\n' ' ')"
cat /tmp/knfsd.log
stalewin-reader clock-serve "$SW_SERVER_IP:$SW_CLOCK_PORT" &
clock_pid=$!
# The control API (stalewin-writer serve), when the image has it and the
# run asks for it: the client then starts each writer run, reads the
# clocks and fetches the log through it (stalewin-ctl).
serve_pid=""
if [ "$SW_CONTROL" != direct ] && command -v stalewin-ctl >/dev/null; then
	# its run folders in the share: a writer log survives this guest's death.
	# Plain HTTP off loopback, said so (--insecure-private-link; the token
	# file names the address, the client accepts it for that one only): the
	# guests' link is a qemu stream netdev over a unix socket between these
	# two guests, no other host is on it, and TLS would put its record
	# crypto, emulated under TCG, into every clock sample's round trip.
	# Only the client guest (10.77.0.2) is let in.
	mkdir -p /sw/vm/ctl-runs
	$sw_cgx stalewin-writer serve --listen "$SW_SERVER_IP:$SW_CTL_PORT" --token-file /tmp/ctl.token \
		--insecure-private-link --allow 10.77.0.2 \
		--root /export --runs /sw/vm/ctl-runs >/sw/serve.log 2>&1 &
	serve_pid=$!
	n=0
	while [ ! -s /tmp/ctl.token ] && kill -0 $serve_pid 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
	if [ -s /tmp/ctl.token ] && kill -0 $serve_pid 2>/dev/null; then
		cp /tmp/ctl.token /sw/ctl.token
		echo "http://$SW_SERVER_IP:$SW_CTL_PORT" >/sw/ctl.url
		echo "server: control API on http://$SW_SERVER_IP:$SW_CTL_PORT"
	else
		[ "$SW_CONTROL" = api ] && fail "stalewin-writer serve did not start: $(tail -n 2 /sw/serve.log | tr '\n' ' ')"
		echo "server: stalewin-writer serve did not start ($(tail -n 1 /sw/serve.log)): running the writer directly"
		serve_pid=""
	fi
elif [ "$SW_CONTROL" = api ]; then
	fail "--control api: stalewin-ctl is not in the image (not built)"
fi
# The tracepoints this kernel has (vm/guest/trace.sh uses them)
sw_trace_ok && ls $SW_TR/events/timestamp $SW_TR/events/nfsd >/sw/vm/trace-events.txt 2>&1
# Quiet runs (vm matrix: SW_QUIET_S): before any client is served, the
# writer alone on each fs, burst workload, once stat-ing after every store
# (a query) and once never (no query at all); the kernel's timestamp
# tracepoints count what it set.  /sw/quiet/FS-MODE/{writer.swlog,trace.txt}
if [ -n "${SW_QUIET_S:-}" ] && [ $crash_resume = 0 ]; then
	qfs=""
	k=1
	while [ $k -le $SW_NEXP ]; do
		eval "f=\$SW_EXP_${k}_FS"
		case " $qfs " in *" $f "*) ;; *) qfs="$qfs $f" ;; esac
		k=$((k + 1))
	done
	for f in $qfs; do
		for mode in query noquery; do
			qd=/sw/quiet/$f-$mode qf=/export/$f/q-$mode
			mkdir -p $qd
			: >$qf && truncate -s "$SW_SIZE" $qf || fail "cannot create $qf on $f"
			sw_trace_start "$(stat -c %i $qf)"
			x=""; [ $mode = noquery ] && x="--native-poll-only --native-poll-ms 3600000"
			stalewin-writer run --file $qf --policy native --workload burst --populate $x \
				--log $qd/writer.swlog --duration "$SW_QUIET_S" --size "$SW_SIZE" >$qd/writer.out 2>&1
			echo $? >$qd/writer.rc
			sw_trace_stop $qd/trace.txt
			rm -f $qf
		done
		echo "server: quiet runs on $f done, uptime $(cut -d' ' -f1 /proc/uptime)s"
	done
fi
# --lead (vm run): the writer waits until its file is that old
lead_arg=""; [ "${SW_FILE_LEAD_S:-0}" -gt 0 ] && lead_arg="--lead-ms ${SW_FILE_LEAD_S}000"
# --scenario client-writer: the writer's OPEN comes first, so lockd's
# grace (3 s above) must be over when the client is told to go
[ "$SW_SCENARIO" != client-writer ] || sleep 4
echo "$(cut -d' ' -f1 /proc/uptime)" >/sw/server.ready
echo "server: ready at uptime $(cat /sw/server.ready)s"
# --fault server-crash, this boot: knfsd serves the same exports (same
# fsid) again; the fault's record (the crash's times from the first boot,
# what the disk kept), then wait for the client's end as after a run
if [ $crash_resume = 1 ]; then
	d=/sw/$SW_EXP_1_NAME
	for spec in $SW_FAULTS; do case $spec in server-crash@*) break ;; esac; done
	sw_fault_rec "$d/server/faults.args" --str kind=server-crash --str "spec=$spec" --str clock=writer \
		$(cat "$d/server/crash.args" 2>/dev/null || echo "--int t_start_real_ns=$(cat "$d/sync/server-crash.req")") \
		$crash_after --int "t_mounted_real_ns=$t_mounted" --int "t_end_real_ns=$(sw_now_ns)" \
		--int "kill_delay_us=$(cat /sw/vm/server-crash-kill-delay-us.txt 2>/dev/null || echo -1)" \
		--str file_after=server/file-after-crash.bin --str recovery_dmesg=server/crash-recovery-dmesg.txt \
		--bool cut_short=true
	: >"$d/sync/server.back"
	echo "server: back after the crash, knfsd up at uptime $(cut -d' ' -f1 /proc/uptime)s"
	echo done >"$d/sync/server.done"
	waitfor /sw/client.finished $((SW_DURATION * 2 + ${SW_FILE_LEAD_S:-0} + ${SW_GRACE:-30} + 120)) || echo "server: the client did not finish"
	kill $clock_pid $serve_pid 2>/dev/null
	exportfs -ua 2>/dev/null
	echo "server: finished at uptime $(cut -d' ' -f1 /proc/uptime)s"
	exit 0
fi

k=1
while [ $k -le $SW_NEXP ]; do
	eval "name=\$SW_EXP_${k}_NAME policy=\$SW_EXP_${k}_POLICY fs=\$SW_EXP_${k}_FS"
	disp=$name; [ "$name" = . ] && eval "disp=\$SW_EXP_${k}_POLICY-\$SW_EXP_${k}_FS"
	eval "wl=\$SW_EXP_${k}_WORKLOAD runid=\$SW_EXP_${k}_RUNID kpol=\$SW_EXP_${k}_KPOLICY"
	if [ -n "$kpol" ]; then
		# the patched kernel's policy switch, before the writer starts
		if [ ! -e "/proc/sys/$(echo "${kpol%%=*}" | tr . /)" ]; then
			fail "experiment $disp needs the patched kernel: /proc/sys/$(echo "${kpol%%=*}" | tr . /) does not exist in $(uname -r) (./stalewin vm kernel builds it; vm run --kernel patched)"
		fi
		sysctl -w "$kpol" || fail "experiment $disp: sysctl -w $kpol refused by the kernel"
	fi
	d=/sw/$name
	mkdir -p "$d/server" "$d/sync"
	f=/export/$fs/f-$k
	: >"$f" && truncate -s "$SW_SIZE" "$f" || fail "cannot create $f on $fs"
	# --fault memory-pressure: the file's pages written once from the
	# writer's cgroup, so their page cache is charged there (else the
	# first to read them is, nfsd for the client's readers: the root
	# cgroup, which the squeeze never reaches); on disk before the go
	if [ -n "$sw_cgx" ]; then
		$sw_cgx dd if=/dev/zero of="$f" bs="$SW_SIZE" count=1 conv=notrunc,fsync 2>/dev/null ||
			fail "--fault memory-pressure: cannot write $f from the writer's cgroup"
		echo "server: [$disp] $f written from $SW_MP_CG ($(sw_mp_stat file memory.stat) file bytes charged there)"
	fi
	# --fault server-crash: the file's blocks written (zeros) and
	# committed before the writer starts, so the writer's stores are
	# overwrites in place (no allocation in the journal transaction the
	# crash loses) and what the disk keeps of them is their data alone
	if [ "${SW_CRASH_PLANNED:-0}" = 1 ]; then
		dd if=/dev/zero of="$f" bs=4096 count=$(($(stat -c %s "$f") / 4096)) conv=notrunc 2>/dev/null && sync ||
			fail "cannot write $f's blocks on $fs (--fault server-crash)"
	fi
	[ "$fs" = ext4 ] && cat /proc/fs/jbd2/${jbd:-vda-8}/info >"$d/server/jbd2-before.txt" 2>/dev/null
	sw_nfsd_stats "$d/server/nfsd-before.txt" # knfsd's RPC counters (the report reads them)
	cat /proc/sys/vm/dirty_writeback_centisecs /proc/sys/vm/dirty_expire_centisecs >"$d/server/vm-sysctl.txt" 2>/dev/null
	# --scenario deleg-none: a local writer holds the file open for write
	# from before any client opens it (knfsd then grants no read
	# delegation) to the writer's end (vm/scenario.sh)
	[ "$SW_SCENARIO" = deleg-none ] && exec 9<>"$f"
	# multigrain? (a stat: observed, vm/query.sh records it)
	sw_trace_mg "$f" "$fs" >"$d/server/multigrain.txt"
	# tracepoints on this file from before the client opens it
	sw_trace_start "$(stat -c %i "$f")" sets
	# its NFS fileid, for the client's tracepoints (trace.sh)
	stat -c %i "$f" >"$d/sync/file.ino"
	echo "$(cut -d' ' -f1 /proc/uptime)" >"$d/sync/server.prepared"
	waitfor "$d/sync/client.go" 300 || fail "experiment $disp: the client never said go"
	if [ -n "$serve_pid" ] && [ "$SW_CONTROL" = api ]; then
		# the client runs the writer through the control API
		sw_faults_start server "$d" "$(sw_now_ns)"
		# --scenario client-writer: nfsd's state of each client 2 s in
		[ "$SW_SCENARIO" != client-writer ] || { sleep 2; for c in /proc/fs/nfsd/clients/*; do
			cat "$c/info" "$c/states"; done >"$d/server/nfsd-states.txt" 2>&1; }
		waitfor "$d/sync/writer.finished" $((SW_DURATION + ${SW_FILE_LEAD_S:-0} + ${SW_GRACE:-30} + 120)) ||
			fail "experiment $disp: the client did not report the writer's end"
		sw_faults_stop
		kill -0 $serve_pid 2>/dev/null || fail "stalewin-writer serve died: $(tail -n 2 /sw/serve.log | tr '\n' ' ')"
		[ "$fs" = ext4 ] && cat /proc/fs/jbd2/${jbd:-vda-8}/info >"$d/server/jbd2-after.txt" 2>/dev/null
		sw_trace_stop "$d/server/trace.txt"
		echo done >"$d/sync/server.done"
		k=$((k + 1))
		continue
	fi
	# --scenario deleg-recall: the writer opens the file only once the
	# client holds a read delegation on it (its readers opened and read
	# it after the go), else after SW_DELEG_WAIT_S; what was waited is in
	# server/deleg-wait.txt (the report reads nfsd's trace, not this)
	if [ "$SW_SCENARIO" = deleg-recall ]; then
		# (by the clock: under TCG each look takes ~0.1 s itself)
		t0=$(cut -d' ' -f1 /proc/uptime) st=none
		t_end=$((${t0%.*} + ${SW_DELEG_WAIT_S:-5}))
		while [ "$(cut -d. -f1 /proc/uptime)" -lt $t_end ]; do
			[ -e /sw/stop ] && stopped
			if cat /proc/fs/nfsd/clients/*/states 2>/dev/null | grep "type: deleg" | grep -q "f-$k[^0-9]"; then
				st=held; break
			fi
			sleep 0.1
		done
		echo "$st: waited from uptime ${t0}s to $(cut -d' ' -f1 /proc/uptime)s" >"$d/server/deleg-wait.txt"
		echo "server: [$disp] deleg-recall: client's delegation $(cat "$d/server/deleg-wait.txt")"
	fi
	echo "server: [$disp] stalewin-writer --policy $policy --workload $wl on $fs"
	$sw_cgx stalewin-writer run --file "$f" --policy "$policy" --workload "$wl" \
		--log "$d/writer.swlog" --duration "$SW_DURATION" --run-id "$runid" \
		--size "$SW_SIZE" --status-file "$d/server/writer-status.json" \
		$lead_arg $SW_WRITER_ARGS >"$d/server/writer.out" 2>&1 &
	wpid=$!
	sw_writer_running "$d" $wpid # (faults count from the writer's start)
	sw_faults_start server "$d" "$(sw_now_ns)"
	# on the host's stop request: SIGTERM (the writer applies the policy's
	# munmap semantics, writes END, fsyncs)
	# NFSv4 state the server holds for this file (delegations), sampled
	# every ~1 s: /proc/fs/nfsd/clients/*/states
	n=0
	while kill -0 $wpid 2>/dev/null; do
		[ -e /sw/stop ] && kill -TERM $wpid 2>/dev/null
		if [ $((n % 5)) = 0 ]; then
			for c in /proc/fs/nfsd/clients/*/states; do
				[ -r "$c" ] && sed "s/^/$(cut -d' ' -f1 /proc/uptime) /" "$c"
			done >>"$d/server/nfsd-states.txt" 2>/dev/null
		fi
		n=$((n + 1))
		sleep 0.2
	done
	wait $wpid
	rc=$?
	sw_faults_stop
	echo $rc >"$d/server/writer.rc"
	[ $rc -eq 0 ] || echo "server: [$disp] stalewin-writer exit $rc: $(tail -n 2 "$d/server/writer.out" | tr '\n' ' ')"
	sw_trace_stop "$d/server/trace.txt"
	[ "$SW_SCENARIO" = deleg-none ] && exec 9>&-
	[ "$fs" = ext4 ] && cat /proc/fs/jbd2/${jbd:-vda-8}/info >"$d/server/jbd2-after.txt" 2>/dev/null
	sw_nfsd_stats "$d/server/nfsd-after.txt"
	echo done >"$d/sync/server.done"
	[ -e /sw/stop ] && stopped
	k=$((k + 1))
done
waitfor /sw/client.finished $((SW_DURATION * 2 + ${SW_FILE_LEAD_S:-0} + ${SW_GRACE:-30} + 120)) || echo "server: the client did not finish"
kill $clock_pid $serve_pid 2>/dev/null
exportfs -ua 2>/dev/null
echo "server: finished at uptime $(cut -d' ' -f1 /proc/uptime)s"
exit 0
