# run-host.sh - the host path's own processes (sourced by
# scripts/stalewin-run, never run): the export and the writer's serve
# (server_side), the first-record waits, stopping both sides and the
# clean-up.  Reads and sets stalewin-run's globals.

pid_alive() { [ -n "$1" ] && [ -d "/proc/$1" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]; }
stop_pid() { # pid [grace_s]
	local p=$1 g=${2:-10} i
	pid_alive "$p" || { wait "$p" 2>/dev/null || true; return 0; }
	kill -TERM "$p" 2>/dev/null || true
	for ((i = 0; i < g * 20; i++)); do pid_alive "$p" || break; sleep 0.05; done
	pid_alive "$p" && { echo "$prog: PID $p ignored SIGTERM for ${g}s, killing it" >&2; kill -KILL "$p" 2>/dev/null || true; }
	wait "$p" 2>/dev/null || true
}

finish_sides() { # stop writer run, probes; fetch; idempotent
	[ $stopped = 1 ] && return 0
	stopped=1
	set +e # a second Ctrl-C kills our children: keep going regardless
	local p
	# a fault still pending or in progress: end it (heal, resume) and keep
	# its record; one scheduled after the end never happened
	for p in "${fault_pids[@]}"; do pid_alive "$p" && kill -TERM "$p" 2>/dev/null; done
	for p in "${fault_pids[@]}"; do wait "$p" 2>/dev/null; done
	fault_pids=()
	if [ $started = 1 ] && [ -n "$attach" ]; then # the lead's writer: never stopped by a client
		ctl --timeout 5 get "/v1/runs/$run_id" > "$work/stop.json" 2>"$work/stop.err" || rm -f "$work/stop.json"
		sleep 0.5 || true
	elif [ $started = 1 ]; then
		ctl --timeout "$([ $gave_up = 1 ] && echo 5 || echo 60)" stop > "$work/stop.json" 2>"$work/stop.err" ||
			echo "$prog: stop: $(cat "$work/stop.err")" >&2
		sleep 0.5 || true # let the probes see the writer's last update (munmap)
	fi
	for p in "${probe_pids[@]}" "${reader_pids[@]}"; do stop_pid "$p" 10; done
	probe_pids=() reader_pids=()
	[ -z "$progress_pid" ] || { touch "$work/progress.stop"; wait "$progress_pid" 2>/dev/null; progress_pid=""; }
	# the reserve goes now: what follows (writer log, meta, report) fits
	rm -f "$RUN/.space-reserve"
	for p in "$work"/probe-*.stderr "$work"/kread-*.stderr; do [ -f "$p" ] && cp "$p" "$RUN/" 2>/dev/null; done
	for p in "${probe_exits[@]}"; do # "i t_ns code"
		set -- $p
		rf_fault --str kind=probe-exit --int "probe=$1" --int "t_start_real_ns=$2" --int "exit_code=$3"
	done
	probe_exits=()
	if [ $started = 1 ]; then
		attach_nap # an attached client samples at its phase
		ctl clock --samples 50 --json > "$work/clock-after.json" 2>"$work/clock.err" ||
			echo "$prog: clock after the run: $(cat "$work/clock.err")" >&2
		if ! ctl fetch "$run_id" "$RUN/writer.swlog" 2>"$work/fetch.err"; then
			echo "$prog: fetch: $(cat "$work/fetch.err")" >&2
			# one host: the file is ours to copy
			[ -n "$writer_url" ] || cp "$work/wruns/$run_id/writer.swlog" "$RUN/writer.swlog" 2>/dev/null || true
		fi
		ctl fetch "$run_id" "$RUN/server/writer-stderr.txt" --stderr 2>/dev/null || true
	fi
	set -e
}

cleanup() {
	local rc=$?
	trap - EXIT
	trap '' INT TERM # the clean-up itself is not interrupted
	finish_sides || true
	set +e
	[ -n "$serve_pid" ] && stop_pid "$serve_pid" 30
	mp_remove
	[ "${root:-}" != "$work/export" ] || rm -f "$root"/.sw-enospc-filler-* 2>/dev/null
	if [ -f "$gstate/ns" ]; then
		cp "$gstate/ganesha.conf" "$gstate/ganesha.log" "$RUN/server/" 2>/dev/null || true
		cp "$gstate/console.log" "$RUN/server/ganesha-console.log" 2>/dev/null || true
		"$GNS" down --state "$gstate" >/dev/null 2>&1 || echo "$prog: ganesha-ns down failed; see $gstate" >&2
	fi
	[ -f "$work/serve.log" ] && cp "$work/serve.log" "$RUN/server/control.log"
	local m
	for ((m = ${#mounted[@]} - 1; m >= 0; m--)); do
		umount "${mounted[$m]}" 2>/dev/null || umount -l "${mounted[$m]}" 2>/dev/null ||
			echo "$prog: could not unmount ${mounted[$m]}" >&2
	done
	rm -rf "$work" 2>/dev/null || true
	sw_claim_release # the run folder is no longer ours alone
	exit $rc
}
on_signal() {
	if [ $started = 0 ] && [ "${starting:-0}" = 0 ]; then
		echo "$prog: interrupted before the run started; cleaning up" >&2
		exit 130
	fi
	interrupted=1
	phase "interrupted: stopping the writer and the probes, keeping the logs"
}

# wait_first PID LOG RECORD HEAD STDERR WHAT: until PID's log LOG holds a
# RECORD among its first HEAD lines (10 s); fails with WHAT when PID ends
# before it (STDERR's last lines shown)
wait_first() {
	local got
	for _ in $(seq 100); do
		pid_alive "$1" || { tail -n 3 "$5" >&2; fail "$6"; }
		got=$({ stalewin-logdump "$2" 2>/dev/null | head -n "$4" | awk -v r="$3" '$2 == r' | wc -l; } || true)
		[ "${got:-0}" -gt 0 ] && break
		sleep 0.1
	done
}

# server_side: the export (built-in ganesha in a namespace, or --server's,
# or --writer-url's), the writer's serve, the control API checked, the
# clock offset estimated before the run.  Sets root base url tok wfile
# in_ns fsargs CTL_NS and ctl().
server_side() {
	tok=$work/token
	wfile=data-$stamp.dat
	nfs_q() { # version -> query string for the probe URL
		local q="version=$1"
		[ -n "${SW_NFS_PORT:-}" ] && q="$q&nfsport=$SW_NFS_PORT&mountport=$SW_MNT_PORT"
		[ -n "$server_q" ] && q="$q&$server_q"
		echo "$q"
	}
	in_ns=()
	server_q="" # the user's URL arguments (nfsport=, mountport=, ...), minus version=
	[[ $server == *\?* ]] && server_q=$(tr '&' '\n' <<< "${server#*\?}" | grep -v '^version=' | paste -sd '&')
	if [ -n "$writer_url" ]; then
		url=$writer_url tok=$token_file wfile=${writer_file:-$wfile}
		base=${server%%\?*}; base=${base%/}
		fsargs=(--str filesystem.type=remote)
	elif [ -n "$server" ]; then
		root=$(cd "$server_dir" && pwd)
		base=${server%%\?*}; base=${base%/}
		fsargs=(--str "filesystem.type=$(stat -f -c %T "$root")" --str "filesystem.dir=$root"
			--str "filesystem.mount_options=$(findmnt -n -o OPTIONS --target "$root" 2>/dev/null || true)")
	else
		root=$work/export
		mkdir -p "$root"
		case $fs in
		tmpfs)
			mount -t tmpfs -o size=512m,mode=0755 sw-run "$root" || fail "cannot mount a tmpfs on $root"
			mounted+=("$root") ;;
		ext4|ext4-lazytime)
			command -v mkfs.ext4 >/dev/null || fail "mkfs.ext4 not installed (Debian e2fsprogs)"
			truncate -s 256M "$work/ext4.img"
			mkfs.ext4 -q -F "$work/ext4.img" >/dev/null 2>&1 || fail "mkfs.ext4 on $work/ext4.img failed"
			mo=loop; [ $fs = ext4-lazytime ] && mo=loop,lazytime
			mount -o "$mo" "$work/ext4.img" "$root" || fail "cannot loop-mount ext4 ($mo) on $root"
			mounted+=("$root") ;;
		esac
		fsargs=(--str "filesystem.type=$fs" --str "filesystem.mount_options=$(findmnt -n -o OPTIONS --target "$root")"
			--str "filesystem.source=$(findmnt -n -o SOURCE --target "$root")")
		phase "starting nfs-ganesha in a private network namespace ($fs export)"
		if ! setsid "$GNS" up --state "$gstate" --export "$root" > "$work/gns.env" 2>"$work/gns.err"; then
			cat "$work/gns.err" >&2
			fail "nfs-ganesha did not start (its log's last lines above; full log in $RUN/server/)"
		fi
		# shellcheck disable=SC1090
		. "$work/gns.env"
		base="nfs://127.0.0.1$SW_EXPORT_0"
		in_ns=("$GNS" exec --state "$gstate" --)
	fi

	if [ -z "$writer_url" ]; then
		phase "starting stalewin-writer serve${in_ns:+ inside the namespace}"
		in_cg=()
		[ -z "$mem_cg" ] || mp_create # memory-pressure: the serve in a cgroup of its own
		setsid "${in_cg[@]}" "${in_ns[@]}" stalewin-writer serve --listen 127.0.0.1:0 --token-file "$tok" \
			--root "$root" --runs "$work/wruns" --url-file "$work/url" \
			> "$work/serve.log" 2>&1 < /dev/null &
		serve_pid=$!
		for _ in $(seq 200); do [ -s "$work/url" ] && break; pid_alive "$serve_pid" || break; sleep 0.05; done
		[ -s "$work/url" ] || { tail -n 5 "$work/serve.log" >&2; fail "stalewin-writer serve did not come up"; }
		url=$(cat "$work/url")
	fi
	# the control API is reached from where the probes run
	CTL_NS=("${in_ns[@]}")
	ctl() { "${CTL_NS[@]}" stalewin-ctl --url "$url" --token-file "$tok" "$@"; }

	set +e
	ctl info > "$work/info.json" 2>"$work/ctl.err"
	crc=$?
	set -e
	if [ $crc != 0 ]; then
		[ $crc = 4 ] && fail "the writer at $url refused the token in $tok (HTTP 401): use the token file its serve wrote at start"
		[ $crc = 5 ] && fail "the token in $tok was not sent to $url: $(sed 's/^stalewin-ctl: //' "$work/ctl.err" | tail -n 1)"
		fail "expected stalewin-writer serve answering at $url, saw: $(sed 's/^stalewin-ctl: //' "$work/ctl.err" | tail -n 1) (is it running there, listening on an address this host reaches?)"
	fi
	phase "clock offset estimate (before)"
	attach_nap # an attached client samples at its phase (run-attach.sh)
	ctl clock --samples 100 --json > "$work/clock-before.json" 2>"$work/ctl.err" ||
		{ cat "$work/ctl.err" >&2; fail "clock estimate failed"; }
	cerr=$(jq .err_ns "$work/clock-before.json")
	if [ "$cerr" -gt $((max_clock_err_us * 1000)) ]; then
		fail "clock offset error +-$((cerr / 1000)) us is larger than --max-clock-err-us $max_clock_err_us: windows would not be resolved; use a closer network path or raise the limit"
	fi
}
