#!/usr/bin/env bash
# Description: `stalewin vm run --ns-clients 8 --probes 4`: eight kernel
# NFS clients in the one client guest, one per network namespace (vm/
# guest/nsclients.sh), and four probes.  One short native ext4 run
# (--duration 10, v3 kept-open, probes at 50/s); checks: eight kread
# logs, each whole (an END record) with KREAD rows; four probe logs, each
# whole, eight observers with replies; the report's eight kreads each flagged as a namespace
# client with a namespace and an address of its own (eight distinct of
# each) and each a "kread-J kept" figure over the run's stores; each
# namespace's own /proc/net/nfsfs saw the server (client/ns-J-nfsfs.txt);
# knfsd's export cache holds at least eight client addresses and its
# counters moved (the report's nfsd line, server/nfsd-*.txt);
# the report says the clients share the guest's clock; nothing of the run
# left running or mounted (~60 s).
#   test_vm_ns_clients.sh bad-input: --ns-clients 0, 9, x, with two
# --mount-opts, two --reader-mode or a client reboot, and --probes 0, x,
# more than 8 targets or more than one with a client reboot are refused
# with exit 2 and one line naming expected and seen; no guest booted.
# 77 when qemu cannot run here.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
vm_needs_bins server/stalewin-writer client/stalewin-reader

if [ "${1:-}" = bad-input ]; then
	vm_test_dir vm-ns-bad
	vm_refused --policy native --fs ext4 --duration 10 <<'CASES'
--ns-clients 0|--ns-clients: expected a whole number from 1 to 8 (one kernel reader each, at most 8 per report), saw '0'
--ns-clients 9|--ns-clients: expected a whole number from 1 to 8 (one kernel reader each, at most 8 per report), saw '9'
--ns-clients x|--ns-clients: expected a whole number from 1 to 8 (one kernel reader each, at most 8 per report), saw 'x'
--ns-clients -1|--ns-clients: expected a whole number from 1 to 8 (one kernel reader each, at most 8 per report), saw '-1'
--ns-clients 2 --mount-opts vers=3,nolock --mount-opts vers=4.2|--ns-clients: expected one --mount-opts (each namespace mounts it once), saw 2
--ns-clients 2 --reader-mode cto --reader-mode kept-open|--ns-clients: expected one --reader-mode (one reader per namespace), saw 2
--ns-clients 2 --fault client-reboot@3|--ns-clients: expected no --fault client-reboot (the namespaces do not come back after it), saw client-reboot@3
--probes 0|--probes: expected a whole number from 1 to 4 (at most 8 probe targets per report; each probe has 2 with --probe-vers 3+4), saw '0'
--probes 5|--probes: expected a whole number from 1 to 4 (at most 8 probe targets per report; each probe has 2 with --probe-vers 3+4), saw '5'
--vers 3 --probes 9|--probes: expected a whole number from 1 to 8 (at most 8 probe targets per report; each probe has 1 with --probe-vers 3), saw '9'
--probes x|--probes: expected a whole number from 1 to 4 (at most 8 probe targets per report; each probe has 2 with --probe-vers 3+4), saw 'x'
--probes 2 --fault client-reboot@3|--probes: expected 1 with --fault client-reboot (one probe comes back after it), saw 2
CASES
	[ $n = 12 ] || fail "expected 12 refusals, saw $n"
	sw_done "$n --ns-clients and --probes misuses refused with exit 2, no guest booted"
fi

vm_fault_needs
vm_test_dir vm-ns-clients run report.txt run.err
N=8
t0=$(date +%s)
P=4 # --probes: a v3 and a v4 target each, the report's 8 observers
vm_fault_run "$T/run" --duration 10 --ns-clients $N --probes $P
[ "$rc" = 0 ] || { cat "$T/report.txt"; fail "vm run --ns-clients $N exited $rc (0 expected: a complete report)"; }
run=$T/run

# the logs: N kread logs, each whole, each with reads
for ((j = 0; j < N; j++)); do
	[ -s "$run/kread-$j.swlog" ] || fail "no kread-$j.swlog"
	"$b/common/stalewin-logdump" "$run/kread-$j.swlog" >"$T/k.txt" 2>&1 || fail "kread-$j.swlog does not read cleanly: $(tail -n 1 "$T/k.txt")"
	tail -n 1 "$T/k.txt" | grep -q ' END ' || fail "kread-$j.swlog does not end with END: $(tail -n 1 "$T/k.txt")"
	grep -q ' KREAD ' "$T/k.txt" || fail "kread-$j.swlog has no KREAD record"
	grep -q '^v3 ' "$run/client/ns-$j-nfsfs.txt" ||
		fail "namespace $j's own NFS client did not list the server: $(cat "$run/client/ns-$j-nfsfs.txt" 2>&1)"
done
[ ! -e "$run/kread-$N.swlog" ] || fail "more than $N kread logs"
# the probes: P logs, each whole, each two observers with replies
for ((j = 0; j < P; j++)); do
	"$b/common/stalewin-logdump" "$run/probe-$j.swlog" >"$T/p.txt" 2>&1 || fail "probe-$j.swlog does not read cleanly: $(tail -n 1 "$T/p.txt")"
	tail -n 1 "$T/p.txt" | grep -q ' END ' || fail "probe-$j.swlog does not end with END: $(tail -n 1 "$T/p.txt")"
done
[ ! -e "$run/probe-$P.swlog" ] || fail "more than $P probe logs"
[ "$(jr "[.results.observers[] | select(.replies > 0)] | length")" = $((2 * P)) ] ||
	fail "expected $((2 * P)) probe observers with replies, saw: $(jr '[.results.observers[] | "\(.name) \(.replies)"] | join(", ")')"

# the report: N kreads, each a namespace client of its own, each its rows
[ "$(jr '.results.kread | length')" = $N ] || fail "the report has $(jr '.results.kread | length') kreads, expected $N"
[ "$(jr '[.results.kread[].netns // empty] | unique | length')" = $N ] ||
	fail "expected $N distinct namespaces, the report names: $(jr '[.results.kread[].netns] | join(" ")')"
[ "$(jr '[.results.kread[].address // empty] | unique | length')" = $N ] ||
	fail "expected $N distinct client addresses, the report names: $(jr '[.results.kread[].address] | join(" ")')"
stores=$(jr .end.stores)
# (report.txt wraps its key: value lines where it likes: compared
# without any blank)
tr -d ' \n' <"$run/report.txt" >"$T/joined.txt"
for ((j = 0; j < N; j++)); do
	s=$(jr --arg n "kread-$j kept" '.results.figures[] | select(.name == $n) | .stores')
	[ -n "$s" ] && [ "$s" -gt 0 ] && [ "$s" = "$stores" ] ||
		fail "kread-$j: expected a 'kread-$j kept' figure over the $stores stores, saw '${s:-none}'"
	grep -q "kread-${j}kept-open:[^;]*;namespaceclientsw-ns${j}10\.77\.0\.$((10 + j))\(mount\|ns-clients\):" "$T/joined.txt" ||
		fail "report.txt does not flag kread-$j as namespace sw-ns$j's client"
done
grep -q "ns-clients:${N}ofthekreadseachakernelNFSclient[^;]*theyshareitsclock" "$T/joined.txt" ||
	fail "report.txt does not say the $N clients share one guest's clock"
# the server's side: knfsd's export cache saw each namespace's address
# (and the probe's), its counters moved
[ "$(jr '.results.nfsd.client_addresses // 0')" -ge $N ] ||
	fail "knfsd's export cache holds $(jr '.results.nfsd.client_addresses // "no"') client addresses, expected at least $N (server/nfsd-after.txt)"
[ "$(jr '.results.nfsd.getattr_v3 // 0')" -gt 0 ] || fail "knfsd counted no v3 GETATTR (server/nfsd-*.txt)"
nothing_left "$run"
sw_done "$N namespace clients, each its own address and whole log, in $(($(date +%s) - t0)) s"
