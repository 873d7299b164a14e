# run-check.sh - stalewin-run's options checked (sourced by
# scripts/stalewin-run, never run): check_options refuses what cannot run,
# exit 2 with what was expected and what was seen (exit 1 for what the
# host lacks: root, binaries, a memory cgroup), and sets what follows
# from the options (policy's default, the attached client's id and phase,
# the kernel mounts' JSON and the readers' (mode, mount) pairs).
# Reads and sets stalewin-run's globals.

check_options() {
	case $fs in tmpfs|ext4|ext4-lazytime) ;; *) die "expected --fs tmpfs|ext4|ext4-lazytime, saw '$fs'" ;; esac
	if [ -n "$attach" ]; then # the lead's run decides policy, workload, duration
		[[ $attach =~ ^[0-9a-f]{16}$ ]] || die "expected --attach RUN_ID (16 lower-case hex digits, as the lead printed it), saw '$attach'"
		[ -n "$writer_url" ] || die "--attach needs --writer-url URL --token-file F --server nfs://HOST/EXPORT (the lead's writer and its export)"
		for o in --policy --workload --duration --fs --run-id; do
			[[ " ${orig_argv[*]} " != *" $o "* ]] || die "--attach takes the lead's run as it is: expected no $o (the lead's to choose), saw it"
		done
		[ ${#wargs[@]} = 0 ] && [ ${#faults[@]} = 0 ] && [ "$wait_clients" = 0 ] ||
			die "--attach takes the lead's run as it is: expected no writer options, --fault or --wait-clients, saw ${wargs[*]}${faults[*]:+ --fault ${faults[*]}}$([ "$wait_clients" = 0 ] || echo " --wait-clients $wait_clients")"
		client_id=${client_id:-$(hostname -s 2>/dev/null || echo host)-$$}
		# its name in every control-API request: a rate bucket of its own
		[[ $client_id =~ ^[A-Za-z0-9._:-]{1,64}$ ]] ||
			die "expected --client-id NAME of 1 to 64 characters of A-Z a-z 0-9 . _ : -, saw '$client_id'"
		[[ $jitter_ms =~ ^[0-9]+$ ]] && [ "$jitter_ms" -ge 1 ] || die "expected --jitter-ms MS >= 1, saw '$jitter_ms'"
		jitter_phase_ms=$(attach_phase_ms "$client_id" "$jitter_ms")
		policy=attached
	else
		[ -z "$client_id" ] || die "--client-id names an attached client: it needs --attach RUN_ID"
	fi
	[ -z "$run_id_opt" ] || [[ $run_id_opt =~ ^[0-9a-f]{16}$ ]] && [ "$run_id_opt" != 0000000000000000 ] ||
		die "expected --run-id HEX (16 lower-case hex digits, not all 0), saw '$run_id_opt'"
	[[ $wait_clients =~ ^[0-9]+$ ]] || die "expected --wait-clients N (a count), saw '$wait_clients'"
	[[ $wait_timeout =~ ^[0-9]+$ ]] && [ "$wait_timeout" -ge 1 ] || die "expected --wait-timeout SEC >= 1 (whole seconds), saw '$wait_timeout'"
	[ -n "$policy" ] || { [ "$fs" = tmpfs ] && policy=eager || policy=native; }
	if [ -z "$attach" ]; then
		e=$(sw_name_check "$SW_BUILD_DIR" policies --policy "$policy") || die "$e"
		e=$(sw_name_check "$SW_BUILD_DIR" workloads --workload "$workload") || die "$e"
	fi
	[ "$policy" = native ] || [ "$fs" = tmpfs ] || [ -n "$server" ] ||
		die "policy $policy is emulated and needs --fs tmpfs (on $fs the kernel's own behaviour is --policy native)"
	[[ $duration =~ ^[0-9]+(\.[0-9]+)?$ ]] && [ "$duration" != 0 ] || die "expected --duration SEC > 0, saw '$duration'"
	[[ $probes =~ ^[0-9]+$ ]] && [ "$probes" -ge 1 ] && [ "$probes" -le 64 ] || die "expected --probes 1..64, saw '$probes'"
	case $vers in 3|4|3,4|4,3) ;; *) die "expected --vers 3, 4 or 3,4, saw '$vers'" ;; esac
	fault_kinds_down='ganesha-restart|ganesha-pause|partition|memory-pressure' fault_kinds_once='writer-kill|probe-kill|enospc'
	mem_cg="" # memory-pressure: the writer's own cgroup (run-faults.sh)
	for f in "${faults[@]}"; do
		case ${f%%@*} in # the guests' faults: named as such, not as unknown
		clock-step|client-clock-step) die "expected --fault $(sw_fault_expect "$fault_kinds_down" "$fault_kinds_once"), saw '$f': clock-step is injected only in vm run's guests (stepping this host's realtime clock would step it for every process on it)" ;;
		io-error|knfsd-restart|server-guest-kill|client-reboot)
			die "expected --fault $(sw_fault_expect "$fault_kinds_down" "$fault_kinds_once"), saw '$f': ${f%%@*} is injected only in vm run's guests, not on the host path" ;;
		esac
		[[ $f != *[@:]-* ]] ||
			die "expected --fault $(sw_fault_expect "$fault_kinds_down" "$fault_kinds_once") with SEC and DOWN_SEC >= 0, saw '$f' (a negative time or step)"
		sw_fault_ok "$f" "$fault_kinds_down" "$fault_kinds_once" ||
			die "expected --fault $(sw_fault_expect "$fault_kinds_down" "$fault_kinds_once"), saw '$f'"
		[ -z "$server" ] || die "--fault $f needs the built-in ganesha (no --server)"
		sw_fault_split "$f"
		awk -v a="$fault_at" -v d="$duration" 'BEGIN { exit !(a < d) }' ||
			die "expected --fault $f at a time before the run's end (--duration $duration), saw $fault_at s"
		case $fault_kind in memory-pressure|enospc)
			[ "$fs" != tmpfs ] || die "expected --fs ext4 or ext4-lazytime for --fault $f (a loop-mounted image of the run's own: $( [ "$fault_kind" = enospc ] && echo "filling a tmpfs would take this host's memory" || echo "tmpfs pages have no writeback to force")), saw --fs tmpfs" ;;
		esac
		[ "$fault_kind" != memory-pressure ] || mem_cg=pending
	done
	[[ $grace =~ ^[0-9]+$ ]] || die "expected --outage-grace SEC (whole seconds), saw '$grace'"
	[[ $max_clock_err_us =~ ^[0-9]+$ ]] || die "expected --max-clock-err-us N, saw '$max_clock_err_us'"
	[ ${#kmounts[@]} -le 2 ] || die "expected --kernel-mount at most twice (kept-open reader, close-to-open reader), saw it ${#kmounts[@]} times"
	[[ $reader_every =~ ^[0-9]+$ ]] && [ "$reader_every" -ge 1 ] || die "expected --reader-every-ms N >= 1, saw '$reader_every'"
	[[ $reader_page =~ ^[0-9]+$ ]] || die "expected --reader-page N (a page index), saw '$reader_page'"
	[[ $kmount_label != *[[:space:]]* ]] || die "expected --mount-opts-label without spaces, saw '$kmount_label'"
	if [ ${#kmounts[@]} -gt 0 ]; then
		[ -n "$server" ] || die "--kernel-mount needs --server nfs://HOST/EXPORT (the export mounted at ${kmounts[0]}; with --writer-url, the writer host's)"
	fi
	[ -z "$kmount_label" ] || [ ${#kmounts[@]} -gt 0 ] || die "--mount-opts-label needs --kernel-mount"
	if [ -n "$writer_url" ]; then
		[ -n "$server" ] || die "--writer-url needs --server nfs://HOST/EXPORT (the writer's export)"
		[ -n "$token_file" ] && [ -r "$token_file" ] || die "--writer-url needs a readable --token-file (the one the remote serve wrote)"
	fi
	if [ -n "$server" ]; then
		[[ $server == nfs://* ]] || die "expected --server nfs://HOST/EXPORT, saw '$server'"
		[ -n "$writer_url" ] || [ -d "$server_dir" ] ||
			die "--server needs --server-dir DIR: the local folder the export serves (the writer writes there)"
	fi
	[ "$(id -u)" -eq 0 ] || [ -n "$server" ] || fail "needs root (mount, ip netns for ganesha); running as uid $(id -u)"
	[ -z "$mem_cg" ] || e=$(mp_check) || fail "--fault memory-pressure: $e"
	need_bins=(stalewin-ctl stalewin-probe stalewin-runfolder stalewin-logdump)
	[ -n "$writer_url" ] || need_bins+=(stalewin-writer)
	[ ${#kmounts[@]} -eq 0 ] || need_bins+=(stalewin-reader)
	for b in "${need_bins[@]}"; do
		command -v "$b" >/dev/null || fail "$b not found in $SW_BUILD_DIR: run ./stalewin build first"
	done
	command -v jq >/dev/null || fail "jq not installed (Debian jq; ./stalewin setup)"
	# the kernel mounts: each an NFS mount (stalewin-reader reads
	# /proc/self/mountinfo); the readers' (mode, mount) pairs
	kmount_json=() kreaders=()
	for ((j = 0; j < ${#kmounts[@]}; j++)); do
		kj=$(stalewin-reader mount "${kmounts[$j]}" --nfs) ||
			die "--kernel-mount ${kmounts[$j]}: expected a directory on an NFS mount you made (above)"
		kmount_json+=("$kj")
	done
	if [ ${#kmounts[@]} -eq 1 ]; then kreaders=("kept-open 0" "cto 0")
	elif [ ${#kmounts[@]} -eq 2 ]; then kreaders=("kept-open 0" "cto 1"); fi
}
