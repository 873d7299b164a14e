# vm/run-collect.sh - the run folder of `stalewin vm run` once the guests
# are down (sourced by vm/run.sh, never run): the guests' files sorted
# into OUT/vm (collect_guests), each experiment's faults.json, clock.json
# and meta.json (write_metas).  Reads and sets vm/run.sh's globals.

collect_guests() {
	bad=0
	for side in server client; do
		trouble=$(vm_dmesg_trouble "$share/$side.dmesg")
		if [ -n "$trouble" ]; then
			echo "$SW_VM_PROG: kernel trouble in the $side guest's dmesg ($share/vm/$side.dmesg):" >&2
			echo "$trouble" | sed -n 1,20p >&2
			bad=1
		fi
		for x in out rc dmesg; do [ -e "$share/$side.$x" ] && mv "$share/$side.$x" "$share/vm/$side.$x"; done
	done
	for x in server.ready client.finished server.sh client.sh serve.log ctl.url server.killed; do [ -e "$share/$x" ] && mv "$share/$x" "$share/vm/"; done
	rm -f "$share/ctl.token" # the control API's bearer token: not for the run folder
	mv "$share/plan.sh" "$share/vm/plan.sh"
	for d in "$share"/sync "$share"/*/sync; do
		[ -d "$d" ] || continue
		p=$(basename "$(dirname "$d")"); [ "$d" = "$share/sync" ] && p=run
		mv "$d" "$share/vm/sync-$p"
	done

	qemu_ver=$(qemu-system-x86_64 --version | sed -n 1p)
	{
		vm_apt_facts
		if [ -n "$s_kpkg" ]; then echo "${s_kpkg%%=*}=${s_kpkg#*=} (server kernel, downloaded, unpacked)"
		else echo "$SW_KPKG=$SW_KPKG_VER (downloaded, unpacked)"; fi
		[ -z "$c_kpkg" ] || [ "$c_kpkg" = "$s_kpkg" ] || echo "${c_kpkg%%=*}=${c_kpkg#*=} (client kernel, downloaded, unpacked)"
		echo "nfs-kernel-server=$SW_NKS_VER (downloaded, unpacked)"
		for p in qemu-system-x86 busybox-static rpcbind nfs-common libnfs13 libc6; do
			echo "$p=$(vm_pkg_installed "$p")"
		done
	} >"$share/vm/packages.txt"
}

# The faults of experiment folder D into D/faults.json: the guests' lines
# of stalewin-runfolder fault options (vm/guest/faults.sh), the host's
# server-guest-kill.  With --control api the writer's log is taken from
# the share (vm/ctl-runs/ID) when the client could not fetch it; a fetched
# copy that equals it is not kept twice.
collect_faults() { # D
	local d=$1 rid side a c=$share/vm/ctl-runs
	rid=$(cat "$d/client/run_id" 2>/dev/null || true)
	if [ -n "$rid" ] && [ -s "$c/$rid/writer.swlog" ]; then
		if [ ! -s "$d/writer.swlog" ]; then
			vm_log "$d: the client could not fetch the writer's log: taking it from the share ($c/$rid)"
			cp "$c/$rid/writer.swlog" "$d/writer.swlog"
			cp "$c/$rid/stderr.txt" "$d/server/writer.out" 2>/dev/null || true
		elif cmp -s "$c/$rid/writer.swlog" "$d/writer.swlog"; then
			rm -f "$c/$rid/writer.swlog"
		fi
	fi
	for side in server client; do
		[ -s "$d/$side/faults.args" ] || continue
		while read -r -a a; do
			[ ${#a[@]} -eq 0 ] || "$rf" fault "$d" "${a[@]}" ||
				vm_log "cannot record the $side guest's fault (${a[*]}) in $d/faults.json"
		done <"$d/$side/faults.args"
	done
	[ ${#kill_args[@]} -eq 0 ] || "$rf" fault "$d" "${kill_args[@]}" ||
		vm_log "cannot record the server-guest-kill in $d/faults.json"
}

# write_metas: every experiment's folder, then OUT/meta.json over them
write_metas() {
	# meta.json and clock.json of each experiment: one shape for every run
	# folder, written by common/stalewin-runfolder (docs/architecture.md).
	rf=$build_dir/common/stalewin-runfolder
	[ -x "$rf" ] || vm_die "expected $rf (./stalewin build), saw none: cannot write meta.json; the logs are in $out"
	# shellcheck disable=SC1091
	. "$share/vm/plan.sh"   # SW_EXP_<k>_*, SW_DURATION, ... (written above)
	printf '%s\n' $SW_SYSCTLS >"$share/vm/sysctls.txt"
	# each experiment, done or cut (the study keeps the done ones)
	# (kernel trouble in a dmesg taints every one of the boot: "dmesg")
	awk -v n="$ndone" -v bad="$bad" '{ print $0, (bad == 1 ? "dmesg" : (NR <= n ? "done" : "cut")) }' "$work/experiments.txt" >"$share/vm/experiments.txt"
	names=()
	for ((k = 1; k <= nexp; k++)); do
		v=SW_EXP_${k}_NAME; n=${!v}; names+=("$n"); d=$share/$n
		[ -d "$d" ] || continue # interrupted before it started
		collect_faults "$d"
		if [ -s "$d/client/clock-before.json" ] && [ "$crashed" = 1 ]; then
			# the estimate after the run is against the server guest's
			# second boot, whose realtime (read afresh at its boot, seen
			# ~0.2-0.7 s apart) is not the writer's clock: kept aside
			[ ! -e "$d/client/clock-after.json" ] || mv "$d/client/clock-after.json" "$d/client/clock-after-crash.json"
			"$rf" clock "$d" --before "$d/client/clock-before.json" \
				--note "two qemu TCG guests; offset (server - client CLOCK_REALTIME) measured before the run only: the server guest crashed and booted again, its clock read afresh (the estimate against that boot: client/clock-after-crash.json)"
		elif [ -s "$d/client/clock-before.json" ]; then
			"$rf" clock "$d" --before "$d/client/clock-before.json" \
				--after "$d/client/clock-after.json" \
				--note "two qemu TCG guests: their clocks drift apart; offset (server - client CLOCK_REALTIME) measured before and after the run"
		fi
		pol=SW_EXP_${k}_POLICY kpol=SW_EXP_${k}_KPOLICY fsv=SW_EXP_${k}_FS
		wl=SW_EXP_${k}_WORKLOAD rid=SW_EXP_${k}_RUNID
		policy=${!pol}; [ -n "${!kpol:-}" ] && policy=${!kpol#*=}
		run_id=$(cat "$d/client/run_id" 2>/dev/null || true); run_id=${run_id:-${!rid}}
		ctl="started by the server guest (writer CLI, run id chosen in advance)"
		[ -e "$d/client/run_id" ] && ctl="started through the control API (stalewin-ctl start)"
		case ${!fsv} in
		tmpfs) src=tmpfs ;;
		ext4) src="raw image, mkfs.ext4 -F on the host" ;;
		*) src="raw image, mkfs in the server guest (Debian 12 progs)" ;;
		esac
		up=""; [ "$n" != . ] && up=../
		b=false; [ "$bad" = 0 ] || b=true
		i=false; [ "$k" -le "$ndone" ] || i=true # it did not finish: cut short
		pa=$i; [ $((killed + crashed)) = 0 ] || pa=true
		args=(--str "tool=stalewin vm run" --str setup=vm --str "command=$orig_cmd"
			--argv ${#orig_argv[@]} "${orig_argv[@]}"
			--int "experiment=$k" --int "experiments=$nexp"
			--str "policy=$policy" --str "writer_policy=${!pol}"
			--str "kernel_policy_sysctl=${!kpol:-}"
			--str "fs=${!fsv}" --str "workload=${!wl}" --str "run_id=$run_id"
			--str "writer_control=$ctl"
			--int "duration_s=$SW_DURATION" --str "size=$SW_SIZE"
			--str "writer_args=${SW_WRITER_ARGS:-}"
			--kv-file "sysctls=$share/vm/sysctls.txt"
			--str "filesystem.type=${!fsv}" --str "filesystem.where=server guest"
			--str "filesystem.source=$src"
			--kv-file "packages=$share/vm/packages.txt"
			--str "server.kernel=$s_kdesc" --str "server.ip=$SW_SERVER_IP"
			--str "server.nfs=knfsd (Debian 12 nfs-kernel-server), NFSv3 + v4.x, v4 grace ended"
			--str "server.export=/export/${!fsv}"
			--str "server.export_options=rw,sync,no_subtree_check,no_root_squash,insecure,fsid=N"
			--str "client.kernel=$c_kdesc" --str "client.ip=10.77.0.2"
			--int "reader_every_ms=$SW_READER_EVERY_MS" --int "reader_page=$SW_READER_PAGE"
			--str "qemu=$qemu_ver" --str accel=tcg --str "guest_tsc_early_khz=${SW_VM_TSC_KHZ:-}"
			--str "clock_note=TCG guest clocks drift: see clock.json before/after/drift_ns"
			--int "t_command_real_us=$t_cmd" --int "t_end_real_us=$t_end"
			--bool "dmesg_trouble=$b" --bool "interrupted=$i" --bool "partial=$pa"
			--str "fault_specs=${faults[*]:-}" --int "outage_grace_s=$grace"
			--json "console_logs=[\"${up}vm/server.console\",\"${up}vm/client.console\"]"
			--json "dmesg=[\"${up}vm/server.dmesg\",\"${up}vm/client.dmesg\"]")
		[ -s "$share/vm/client-tick.txt" ] && args+=(--kv-file "client_tick=$share/vm/client-tick.txt")
		[ -s "$d/client/readers.txt" ] &&
			args+=(--table "$(sw_readers_table "$d/client/readers.txt")")
		[ -s "$d/client/probe-0.url" ] && args+=(--str probe.log=probe-0.swlog
			--str "probe.url=$(cat "$d/client/probe-0.url")" --str "probe.rate=$SW_PROBE_RATE")
		[ -s "$d/server/writer.rc" ] && args+=(--int "writer_rc=$(cat "$d/server/writer.rc")")
		vm_query_meta_args "$d" # query_rate_hz, query_rate, multigrain
		[ -z "$scenario" ] || args+=(--str "scenario=$scenario" --str "scenario_note=$(vm_scenario_note "$scenario")")
		"$rf" meta "$d" "${args[@]}" || vm_die "cannot write $d/meta.json"
	done
	if [ "$nexp" -gt 1 ]; then
		printf '%s\n' "${names[@]}" >"$share/vm/runs.txt"
		"$rf" meta "$share" --str "tool=stalewin vm run" --str "command=$orig_cmd" \
			--table "runs=$share/vm/runs.txt:name" --str "server_kernel=$s_kdesc" \
			--str "client_kernel=$c_kdesc" --str "qemu=$qemu_ver" ||
			vm_die "cannot write $share/meta.json"
	fi
	vm_log "run folder: $out ($(vm_elapsed "$t_cmd") s)"
}
