# run-faults.sh - the host path's faults (sourced by scripts/stalewin-run,
# never run): each --fault injected in the background (inject_fault), the
# run watched through control-API outages (watch_run), and every fault or
# outage recorded in faults.json (rf_fault).
now_ns() { date +%s%N; }
rf_fault() { # stalewin-runfolder fault options: one entry of faults.json
	stalewin-runfolder fault "$RUN" "$@" 2>>"$work/fault.err" ||
		echo "$prog: cannot record a fault in $RUN/faults.json: $(tail -n 1 "$work/fault.err")" >&2
}
# KIND@SEC[:DOWN], in the background: wait until SEC after the writer's
# start, do it, undo it DOWN s later, record it.  SIGTERM (finish_sides)
# cuts the wait short: a fault not begun never happens, one in progress is
# undone at once and recorded as aborted.
inject_fault() {
	local spec=$1 kind at down t1 t2="" t3="" rc=0 sp="" aborted=false left on off extra=()
	sw_fault_split "$spec"
	kind=$fault_kind at=$fault_at down=$fault_down
	trap 'aborted=true; [ -n "$sp" ] && kill "$sp" 2>/dev/null' TERM
	nap() { sleep "$1" & sp=$!; wait "$sp" 2>/dev/null || true; sp=""; }
	left=$(awk -v n="$(now_ns)" -v t="$t_start_real_ns" -v a="$at" \
		'BEGIN { d = a - (n - t) / 1e9; printf "%.3f", (d > 0 ? d : 0) }')
	nap "$left"
	[ $aborted = true ] && return 0
	t1=$(now_ns)
	case $kind in
	ganesha-restart)
		phase "fault: killing nfs-ganesha for $down s, then restarting it"
		"$GNS" kill --state "$gstate" 2>>"$work/fault.err" || rc=$?
		t2=$(now_ns); nap "$down"; t3=$(now_ns)
		"$GNS" restart --state "$gstate" >/dev/null 2>>"$work/fault.err" || rc=$?
		extra=(--int "t_killed_real_ns=$t2" --int "t_restart_real_ns=$t3" --int "restart_rc=$rc") ;;
	ganesha-pause|partition)
		on=pause off=resume; [ "$kind" = partition ] && on=partition off=heal
		phase "fault: $kind for $down s (ganesha-ns $on, then $off)"
		"$GNS" "$on" --state "$gstate" 2>>"$work/fault.err" || rc=$?
		nap "$down"
		"$GNS" "$off" --state "$gstate" 2>>"$work/fault.err" || rc=$?
		phase "fault: $kind over ($off)"
		extra=(--int "rc=$rc") ;;
	memory-pressure)
		local cur high s0 g0 w0 h0
		# (a cgroup that cannot be read or set is recorded, rc 1: never a
		# run that silently went without its fault)
		cur=$(cat "$mem_cg/memory.current" 2>>"$work/fault.err") || { cur=0 rc=1; }
		high=$((cur / 4))
		s0=$(mp_stat pgscan memory.stat) g0=$(mp_stat pgsteal memory.stat) w0=$(awk '$1 == "nr_written" { print $2 }' /proc/vmstat)
		h0=$(mp_stat high memory.events)
		phase "fault: memory.high of the writer's cgroup $cur -> $high bytes for $down s"
		t1=$(now_ns)
		if [ $rc = 0 ]; then
			echo "$high" > "$mem_cg/memory.high" 2>>"$work/fault.err" || rc=1
			nap "$down"
			echo max > "$mem_cg/memory.high" 2>>"$work/fault.err" || rc=1
		fi
		t2=$(now_ns)
		phase "fault: memory-pressure over (memory.high max)"
		extra=(--int "t_end_real_ns=$t2" --int "memory_current_bytes=$cur" --int "memory_high_bytes=$high"
			--int "pgscan=$(( $(mp_stat pgscan memory.stat) - s0 ))"
			--int "pgsteal=$(( $(mp_stat pgsteal memory.stat) - g0 ))"
			--int "high_events=$(( $(mp_stat high memory.events) - h0 ))"
			--int "vm_nr_written=$(( $(awk '$1 == "nr_written" { print $2 }' /proc/vmstat) - w0 ))"
			--int "rc=$rc") ;;
	enospc)
		# stalewin-writer fill (server/fill.c): fillers to what statvfs
		# says is free, root's reserve included, then a new 4 KiB file
		# written and fsync'ed (refused when the file system is full)
		phase "fault: filling the export's file system ($(df -B1 --output=avail "$root" | tail -n 1 | tr -d ' ') bytes available)"
		t1=$(now_ns)
		local got
		got=$(stalewin-writer fill "$root" 2>>"$work/fault.err") || rc=1
		# shellcheck disable=SC2206 # option words without spaces
		extra=($got --int "rc=$rc") ;;
	writer-kill)
		local wp; wp=$(jq -r '.pid // empty' "$work/start.json")
		phase "fault: SIGKILL the writer's run (PID $wp)"
		t1=$(now_ns)
		[ -n "$wp" ] && kill -KILL "$wp" 2>>"$work/fault.err" || rc=1
		extra=(--int "pid=${wp:-0}" --int "rc=$rc" --bool cut_short=true) ;;
	probe-kill)
		phase "fault: SIGKILL probe 0 (PID ${probe_pids[0]})"
		t1=$(now_ns)
		kill -KILL "${probe_pids[0]}" 2>>"$work/fault.err" || rc=1
		extra=(--int "pid=${probe_pids[0]}" --int probe=0 --int "rc=$rc") ;;
	esac
	case $kind in writer-kill|probe-kill|enospc|memory-pressure) ;; *) extra+=(--int "t_end_real_ns=$(now_ns)") ;; esac
	[ $rc = 0 ] || extra+=(--bool cut_short=true) # not undone: what followed is unknown
	rf_fault --str "kind=$kind" --str "spec=$spec" --int "t_start_real_ns=$t1" "${extra[@]}" \
		--bool "aborted=$aborted"
}

# watch_run: poll the writer's status until its run ends (sets state) or
# the user interrupts; a probe that ends early is noted (probe_exits).
# The control API may stop answering (a partition, a busy host): retry
# with back-off until the planned end + --outage-grace, record each
# outage; past that, give up (gave_up=1).
watch_run() {
	local out_t0="" out_n=0 backoff=0.2 t_poll now prc i
	while :; do
		[ $interrupted = 1 ] && break
		t_poll=$(now_ns) # an outage began when its first failed poll was sent
		# an attached client asks about its run by id, at its phase
		if ! if [ -n "$attach" ]; then ctl --timeout 2 get "/v1/runs/$run_id"; else ctl --timeout 2 status; fi \
			> "$work/status.new" 2>"$work/status.err"; then
			sleep 0.2 || true # a Ctrl-C reaches stalewin-ctl first; the trap runs after it
			[ $interrupted = 1 ] && break
			now=$(now_ns)
			if [ -z "$out_t0" ]; then
				out_t0=$t_poll out_n=0
				phase "control API not answering ($(tail -n 1 "$work/status.err")): the writer runs on; retrying until its planned end + ${grace} s"
			fi
			out_n=$((out_n + 1))
			if [ "$now" -gt "$deadline_ns" ]; then
				phase "control API still not answering $(( (now - out_t0) / 1000000000 )) s after the outage began, past the planned end + ${grace} s: giving up"
				# (no end: it lasted past the run; whether anything was lost is
				# the logs' to say: the report checks each for its END)
				rf_fault --str kind=control-outage --int "t_start_real_ns=$out_t0" --int "attempts=$out_n"
				gave_up=1
				break
			fi
			sleep "$backoff" || true
			backoff=$(awk -v b="$backoff" 'BEGIN { b *= 2; printf "%.1f", (b > 2 ? 2 : b) }')
			continue
		fi
		mv "$work/status.new" "$work/status.json"
		if [ -n "$out_t0" ]; then
			now=$t_poll # the first poll that was answered
			phase "control API answers again after $(awk -v d=$((now - out_t0)) 'BEGIN { printf "%.1f", d / 1e9 }') s ($out_n failed polls)"
			rf_fault --str kind=control-outage --int "t_start_real_ns=$out_t0" --int "t_end_real_ns=$now" --int "attempts=$out_n"
			out_t0="" backoff=0.2
		fi
		[ "$(jq -r .active "$work/status.json")" = true ] || { state=$(jq -r '.status.state // "?"' "$work/status.json"); break; }
		for ((i = 0; i < probes; i++)); do # a probe that ended before the run
			[ -n "${probe_seen_dead[$i]:-}" ] && continue
			pid_alive "${probe_pids[$i]}" && continue
			probe_seen_dead[$i]=1
			wait "${probe_pids[$i]}" 2>/dev/null && prc=0 || prc=$?
			[[ " ${faults[*]} " == *" probe-kill@"* ]] && [ $i = 0 ] && continue # our own fault
			phase "probe $i exited early (exit $prc): $(tail -n 1 "$work/probe-$i.stderr" 2>/dev/null)"
			probe_exits+=("$i $(now_ns) $prc")
		done
		if [ -n "$attach" ]; then sleep 0.5; attach_nap; else sleep 0.5 || true; fi
	done
}

# ------------------------------------------------------- memory-pressure
# The writer's serve (and so its run child) starts in a cgroup v2 child of
# stalewin-run's own cgroup (mp_create, server_side); at S the fault sets
# its memory.high to a quarter of what it uses for D s: the kernel reclaims,
# and writes back, the writer's dirty pages of the export's file (native:
# the writer logs the times the kernel changed; its stores fault again).
# mp_check: empty when that can be done here, else why not (stdout, rc 1).
mp_own() { sed -n 's/^0:://p' /proc/self/cgroup; }
mp_check() {
	local own
	[ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ] ||
		{ echo "expected cgroup v2 mounted at /sys/fs/cgroup, saw $(stat -f -c %T /sys/fs/cgroup 2>/dev/null || echo nothing) (a v1 or hybrid hierarchy: memory.high is v2's)"; return 1; }
	own=/sys/fs/cgroup$(mp_own); own=${own%/}
	[ -w "$own" ] || { echo "expected this process's cgroup $own writable, saw it read-only"; return 1; }
	[[ " $(cat "$own/cgroup.controllers" 2>/dev/null) " == *" memory "* ]] ||
		{ echo "expected the memory controller in $own/cgroup.controllers, saw '$(cat "$own/cgroup.controllers" 2>/dev/null)'"; return 1; }
	return 0
}
mp_create() { # sets mem_cg, the cgroup the serve is started in (in_cg)
	local own e
	# checked again here: nothing is written under /sys/fs/cgroup unless
	# it is a cgroup v2 (on a hybrid host it is a tmpfs of the host's)
	e=$(mp_check) || fail "--fault memory-pressure: $e"
	own=/sys/fs/cgroup$(mp_own); own=${own%/}
	if [[ " $(cat "$own/cgroup.subtree_control") " != *" memory "* ]]; then
		echo +memory > "$own/cgroup.subtree_control" 2>/dev/null ||
			fail "--fault memory-pressure: cannot enable the memory controller below $own (cgroup v2 allows it only in a cgroup without processes of its own: run stalewin-run from a delegated, empty parent)"
	fi
	mem_cg=$own/sw-run-$$
	mkdir "$mem_cg" || fail "--fault memory-pressure: cannot create $mem_cg"
	in_cg=(sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$mem_cg")
}
mp_remove() { # after the serve has stopped: the cgroup, empty, goes
	[ -n "$mem_cg" ] && [ -d "$mem_cg" ] || return 0
	local i
	for ((i = 0; i < 50; i++)); do rmdir "$mem_cg" 2>/dev/null && return 0; sleep 0.1; done
	echo "$prog: could not remove the cgroup $mem_cg (processes left: $(tr '\n' ' ' < "$mem_cg/cgroup.procs"))" >&2
}
mp_stat() { # KEY FILE: a counter of memory.stat / memory.events
	awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$mem_cg/$2" 2>/dev/null || echo 0
}
