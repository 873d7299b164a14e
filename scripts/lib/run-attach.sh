# run-attach.sh - many clients on one writer run (sourced by
# scripts/stalewin-run, never run).  The lead announces its run id when it
# creates the file (stalewin-ctl prepare run-id=ID) and, with
# --wait-clients N, starts the writer only once N clients have joined
# (lead_wait_clients).  An attached client (--attach ID) looks the run up
# (attach_lookup), starts its probes, joins the run once they have a
# first reply (attach_join), waits for the lead's start (attach_wait_start)
# and then runs as a client of a remote writer does, never stopping the
# writer.  Reads and sets stalewin-run's globals.

# The client's phase in the control API's sampling: FNV-1a (32 bits) of
# the client id, modulo --jitter-ms.  Each clock estimate and each status
# poll of an attached client starts at its phase within the period, so a
# hundred clients spread their samples over the period instead of sending
# them at once; the same id always gets the same phase (a rerun samples as
# the run before it did).
attach_phase_ms() { # ID PERIOD_MS
	local h=2166136261 i c
	for ((i = 0; i < ${#1}; i++)); do
		printf -v c '%d' "'${1:i:1}"
		h=$(( ((h ^ (c & 255)) * 16777619) & 0xffffffff ))
	done
	echo $((h % $2))
}

# attach_nap: sleep until this client's phase in the current period
attach_nap() {
	[ -n "$attach" ] || return 0
	local now_ms
	now_ms=$(( $(date +%s%N) / 1000000 ))
	sleep "$(awk -v d=$(( (jitter_phase_ms - now_ms % jitter_ms + jitter_ms) % jitter_ms )) 'BEGIN { printf "%.3f", d / 1000 }')" || true
}

# attach_arg KEY: the value of the writer's --KEY=V in the run's argv
attach_arg() { jq -r --arg k "--$1=" '[.argv[]? | select(startswith($k)) | ltrimstr($k)] | first // empty' "$work/attach.json"; }

# attach_lookup: GET /v1/runs/ID; the run must be pending or running.
# Sets wfile (relative to the writer's root), policy, workload, duration,
# size from the lead's run; dies (exit 2) naming expected and seen.
attach_lookup() {
	local state wroot f
	if ! ctl get "/v1/runs/$attach" > "$work/attach.json" 2>"$work/ctl.err"; then
		grep -q 'HTTP 404' "$work/ctl.err" &&
			die "--attach $attach: $(sed 's/^.*"error":"\(.*\)"}.*$/\1/; s/\\"/"/g' "$work/ctl.err" | tail -n 1)"
		fail "--attach $attach: $(tail -n 1 "$work/ctl.err")"
	fi
	state=$(jq -r '.state // "?"' "$work/attach.json")
	case $state in
	pending|running) ;;
	ended) die "--attach $attach: expected a run pending or running on $url, saw it ended (exit code $(jq -r '.exit_code // "?"' "$work/attach.json")): attach before the lead's run ends" ;;
	*) fail "--attach $attach: expected the run's state (pending, running, ended) from $url, saw '$state' (a writer's serve older than --attach?)" ;;
	esac
	f=$(jq -r '.file // empty' "$work/attach.json")
	wroot=$(jq -r '.root // empty' "$work/info.json")
	[ -n "$f" ] || fail "--attach $attach: the writer does not say which file the run writes"
	[ -n "$writer_file" ] || { wfile=${f#"$wroot"/}; [ "$wfile" != "$f" ] || fail "--attach $attach: its file $f is not under the writer's root $wroot"; }
	if [ "$state" = running ]; then
		policy=$(attach_arg policy) workload=$(attach_arg workload) duration=$(attach_arg duration)
	fi
	phase "attached to run $attach ($state, file $wfile, $(jq -r .clients "$work/attach.json") client(s) joined so far)"
}

# attach_join: this client's probes are ready: join the run.  Sets
# joined_before_start (false: the writer had started, so stores before
# this client's first replies are not all measured from the run's start).
attach_join() {
	ctl join "$attach" "$client_id" > "$work/join.json" 2>"$work/ctl.err" ||
		{ grep -q 'HTTP 40[49]' "$work/ctl.err" && die "--attach $attach: $(tail -n 1 "$work/ctl.err")"; fail "--attach $attach: join: $(tail -n 1 "$work/ctl.err")"; }
	joined_before_start=true
	[ "$(jq -r .state "$work/join.json")" = pending ] || {
		joined_before_start=false
		phase "note: joined run $attach after its writer started: this client measures from its first replies, not from the run's start"
	}
	phase "joined run $attach as client $client_id ($(jq -r .clients "$work/join.json") joined)"
}

# attach_wait_start: poll at this client's phase until the lead starts
# the writer (--wait-timeout SEC), then take the run's options
attach_wait_start() {
	local t_end=$((SECONDS + wait_timeout)) state
	while :; do
		ctl --timeout 5 get "/v1/runs/$attach" > "$work/attach.json" 2>"$work/ctl.err" || true
		state=$(jq -r '.state // "?"' "$work/attach.json" 2>/dev/null || echo '?')
		case $state in running|ended) break ;; esac
		[ $interrupted = 0 ] || fail "interrupted before the lead started run $attach"
		[ $SECONDS -lt $t_end ] || fail "--attach $attach: expected the lead to start the run within --wait-timeout $wait_timeout s, saw it still $state"
		sleep 1; attach_nap
	done
	policy=$(attach_arg policy) workload=$(attach_arg workload) duration=$(attach_arg duration)
	[ -n "$duration" ] || fail "--attach $attach: the run's argv names no --duration"
	jq '{run_id, pid, state, argv, status}' "$work/attach.json" > "$work/start.json"
	started=1
}

# lead_wait_clients: until N clients joined the run (GET /v1/runs/ID,
# "clients"), at most --wait-timeout s; then the writer starts whatever
# came (the count goes to meta.json: clients_joined)
lead_wait_clients() {
	local t_end=$((SECONDS + wait_timeout)) n=0 how="" q=""
	# how a client attaches: from the built-in ganesha's namespace, with its ports
	[ ! -f "$gstate/ns" ] || how="ip netns exec $(cat "$gstate/ns") " q="?nfsport=$SW_NFS_PORT&mountport=$SW_MNT_PORT"
	phase "waiting for $wait_clients client(s) to join run $run_id (up to $wait_timeout s): ${how}stalewin run --attach $run_id --writer-url $url --token-file $tok --server '$base$q'"
	while :; do
		n=$(ctl --timeout 5 get "/v1/runs/$run_id" 2>/dev/null | jq -r '.clients // 0' || echo 0)
		[ "${n:-0}" -ge "$wait_clients" ] && break
		[ $interrupted = 0 ] || fail "interrupted while waiting for clients"
		[ $SECONDS -lt $t_end ] || { phase "warning: $n of $wait_clients client(s) joined within $wait_timeout s: starting with those"; break; }
		sleep 0.2
	done
	clients_joined=${n:-0}
	phase "$clients_joined client(s) joined run $run_id"
}
