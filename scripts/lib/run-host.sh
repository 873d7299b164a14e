# run-host.sh - the host path's own processes (sourced by
# scripts/stalewin-run, never run): the export and the writer's serve
# (server_side), the file (prepare_file), the observers and their
# first-record waits (start_observers), stopping both sides, the run
# folder's clock and meta (write_folder) and the clean-up.  Reads and
# sets stalewin-run's globals.

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
	ctl() { "${CTL_NS[@]}" stalewin-ctl --url "$url" --token-file "$tok" ${client_id:+--client-id "$client_id"} "$@"; }

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

# prepare_file: the run id (the lead's when attached), the file created
# at its size under the writer's root before any observer starts (each
# then has a reference reply before the first store), each kernel mount
# checked to show it.  Sets run_id size_b (and the lead's run's names).
prepare_file() {
	# Room for the end of the run: if the logs fill the run folder's file
	# system, the reserve is freed when both sides have stopped, so the writer
	# log, meta.json, faults.json and the report still fit (a log that ended
	# early on ENOSPC is then named by the report).
	fallocate -l 8M "$RUN/.space-reserve" 2>/dev/null ||
		phase "warning: cannot reserve 8 MiB in $RUN ($(df -h --output=avail "$RUN" | tail -n 1 | tr -d ' ') free): if the logs fill it, the run's end cannot be written"
	# The file exists (at its size) before the probes start, so each has a
	# reference reply before the first store.
	# one run id for the writer and every probe log (the report checks it),
	# announced with the file so that other clients may join it (--attach)
	run_id=${attach:-${run_id_opt:-$(od -An -N8 -tx8 /dev/urandom | tr -d ' \n')}}
	if [ -n "$attach" ]; then
		attach_lookup # sets wfile, policy... from the lead's run; dies unless pending/running
		size=$(attach_arg size); size=${size:-1M}
	fi
	size_b=$(numfmt --from=iec "${size%[bB]}" 2>/dev/null) || die "expected --size BYTES (K/M/G suffix), saw '$size'"
	if [ -z "$attach" ]; then
		ctl prepare "file=$wfile" "size=$size_b" "run-id=$run_id" > "$work/prepare.json" 2>"$work/ctl.err" ||
			{ cat "$work/ctl.err" >&2; fail "the writer side refused to create $wfile under its root"; }
	fi
	# each kernel mount must show the file just created: else it mounts
	# another export (or another server) than the writer writes to
	for ((j = 0; j < ${#kmounts[@]}; j++)); do
		kd=${kmounts[$j]} ksrc=$(jq -r .source <<< "${kmount_json[$j]}")
		ksz=$(stat -c %s "$kd/$wfile" 2>/dev/null || echo none)
		# (an attached client may not know the size yet: the file must exist)
		[ "$ksz" = "$size_b" ] || { [ -n "$attach" ] && [ "$ksz" != none ]; } || die "--kernel-mount $kd: expected the file the writer just created, $wfile ($size_b bytes, under its root $(jq -r '.root // "?"' "$work/info.json"), exported as $base), at $kd/$wfile; saw $([ "$ksz" = none ] && echo "no such file" || echo "a file of $ksz bytes"): $kd mounts $ksrc, not the writer's export"
	done
}

# start_observers: the probes, then the kernel-mount readers, each waited
# for until its first record (as vm run's client guest starts them: before
# the writer, so each has read the file once before the first store).
start_observers() {
	urls=()
	IFS=, read -ra vlist <<< "$vers"
	for v in "${vlist[@]}"; do urls+=(--url "$base/$wfile?$(nfs_q "$v")"); done
	popts=(--duration 0 --rate "$probe_rate" --depth "$probe_depth" --quiet --run-id "$run_id")
	[ -n "$read_page" ] && popts+=(--read-page "$read_page" --read-every "${read_every:-10}")
	phase "starting $probes probe(s) on $base/$wfile (NFSv$vers)"
	for ((i = 0; i < probes; i++)); do
		setsid "${in_ns[@]}" stalewin-probe "${urls[@]}" --log "$RUN/probe-$i.swlog" "${popts[@]}" \
			> "$work/probe-$i.stderr" 2>&1 < /dev/null &
		probe_pids+=($!)
	done
	# wait until every probe has logged a reply (or died)
	for ((i = 0; i < probes; i++)); do
		wait_first "${probe_pids[$i]}" "$RUN/probe-$i.swlog" ATTR 20 "$work/probe-$i.stderr" "probe $i exited before its first reply"
	done

	# kernel-mount readers (as vm run's client guest starts them): before the
	# writer, so each has read the file once before the first store
	for ((j = 0; j < ${#kreaders[@]}; j++)); do
		set -- ${kreaders[$j]}
		kd=${kmounts[$2]}
		lab=${kmount_label:-$(jq -r .options <<< "${kmount_json[$2]}")}
		echo "$j $1 $lab $kd" >> "$work/readers.txt"
		setsid stalewin-reader --path "$kd/$wfile" --page "$reader_page" --every-ms "$reader_every" \
			--mode "$1" --log "$RUN/kread-$j.swlog" --duration 0 --run-id "$run_id" --quiet \
			> "$work/kread-$j.stderr" 2>&1 < /dev/null &
		reader_pids+=($!)
	done
	if [ ${#kreaders[@]} -gt 0 ]; then
		phase "started ${#kreaders[@]} kernel-mount reader(s) on ${kmounts[*]} (every $reader_every ms, page $reader_page)"
		kshared=true
		[ ${#kmounts[@]} -eq 2 ] && [ "$(jq -r .dev <<< "${kmount_json[0]}")" != "$(jq -r .dev <<< "${kmount_json[1]}")" ] && kshared=false
		[ $kshared = false ] ||
			phase "note: the kept-open and the close-to-open reader share one page cache (one superblock): a second mount made with nosharecache, as a second --kernel-mount, separates them"
	fi
	for ((j = 0; j < ${#reader_pids[@]}; j++)); do
		wait_first "${reader_pids[$j]}" "$RUN/kread-$j.swlog" KREAD 5 "$work/kread-$j.stderr" "kernel-mount reader $j exited before its first read"
	done

}

# write_folder: clock.json (or clock-measured.json on one host) and
# meta.json, by stalewin-runfolder, in the shape vm/run.sh writes too
# (common/runfolder.h); ns integers stay exact.
write_folder() {
	clock_name=clock-measured.json same_host=true # same host: offset is 0 exactly
	[ -n "$writer_url" ] && clock_name=clock.json same_host=false
	stalewin-runfolder clock "$RUN" --before "$work/clock-before.json" \
		--after "$work/clock-after.json" --name "$clock_name" || fail "cannot write $RUN/$clock_name"
	dpkg-query -W -f='${Package}\t${Version}\n' nfs-ganesha nfs-ganesha-vfs libnfs13 libnfs-utils \
		libmicrohttpd12 libcurl4 libjansson4 rpcbind > "$work/packages.txt" 2>/dev/null || true
	for k in dirty_writeback_centisecs dirty_expire_centisecs dirty_background_bytes \
		dirty_background_ratio dirty_bytes dirty_ratio max_map_count unprivileged_userfaultfd; do
		printf '%s\t%s\n' "vm.$k" "$(cat /proc/sys/vm/$k 2>/dev/null || echo '?')"
	done > "$work/sysctls.txt"
	partial=false; [ $interrupted = 1 ] && partial=true
	kargs=() # the kernel mounts and their readers, as vm run lists them
	if [ ${#kmounts[@]} -gt 0 ]; then
		printf '%s\n' "${kmount_json[@]}" | jq -s . > "$work/kmounts.json"
		kargs=(--json-file "kernel_mounts=$work/kmounts.json" --str "kernel_mount_label=$kmount_label"
			--bool "kernel_readers_share_cache=$kshared" --int "reader_every_ms=$reader_every"
			--int "reader_page=$reader_page"
			--table "$(sw_readers_table "$work/readers.txt")")
	fi
	[ -s "$work/stop.json" ] || echo null > "$work/stop.json"
	# sysctl_pin: pinned for this run (stalewin demo); no process
	# substitution: the guests' image has no /dev/fd (seen: vm_own_hosts)
	pin=$(sw_sysctl_pin_meta "$RUN") pinargs=()
	[ -z "$pin" ] || mapfile -t pinargs <<< "$pin"
	aargs=(--int "wait_clients=$wait_clients" --int "clients_joined=$clients_joined") # many clients, one run
	[ -z "$attach" ] || aargs=(--bool attached=true --str "attached_run_id=$attach" --str "client_id=$client_id"
		--int "jitter_ms=$jitter_ms" --int "jitter_phase_ms=$jitter_phase_ms" --bool "joined_before_start=$joined_before_start")
	stalewin-runfolder meta "$RUN" --str tool=stalewin-run --str setup=local \
		--str "version=$(git -C "$SW_TOP" describe --always --dirty 2>/dev/null || echo unknown)" \
		--argv ${#orig_argv[@]} "${orig_argv[@]}" --str "run_id=$run_id" \
		--int "t_start_real_ns=$t_start_real_ns" --bool "partial=$partial" --bool "interrupted=$partial" \
		--str "policy=$policy" --str "workload=$workload" "${fsargs[@]}" \
		--str "server.kind=${server:-ganesha}" --str "server.nfs_base=$base" --str "server.vers=$vers" \
		--str "server.control_url=$url" --json-file "server.info=$work/info.json" \
		--int "probes=$probes" --json-file "writer.start=$work/start.json" \
		--json-file "writer.final=$work/stop.json" \
		--str "clock_file=$clock_name" --bool "clock_same_host=$same_host" \
		--kv-file "sysctls=$work/sysctls.txt" --kv-file "packages=$work/packages.txt" \
		--str "environment.LANG=${LANG:-}" --str "environment.TZ=${TZ:-}" "${kargs[@]}" "${pinargs[@]}" "${aargs[@]}" ||
		fail "cannot write $RUN/meta.json"
}
