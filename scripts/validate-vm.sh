# scripts/validate-vm.sh: the --vm part of `stalewin validate` (sourced by
# scripts/stalewin-validate; uses its out, quick, rows, say, report, SW_TOP).
# Guest runs go through `./stalewin vm run` and its existing options only.

# Guest writeback 1 s / expire 5 s: updates ~5.1 s apart.  With expire 3 s
# the update cycle (3.07 s) is phase-locked to the 3 s acregmin, and which
# of two nearly simultaneous events (an update, a revalidation) comes first
# flips a whole doubling chain: a knife edge in the kernel as in the replay,
# which tests the jitter, not the rules (VM: 24 against 86 unresolved).
VM_SYS=(--sysctl vm.dirty_expire_centisecs=500 --sysctl vm.dirty_writeback_centisecs=100)
# The writeback model of the 6.1 TCG guest is a data file,
# server/model/profiles/guest-6.1.profile (what each value is and where it
# was traced is said there); `vm run` gives it to the emulated runs on a
# 6.1 guest by default, and the pairs below are what it rests on.  The
# writeback interval and expiry are the guest's sysctls above.
VM_PROFILE=$SW_TOP/server/model/profiles/guest-6.1.profile
VM_MODEL_ARGS=(--model-profile "$VM_PROFILE" --writeback-ms 1000 --expire-ms 5000)
VM_MODEL=(--model-profile "$VM_PROFILE" --writer-args "--writeback-ms 1000 --expire-ms 5000")
# The same model on the patched kernel's run's own stores
# (stalewin-model-sweep): at 40 flusher phases over one writeback interval
# (one emulated run is one draw of a phase the model cannot know), and at
# the kernel's own phase, its first flusher run and jiffies read from the
# server guest's writeback tracepoints and its first journal commit from
# jbd2's (VM_TRACE); the verdict rests on the
# latter.  The replay also takes from the trace every commit's end
# (jbd2_end_commit), knfsd's atime handles on the file
# (writeback_mark_inode_dirty: the read after an update dirties the clean
# inode and arms the flusher) and, with the whole timer:timer_start event
# the runs below add, the kernel's jiffies line by line (a TCG guest's
# periodic tick loses ticks: its jiffies step against CLOCK_MONOTONIC).  The guest kernel's HZ is 250 (vm/kernel/config.fragment); its
# ext4 export is the first virtio disk, bdi 254:0.
# The phases start at the real run's own lead (--lead-ms log: the file's
# creation, its ctime at the writer's open, seconds before the first store
# while the client guest starts), where the emulating writer's model starts
# too (server/run.c).  And the emulated run's own log replayed by the same
# model at its lead (VM_SELF_ARGS): the writer in the guest must have run
# its own model (the row's emulated_replay).
VM_SWEEP_ARGS=("${VM_MODEL_ARGS[@]}" --jiffy-us 4000 --phases 40 --lead-ms log)
# The writeback pairs store 25 s after their file's creation (vm run
# --lead): 2 * expire + 10 * writeback + a commit, when the model takes the
# file as settled (sw_model_start_at).  Without it the lead was however long
# the client guest took to start (2.5-7.5 s) and picked the kernel's
# regime: deferred p50 0.80-1.92 s over runs of one command, where five
# kernel runs at this lead gave 1.39-1.49 s and three emulated 1.49 s
# (tests/server/data/README.md, deferred-6.1-15).
VM_LEAD_S=25
VM_LEAD=(--lead $VM_LEAD_S)
VM_SELF_ARGS=("${VM_MODEL_ARGS[@]}" --jiffy-us 4000 --phases 1 --lead-ms log)
VM_TRACE="writeback:writeback_start writeback:writeback_queue_io jbd2:jbd2_start_commit jbd2:jbd2_end_commit writeback:writeback_mark_inode_dirty"
# The stock guest's native run also: when the kernel submitted the file's
# never-written pages (a kprobe on folio_clear_dirty_for_io with the
# page's inode number, folio->mapping->host->i_ino at the offsets of
# Debian's 6.1 struct page and struct inode; the sweep keeps the lines
# with the file's number, so wrong offsets leave none, and it falls back
# to ext4_allocate_blocks, 2-3 ms earlier), and how many pages the block
# device's first writeback wrote (writeback_single_inode)
VM_TRACE_STOCK="ext4:ext4_allocate_blocks writeback:writeback_single_inode kprobe:folio_clear_dirty_for_io:ino=+64(+0(+24(%di))):u64"

# One VM run, each kernel mount read kept-open and cto; rows per reader.
vm_replay_run() { # name reader_every_ms duration mount-opts...
	local n=$1 every=$2 dur=$3; shift 3
	local P=$out/vm-$n m=() l0
	for o in "$@"; do m+=(--mount-opts "$o"); done
	l0=$(load)
	if ! nice -n 10 "$SW_TOP/stalewin" vm run --policy eager --fs tmpfs --workload rewrite \
		--duration "$dur" "${VM_SYS[@]}" "${m[@]}" --reader-mode kept-open --reader-mode cto \
		--reader-every-ms "$every" --out "$P" >"$P.log" 2>&1 && [ ! -s "$P/report.json" ]; then
		echo "$prog: vm pair run $n failed: $(tail -n2 "$P.log")" >&2
		"$report" validate failed "vm-$n" >"$P.rows.json"
	else
		"$report" validate kread --run "vm-$n" --every-ms "$every" --load "$l0 / $(load)" \
			"$P/report.json" >"$P.rows.json"
	fi
	rows+=("$P.rows.json")
	[ $json = 1 ] || "$report" validate line "$P.rows.json"
}

# self_replay LOG POLICY OUT: the emulated run's log replayed by the model
# at its own lead (VM_SELF_ARGS), each store dirtying its page at its start
# and at its end (the writer's trap handler ran the model in between:
# under TCG a trap takes 1-3 ms, and a store that lands that close to a
# flusher pass is written in it or in the next run); OUT holds
# OUT.start and OUT.end, and sets self_args to the row's options for them;
# when the sweep fails the row has no emulated_replay, and says why on
# stderr
self_replay() {
	local t
	self_args=()
	for t in start end; do
		"$SW_BUILD_DIR/analysis/stalewin-model-sweep" --log "$1" --policy "$2" "${VM_SELF_ARGS[@]}" \
			--store-time $t >"$3.$t" 2>"$3.err" || {
			echo "$prog: vm $2: no replay of the emulated run: $(tail -n1 "$3.err")" >&2
			self_args=()
			return 0
		}
		self_args+=(--replay-$t "$3.$t")
	done
}
# eager emulated on tmpfs against native ext4 in the (stock) server guest;
# the native run traced (VM_TRACE and timer:timer_start, whose
# writeout_period lines are the kernel's firings of the timer that ages
# the wb's writeout share) and the model replayed on its stores at the
# kernel's phase, as for the patched pairs
vm_eager_stock() {
	local P=$out/vm-eager-stock l0 N sweep="$SW_BUILD_DIR/analysis/stalewin-model-sweep" created=() s=()
	l0=$(load)
	if ! SW_VM_TRACE_EVENTS="$VM_TRACE timer:timer_start $VM_TRACE_STOCK" nice -n 10 "$SW_TOP/stalewin" vm run \
		--policy eager --policy native --workload rewrite \
		--duration 20 "${VM_SYS[@]}" "${VM_MODEL[@]}" "${VM_LEAD[@]}" \
		--out "$P" >"$P.log" 2>&1 && ! ls "$P"/*-native-*/report.json >/dev/null 2>&1; then
		echo "$prog: vm eager/native run failed: $(tail -n2 "$P.log")" >&2
		"$report" validate failed vm-eager-stock >"$P.row.json"
	else
		N=$(ls -d "$P"/*-native-*)
		# the guest's uptime when the native run's file existed
		[ -s "$P/vm/sync-${N##*/}/server.prepared" ] &&
			created=(--created-s "$(cat "$P/vm/sync-${N##*/}/server.prepared")")
		# and its inode number (the trace's lines of the file)
		[ -s "$P/vm/sync-${N##*/}/file.ino" ] &&
			created+=(--ino "$(cat "$P/vm/sync-${N##*/}/file.ino")")
		if "$sweep" --log "$N/writer.swlog" --policy eager "${VM_SWEEP_ARGS[@]}" \
			--kernel-trace "$N/server/trace.txt" --bdi 254:0 "${created[@]}" \
			>"$P.sweep.json" 2>"$P.sweep.err"; then
			s=(--sweep "$P.sweep.json")
		else
			echo "$prog: vm eager/native: no replay at the kernel's phase: $(tail -n1 "$P.sweep.err")" >&2
		fi
		self_replay "$(ls "$P"/*-eager-*/writer.swlog)" eager "$P.self.json"
		"$report" validate row --name vm-eager-stock --fs "guest ext4 (stock kernel)" \
			--workload "--workload rewrite --interval-ms 100" --writeback-ms 1000 \
			--expire-ms 5000 --duration-s 20 --resolution-ms 100 --load "$l0 / $(load)" \
			--lead-s "$VM_LEAD_S" --model "$(ls "$P"/*-eager-*/report.json)" \
			--real "$N/report.json" "${s[@]}" "${self_args[@]}" >"$P.row.json"
	fi
	rows+=("$P.row.json")
	[ $json = 1 ] || "$report" validate line "$P.row.json"
}

# $3 (deferred or lang) emulated (tmpfs, stock guest) against the patched
# kernel's own (native ext4, vm.mmap_cmtime_policy=$3 with
# vm.mmap_cmtime_ordering=1: the model's flush forces the commit that
# 0008 waits for, so it follows AS_CMTIME + ordering): $1 the kernel tool
# (prints the patched vmlinux), $2 its path for the row.  The real run is
# traced with timer:timer_start too: the replay at the kernel's phase
# takes the writeout_period timer's firings and grid from it, and with
# writeback_single_inode the pages of the block device's first writeback
# With --vm-runs N (vm_runs) each side runs N times, in model.I and
# real.I; model and real then link to the run of each side whose truth p50
# is the median (">end" above every figure), and every run's figures go to
# the row (runs): one kernel draw can fall in a regime the others do not.
vm_policy_patched() {
	local kt=$1 kp=$2 pol=$3 P=$out/vm-$3-patched l0; l0=$(load)
	local ok=1 n=${vm_runs:-1} i m=model r=real
	for ((i = 1; i <= n; i++)); do
		[ "$n" = 1 ] || { m=model.$i r=real.$i; }
		nice -n 10 "$SW_TOP/stalewin" vm run --policy "$pol" --fs tmpfs --workload rewrite \
			--duration 30 "${VM_SYS[@]}" "${VM_MODEL[@]}" "${VM_LEAD[@]}" --out "$P/$m" >"$P.$m.log" 2>&1 || ok=0
		[ -s "$P/$m/report.json" ] || ok=0
		SW_VM_KERNEL_TOOL=$kt SW_VM_TRACE_EVENTS="$VM_TRACE timer:timer_start writeback:writeback_single_inode" \
			nice -n 10 "$SW_TOP/stalewin" vm run --kernel patched --policy "$pol" \
			--sysctl vm.mmap_cmtime_ordering=1 \
			--workload rewrite --duration 30 "${VM_SYS[@]}" "${VM_LEAD[@]}" --out "$P/$r" >"$P.$r.log" 2>&1 || ok=0
		[ -s "$P/$r/report.json" ] || ok=0
	done
	local runs=()
	if [ $ok = 1 ] && [ "$n" -gt 1 ]; then
		local side k
		for side in model real; do
			k=$("$report" validate median-run "$P/$side".*/report.json) &&
				[ -n "$k" ] && ln -sfn "$side.$k" "$P/$side" || ok=0
		done
		local a=() f
		for f in "$P"/model.*/report.json; do a+=(--model "$f"); done
		for f in "$P"/real.*/report.json; do a+=(--real "$f"); done
		[ $ok = 1 ] && "$report" validate runs --compared-model "$(readlink "$P/model")" \
			--compared-real "$(readlink "$P/real")" "${a[@]}" >"$P.runs.json" &&
			runs=(--runs "$P.runs.json") || ok=0
	fi
	local sweep="$SW_BUILD_DIR/analysis/stalewin-model-sweep" created=()
	# the guest's uptime when the file existed (vm/guest/server.sh)
	[ -s "$P/real/vm/sync-run/server.prepared" ] &&
		created=(--created-s "$(cat "$P/real/vm/sync-run/server.prepared")")
	[ -s "$P/real/vm/sync-run/file.ino" ] && created+=(--ino "$(cat "$P/real/vm/sync-run/file.ino")")
	if [ $ok = 1 ] && ! "$sweep" --log "$P/real/writer.swlog" --policy "$pol" "${VM_SWEEP_ARGS[@]}" \
		--kernel-trace "$P/real/server/trace.txt" --bdi 254:0 "${created[@]}" \
		>"$P.sweep.json" 2>"$P.sweep.err"; then
		echo "$prog: vm $pol/patched: no replay at the kernel's phase: $(tail -n1 "$P.sweep.err")" >&2
		"$sweep" --log "$P/real/writer.swlog" --policy "$pol" "${VM_SWEEP_ARGS[@]}" \
			>"$P.sweep.json" 2>>"$P.sweep.err" || {
			echo "$prog: vm $pol/patched: the model sweep failed: $(tail -n1 "$P.sweep.err")" >&2
			ok=0
		}
	fi
	if [ $ok = 0 ]; then
		echo "$prog: vm $pol/patched run failed: $(tail -n2 "$P".model*.log "$P".real*.log)" >&2
		"$report" validate failed "vm-$pol-patched" >"$P.row.json"
	else
		self_replay "$P/model/writer.swlog" "$pol" "$P.self.json"
		"$report" validate row --name "vm-$pol-patched" --fs "guest ext4, patched kernel $kp" \
			--workload "--workload rewrite --interval-ms 100" --writeback-ms 1000 \
			--expire-ms 5000 --duration-s 30 --resolution-ms 100 --load "$l0 / $(load)" \
			--lead-s "$VM_LEAD_S" --model "$P/model/report.json" --real "$P/real/report.json" \
			--sweep "$P.sweep.json" "${self_args[@]}" "${runs[@]}" >"$P.row.json"
	fi
	rows+=("$P.row.json")
	[ $json = 1 ] || "$report" validate line "$P.row.json"
}

run_vm_pairs() {
	if ! command -v qemu-system-x86_64 >/dev/null; then
		vm_skips+=("qemu-system-x86_64 not installed: no guest pairs")
		return 0
	fi
	say "--vm: guest pairs (qemu TCG; load $(load))"
	if [ $quick = 1 ]; then
		vm_replay_run replay-quick 100 40 vers=3,nolock vers=4.2
	else
		vm_replay_run replay-v3 100 40 vers=3,nolock vers=3,nolock,actimeo=1 \
			vers=3,nolock,actimeo=10 vers=3,nolock,noac
		vm_replay_run replay-v3b-v4 100 40 vers=3,nolock,nocto \
			vers=3,nolock,acregmin=1,acregmax=10 vers=4.2 vers=4.2,actimeo=1
		vm_replay_run replay-v4b 100 40 vers=4.2,actimeo=10 vers=4.2,noac \
			vers=4.2,nocto vers=4.2,acregmin=1,acregmax=10
		vm_replay_run replay-read1s 1000 40 vers=3,nolock vers=4.2 \
			vers=3,nolock,acregmin=1,acregmax=10 vers=3,nolock,actimeo=1
		vm_eager_stock
	fi
	local k="${SW_VM_KERNEL_TOOL:-$SW_TOP/vm/kernel/stalewin-vm-kernel}"
	local kp
	if [ -n "${vm_kernel:-}" ]; then
		# --kernel VMLINUX: a cached build of other patches, named in the row
		printf '#!/bin/sh\necho %q\n' "$vm_kernel" >"$out/kernel-tool.sh"
		chmod +x "$out/kernel-tool.sh"
		k=$out/kernel-tool.sh
	fi
	if [ ! -x "$k" ] || ! kp=$("$k" --print-path 2>/dev/null); then
		vm_skips+=("deferred/lang against the patched guest kernel: no patched kernel built (vm/kernel/stalewin-vm-kernel --print-path; or validate --kernel VMLINUX)")
	else
		vm_policy_patched "$k" "$kp" deferred
		[ $quick = 1 ] || vm_policy_patched "$k" "$kp" lang
	fi
}
