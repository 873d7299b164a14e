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
	case $kind in writer-kill|probe-kill) ;; *) extra+=(--int "t_end_real_ns=$(now_ns)") ;; esac
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
		if ! ctl --timeout 2 status > "$work/status.new" 2>"$work/status.err"; then
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
		sleep 0.5 || true
	done
}
