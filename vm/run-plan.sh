# vm/run-plan.sh - `stalewin vm run`'s plan (sourced by vm/run.sh, never
# run): the options checked (check_options), the kernels named, the
# experiments that run (plan_experiments) and the plan the guests read,
# /sw/plan.sh (plan_write).  Reads and sets vm/run.sh's globals.

# check_options: every option checked before anything boots (exit 2 with
# what was expected and what was seen), the defaults that follow from
# the others set (workloads, mounts, reader modes)
check_options() {
	[ ${#workloads[@]} -gt 0 ] || workloads=(rewrite)
	# lang-mem is only the patched kernel's (vm/kernel 0009: the fault's
	# in-memory times persisted at the flush), no emulated policy: checked
	# with --kernel below
	wpols=()
	for p in "${policies[@]}"; do [ "$p" = lang-mem ] || wpols+=("$p"); done
	[ ${#wpols[@]} -eq 0 ] ||
		{ e=$(sw_name_check "$build_dir" policies --policy "${wpols[@]}") || vm_usage_die "$e"; }
	e=$(sw_name_check "$build_dir" workloads --workload "${workloads[@]}") || vm_usage_die "$e"
	for f in "${fss[@]}"; do
		case "$f" in tmpfs|ext4|xfs|btrfs) ;; *) vm_usage_die "--fs: expected tmpfs, ext4, xfs or btrfs, saw '$f'" ;; esac
	done
	for m in "${modes[@]}"; do
		case "$m" in kept-open|cto) ;; *) vm_usage_die "--reader-mode: expected kept-open or cto, saw '$m'" ;; esac
	done
	case "$control" in auto|api|direct) ;;
	*) vm_usage_die "--control: expected auto, api or direct, saw '$control'" ;; esac
	[ -z "$timeout" ] || [[ "$timeout" =~ ^[0-9]+$ ]] || vm_usage_die "--timeout: expected seconds per experiment, saw '$timeout'"
	[[ "$lead" =~ ^[0-9]+$ ]] && [ "$lead" -le 600 ] || vm_usage_die "--lead: expected whole seconds from 0 to 600, saw '$lead'"
	[[ "$repeats" =~ ^[0-9]+$ ]] && [ "$repeats" -ge 1 ] && [ "$repeats" -le 100 ] || vm_usage_die "--repeats: expected a whole number from 1 to 100, saw '$repeats'"
	[[ "$duration" =~ ^[0-9]+$ ]] && [ "$duration" -ge 1 ] || vm_usage_die "--duration: expected whole seconds >= 1, saw '$duration'"
	case "$vers" in 3) pv=3 ;; 4.2) pv=4 ;; both) pv=3+4 ;;
	*) vm_usage_die "--vers: expected 3, 4.2 or both, saw '$vers'" ;; esac
	probe_vers=${probe_vers:-$pv}
	[[ "$probe_vers" =~ ^(3|4|3\+4)$ ]] || vm_usage_die "--probe-vers: expected 3, 4 or 3+4, saw '$probe_vers'"
	vm_query_check "$probe_rate"
	vm_scenario_check "$scenario" "$vers" "$control" "$kernel" "${ns_clients:-0}"
	[ "$scenario" != client-writer ] || control=api # its writer only through the guest's own API
	[[ "$reader_every" =~ ^[0-9]+$ ]] && [ "$reader_every" -ge 1 ] || vm_usage_die "--reader-every-ms: expected ms >= 1, saw '$reader_every'"
	[[ "$reader_page" =~ ^[0-9]+$ ]] || vm_usage_die "--reader-page: expected a page index, saw '$reader_page'"
	for kv in "${sysctls[@]}"; do
		[[ "$kv" =~ ^[a-z0-9_.]+=[^[:space:]]+$ ]] || vm_usage_die "--sysctl: expected KEY=VALUE (e.g. vm.dirty_expire_centisecs=500), saw '$kv'"
	done
	for m in "${mounts[@]}"; do
		[[ "$m" != *"|"* && "$m" != *" "* ]] || vm_usage_die "--mount-opts: expected comma-separated options without spaces or '|', saw '$m'"
	done
	[ ${#mounts[@]} -gt 0 ] || [ -n "$ns_clients" ] || case "$vers" in 3) mounts=("vers=3,nolock") ;; 4.2) mounts=("vers=4.2") ;;
		*) mounts=("vers=3,nolock" "vers=4.2") ;; esac
	faults_check # vm/run-plan.sh: sets kill_planned reboot_planned ioerr_planned
	ns_clients_check # vm/run-plan.sh: --ns-clients against the mounts, modes and faults
	probes_check # vm/run-plan.sh: --probes M against the report's 128 probe targets
	[[ "$grace" =~ ^[0-9]+$ ]] || vm_usage_die "--outage-grace: expected whole seconds, saw '$grace'"
	[ ${#modes[@]} -gt 0 ] || modes=(kept-open cto)
}

resolve_kernel() { # SPEC -> path or "stock"
	case "$1" in
	stock) echo stock ;;
	6.1|6.12|7.2) echo "$1" ;; # Debian's packages (vm/build.sh --kernel NAME)
	patched|patched:*) # the series on base B (patched = patched:6.1)
		local k=${SW_VM_KERNEL_TOOL:-$SW_VM_DIR/kernel/stalewin-vm-kernel} p b=${1#patched}
		b=${b#:}; b=${b:-6.1}
		[[ "$b" =~ ^[0-9]+\.[0-9]+$ ]] || vm_usage_die "--kernel $1: expected patched or patched:BASE such as patched:7.2"
		[ -x "$k" ] || vm_die "--kernel $1: vm/kernel/stalewin-vm-kernel is missing (the patched-kernel part has not landed)"
		p=$("$k" --print-path --base "$b") || vm_die "--kernel $1: no patched $b kernel is built (./stalewin vm kernel build --base $b, ~25 min)"
		[ -f "$p" ] || vm_die "--kernel $1: $k --print-path --base $b gave '$p', which is not a file"
		echo "$p" ;;
	*) [ -f "$1" ] || vm_usage_die "--kernel: expected a kernel name ($vm_kernel_names, patched, patched:7.2) or an ELF vmlinux; '$1' is neither"
		realpath "$1" ;;
	esac
}

# plan_experiments: exps (P:FS[:kernel]@W#R), nexp, disk_fss, need_ext4
plan_experiments() {
	# With --kernel patched, eager/deferred/lang are the KERNEL's policies:
	# the server sets $SW_VM_PATCHED_SYSCTL (default vm.mmap_cmtime_policy,
	# the patched kernel's switch) to P before the run and the writer runs in
	# native mode on ext4 (entries P:ext4:kernel).
	patched_sysctl=${SW_VM_PATCHED_SYSCTL:-vm.mmap_cmtime_policy}
	if [[ "$kernel_spec" == patched || "$kernel_spec" == patched:* ]]; then
		[ ${#policies[@]} -gt 0 ] || policies=(eager deferred lang)
		# every policy on every --fs (default ext4); deferred and lang only
		# on what the series opts in: ext4 and xfs (patch 0018); on the
		# others the patched kernel is eager whatever the sysctl (a
		# control cell)
		[ ${#fss[@]} -gt 0 ] || fss=(ext4)
		local optin="ext4 or xfs" as
		exps=()
		for p in "${policies[@]}"; do
			for f in "${fss[@]}"; do
				# xfs runs every policy ext4 does
				as=$f
				[ "$f" != xfs ] || as=ext4
				case "$p:$as" in
				eager:ext4|deferred:ext4|lang:ext4|lang-mem:ext4|eager:xfs|eager:btrfs) exps+=("$p:$f:kernel") ;;
				native:ext4|native:xfs|native:btrfs) exps+=("native:$f") ;;
				deferred:*|lang:*|lang-mem:*) vm_usage_die "--kernel $kernel_spec --policy $p --fs $f: expected $optin (the series opts $optin in; on $f only eager and native run), saw $f" ;;
				eager:*|native:*) vm_usage_die "--kernel patched --fs $f: expected ext4, xfs or btrfs, saw $f" ;;
				*) vm_usage_die "--kernel patched --policy $p: expected eager, deferred, lang, lang-mem (the kernel's $patched_sysctl) or native" ;;
				esac
			done
		done
	else
		# neither --policy nor --fs: every policy the writer has (the
		# emulated ones on tmpfs, native on ext4); --fs alone: eager
		if [ ${#policies[@]} -eq 0 ] && [ ${#fss[@]} -eq 0 ]; then
			mapfile -t policies < <(sw_names "$build_dir" policies)
		fi
		[ ${#policies[@]} -gt 0 ] || policies=(eager)
		exps=()
		for p in "${policies[@]}"; do
			[ "$p" != lang-mem ] || vm_usage_die "--policy lang-mem: a policy of the patched kernel only (vm/kernel 0009), not emulated: use --kernel patched or patched:7.2"
			if [ ${#fss[@]} -gt 0 ]; then
				for f in "${fss[@]}"; do exps+=("$p:$f"); done
			elif [ "$p" = native ]; then exps+=("$p:ext4")
			else exps+=("$p:tmpfs"); fi
		done
	fi
	[ "$shell" = 1 ] && exps=()
	for e in "${exps[@]}"; do
		f=${e#*:}; f=${f%%:*}
		# P:ext4:kernel is the patched kernel's own policy P, not an emulation
		[ "$f" != tmpfs ] && [ "${e%%:*}" != native ] && [ "${e##*:}" != kernel ] &&
			vm_usage_die "--policy ${e%%:*} --fs $f: the emulated policies ($(sw_names "$build_dir" policies | grep -vx native | sed -z 's/\n$//; s/\n/, /g')) run on tmpfs; on $f use --policy native (the kernel's own behaviour, e.g. a --kernel patched with --sysctl)"
	done
	# each (policy, fs) once per workload: entries P:FS[:kernel]@W
	# and each of those --repeats times, interleaved: entries P:FS[:kernel]@W#R
	wexps=()
	for ((r = 1; r <= repeats; r++)); do
		for e in "${exps[@]}"; do for w in "${workloads[@]}"; do wexps+=("$e@$w#$r"); done; done
	done
	exps=("${wexps[@]}")
	nexp=${#exps[@]}
	[ "$ioerr_planned" = 0 ] || [ "$nexp" -le 1 ] ||
		vm_usage_die "--fault io-error may leave the export's filesystem read-only for the rest of the boot: expected one experiment (one --policy, --fs, --workload), saw $nexp"
	[ "$enospc_planned" = 0 ] || [ "$nexp" -le 1 ] ||
		vm_usage_die "--fault enospc leaves the export full for the rest of the boot: expected one experiment (one --policy, --fs, --workload), saw $nexp"
	[ "$reboot_planned" = 0 ] || [ "$nexp" -le 1 ] ||
		vm_usage_die "--fault client-reboot reboots the client guest mid-run: expected one experiment (one --policy, --fs, --workload), saw $nexp"
	[ "$kill_planned" = 0 ] || [ "$nexp" -le 1 ] ||
		vm_usage_die "--fault server-guest-kill ends the server guest: expected one experiment (one --policy, --fs, --workload), saw $nexp"
	[ "$crash_planned" = 0 ] || [ "$nexp" -le 1 ] ||
		vm_usage_die "--fault server-crash crashes and reboots the server guest: expected one experiment (one --policy, --fs, --workload, --repeats 1), saw $nexp"
	# the server's disks, in virtio order (vda, vdb, ...): SW_DISKS in the plan
	disk_fss=()
	for f in ext4 xfs btrfs; do
		for e in "${exps[@]}"; do g=${e#*:}; g=${g%%@*}; [ "${g%%:*}" = "$f" ] && { disk_fss+=("$f"); break; }; done
	done
	[ "$shell" = 1 ] && disk_fss=(ext4)
	need_ext4=0; case " ${disk_fss[*]} " in *" ext4 "*) need_ext4=1 ;; esac
}

# plan_write: the model profile and /sw/plan.sh in the share, the guest
# scripts beside it
plan_write() {
	# the emulated runs' model profile, in the share; every report names it
	if [ -n "$mprof" ]; then
		mkdir -p "$share/vm" && cp "$mprof" "$share/vm/" || vm_die "cannot copy $mprof into $share/vm"
		writer_args="--model-profile /sw/vm/${mprof##*/}${writer_args:+ $writer_args}"
	fi
	{
		echo "SW_NEXP=$nexp"
		echo "SW_DURATION=$duration"
		echo "SW_TAIL=2"
		echo "SW_FILE_LEAD_S=$lead" # --lead (server.sh: --lead-ms; client.sh: readers run that much longer)
		echo "SW_SIZE=$size"
		printf 'SW_WRITER_ARGS=%q\n' "$writer_args"
		printf 'SW_SYSCTLS=%q\n' "${sysctls[*]:-}"
		printf 'SW_MOUNTS=%q\n' "$(IFS='|'; echo "${mounts[*]}")"
		printf 'SW_READER_MODES=%q\n' "${modes[*]}"
		echo "SW_NS_CLIENTS=${ns_clients:-0}" # vm/guest/nsclients.sh
		echo "SW_PROBES=$probes"
		echo "SW_READER_EVERY_MS=$reader_every"
		echo "SW_READER_PAGE=$reader_page"
		echo "SW_PROBE_VERS=$probe_vers"
		echo "SW_PROBE_RATE=$probe_rate"
		echo "SW_SCENARIO=$scenario" # vm/scenario.sh
		echo "SW_PROBE_ARGS="
		echo "SW_SERVER_IP=10.77.0.1"
		echo "SW_CLOCK_PORT=$((20000 + RANDOM % 40000))"
		echo "SW_CONTROL=$control"
		echo "SW_CTL_PORT=$((20000 + RANDOM % 40000))"
		echo "SW_FAULT=${SW_VM_FAULT:-}"  # tests only: knfsd, mkfs-xfs
		printf 'SW_FAULTS=%q\n' "${faults[*]:-}" # --fault (vm/guest/faults.sh)
		echo "SW_GRACE=$grace"
		echo "SW_CRASH_PLANNED=$crash_planned" # --fault server-crash (vm/guest/server.sh, client.sh)
		echo "SW_QUIET_S=${SW_VM_QUIET_S:-}" # vm matrix: quiet runs of S s (vm/guest/server.sh)
		printf 'SW_DISKS=%q\n' "${disk_fss[*]:-}"
		printf 'SW_EXT4_OPTS=%q\n' "${SW_VM_EXT4_OPTS:-}" # ext4 export mount options (vm/guest/server.sh)
		# more server tracepoints (vm/guest/trace.sh); and every query of
		# ctime (6.13+: a getattr of the file), which the report needs to
		# split the faults by query (analysis/pass/queried.c), except at
		# wire speed, whose thousands a second would fill the buffer
		local tev=${SW_VM_TRACE_EVENTS:-}
		[ "$probe_rate" = wire ] || tev="$tev timestamp:fill_mg_cmtime"
		printf 'SW_TRACE_EVENTS=%q\n' "${tev# }"
		k=1
		for e in "${exps[@]}"; do
			rep=${e##*#} e=${e%#*}
			workload=${e##*@} e=${e%@*}
			p=${e%%:*} f=${e#*:} kp="" wp=$p
			case "$f" in *:kernel) f=${f%%:*} kp="$patched_sysctl=$p" wp=native ;; esac
			if [ "$nexp" -eq 1 ]; then n=.; elif [ -n "$kp" ]; then n=$k-$p-$f-kernel; else n=$k-$p-$f; fi
			[ "$nexp" -eq 1 ] || [ ${#workloads[@]} -eq 1 ] || n=$n-$workload
			[ "$repeats" -eq 1 ] || n=$n-r$rep
			echo "$n $p $f $workload $rep" >>"$work/experiments.txt"
			echo "SW_EXP_${k}_NAME=$n SW_EXP_${k}_POLICY=$wp SW_EXP_${k}_KPOLICY=$kp SW_EXP_${k}_FS=$f SW_EXP_${k}_WORKLOAD=$workload SW_EXP_${k}_RUNID=$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
			k=$((k + 1))
		done
	} >"$share/plan.sh"
	cp "$SW_VM_DIR/guest/server.sh" "$share/server.sh"
	cp "$SW_VM_DIR/guest/client.sh" "$share/client.sh"
	mkdir -p "$share/vm"
	echo "$kver_line" >"$share/vm/kernel-release.txt"
}

# faults_check: each --fault the guests can inject, else exit 2 naming
# what was expected; sets kill_planned reboot_planned ioerr_planned
# enospc_planned crash_planned.
faults_check() {
	kill_planned=0 reboot_planned=0 ioerr_planned=0 enospc_planned=0 mp_planned=0 crash_planned=0
	vm_kinds_down='knfsd-restart|partition|io-error|memory-pressure|server-crash' vm_kinds_once='server-guest-kill|client-reboot|enospc'
	for f in "${faults[@]}"; do
		case ${f%%@*} in # the host path's faults: named as such, not as unknown
		ganesha-restart|ganesha-pause|writer-kill|probe-kill)
			vm_usage_die "--fault: expected $(sw_fault_expect "$vm_kinds_down" "$vm_kinds_once") or clock-step|client-clock-step@SEC:+-STEP, saw '$f': ${f%%@*} is injected only on the host path (stalewin run), not in vm run's guests" ;;
		clock-step|client-clock-step) # its DOWN is a signed step: + forward, - back
			[[ $f =~ ^(client-)?clock-step@[0-9]+(\.[0-9]+)?:[+-][0-9]+(\.[0-9]+)?$ ]] && [[ ! $f =~ :[+-]0*(\.0*)?$ ]] ||
				vm_usage_die "--fault: expected ${f%%@*}@SEC:+STEP or ${f%%@*}@SEC:-STEP (SEC >= 0; a step of seconds, not 0, its sign required), saw '$f'$([[ $f =~ :[0-9] ]] && echo ': the step has no sign (+D steps the clock forward, -D back)')"
			fault_at=${f#*@}; fault_at=${fault_at%%:*} ;;
		*)
			[[ $f != *[@:]-* ]] ||
				vm_usage_die "--fault: expected $(sw_fault_expect "$vm_kinds_down" "$vm_kinds_once") with SEC and DOWN_SEC >= 0, saw '$f' (a negative time)"
			sw_fault_ok "$f" "$vm_kinds_down" "$vm_kinds_once" ||
				vm_usage_die "--fault: expected $(sw_fault_expect "$vm_kinds_down" "$vm_kinds_once") or clock-step|client-clock-step@SEC:+-STEP, saw '$f'"
			sw_fault_split "$f" ;;
		esac
		# (S counts from the writer's start: past its planned end nothing is injected)
		awk -v a="$fault_at" -v d="$duration" 'BEGIN { exit !(a < d) }' ||
			vm_usage_die "--fault $f: expected a time before the run's end (S < --duration $duration), saw S = $fault_at"
		[[ $f == server-guest-kill@* ]] && kill_planned=1
		[[ $f == client-reboot@* ]] && reboot_planned=1
		[[ $f == io-error@* ]] && ioerr_planned=1
		[[ $f == enospc@* ]] && enospc_planned=1
		[[ $f == memory-pressure@* ]] && mp_planned=1
		[[ $f == server-crash@* ]] && crash_planned=1
	done
	if [ "$crash_planned" = 1 ]; then
		# (the shutdown is ext4's ioctl; the guest booted again on the
		# same disk recovers its journal: one fs, one experiment)
		[ ${#faults[@]} -eq 1 ] ||
			vm_usage_die "--fault server-crash reboots the server guest: expected it as the only --fault, saw ${faults[*]}"
		[ "${fss[*]:-}" = ext4 ] ||
			vm_usage_die "--fault server-crash shuts an ext4 export down (EXT4_IOC_SHUTDOWN) and recovers its journal at the reboot: expected --fs ext4 alone, saw ${fss[*]:-no --fs (the default matrix has tmpfs)}"
		[ "$control" != api ] ||
			vm_usage_die "--fault server-crash: expected --control auto or direct, saw api (the writer's run dies with the server guest it was started in)"
	fi
	# the disk faults: every --fs a disk, none on tmpfs (the message's
	# head says why for each)
	disk_fs_only() { # PLANNED WHY EXPECTED-TAIL
		[ "$1" = 0 ] || { [ ${#fss[@]} -gt 0 ] && [[ " ${fss[*]} " != *" tmpfs "* ]]; } ||
			vm_usage_die "$2: expected --fs ext4, xfs or btrfs$3, saw ${fss[*]:-no --fs (the default matrix has tmpfs)}"
	}
	disk_fs_only "$ioerr_planned" "--fault io-error fails the export's block device" " (a disk)"
	disk_fs_only "$enospc_planned" "--fault enospc fills the export's disk (a tmpfs export would take the guest's memory)" ""
	disk_fs_only "$mp_planned" "--fault memory-pressure squeezes the writer's pages into writeback (tmpfs pages have none to force)" ""
	[ "$reboot_planned" = 0 ] || [ "$control" != api ] ||
		vm_usage_die "--fault client-reboot: expected --control auto or direct, saw api (the client that starts and fetches the writer's run is the one rebooted)"
}
# mp_kernel_check KERNEL (resolve_kernel's): --fault memory-pressure
# squeezes a cgroup v2's memory.high in the server guest, so its kernel
# needs CONFIG_MEMCG: Debian's (a name) have it; the patched ones,
# allnoconfig plus vm/kernel/config.fragment, do not.  A vmlinux whose
# config is kept beside it (the patched kernels' cache) is checked here,
# exit 2 before anything is made; one without is the guest's to check.
mp_kernel_check() {
	[ "${mp_planned:-0}" = 1 ] && [ -f "$1" ] || return 0
	local cfg; cfg=$(dirname "$1")/config
	[ -s "$cfg" ] || return 0
	grep -q '^CONFIG_MEMCG=y' "$cfg" ||
		vm_usage_die "--fault memory-pressure: expected a server kernel with CONFIG_MEMCG=y (cgroup v2 memory.high), saw none in $cfg: the patched kernels are allnoconfig + vm/kernel/config.fragment; run it on a stock kernel"
}

# ns_clients_check: --ns-clients N (1..8: the report's kernel readers,
# SW_MAX_KREAD) replaces the kernel mounts by N namespace clients, each
# one mount of the one --mount-opts set (default vers=3,nolock, or
# vers=4.2 with --vers 4.2) read by one reader in the one --reader-mode
# (default kept-open); exit 2 otherwise.  The client guest reboot has no
# namespaces to come back to: refused with it.
ns_clients_check() {
	[ -n "$ns_clients" ] || return 0
	[[ "$ns_clients" =~ ^[0-9]+$ ]] && [ "$ns_clients" -ge 1 ] && [ "$ns_clients" -le 8 ] ||
		vm_usage_die "--ns-clients: expected a whole number from 1 to 8 (one kernel reader each, at most 8 per report), saw '$ns_clients'"
	[ ${#mounts[@]} -le 1 ] ||
		vm_usage_die "--ns-clients: expected one --mount-opts (each namespace mounts it once), saw ${#mounts[@]}: ${mounts[*]}"
	[ ${#modes[@]} -le 1 ] ||
		vm_usage_die "--ns-clients: expected one --reader-mode (one reader per namespace), saw ${#modes[@]}: ${modes[*]}"
	[ ${#modes[@]} -eq 1 ] || modes=(kept-open)
	[ ${#mounts[@]} -eq 1 ] || case "$vers" in 4.2) mounts=("vers=4.2") ;; *) mounts=("vers=3,nolock") ;; esac
	[ "$reboot_planned" = 0 ] ||
		vm_usage_die "--ns-clients: expected no --fault client-reboot (the namespaces do not come back after it), saw ${faults[*]}"
	return 0
}

# probes_check: --probes M (whole, >= 1) with M x the probe's targets at
# most 128, the observers one report takes (analysis/pass/report.h
# SW_MAX_OBS; its rows and table hold the first 8); exit 2 otherwise.
probes_check() {
	local t=1
	[ "$probe_vers" = 3+4 ] && t=2
	[[ "$probes" =~ ^[0-9]{1,4}$ ]] && [ "$probes" -ge 1 ] && [ $((probes * t)) -le 128 ] ||
		vm_usage_die "--probes: expected a whole number from 1 to $((128 / t)) (at most 128 probe targets per report; each probe has $t with --probe-vers $probe_vers), saw '$probes'"
	[ "$probes" = 1 ] || [ "$reboot_planned" = 0 ] ||
		vm_usage_die "--probes: expected 1 with --fault client-reboot (one probe comes back after it), saw $probes"
}
