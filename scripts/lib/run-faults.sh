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
		local cur high w0 c0 c1 got sq=0 kinds
		# (a cgroup that cannot be read or set is recorded, rc 1: never a
		# run that silently went without its fault)
		cur=$(mp_usage) || { cur=0 rc=1; }
		high=$((cur / 4))
		c0=$(mp_counters) kinds=$(mp_kinds) w0=$(awk '$1 == "nr_written" { print $2 }' /proc/vmstat)
		phase "fault: $(mp_knob) of the writer's cgroup $cur -> $high bytes for $down s"
		t1=$(now_ns)
		if [ $rc = 0 ]; then
			got=$(mp_squeeze "$high") || rc=1
			sq=$(mp_usage) || sq=0 # what the squeeze reclaimed at once
			nap "$down"
			mp_release || rc=1
		fi
		t2=$(now_ns) c1=$(mp_counters)
		phase "fault: memory-pressure over ($(mp_knob) back to max)"
		# shellcheck disable=SC2207 # option words without spaces
		extra=(--int "t_end_real_ns=$t2" --str "cgroup=v$mp_v" --str "knob=$(mp_knob)"
			--int "memory_current_bytes=$cur" --int "limit_bytes=${got:-$high}" --int "usage_squeezed_bytes=$sq"
			$kinds $(mp_deltas "$c0" "$c1")
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
		# (no child where a Ctrl-C to the process group may land: under
		# set -e a child it ends ends the run, exit 130, seen; below too)
		t_poll=${EPOCHREALTIME/[.,]/}000 # an outage began when its first failed poll was sent
		# an attached client asks about its run by id, at its phase
		if ! if [ -n "$attach" ]; then ctl --timeout 2 get "/v1/runs/$run_id"; else ctl --timeout 2 status; fi \
			> "$work/status.new" 2>"$work/status.err"; then
			sleep 0.2 || true # a Ctrl-C reaches stalewin-ctl first; the trap runs after it
			[ $interrupted = 1 ] && break
			now=${EPOCHREALTIME/[.,]/}000
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
			backoff=$(awk -v b="$backoff" 'BEGIN { b *= 2; printf "%.1f", (b > 2 ? 2 : b) }') || backoff=2
			continue
		fi
		mv "$work/status.new" "$work/status.json" || continue
		if [ -n "$out_t0" ]; then
			now=$t_poll # the first poll that was answered
			phase "control API answers again after $(awk -v d=$((now - out_t0)) 'BEGIN { printf "%.1f", d / 1e9 }') s ($out_n failed polls)"
			rf_fault --str kind=control-outage --int "t_start_real_ns=$out_t0" --int "t_end_real_ns=$now" --int "attempts=$out_n"
			out_t0="" backoff=0.2
		fi
		[ "$(jq -r .active "$work/status.json")" = true ] || { state=$(jq -r '.status.state // "?"' "$work/status.json") || state="?"; break; }
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
# The writer's serve (and so its run child) starts in a child of
# stalewin-run's own memory cgroup (mp_create, server_side); at S the fault
# squeezes it to a quarter of what it uses for D s: the kernel reclaims,
# and writes back, the writer's dirty pages of the export's file (native:
# the writer logs the times the kernel changed; its stores fault again).
# cgroup v2: memory.high (reclaim above it, never an OOM kill).  cgroup v1
# (a v1 or hybrid host; memory.high is v2's): memory.limit_in_bytes, the
# only v1 knob that reclaims at once; a limit the kernel cannot reclaim
# down to is refused (EBUSY) and raised by eighths of the usage until it
# is taken, and it is never below the cgroup's anonymous memory + 256 KiB,
# so what the kernel must reclaim is the file's pages, never the
# writer's own (a limit under those would OOM-kill it).  faults.json names the knob
# and the limit taken.  mp_v: 1 or 2, set by mp_where.
mp_v=""
mp_own() { sed -n 's/^0:://p' /proc/self/cgroup; }
# mp_where: "2 DIR" or "1 DIR", this process's memory cgroup, else why
# not (stdout, rc 1)
mp_where() {
	local own t
	t=$(stat -f -c %T /sys/fs/cgroup 2>/dev/null || echo nothing)
	if [ "$t" = cgroup2fs ]; then
		own=/sys/fs/cgroup$(mp_own)
		echo "2 ${own%/}"
		return 0
	fi
	own=$(sed -n 's/^[0-9]*:\([^:]*,\)\{0,1\}memory\(,[^:]*\)\{0,1\}:\(.*\)/\3/p' /proc/self/cgroup)
	if [ -n "$own" ] && [ "$(stat -f -c %T /sys/fs/cgroup/memory 2>/dev/null)" = cgroupfs ]; then
		own=/sys/fs/cgroup/memory$own
		echo "1 ${own%/}"
		return 0
	fi
	echo "expected cgroup v2 at /sys/fs/cgroup or a v1 memory hierarchy at /sys/fs/cgroup/memory, saw $t at /sys/fs/cgroup and no v1 memory controller in /proc/self/cgroup"
	return 1
}
mp_check() { # empty when the squeeze can be done here, else why not (rc 1)
	local w own
	w=$(mp_where) || { echo "$w"; return 1; }
	own=${w#* }
	[ -w "$own" ] || { echo "expected this process's memory cgroup $own writable, saw it read-only"; return 1; }
	if [ "${w%% *}" = 2 ]; then
		[[ " $(cat "$own/cgroup.controllers" 2>/dev/null) " == *" memory "* ]] ||
			{ echo "expected the memory controller in $own/cgroup.controllers, saw '$(cat "$own/cgroup.controllers" 2>/dev/null)'"; return 1; }
	else
		[ -w "$own/memory.limit_in_bytes" ] ||
			{ echo "expected $own/memory.limit_in_bytes writable (cgroup v1), saw it missing or read-only"; return 1; }
	fi
	return 0
}
mp_create() { # sets mem_cg, the cgroup the serve is started in (in_cg)
	local own e w
	# checked again here: nothing is written under /sys/fs/cgroup unless
	# it is a cgroup hierarchy
	e=$(mp_check) || fail "--fault memory-pressure: $e"
	w=$(mp_where); mp_v=${w%% *} own=${w#* }
	if [ "$mp_v" = 2 ] && [[ " $(cat "$own/cgroup.subtree_control") " != *" memory "* ]]; then
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
mp_knob() { [ "$mp_v" = 1 ] && echo memory.limit_in_bytes || echo memory.high; }
mp_usage() { # bytes the cgroup uses now
	if [ "$mp_v" = 1 ]; then cat "$mem_cg/memory.usage_in_bytes"; else cat "$mem_cg/memory.current"; fi 2>>"$work/fault.err"
}
# the reclaim counters, as "name=value ..." (v2: memory.stat's pgscan and
# pgsteal, memory.events' high; v1 has none of these: memory.stat's
# pgpgout, pages uncharged, and memory.failcnt, the limit's hits)
mp_counters() {
	if [ "$mp_v" = 1 ]; then
		echo "pgpgout=$(mp_stat pgpgout memory.stat) failcnt=$(cat "$mem_cg/memory.failcnt" 2>/dev/null || echo 0)"
	else
		echo "pgscan=$(mp_stat pgscan memory.stat) pgsteal=$(mp_stat pgsteal memory.stat) high_events=$(mp_stat high memory.events)"
	fi
}
# the cgroup's memory by kind now, as fault options (v1's names mapped to
# v2's): what the squeeze had to work with (a page is charged to whoever
# brought it into the cache)
mp_kinds() {
	local v1=(rss cache mapped_file dirty writeback) v2=(anon file file_mapped file_dirty file_writeback) i k
	for i in 0 1 2 3 4; do
		k=${v2[$i]}; [ "$mp_v" = 1 ] && k=${v1[$i]}
		echo "--int ${v2[$i]}_bytes=$(mp_stat "$k" memory.stat)"
	done
}
mp_deltas() { # BEFORE AFTER: --int name=after-before for each counter
	local b a k
	for a in $2; do
		k=${a%%=*}
		for b in $1; do [ "${b%%=*}" = "$k" ] && echo "--int $k=$(( ${a#*=} - ${b#*=} ))"; done
	done
}
mp_squeeze() { # BYTES: set the squeeze; prints the limit taken
	if [ "$mp_v" = 2 ]; then
		echo "$1" > "$mem_cg/memory.high" 2>>"$work/fault.err" && echo "$1"
		return
	fi
	local cur lim floor step
	cur=$(mp_usage) || return 1
	floor=$(( $(mp_stat rss memory.stat) + (256 << 10) ))
	lim=$(( $1 > floor ? $1 : floor )) step=$(( cur / 8 > 4096 ? cur / 8 : 4096 ))
	while [ "$lim" -lt "$cur" ]; do
		echo "$lim" > "$mem_cg/memory.limit_in_bytes" 2>/dev/null && { echo "$lim"; return 0; }
		lim=$((lim + step)) # EBUSY: the kernel could not reclaim down to it
	done
	echo "$prog: memory.limit_in_bytes: no limit below the usage $cur bytes was taken (the floor, anonymous memory + 256 KiB, was $floor)" >>"$work/fault.err"
	return 1
}
mp_release() {
	if [ "$mp_v" = 1 ]; then echo -1 > "$mem_cg/memory.limit_in_bytes"; else echo max > "$mem_cg/memory.high"; fi 2>>"$work/fault.err"
}
