# vm/guest/faults.sh - faults and control-API outages inside the guests of
# `stalewin vm run --fault ...` (sourced by server.sh and client.sh;
# busybox sh).  The plan gives SW_FAULTS ("KIND@S[:D] ...") and SW_GRACE.
#
#   server guest: knfsd-restart@S:D  rpc.nfsd 0 (and unexport) S s after
#                                    the writer started, back after D s
#                 io-error@S:D       the export's disk (under a dm linear
#                                    table from the boot, sw_dm_under)
#                                    fails every write for D s (dm flakey,
#                                    error_writes); the kernel's messages
#                                    and the mount's state after it are
#                                    recorded (what the filesystem did)
#                 enospc@S           the export's filesystem filled to the
#                                    end of the run (stalewin-writer fill:
#                                    root's reserve too, then a new 4 KiB
#                                    write checked refused)
#                 server-guest-kill@S asks the host (sync/server-kill.req,
#                                    its realtime) to SIGKILL this qemu
#                 memory-pressure@S:D the writer's cgroup (sw_mp_setup: the
#                                    serve or the writer started in it)
#                                    squeezed: memory.high a quarter of
#                                    its memory.current for D s; the
#                                    cgroup's reclaim counted
#                 server-crash@S[:R] writes the writer's file back
#                                    (sync_file_range), shuts the ext4
#                                    export down without a journal commit
#                                    and takes eth0 down (stalewin-writer
#                                    crash), then asks the
#                                    host (sync/server-crash.req) to
#                                    SIGKILL this qemu and boot it again;
#                                    server.sh then recovers
#                                    (its crash_resume); the client reads
#                                    on R s (default 10) once it is back
#                 clock-step@S:±D    CLOCK_REALTIME stepped by D s
#                                    (stalewin-writer clock-step: the step
#                                    made, measured against the monotonic
#                                    clock, is recorded); a fault after it
#                                    in the list is timed on the stepped
#                                    clock
#   client guest: partition@S:D      the client's eth0 down for D s: the
#                                    guests' only link, both ways
#                 client-clock-step@S:±D the client's CLOCK_REALTIME
#                                    stepped by D s, as clock-step
#                 client-reboot@S    the client guest reboots as reboot(8)
#                                    does: its readers and probe get SIGTERM
#                                    (each ends its log with END), then
#                                    client.sh resets the guest; the host
#                                    boots it again and client.sh resumes
#                                    (sw_reboot_resume)
#                 control-API outages seen by sw_ctl_watch (--control api)
#
# Each fault or outage becomes one line of stalewin-runfolder fault
# options in DIR/{server,client}/faults.args; the host replays them into
# faults.json after the guests are down (one writer of faults.json, no
# lock across 9p).  Times: the server's lines carry clock=writer (its own
# realtime is the writer's clock); the client's are the observers' clock,
# as faults.json expects by default.

# CLOCK_REALTIME in ns (busybox date has no %N; adjtimex gives us).
sw_now_ns() {
	adjtimex 2>/dev/null | awk '/time.tv_sec:/ { s = $2 } /time.tv_usec:/ { u = $2 }
		/status:/ { st = $2 } END {
			if (int(st / 8192) % 2) printf "%d%09d\n", s, u   # STA_NANO: ns
			else printf "%d%06d000\n", s, u }'
}

# sw_fault_rec FILE ARGS...: one fault, stalewin-runfolder fault options
# (values without spaces), appended to FILE.
sw_fault_rec() { local f=$1; shift; echo "$*" >>"$f"; }

# seconds (decimal) still to wait until S s after T0_NS; 0 when past
sw_fault_left() { # T0_NS S
	awk -v n="$(sw_now_ns)" -v t="$1" -v s="$2" 'BEGIN { d = s - (n - t) / 1e9; printf "%.3f", (d > 0 ? d : 0) }'
}

# The faults of SW_FAULTS this SIDE (server|client) injects, one per line.
sw_faults_for() {
	local f
	for f in $SW_FAULTS; do
		case "$1:${f%%@*}" in
		server:knfsd-restart|server:server-guest-kill|server:server-crash|server:io-error|server:clock-step|server:enospc|server:memory-pressure|client:partition|client:client-reboot|client:client-clock-step) echo "$f" ;;
		esac
	done
}

# sw_writer_running DIR PID: wait (up to 60 s, while PID lives) until the
# writer's status file says "running" (its start-up under TCG can take
# seconds: faults count from its start), then say so to the client
# (DIR/sync/writer.running).
sw_writer_running() {
	local n=0
	while [ $n -lt 1200 ] && kill -0 $2 2>/dev/null; do
		grep -q '"state":"running"' "$1/server/writer-status.json" 2>/dev/null && break
		sleep 0.05; n=$((n + 1))
	done
	: >"$1/sync/writer.running"
}

# sw_faults_start SIDE DIR T0_NS: run SIDE's faults in the background,
# each S s after T0_NS; sets sw_fault_pid ("" if none).  sw_faults_stop
# ends them: a fault not begun never happens; one in progress is undone
# at once and recorded with aborted=true.
sw_faults_start() {
	local side=$1 dir=$2 t0=$3 list
	sw_fault_pid=""
	list=$(sw_faults_for "$side")
	[ -n "$list" ] || return 0
	mkdir -p "$dir/$side"
	(
		aborted=false sp=""
		trap 'aborted=true; [ -n "$sp" ] && kill $sp 2>/dev/null' TERM
		nap() { sleep "$1" & sp=$!; wait $sp 2>/dev/null; sp=""; }
		for spec in $list; do
			[ $aborted = true ] && break
			kind=${spec%%@*} at=${spec#*@} down=1
			case "$at" in *:*) down=${at#*:} at=${at%%:*} ;; esac
			nap "$(sw_fault_left "$t0" "$at")"
			[ $aborted = true ] && break
			sw_fault_do "$side" "$dir" "$kind" "$spec" "$down"
		done
	) &
	sw_fault_pid=$!
}

sw_faults_stop() {
	[ -n "$sw_fault_pid" ] || return 0
	kill -TERM $sw_fault_pid 2>/dev/null
	wait $sw_fault_pid 2>/dev/null
	sw_fault_pid=""
}

# one fault, now (in the subshell of sw_faults_start)
sw_fault_do() { # SIDE DIR KIND SPEC DOWN
	local side=$1 dir=$2 kind=$3 spec=$4 down=$5 t1 t2 rc=0 out=$2/$1/faults.args
	t1=$(sw_now_ns)
	case "$kind" in
	knfsd-restart)
		echo "server: fault $spec: knfsd stopped (rpc.nfsd 0) for $down s"
		sw_knfsd_down >>"$dir/server/knfsd-restart.log" 2>&1 || rc=$?
		nap "$down"
		sw_knfsd_again >>"$dir/server/knfsd-restart.log" 2>&1 || rc=$?
		t2=$(sw_now_ns)
		echo "server: fault $spec: knfsd up again (rc $rc)"
		sw_fault_rec "$out" --str kind=knfsd-restart --str "spec=$spec" --str clock=writer \
			--int "t_start_real_ns=$t1" --int "t_end_real_ns=$t2" --int "rc=$rc" \
			--bool "aborted=$aborted" $([ $rc = 0 ] || echo --bool cut_short=true) ;;
	partition)
		echo "client: fault $spec: eth0 down for $down s"
		ip link set eth0 down || rc=$?
		nap "$down"
		ip link set eth0 up || rc=$?
		t2=$(sw_now_ns)
		echo "client: fault $spec: eth0 up again (rc $rc)"
		sw_fault_rec "$out" --str kind=partition --str "spec=$spec" --str how=client-eth0-down \
			--int "t_start_real_ns=$t1" --int "t_end_real_ns=$t2" --int "rc=$rc" \
			--bool "aborted=$aborted" $([ $rc = 0 ] || echo --bool cut_short=true) ;;
	client-reboot)
		# what reboot(8) does first: SIGTERM to every process (the readers
		# and the probe write END); client.sh's loop then sees them gone
		# and this request, and resets the guest (sw_reboot_now).  The
		# request holds the start (observers' clock) and what is left of
		# the observers' planned time, for the readers after the reboot.
		echo "client: fault $spec: rebooting the client guest (SIGTERM to readers and probe)"
		echo "$t1 $(sw_fault_left "$t0" "$lim")" >"$dir/sync/client-reboot.req.tmp" &&
			mv "$dir/sync/client-reboot.req.tmp" "$dir/sync/client-reboot.req"
		kill -TERM $pids 2>/dev/null
		nap 3600 ;;
	io-error)
		sw_io_error "$dir" "$spec" "$down" "$t1" ;;
	memory-pressure)
		sw_mp_squeeze "$dir" "$spec" "$down" ;;
	enospc)
		# (the line fill prints: what it filled and whether a new write
		# was refused, options of the fault; to the end: no t_end)
		echo "server: fault $spec: filling /export/$fs"
		a=$(stalewin-writer fill "/export/$fs" 2>>"$dir/server/enospc.log") || rc=$?
		echo "server: fault $spec: done (rc $rc): $a"
		sw_fault_rec "$out" --str kind=enospc --str "spec=$spec" --str clock=writer \
			--int "t_start_real_ns=$t1" $a --int "rc=$rc" --bool "aborted=$aborted" \
			$([ $rc = 0 ] || echo --bool cut_short=true) ;;
	clock-step|client-clock-step)
		# (DOWN is the signed step; the line the helper prints is the
		# record's start and the step made, options of the fault; the
		# client's is on the observers' clock, faults.json's default)
		echo "$side: fault $spec: stepping CLOCK_REALTIME by $down s"
		a=$(stalewin-writer clock-step "$down" 2>>"$dir/$side/clock-step.log") || rc=$?
		echo "$side: fault $spec: done (rc $rc): $a"
		[ -n "$a" ] || a="--int t_start_real_ns=$t1"
		sw_fault_rec "$out" --str "kind=$kind" --str "spec=$spec" $([ "$side" = server ] && echo --str clock=writer) \
			$a --int "rc=$rc" --bool "aborted=$aborted" $([ $rc = 0 ] || echo --bool cut_short=true) ;;
	server-crash)
		# the writeback and the shutdown (one helper: nothing between
		# them), their times in server/crash.args for the record the
		# guest writes after its reboot (its crash_resume); then the host
		# kills this qemu and boots it again
		echo "server: fault $spec: writing $f back, shutting /export/$fs down (no journal commit)"
		a=$(stalewin-writer crash "$f" "/export/$fs" eth0 2>>"$dir/server/crash.log") || rc=$?
		echo "server: fault $spec: done (rc $rc): $a"
		[ -n "$a" ] || a="--int t_start_real_ns=$t1"
		echo "$a --int crash_rc=$rc" >"$dir/server/crash.args"
		echo "$t1" >"$dir/sync/server-crash.req.tmp" && mv "$dir/sync/server-crash.req.tmp" "$dir/sync/server-crash.req"
		nap 3600 ;;
	server-guest-kill)
		# the host kills this qemu and records the fault (start = this
		# request's time, writer clock); nothing after it is ours
		echo "server: fault $spec: asking the host to kill this guest"
		echo "$t1" >"$dir/sync/server-kill.req.tmp" && mv "$dir/sync/server-kill.req.tmp" "$dir/sync/server-kill.req"
		nap 3600 ;;
	esac
}

# sw_ctl_watch CTL DIR DEADLINE_NS: --control api.  Poll the control API's
# status every 0.5 s until the writer's run is no longer active; while it
# does not answer within 5 s (partition; TCG guests on a loaded host can
# take over 2 s for one request), retry with back-off (0.2 s
# doubling to 2 s) until DEADLINE_NS (the planned end + SW_GRACE), and
# record each outage (start = when the first failed poll was sent, end =
# when the first answer came, attempts) in DIR/client/faults.args.  The
# writer runs its planned duration on its own meanwhile.  Returns 0 when
# the run ended, 1 when it gave up (the host then takes the log from the
# share).
sw_ctl_watch() {
	local ctl=$1 dir=$2 deadline=$3 t_out="" n=0 back=0.2 tp a now
	while :; do
		tp=$(sw_now_ns)
		if a=$($ctl --timeout 5 --get active status 2>/dev/null); then
			if [ -n "$t_out" ]; then # (a poll may wait for the link: its answer ends it)
				echo "client: control API answers again after $n failed polls"
				sw_fault_rec "$dir/client/faults.args" --str kind=control-outage \
					--int "t_start_real_ns=$t_out" --int "t_end_real_ns=$(sw_now_ns)" --int "attempts=$n"
				t_out="" n=0 back=0.2
			fi
			[ "$a" = true ] || return 0
			sleep 0.5
			continue
		fi
		[ -n "$t_out" ] || { t_out=$tp; echo "client: control API not answering: the writer runs on; retrying until the planned end + ${SW_GRACE}s"; }
		n=$((n + 1))
		now=$(sw_now_ns)
		if [ -e /sw/server.killed ] || [ "$now" -gt "$deadline" ]; then
			echo "client: control API still not answering, giving up ($n failed polls)"
			sw_fault_rec "$dir/client/faults.args" --str kind=control-outage \
				--int "t_start_real_ns=$t_out" --int "attempts=$n"
			return 1
		fi
		sleep $back
		back=$(awk -v b=$back 'BEGIN { b *= 2; printf "%.1f", (b > 2 ? 2 : b) }')
	done
}

# ------------------------------------------------------------ io-error
# sw_dm_under DEV FS: with --fault io-error in SW_FAULTS, put DEV under a
# device-mapper linear table sw-FS (the fault swaps its table) and set
# dm_dev to it (dm_kname: the kernel's name of it); else dm_dev=DEV.  1
# and why on stdout when it cannot.
sw_dm_under() {
	local sz m
	dm_dev=$1 dm_kname=${1#/dev/}
	case " $SW_FAULTS " in *" io-error@"*) ;; *) return 0 ;; esac
	export DM_DISABLE_UDEV=1 # no udev here: dmsetup makes the nodes itself
	command -v dmsetup >/dev/null ||
		{ echo "--fault io-error: dmsetup is not in the guest image (host package dmsetup, scripts/packages.d/vm.txt; ./stalewin setup)"; return 1; }
	if [ ! -e /dev/mapper/control ] || ! dmsetup targets 2>/dev/null | grep -q '^flakey'; then
		while read -r m; do insmod "$m" 2>/dev/null; done </lib/modules/sw-insmod-dm.list 2>/dev/null
	fi
	dmsetup targets 2>/dev/null | grep -q '^flakey' ||
		{ echo "--fault io-error: kernel $(uname -r) has no device-mapper flakey target (expected dm_flakey in the image's sw-insmod-dm.list, saw targets: $(dmsetup targets 2>&1 | awk '{print $1}' | tr '\n' ' '))"; return 1; }
	sz=$(cat "/sys/class/block/${1#/dev/}/size")
	dmsetup create "sw-$2" --noudevsync --table "0 $sz linear $1 0" >/tmp/dm.log 2>&1 ||
		{ echo "--fault io-error: dmsetup create sw-$2 over $1 failed: $(tail -n 1 /tmp/dm.log)"; return 1; }
	dmsetup mknodes "sw-$2" 2>/dev/null
	dm_dev=/dev/mapper/sw-$2
	# the kernel's name of it (jbd2's /proc/fs/jbd2/NAME-8: dm-N, not vdX)
	dm_kname=dm-$(dmsetup info -c --noheadings -o minor "sw-$2" | tr -d ' ')
	echo "server: $2's disk $1 under $dm_dev (dm linear, $sz sectors) for --fault io-error"
}
# sw_dm_table NAME TABLE: swap the table of a live dm device as a disk
# fails or recovers, at any moment: suspended without freezing the
# filesystem or flushing (a flush into a device that fails writes fails
# the resume: EIO, seen), loaded, resumed
sw_dm_table() {
	dmsetup suspend --nolockfs --noflush "$1" && dmsetup load "$1" --table "$2" &&
		dmsetup resume "$1" --noudevsync
}
# sw_io_error DIR SPEC DOWN T1 (in sw_fault_do): the fault, then what the
# filesystem did: the kernel's messages from the fault's start to one
# journal commit interval (5 s) past its end, in server/io-error-dmesg.txt,
# counted (failed block writes: "I/O error" and "writeback error" lines;
# the filesystem's own error, journal abort and read-only lines),
# the export's mount options then, and whether it takes a new file.
sw_io_error() {
	local dir=$1 spec=$2 down=$3 t1=$4 dm=sw-$fs lin dev sz n0 t2 rc=0 ro=false wr=true mo io fe msg=$1/server/io-error-dmesg.txt
	export DM_DISABLE_UDEV=1
	lin=$(dmsetup table "$dm" 2>/dev/null)
	set -- $lin
	sz=$2 dev=$4
	n0=$(dmesg | wc -l)
	echo "server: fault $spec: $dm ($fs) fails every write for $down s (dm flakey error_writes)"
	if [ -n "$dev" ]; then
		sw_dm_table "$dm" "0 $sz flakey $dev 0 0 1 1 error_writes" >>"$dir/server/io-error.log" 2>&1 || rc=$?
		# the window is from the flakey table live to the linear one live
		# (each swap, three dmsetup calls, takes ~1 s under TCG: seen)
		t1=$(sw_now_ns)
		nap "$down"
		sw_dm_table "$dm" "0 $sz linear $dev 0" >>"$dir/server/io-error.log" 2>&1 || rc=$?
	else
		echo "no dm table $dm: the disk was not put under one at boot" >>"$dir/server/io-error.log"; rc=1
	fi
	t2=$(sw_now_ns)
	echo "server: fault $spec: writes pass again (rc $rc); watching the filesystem for 6 s"
	[ $aborted = true ] || nap 6
	dmesg | tail -n +$((n0 + 1)) >"$msg"
	# (block I/O errors: ext4 and the block layer say "I/O error", iomap's
	# writeback, xfs's, "writeback error": seen)
	io=$(grep -c 'I/O error\|writeback error' "$msg") fe=$(grep -ci "$fs.*error\|aborting journal\|read-only" "$msg")
	mo=$(awk -v m="/export/$fs" '$2 == m { print $4 }' /proc/mounts)
	case ",$mo," in *,ro,*) ro=true ;; esac
	# (touch, not a redirection: a failed redirection of a builtin ends
	# this shell, and the fault with it unrecorded: seen)
	touch "/export/$fs/.sw-io-error-check" 2>>"$dir/server/io-error.log" || wr=false
	rm -f "/export/$fs/.sw-io-error-check" 2>/dev/null
	echo "server: fault $spec: $io block I/O errors, $fs said $fe error lines; mounted $mo; a new file created: $wr"
	sw_fault_rec "$dir/server/faults.args" --str kind=io-error --str "spec=$spec" --str clock=writer \
		--str "fs=$fs" --int "t_start_real_ns=$t1" --int "t_end_real_ns=$t2" --int "io_errors=$io" \
		--int "fs_errors=$fe" --bool "read_only_after=$ro" --str "mount_opts_after=$mo" \
		--bool "new_file_after=$wr" --str dmesg=server/io-error-dmesg.txt \
		--int "rc=$rc" --bool "aborted=$aborted" $([ $rc = 0 ] || echo --bool cut_short=true)
}

# ----------------------------------------------------- memory-pressure
# sw_mp_setup: with --fault memory-pressure in SW_FAULTS, mount cgroup v2,
# enable the memory controller below the root and make the writer's
# cgroup; sw_cgx is then a command that runs its arguments in it (the
# serve, or each writer run, is started through it), else empty.  1 and
# why on stdout when the kernel cannot.
SW_MP_CG=/sys/fs/cgroup/sw-writer
sw_cgx=""
sw_mp_setup() {
	case " $SW_FAULTS " in *" memory-pressure@"*) ;; *) return 0 ;; esac
	grep -qw cgroup2 /proc/filesystems ||
		{ echo "--fault memory-pressure: kernel $(uname -r) has no cgroup2 filesystem"; return 1; }
	mkdir -p /sys/fs/cgroup
	mount -t cgroup2 none /sys/fs/cgroup 2>/tmp/mp.err ||
		{ echo "--fault memory-pressure: cannot mount cgroup2 on /sys/fs/cgroup: $(cat /tmp/mp.err)"; return 1; }
	case " $(cat /sys/fs/cgroup/cgroup.controllers) " in *" memory "*) ;; *)
		echo "--fault memory-pressure: expected the memory controller in kernel $(uname -r)'s cgroup.controllers (CONFIG_MEMCG), saw '$(cat /sys/fs/cgroup/cgroup.controllers)'"; return 1 ;;
	esac
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control && mkdir -p $SW_MP_CG ||
		{ echo "--fault memory-pressure: cannot make $SW_MP_CG with the memory controller"; return 1; }
	printf '#!/bin/sh\necho $$ >%s/cgroup.procs && exec "$@"\n' $SW_MP_CG >/tmp/sw-incg
	chmod +x /tmp/sw-incg
	sw_cgx=/tmp/sw-incg
	echo "server: the writer runs in $SW_MP_CG (cgroup v2) for --fault memory-pressure"
}
sw_mp_stat() { # KEY FILE
	awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$SW_MP_CG/$2" 2>/dev/null || echo 0
}
sw_mp_nrw() { awk '$1 == "nr_written" { print $2 }' /proc/vmstat; }
# the cgroup's memory by kind now, as fault options: what the squeeze
# had to work with (a page is charged to whoever brought it into the
# cache: the file's pages nfsd read first are the root cgroup's)
sw_mp_kinds() {
	local k
	for k in anon file file_mapped file_dirty file_writeback; do
		printf ' --int %s_bytes=%s' "$k" "$(sw_mp_stat $k memory.stat)"
	done
}
# sw_mp_squeeze DIR SPEC DOWN (in sw_fault_do): memory.high to a quarter
# of memory.current for DOWN s (the kernel reclaims at once when it is
# written), then max; what the cgroup counted recorded
sw_mp_squeeze() {
	local dir=$1 spec=$2 down=$3 cur high sq=0 s0 g0 h0 w0 t1 t2 rc=0 kinds
	cur=$(cat $SW_MP_CG/memory.current 2>/dev/null) || { cur=0 rc=1; }
	high=$((cur / 4))
	s0=$(sw_mp_stat pgscan memory.stat) g0=$(sw_mp_stat pgsteal memory.stat)
	h0=$(sw_mp_stat high memory.events) w0=$(sw_mp_nrw) kinds=$(sw_mp_kinds)
	echo "server: fault $spec: memory.high of $SW_MP_CG $cur -> $high bytes for $down s"
	t1=$(sw_now_ns)
	if [ $rc = 0 ]; then
		echo $high >$SW_MP_CG/memory.high || rc=1
		sq=$(cat $SW_MP_CG/memory.current)
		nap "$down"
		echo max >$SW_MP_CG/memory.high || rc=1
	fi
	t2=$(sw_now_ns)
	echo "server: fault $spec: memory.high max again (rc $rc); usage $sq right after the squeeze"
	sw_fault_rec "$dir/server/faults.args" --str kind=memory-pressure --str "spec=$spec" --str clock=writer \
		--str cgroup=v2 --str knob=memory.high --int "t_start_real_ns=$t1" --int "t_end_real_ns=$t2" \
		--int "memory_current_bytes=$cur" --int "limit_bytes=$high" --int "usage_squeezed_bytes=$sq" \
		$kinds --int "pgscan=$(($(sw_mp_stat pgscan memory.stat) - s0))" \
		--int "pgsteal=$(($(sw_mp_stat pgsteal memory.stat) - g0))" \
		--int "high_events=$(($(sw_mp_stat high memory.events) - h0))" \
		--int "vm_nr_written=$(($(sw_mp_nrw) - w0))" \
		--int "rc=$rc" --bool "aborted=$aborted" $([ $rc = 0 ] || echo --bool cut_short=true)
}
