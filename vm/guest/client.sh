# vm/guest/client.sh - the client guest's part of `stalewin vm run`
# (busybox sh).  Reads /sw/plan.sh; for each experiment: waits until the
# server prepared the file, estimates the clock offset, mounts the export
# with each mount option set (nosharecache: one page cache per reader),
# starts stalewin-reader(s) and stalewin-probe, says go, waits for them,
# estimates the offset again, unmounts.  Failures: /sw/client.failed.
. /sw/plan.sh
. /opt/stalewin/guest/faults.sh # SW_FAULTS: partition; control-API outages
. /opt/stalewin/guest/trace.sh # the NFS client's own times for the file
. /opt/stalewin/guest/nsclients.sh # --ns-clients: a kernel client per network namespace
. /opt/stalewin/guest/cwriter.sh # --scenario client-writer: the writer in this guest
fail() { echo "$*" >/sw/client.failed; echo "client: FAILED: $*"; exit 1; }
stopped() { echo "client: stop requested by the host"; sw_cw_stop; echo "$(cut -d' ' -f1 /proc/uptime)" >/sw/client.finished; exit 0; }
waitfor() { # FILE TIMEOUT_S
	local n=0
	while [ ! -e "$1" ]; do
		[ -e /sw/stop ] && stopped
		# the server's own failure is the cause: do not add a second one
		[ -e /sw/server.failed ] && { echo "client: the server failed: $(cat /sw/server.failed)"; exit 1; }
		n=$((n + 1)); [ $n -gt $(($2 * 10)) ] && return 1
		sleep 0.1
	done
}
# writer options "--k v --flag" -> control API pairs "k=v flag=true"
ctl_pairs() {
	local out="" prev=""
	for t in $SW_WRITER_ARGS; do
		case "$t" in
		--*) [ -n "$prev" ] && out="$out $prev=true"; prev=${t#--} ;;
		*) [ -n "$prev" ] && { out="$out $prev=$t"; prev=""; } ;;
		esac
	done
	[ -n "$prev" ] && out="$out $prev=true"
	[ "${SW_FILE_LEAD_S:-0}" -gt 0 ] && out="$out lead-ms=${SW_FILE_LEAD_S}000" # --lead
	echo "$out"
}
clock() { # OUT
	if [ -n "$ctl" ]; then
		if $ctl clock --samples "${SW_CLOCK_SAMPLES:-40}" --json >"$1.raw" 2>"$1.err"; then
			sed 's/}[[:space:]]*$/,"method":"stalewin-ctl clock"}/' "$1.raw" >"$1" && rm -f "$1.raw"
			return 0
		fi
		echo "client: stalewin-ctl clock failed ($(cat "$1.err")): UDP fallback"
	fi
	stalewin-reader clock "$SW_SERVER_IP:$SW_CLOCK_PORT" --samples "${SW_CLOCK_SAMPLES:-40}" >"$1" 2>"$1.err" ||
		echo "client: clock estimate failed: $(cat "$1.err")"
}
echo "client: $(uname -r), uptime $(cut -d' ' -f1 /proc/uptime)s"
# The client's jiffies grid, for the replay of its attribute cache (issue
# 10: nfs_attribute_timeout and attrtimeo doubling compare jiffies, and the
# reader's reads start within a jiffy of its boundaries).  jiffies tick on
# the sched tick's grid (tick_next_period; .last_tick in /proc/timer_list
# is one of its points, CLOCK_MONOTONIC ns); the tick length from two
# snapshots 1 s apart.
tick_grid() { # OUT
	local a b
	a=$(awk '/^now at/ {n=$3} /\.last_tick/ {l=$3} /^jiffies:/ {j=$2} END {print n, l, j}' /proc/timer_list 2>/dev/null)
	sleep 1
	b=$(awk '/^now at/ {n=$3} /\.last_tick/ {l=$3} /^jiffies:/ {j=$2} END {print n, l, j}' /proc/timer_list 2>/dev/null)
	echo "$a $b" | awk 'NF == 6 && $6 > $3 {
		t = ($4 - $1) / ($6 - $3); n = split("1000000 3333333 4000000 10000000", c, " ")
		for (i = 1; i <= n; i++) if (t > c[i] * 0.9 && t < c[i] * 1.1) { printf "tick_ns=%.0f\nphase_ns=%.0f\nlast_tick_ns=%.0f\n", c[i], $5 % c[i], $5; exit }
	}' >"$1"
	[ -s "$1" ] || { echo "client: no jiffies grid from /proc/timer_list: the replay estimates it"; rm -f "$1"; }
}
# back from --fault client-reboot (one experiment): resume_after_reboot
rebooted=0
[ "$SW_NEXP" = 1 ] && [ -e "/sw/$SW_EXP_1_NAME/sync/client-reboot.req" ] && rebooted=1
# (after a reboot the jiffies grid is another: the readers the replay
# reads are those of the first boot)
[ $rebooted = 1 ] || tick_grid /sw/vm/client-tick.txt
waitfor /sw/server.ready 180 || fail "the server guest was not ready after 180 s"
ctl="" api=0
if [ -s /sw/ctl.url ] && command -v stalewin-ctl >/dev/null; then
	ctl="stalewin-ctl --url $(cat /sw/ctl.url) --token-file /sw/ctl.token --timeout 60"
	[ "$SW_CONTROL" = api ] && api=1
fi
[ "$SW_SCENARIO" != client-writer ] || sw_cw_start
how="UDP exchange (stalewin-reader clock)"; [ -n "$ctl" ] && how="stalewin-ctl clock"
who="the server guest"; [ $api = 1 ] && who="the control API (stalewin-ctl start)"
echo "client: server ready; uptime $(cut -d' ' -f1 /proc/uptime)s; clock offset by $how; writer runs started by $who"
have_probe=1
command -v stalewin-probe >/dev/null || { have_probe=0; echo "client: stalewin-probe is not in the image (not built): no probe log"; }

# mem_note OUT PID...: the guest's MemTotal and MemAvailable, how many
# of the PIDs are alive and the VmRSS summed over those whose
# /proc/PID/status gave one (kB), with shell builtins only (no fork per
# PID under TCG): what M probes cost a guest of qemu -m SW_VM_MEM
mem_note() {
	local out=$1 p k v u rss=0 n=0 alive=0
	shift
	for p in "$@"; do
		kill -0 "$p" 2>/dev/null && alive=$((alive + 1))
		[ -r "/proc/$p/status" ] || continue
		while read -r k v u; do
			[ "$k" = VmRSS: ] && { rss=$((rss + v)); n=$((n + 1)); break; }
		done <"/proc/$p/status"
	done
	{ grep -E '^(MemTotal|MemAvailable):' /proc/meminfo
	  echo "probes: $alive alive of $#; VmRSS read for $n of them, summed $rss kB"; } >"$out"
}

# start_observers K NAME FS RUNID: mounts + readers + probe; sets pids
# (all), ppids (the probes'), j
start_observers() {
	local k=$1 name=$2 fs=$3 rid=$4 opts mode mp url
	pids="" ppids="" j=0
	echo "$SW_MOUNTS" | tr '|' '\n' >/tmp/mounts
	# the client's own RPC times for the file, from before the first
	# mount; "# dev: J MAJOR:MINOR" ties reader J to its superblock,
	# "# pid: J PID" to its process
	: >/tmp/trace-devs
	[ -s "$d/sync/file.ino" ] && sw_trace_start_nfs "$(cat "$d/sync/file.ino")"
	[ "${SW_NS_CLIENTS:-0}" -eq 0 ] || { sw_ns_readers "$k" "$fs" "$rid"; : >/tmp/mounts; }
	while read -r opts; do
		[ -n "$opts" ] || continue
		for mode in $SW_READER_MODES; do
			# one mount per reader: nosharecache gives each its own
			# superblock, so one reader's revalidation cannot refresh
			# the page cache another reads
			mp=/mnt/$k-$j
			mkdir -p "$mp"
			if ! mount -t nfs -o "$opts,nosharecache" "$SW_SERVER_IP:/export/$fs" "$mp" 2>/tmp/mount.err; then
				fail "mount -t nfs -o $opts $SW_SERVER_IP:/export/$fs failed: $(cat /tmp/mount.err)"
			fi
			echo "$j $mode $opts,nosharecache $mp" >>"$d/client/readers.txt"
			echo "# dev: $j $(awk -v m="$mp" '$5 == m {print $3; exit}' /proc/self/mountinfo)" >>/tmp/trace-devs
			stalewin-reader --path "$mp/f-$k" --page "$SW_READER_PAGE" --every-ms "$SW_READER_EVERY_MS" \
				--mode "$mode" --log "$d/kread-$j.swlog" --duration "$olim" --run-id "$rid" \
				>"$d/client/kread-$j.out" 2>&1 &
			pids="$pids $!"
			echo "# pid: $j $!" >>/tmp/trace-devs
			j=$((j + 1))
		done
	done </tmp/mounts
	grep "^$SW_SERVER_IP:/export/$fs " /proc/mounts >"$d/client/mounts.txt"
	if [ $have_probe = 1 ]; then
		# --probe-vers 3+4: one probe, a v3 target (t0) and a v4 one (t1)
		urls="" url=""
		for v in $(echo "$SW_PROBE_VERS" | tr + ' '); do
			url="nfs://$SW_SERVER_IP/export/$fs/f-$k?version=$v&nfsport=2049&mountport=20048"
			urls="$urls --url $url"
		done
		# --probes M (up to 128): M of them side by side, probe-0 ..
		# probe-<M-1>, started back to back (each connects on its own;
		# the go waits SW_LEAD s after the last)
		p=0
		while [ $p -lt "${SW_PROBES:-1}" ]; do
			stalewin-probe $urls --log "$d/probe-$p.swlog" --duration "$olim" --rate "$SW_PROBE_RATE" \
				--run-id "$rid" --writer-run-id "$rid" --quiet $SW_PROBE_ARGS >"$d/client/probe-$p.out" 2>&1 &
			pids="$pids $!" ppids="$ppids $!"
			echo "$url" >"$d/client/probe-$p.url"
			p=$((p + 1))
		done
	fi
}

# --fault client-reboot, first boot: the readers and the probe ended on
# SIGTERM (faults.sh); the clock offset of the logs they wrote, then the
# reset (busybox reboot -f: qemu runs with -no-reboot and exits; the host
# boots the guest again).  Nothing after this runs in this boot.
reboot_now() {
	clock "$d/client/clock-after.json"
	dmesg >"$d/client/dmesg-before-reboot.txt" 2>/dev/null
	echo "client: [$disp] logs ended, clock sampled: resetting the guest at uptime $(cut -d' ' -f1 /proc/uptime)s"
	sync
	reboot -f
	sleep 3600
}
# --fault client-reboot, second boot: mount the export again, read the
# file once through the first mount (the end of the gap: the readers are
# back), start the readers and the probe for what is left of the run,
# with their logs in client/reboot/ (the report reads the first boot's),
# record the fault.
resume_after_reboot() {
	local name fs runid d t1 rem opts mode mp j=0 t2="" spec="" f pids="" rc=0 urls v
	eval "name=\$SW_EXP_1_NAME fs=\$SW_EXP_1_FS runid=\$SW_EXP_1_RUNID"
	d=/sw/$name
	for f in $SW_FAULTS; do case $f in client-reboot@*) spec=$f ;; esac; done
	read -r t1 rem <"$d/sync/client-reboot.req"
	rem=${rem%.*}; [ "${rem:-0}" -ge 1 ] || rem=1
	echo "client: back from the reboot ($spec): $rem s of the run left"
	clock "$d/client/clock-after-reboot.json"
	mkdir -p "$d/client/reboot"
	echo "$SW_MOUNTS" | tr '|' '\n' >/tmp/mounts
	while read -r opts; do
		[ -n "$opts" ] || continue
		for mode in $SW_READER_MODES; do
			mp=/mnt/r-$j
			mkdir -p "$mp"
			if ! mount -t nfs -o "$opts,nosharecache" "$SW_SERVER_IP:/export/$fs" "$mp" 2>/tmp/mount.err; then
				echo "client: after the reboot: mount -o $opts failed: $(cat /tmp/mount.err)"; rc=1; continue
			fi
			[ -n "$t2" ] || ! dd if="$mp/f-1" of=/dev/null bs=4096 count=1 2>/dev/null || t2=$(sw_now_ns)
			echo "$j $mode $opts,nosharecache $mp" >>"$d/client/reboot/readers.txt"
			stalewin-reader --path "$mp/f-1" --page "$SW_READER_PAGE" --every-ms "$SW_READER_EVERY_MS" \
				--mode "$mode" --log "$d/client/reboot/kread-$j.swlog" --duration "$rem" --run-id "$runid" \
				>"$d/client/reboot/kread-$j.out" 2>&1 &
			pids="$pids $!"
			j=$((j + 1))
		done
	done </tmp/mounts
	if command -v stalewin-probe >/dev/null; then # the probe too, as before
		urls=""
		for v in $(echo "$SW_PROBE_VERS" | tr + ' '); do
			urls="$urls --url nfs://$SW_SERVER_IP/export/$fs/f-1?version=$v&nfsport=2049&mountport=20048"
		done
		stalewin-probe $urls --log "$d/client/reboot/probe-0.swlog" --duration "$rem" --rate "$SW_PROBE_RATE" \
			--run-id "$runid" --writer-run-id "$runid" --quiet $SW_PROBE_ARGS >"$d/client/reboot/probe-0.out" 2>&1 &
		pids="$pids $!"
	fi
	[ -n "$t2" ] || echo "client: after the reboot no read of the file succeeded: the gap lasts to the end"
	# the end in this boot's clock: its offset in end_clock (faults.c)
	sw_fault_rec "$d/client/faults.args" --str kind=client-reboot --str "spec=$spec" \
		--int "t_start_real_ns=$t1" $([ -z "$t2" ] || echo --int "t_end_real_ns=$t2") \
		--str end_clock=client/clock-after-reboot.json --int "readers_after=$j" \
		--str logs_after=client/reboot --int "rc=$rc"
	for f in $pids; do
		while kill -0 $f 2>/dev/null; do [ -e /sw/stop ] && kill -TERM $pids 2>/dev/null; sleep 0.2; done
		wait $f || rc=1
	done
	j=0
	while [ -d /mnt/r-$j ]; do umount /mnt/r-$j 2>/dev/null || umount -f -l /mnt/r-$j; j=$((j + 1)); done
	echo "$rc" >"$d/sync/client.done"
	echo "$(cut -d' ' -f1 /proc/uptime)" >/sw/client.finished
	echo "client: finished after the reboot at uptime $(cut -d' ' -f1 /proc/uptime)s"
	return 0
}

[ $rebooted = 0 ] || { resume_after_reboot; exit $?; }
k=1
while [ $k -le $SW_NEXP ]; do
	eval "name=\$SW_EXP_${k}_NAME fs=\$SW_EXP_${k}_FS runid=\$SW_EXP_${k}_RUNID"
	disp=$name; [ "$name" = . ] && eval "disp=\$SW_EXP_${k}_POLICY-\$SW_EXP_${k}_FS"
	eval "policy=\$SW_EXP_${k}_POLICY wl=\$SW_EXP_${k}_WORKLOAD"
	d=/sw/$name
	waitfor "$d/sync/server.prepared" 120 || fail "experiment $disp: the server did not prepare the file"
	mkdir -p "$d/client"
	clock "$d/client/clock-before.json"
	lim=$((SW_DURATION + SW_TAIL + 1 + ${SW_FILE_LEAD_S:-0})) # the writer's --lead wait too
	# --scenario deleg-recall: and the server's wait for our delegation
	# (server.sh), so that a run where none came still observes the writer
	[ "$SW_SCENARIO" = deleg-recall ] && lim=$((lim + ${SW_DELEG_WAIT_S:-5}))
	# --fault server-crash@S[:R]: the readers and the probe read on
	# through the server guest's crash and reboot (hard mounts: a read
	# waits for the server) and are ended R s (default 10) after it
	# serves again (sync/server.back); 180 s for the outage at most
	crash_read=""
	if [ "${SW_CRASH_PLANNED:-0}" = 1 ]; then
		for f in $SW_FAULTS; do case $f in server-crash@*:*) crash_read=${f##*:} ;; server-crash@*) crash_read=10 ;; esac; done
		crash_read=${crash_read%.*}; [ "${crash_read:-0}" -ge 1 ] || crash_read=1
		lim=$((lim + 180))
	fi
	# --probes M above 8: launching M observers back to back takes a TCG
	# guest about 0.13 s each (13 s for 100), and the go waits for the
	# last: the first ones, started with --duration lim, ended before the
	# writer began.  Each observer gets 0.5 s a probe more and all are
	# ended at go + lim (SIGTERM: each log ends with END); M <= 8 as before
	olim=$lim stop_at=""
	[ "${SW_PROBES:-1}" -gt 8 ] && olim=$((lim + SW_PROBES / 2)) stop_at=$lim
	if [ $api = 1 ]; then
		# the server picks the run id, so the observers start after the
		# writer: its first stores may precede their first samples
		rid=$($ctl --get run_id start file="$fs/f-$k" policy="$policy" workload="$wl" \
			duration="$SW_DURATION" size="$SW_SIZE" $(ctl_pairs) 2>"$d/client/ctl-start.err") ||
			fail "experiment $disp: stalewin-ctl start failed: $(cat "$d/client/ctl-start.err")"
		echo "$rid" >"$d/client/run_id"
		t_w0=$(sw_now_ns)
		start_observers $k "$name" "$fs" "$rid"
		t_f0=$(sw_now_ns) # faults count from here: the observers watch them
		echo "$(cut -d' ' -f1 /proc/uptime)" >"$d/sync/client.go"
	else
		# observers first (baseline samples), then the server's writer
		start_observers $k "$name" "$fs" "$runid"
		sleep "${SW_LEAD:-1}"
		echo "$(cut -d' ' -f1 /proc/uptime)" >"$d/sync/client.go"
		# faults count from the writer's start (server.sh says when)
		[ -z "$(sw_faults_for client)" ] || waitfor "$d/sync/writer.running" 60 ||
			echo "client: [$disp] the writer did not say it runs"
		t_w0=$(sw_now_ns) t_f0=$t_w0
	fi
	sw_faults_start client "$d" "$t_f0"
	watch_pid=""
	if [ $api = 1 ]; then # the writer's run, through outages (faults.sh)
		sw_ctl_watch "$ctl" "$d" $((t_w0 + (SW_DURATION + ${SW_FILE_LEAD_S:-0} + ${SW_GRACE:-30}) * 1000000000)) &
		watch_pid=$!
	fi
	echo "client: [$disp] go; readers $j, probe $have_probe, $lim s"
	rc=0
	# wait for probe and readers; on the host's stop request, SIGTERM
	# them (each ends its log with an END record).  They keep going
	# through outages (a hard mount blocks a reader until the server
	# answers again): only past their end + SW_GRACE (2 s once the host
	# killed the server guest) are they stopped, SIGKILL 3 s later.
	up0=$(cut -d. -f1 /proc/uptime) late=0 back_up="" crash_ended=0 mem_done=""
	while :; do
		alive=0
		for p in $pids; do kill -0 $p 2>/dev/null && { alive=1; break; }; done
		[ $alive = 0 ] && break
		if [ -n "$stop_at" ] && [ $(($(cut -d. -f1 /proc/uptime) - up0)) -ge "$stop_at" ]; then
			kill -TERM $pids 2>/dev/null # go + lim: the observers' planned end
			stop_at=""
		fi
		# once, 3 s after go: every observer up (client/mem.txt)
		if [ -z "$mem_done" ] && [ $(($(cut -d. -f1 /proc/uptime) - up0)) -ge 3 ]; then
			mem_done=1
			mem_note "$d/client/mem.txt" $ppids
		fi
		[ -e /sw/stop ] && kill -TERM $pids 2>/dev/null
		if [ -n "$crash_read" ] && [ $crash_ended = 0 ] && [ -e "$d/sync/server.back" ]; then
			[ -n "$back_up" ] || { back_up=$(cut -d. -f1 /proc/uptime); echo "client: [$disp] the server is back after its crash: reading on $crash_read s"; }
			if [ $(($(cut -d. -f1 /proc/uptime) - back_up)) -ge $crash_read ]; then
				kill -TERM $pids 2>/dev/null
				crash_ended=1
			fi
		fi
		g=${SW_GRACE:-30}; [ -e /sw/server.killed ] && g=2
		if [ $(($(cut -d. -f1 /proc/uptime) - up0)) -gt $((lim + g + late)) ]; then
			sig=TERM; [ $late -gt 0 ] && sig=KILL
			echo "client: [$disp] observers still running $((lim + g + late)) s after go: SIG$sig"
			kill -$sig $pids 2>/dev/null
			late=$((late + 3))
		fi
		sleep 0.2
	done
	for p in $pids; do wait $p || rc=1; done
	sw_trace_stop "$d/client/trace.txt" /tmp/trace-devs
	[ -e "$d/sync/client-reboot.req" ] && reboot_now
	sw_faults_stop
	[ $rc -eq 0 ] || echo "client: [$disp] a reader or the probe failed (see $name/client/*.out)"
	[ -e /sw/server.killed ] || clock "$d/client/clock-after.json"
	if [ $api = 1 ] && wait $watch_pid && [ ! -e /sw/server.killed ]; then
		$ctl fetch "$rid" "$d/writer.swlog" 2>"$d/client/ctl-fetch.err" ||
			echo "client: [$disp] stalewin-ctl fetch $rid failed: $(cat "$d/client/ctl-fetch.err")"
		$ctl fetch "$rid" "$d/server/writer.out" --stderr 2>/dev/null
		$ctl --get exit_code status >"$d/server/writer.rc" 2>/dev/null
		$ctl status >"$d/server/ctl-status.json" 2>/dev/null
	fi
	[ $api = 1 ] && echo done >"$d/sync/writer.finished"
	[ -e /sw/server.killed ] || waitfor "$d/sync/server.done" 60 || echo "client: [$disp] the writer did not finish"
	i=0
	if [ $late -gt 0 ] || [ -e /sw/server.killed ]; then
		# a server that did not answer: even umount -f -l can wait on it
		# for good (seen with knfsd down); the guest powers off instead
		echo "client: [$disp] leaving the mounts of a server that does not answer"
	else
		i=0
		while [ "$i" -lt "${SW_NS_CLIENTS:-0}" ]; do sw_ns_record $i "$d/client/ns-$i-nfsfs.txt"; i=$((i + 1)); done
		i=0
		while [ -d /mnt/$k-$i ]; do umount /mnt/$k-$i 2>/dev/null || umount -f -l /mnt/$k-$i; i=$((i + 1)); done
		[ "${SW_NS_CLIENTS:-0}" -eq 0 ] || sw_ns_down "$SW_NS_CLIENTS"
	fi
	echo "$rc" >"$d/sync/client.done"
	[ -e /sw/stop ] && stopped
	k=$((k + 1))
done
sw_cw_stop
echo "$(cut -d' ' -f1 /proc/uptime)" >/sw/client.finished
echo "client: finished at uptime $(cut -d' ' -f1 /proc/uptime)s"
exit 0
