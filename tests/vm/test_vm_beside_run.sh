#!/usr/bin/env bash
# Description: a `stalewin run` beside a `stalewin vm run` on one host.
# The vm run (eager, 4 s, --lead 8) and, once its guests
# boot, a host run (eager, 4 s, through ganesha) start without --out:
# both default folders under SW_RUNS_DIR.  While the vm run holds its
# folder a third run given that folder as --out is refused.  Cases:
#  - both_complete: both exit 0 with a complete report, in two folders;
#  - own_stores: each report's run id is its meta.json's and its writer
#    log's, the two differ, each report's stores are its writer log's
#    STORE records;
#  - busy_out_refused: the third exits 2 naming the vm run (its PID,
#    stalewin vm run);
#  - nothing_left: no qemu, work folder, mount, process or claim of either.
# ~35 s (the vm run's boots; the host run fits inside it).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (the host run's mounts and ganesha namespace); running as uid $(id -u)"
for c in ganesha.nfsd rpcbind ip nfs-ls jq; do command -v "$c" >/dev/null || skip "$c not installed (./stalewin setup)"; done
vm_needs_bins server/stalewin-writer client/stalewin-reader client/stalewin-probe client/stalewin-ctl \
	common/stalewin-logdump analysis/stalewin-report
vm_test_dir vm-beside vm.err host.err third.err
R=$T/runs
mkdir -p "$R"
dump=$b/common/stalewin-logdump
export SW_RUNS_DIR=$R SW_BUILD_DIR=$b
PATH=$b/analysis:$PATH "$top/vm/run.sh" --policy eager --duration 4 --fs tmpfs --mount-opts vers=3,nolock \
	--probe-rate 50 --lead 8 --build-dir "$b" >"$T/vm.out" 2>"$T/vm.err" &
pid_vm=$!
# the host run while the guests boot and run
for _ in $(seq 300); do ls "$R"/vm-*/vm/server.console >/dev/null 2>&1 && break; sleep 0.1; done
vm_dir=$(ls -d "$R"/vm-* 2>/dev/null | head -n 1)
set +e
"$top/scripts/stalewin-run" --policy eager --duration 4 --probe-rate 200 >"$T/host.out" 2>"$T/host.err"
rc_host=$?
timeout 20 "$top/scripts/stalewin-run" --duration 2 --out "$vm_dir" >"$T/third.out" 2>"$T/third.err"
rc_third=$?
vm_alive=0; kill -0 "$pid_vm" 2>/dev/null && vm_alive=1
wait "$pid_vm"
rc_vm=$?
set -e
host_dir=$(sed -n 's/^stalewin-run: run folder \(.*\)$/\1/p' "$T/host.err" | tail -n 1)
rid() { "$dump" "$1" | sed -n '1s/.*run_id=\([0-9a-f]*\).*/\1/p'; }

both_complete() {
	[ "$rc_vm" = 0 ] || { tail -n 20 "$T/vm.err"; fail "vm run exited $rc_vm beside a host run, expected 0"; }
	[ "$rc_host" = 0 ] || { cat "$T/host.err"; fail "the host run exited $rc_host beside a vm run, expected 0"; }
	local d
	for d in "$vm_dir" "$host_dir"; do
		[ -n "$d" ] && [ "$(dirname "$d")" = "$R" ] || fail "expected both folders under SW_RUNS_DIR $R, saw '$vm_dir' and '$host_dir'"
		jq -e '.end.complete == true' "$d/report.json" >/dev/null || fail "$d: report missing or not complete"
	done
}

own_stores() {
	local d r ids=""
	for d in "$vm_dir" "$host_dir"; do
		r=$(jq -r .run_id "$d/meta.json")
		[ "$(jq -r .start.run_id "$d/report.json")" = "$r" ] || fail "$d: report names run $(jq -r .start.run_id "$d/report.json"), meta.json $r"
		[ "$(rid "$d/writer.swlog")" = "$r" ] || fail "$d: writer.swlog is run $(rid "$d/writer.swlog"), expected $r"
		[ "$(jq -r .end.stores "$d/report.json")" = "$("$dump" "$d/writer.swlog" | awk '$2 == "STORE"' | wc -l)" ] ||
			fail "$d: the report's stores are not its writer log's STORE records"
		case " $ids " in *" $r "*) fail "$d has run id $r, the other run's" ;; esac
		ids="$ids $r"
	done
}

busy_out_refused() {
	[ "$vm_alive" = 1 ] || { echo "note: the vm run had ended before the third run tried its folder"; return 0; }
	[ "$rc_third" = 2 ] || { cat "$T/third.err"; fail "a run on the vm run's busy folder exited $rc_third, expected 2"; }
	grep -q "is in use by another run, held by PID $pid_vm (stalewin vm run, since" "$T/third.err" ||
		fail "the refusal did not name the vm run (PID $pid_vm): $(cat "$T/third.err")"
}

left_nothing() {
	nothing_left "$vm_dir" # tests/vm/lib.sh
	local w
	w=$(dirname "$(jq -r .server.info.root "$host_dir/meta.json")")
	[ ! -e "$w" ] && ! grep -q "$w" /proc/mounts || fail "the host run left $w or a mount of it"
	[ -z "$(sw_procs_naming "$w" "$host_dir")" ] || fail "the host run left processes:$(sw_procs_naming "$w" "$host_dir")"
	[ ! -e "$vm_dir/.stalewin-claim" ] && [ ! -e "$host_dir/.stalewin-claim" ] || fail "a claim file was left"
}

sw_case both_complete both_complete
sw_case own_stores own_stores
sw_case busy_out_refused busy_out_refused
sw_case nothing_left left_nothing
sw_done "a host run beside a vm run"
