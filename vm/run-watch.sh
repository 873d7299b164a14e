# vm/run-watch.sh - the host watching the guests of `stalewin vm run`
# (sourced by vm/run.sh, never run): watch_for waits for a file in the
# share while both guests live; host_fault_tick, host_server_crash and
# host_client_reboot do the host's part of the faults.

# --fault server-guest-kill: the server guest asks for it in
# sync/server-kill.req (its realtime then: the writer's clock); SIGKILL its
# qemu at once, tell the client (server.killed), note how many bytes the
# writer's log (in the share) held.  One experiment only: its folder is
# the share itself.  The fault is recorded in collect_faults.
host_fault_tick() {
	[ "$kill_planned" = 1 ] && [ "$killed" = 0 ] && [ -e "$share/sync/server-kill.req" ] || return 0
	local t_seen t_dead t_req lg rid spec bytes
	t_seen=$(vm_now)
	kill -KILL "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
	t_dead=$(vm_now)
	killed=1
	touch "$share/server.killed"
	t_req=$(cat "$share/sync/server-kill.req")
	[[ $t_req =~ ^[0-9]+$ ]] || vm_die "expected the server guest's realtime (ns) in $share/sync/server-kill.req, saw '$t_req'"
	lg=writer.swlog rid=$(cat "$share/client/run_id" 2>/dev/null || true)
	[ -z "$rid" ] || lg=vm/ctl-runs/$rid/writer.swlog # --control api
	bytes=$(stat -c %s "$share/$lg" 2>/dev/null || echo 0)
	for spec in "${faults[@]}"; do [[ $spec == server-guest-kill@* ]] && break; done
	vm_log "fault $spec: killed the server guest (qemu PID $spid) $(( (t_dead - t_seen) / 1000 )) ms after it asked; $lg holds $bytes bytes"
	kill_args=(--str kind=server-guest-kill --str "spec=$spec" --str clock=writer
		--int "t_start_real_ns=$t_req" --int "kill_delay_us=$((t_dead - t_seen))"
		--str "writer_log=$lg" --int "writer_log_bytes=$bytes" --bool cut_short=true)
}

# --fault client-reboot: the client guest asked for it
# (sync/client-reboot.req), ended its readers' logs and reset itself
# (qemu exits: -no-reboot).  Boot it again, once, with the same disks,
# link and share: its client.sh resumes the experiment.  0 when it did.
host_client_reboot() {
	[ "$reboot_planned" = 1 ] && [ "$rebooted" = 0 ] && [ -e "$share/sync/client-reboot.req" ] || return 1
	! vm_alive "$cpid" || return 1
	wait "$cpid" 2>/dev/null || true
	rebooted=1
	# the first boot's output (init's tee would truncate it)
	[ ! -e "$share/client.out" ] || mv "$share/client.out" "$share/vm/client-before-reboot.out"
	vm_log "fault client-reboot: the client guest reset itself (qemu PID $cpid exited); booting it again"
	vm_qemu_start client "$c_vmlinux" "$c_initrd" "$share" "$share/vm/client-after-reboot.console" --ip 10.77.0.2/24 \
		--run client.sh --mac 52:54:00:77:00:02 --append sw.role=client \
		--net "stream,id=n0,server=off,addr.type=unix,addr.path=$sock"
	cpid=$VM_PID c_console=$share/vm/client-after-reboot.console
	return 0
}

# --fault server-crash: the server guest wrote its file back and shut
# its ext4 export down without a journal commit, then asked
# (sync/server-crash.req, its realtime then); SIGKILL its qemu as
# server-guest-kill does, then boot it again, once, on the same disks and
# link (the client guest's qemu listens on the link's socket: the new
# qemu connects to it, vm/run.sh).  Its server.sh sees the request and
# recovers (vm/guest/server.sh, crash_resume).  The client keeps its
# hard mount through the outage.  0 when it did.
host_server_crash() {
	[ "$crash_planned" = 1 ] && [ "$crashed" = 0 ] && [ -e "$share/sync/server-crash.req" ] || return 1
	local t_seen t_dead
	t_seen=$(vm_now)
	kill -KILL "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
	t_dead=$(vm_now)
	crashed=1
	# the first boot's output (init's tee would truncate it)
	[ ! -e "$share/server.out" ] || mv "$share/server.out" "$share/vm/server-before-crash.out"
	vm_log "fault server-crash: killed the server guest (qemu PID $spid) $(( (t_dead - t_seen) / 1000 )) ms after it asked; booting it again on the same disks"
	echo "$((t_dead - t_seen))" >"$share/vm/server-crash-kill-delay-us.txt"
	vm_qemu_start server "$s_vmlinux" "$s_initrd" "$share" "$share/vm/server-after-crash.console" --ip 10.77.0.1/24 \
		--run server.sh --mac 52:54:00:77:00:01 --append sw.role=server "${disk_args[@]}" \
		--net "stream,id=n0,server=off,addr.type=unix,addr.path=$sock"
	spid=$VM_PID s_console=$share/vm/server-after-crash.console
	return 0
}

# Wait for FILE while both guests live and no side reported a failure.
watch_for() { # FILE TIMEOUT WHAT
	local t0 f=$1
	t0=$(vm_now)
	while [ ! -e "$f" ]; do
		[ "$interrupted" = 1 ] && return 1
		for side in server client; do
			if [ -e "$share/$side.failed" ]; then
				echo "$SW_VM_PROG: the $side guest failed: $(cat "$share/$side.failed")" >&2
				tail -n 15 "$share/vm/$side.console" 2>/dev/null | sed 's/^/    | /' >&2
				return 1
			fi
		done
		host_fault_tick
		host_server_crash && continue
		if ! vm_alive "$spid" && [ ! -e "$share/server.rc" ] && [ "$killed" = 0 ]; then
			vm_fail_msg "$3: the server guest died (qemu PID $spid), $(vm_elapsed "$t_cmd") s after the command" "$s_console"
			return 1
		fi
		host_client_reboot && continue
		if ! vm_alive "$cpid" && [ ! -e "$share/client.rc" ]; then
			[ -e "$f" ] && return 0
			vm_fail_msg "$3: the client guest died (qemu PID $cpid), $(vm_elapsed "$t_cmd") s after the command" "$c_console"
			return 1
		fi
		if vm_older_than "$t0" "$2"; then
			local cons=$s_console
			[ "$f" = "$share/client.rc" ] && cons=$c_console
			vm_fail_msg "$3: nothing after waiting $(vm_elapsed "$t0") s" "$cons"
			return 1
		fi
		if [ $((kill_planned + crash_planned)) -gt 0 ] && [ $((killed + crashed)) = 0 ]; then sleep 0.05; else sleep 0.2; fi
	done
}
