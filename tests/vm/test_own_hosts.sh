#!/usr/bin/env bash
# Description: your own two hosts (`stalewin run --writer-url URL --server
# nfs://HOST/EXPORT --kernel-mount DIR`), run exactly as a user runs it on
# their VMs: the harness' two guests stand in for them.  In the server
# guest knfsd and `stalewin-writer serve` are started by hand
# (own_hosts/server.sh); in the client guest the exports are mounted by
# hand and `./stalewin run` runs from the source tree in the share
# (own_hosts/client.sh).  Checks: a directory that is not NFS, a mount of
# another export and a writer URL nobody listens on are refused, each
# naming what was expected and what was seen (exit 2, 2, 1); the run is
# complete (exit 0) with kread-0 (kept-open) and kread-1 (close-to-open)
# logs, meta.json has the mount's options (vers=3) and the readers'
# table, and the report has both kernel-mount rows with real figures: as
# many stores as the truth, resolved ones, a p50 no earlier than the
# truth's less the reader's period and the clock error, and the probe's
# p50 no earlier than the truth's less its resolution.  A path that
# dropped the readers fails here ("rows missing").  Skips (77) only when
# qemu cannot run.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
for t in server/stalewin-writer client/stalewin-reader client/stalewin-probe client/stalewin-ctl \
	common/stalewin-logdump common/stalewin-runfolder analysis/stalewin-report; do
	[ -x "$b/$t" ] || fail "$b/$t is not built (./stalewin build)"
done
command -v jq >/dev/null || fail "jq is not installed (./stalewin setup)"
. "$top/vm/qemu.sh"
SW_VM_PROG=test_own_hosts
T=$(mktemp -d /tmp/sw-vm-own.XXXXXX)
trap 'vm_stop_all; [ -n "${SW_KEEP_TMP:-}" ] && echo "kept $T" || rm -rf "$T"' EXIT
share=$T/share
mkdir -p "$share/tree" "$share/vm"
cp -r "$top/stalewin" "$top/scripts" "$share/tree/"
cp "$top/tests/vm/own_hosts/server.sh" "$top/tests/vm/own_hosts/client.sh" "$share/"
env=$("$top/vm/build.sh" --quiet --build-dir "$b") || fail "vm/build.sh failed"
eval "$env"
case " $SW_VM_BINS " in *" stalewin-runfolder "*) ;; *) fail "the guest image lacks stalewin-runfolder (SW_VM_BINS: $SW_VM_BINS)" ;; esac
sock=$T/net.sock
vm_qemu_start server "$SW_VM_VMLINUX" "$SW_VM_INITRD" "$share" "$share/vm/server.console" \
	--ip 10.77.0.1/24 --run server.sh --mac 52:54:00:77:00:01 --append sw.role=server \
	--net "stream,id=n0,server=on,addr.type=unix,addr.path=$sock"
spid=$VM_PID
for ((i = 0; i < 100; i++)); do [ -S "$sock" ] && break; sleep 0.05; done
[ -S "$sock" ] || { vm_fail_msg "the server's qemu made no socket" "$share/vm/server.console"; fail "server guest"; }
vm_qemu_start client "$SW_VM_VMLINUX" "$SW_VM_INITRD" "$share" "$share/vm/client.console" \
	--ip 10.77.0.2/24 --run client.sh --mac 52:54:00:77:00:02 --append sw.role=client \
	--net "stream,id=n0,server=off,addr.type=unix,addr.path=$sock"
cpid=$VM_PID
vm_wait_file "$cpid" "$share/client.rc" 900 "$share/vm/client.console" "the client guest did not finish" ||
	fail "client guest (server console: $(tail -n 3 "$share/vm/server.console" | tr '\n' ' '))"
vm_stop_pid "$cpid" 20
vm_stop_pid "$spid" 30
[ ! -e "$share/client.failed" ] || fail "client guest: $(cat "$share/client.failed")"
[ ! -e "$share/server.failed" ] || fail "server guest: $(cat "$share/server.failed")"

# the three refusals: exit code and a message naming expected and seen
expect() { # NAME RC TEXT...
	local n=$1 rc=$2 t
	shift 2
	[ "$(cat "$share/$n.rc" 2>/dev/null)" = "$rc" ] ||
		fail "$n: expected exit $rc, saw $(cat "$share/$n.rc" 2>/dev/null || echo none): $(tail -n 3 "$share/$n.err" 2>/dev/null)"
	for t in "$@"; do
		grep -qF -- "$t" "$share/$n.err" || fail "$n: expected '$t' in its error, saw: $(cat "$share/$n.err")"
	done
	echo "ok: $n refused: $(grep -F -- "$1" "$share/$n.err" | head -n 1)"
}
expect bad-notnfs 2 "expected /tmp on an NFS mount" "saw "
expect bad-export 2 "expected the file the writer just created" "10.77.0.1:/export/b"
expect bad-url 1 "expected stalewin-writer serve answering at http://10.77.0.1:7099" "saw:"

# the run
R=$share/run
case $(cat "$share/run.rc") in
0) ;;
4) echo "note: the run is complete with faults (exit 4): $(sed -n 1p "$share/run.out")" ;;
*) fail "the own-hosts run exited $(cat "$share/run.rc") (0 or 4 = complete): $(tail -n 15 "$share/run.err")" ;;
esac
for f in writer.swlog probe-0.swlog kread-0.swlog kread-1.swlog meta.json clock.json report.json report.txt; do
	[ -s "$R/$f" ] || fail "the run folder lacks $f (kernel readers' rows missing?)"
done
jq -e '(.kernel_mounts[0].options | test("vers=3")) and (.kernel_mounts[0].fstype == "nfs")
	and ([.readers[].mode] == ["kept-open", "cto"]) and .kernel_readers_share_cache == true' "$R/meta.json" >/dev/null ||
	fail "meta.json: expected kernel_mounts (nfs, vers=3) and readers kept-open, cto; saw $(jq -c '[.kernel_mounts, .readers, .kernel_readers_share_cache]' "$R/meta.json")"
J=$R/report.json
jq -e '.results.figures | map(select(.kind == "kernel-mount" and (.name | test("^kread-[01] (kept|cto)$")))) | length == 2' "$J" >/dev/null ||
	fail "report: expected the rows kread-0 kept and kread-1 cto, saw: $(jq -c '[.results.figures[] | [.kind, .name]]' "$J")"
read -r ts tp50 < <(jq -r '.results.figures[] | select(.kind == "truth") | [.stores, (.p50_ns // -1)] | @tsv' "$J")
[ "$ts" -gt 20 ] || fail "the truth has only $ts stores"
[ "$tp50" -ge 0 ] || fail "the truth's p50 is past the run's end: no writeback cycle in the run (writer options?)"
err=$(jq -r '.start.clock.err_ns' "$J")
echo "truth: $ts stores, p50 $tp50 ns; clock err $err ns"
while read -r name n unres p50; do
	echo "row $name: $n stores, $unres unresolved, p50 $p50 ns"
	[ "$n" = "$ts" ] || fail "$name: expected the truth's $ts stores, saw $n"
	[ "$unres" -lt "$n" ] || fail "$name: every store unresolved"
	# kept-open: the attribute cache (acregmin 3 s, doubling) may keep more
	# than half of the stores unseen to the end; close-to-open must see them
	[ "$p50" != null ] || [[ $name == *kept ]] || fail "$name: no p50 (more than half of the stores never seen)"
	[ "$p50" = null ] || [ "$p50" -ge $((tp50 - 100000000 - err)) ] ||
		fail "$name: p50 $p50 ns earlier than the truth's $tp50 ns less the reader period (100 ms) and the clock error ($err ns)"
done < <(jq -r '.results.figures[] | select(.kind == "kernel-mount" and (.name | test("replay") | not)) | [.name, .stores, .unresolved, (.p50_ns // "null")] | @tsv' "$J" | tr ' ' _)
read -r on op50 res < <(jq -r '[(.results.figures[] | select(.kind == "observed") | .stores, (.p50_ns // -1)), .results.observers[0].resolution_ns] | @tsv' "$J")
echo "probe: $on stores, p50 $op50 ns, resolution $res ns"
[ "$op50" -ge $((tp50 - res)) ] ||
	fail "probe p50 $op50 ns earlier than the truth's $tp50 ns less its resolution $res ns"
if grep -E 'WARNING:|BUG:|Oops' "$share"/*.dmesg 2>/dev/null; then fail "kernel trouble in a guest's dmesg"; fi
sw_done "own hosts: refusals named; run complete with kernel-mount rows"
