#!/usr/bin/env bash
# Description: `stalewin vm run --ns-clients 8 --probes 100`: eight
# kernel NFS clients in the one client guest, one per network namespace
# (vm/guest/nsclients.sh), and a hundred libnfs probes (--probe-vers 3:
# one target each, at --query-rate 2: 200 GETATTRs/s in all, within what
# a TCG guest does).  One short native ext4 run (--duration 10, v3
# kept-open).  complete: vm run exited 0 (a complete report).
# kernel_clients: eight kread logs, each whole (an END
# record) with KREAD rows; the report's eight kreads each flagged as a
# namespace client with a namespace and an address of its own (eight
# distinct of each) and each a "kread-J kept" figure over the run's
# stores; each namespace's own /proc/net/nfsfs saw the server
# (client/ns-J-nfsfs.txt); knfsd's export cache holds at least eight
# client addresses and its counters moved (the report's nfsd line,
# server/nfsd-*.txt); the report says the clients share the guest's
# clock and states its error.  probes100: a hundred probe logs, each
# whole; report.json has the hundred observers, each with replies and
# its own window over the run's stores (analysis/pass/report.h: up to
# 128), observers_in_rows 8 of 100 and the spread; report.csv's columns
# and the text's table hold 8, the text gives the spread with the worst
# named and the clock error every observer shares; client/mem.txt says
# what the probes cost the guest's memory.
# nothing_left: nothing of the run left running or mounted (~40 s).
#   test_vm_ns_clients.sh bad-input: --ns-clients 0, 9, x, with two
# --mount-opts, two --reader-mode or a client reboot, and --probes 0, x,
# more than 128 targets or more than one with a client reboot are
# refused with exit 2 and one line naming expected and seen; no guest
# booted.
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
--probes 0|--probes: expected a whole number from 1 to 64 (at most 128 probe targets per report; each probe has 2 with --probe-vers 3+4), saw '0'
--probes 65|--probes: expected a whole number from 1 to 64 (at most 128 probe targets per report; each probe has 2 with --probe-vers 3+4), saw '65'
--vers 3 --probes 129|--probes: expected a whole number from 1 to 128 (at most 128 probe targets per report; each probe has 1 with --probe-vers 3), saw '129'
--probes x|--probes: expected a whole number from 1 to 64 (at most 128 probe targets per report; each probe has 2 with --probe-vers 3+4), saw 'x'
--probes 2 --fault client-reboot@3|--probes: expected 1 with --fault client-reboot (one probe comes back after it), saw 2
CASES
	[ $n = 12 ] || fail "expected 12 refusals, saw $n"
	sw_done "$n --ns-clients and --probes misuses refused with exit 2, no guest booted"
fi

vm_fault_needs
vm_test_dir vm-ns-clients run report.txt run.err
N=8
t0=$(date +%s)
P=100 # --probes, one v3 target each: 100 observers, the rows' first 8
vm_fault_run "$T/run" --duration 10 --ns-clients $N --probes $P --probe-vers 3 --query-rate 2
run=$T/run
# the cases stand on the one run alone: each says what it saw
sw_immediate=0
# (report.txt wraps its key: value lines where it likes: compared
# without any blank)
tr -d ' \n' <"$run/report.txt" >"$T/joined.txt"

complete() {
	[ "$rc" = 0 ] || { cat "$T/report.txt"; fail "vm run --ns-clients $N --probes $P exited $rc (0 expected: a complete report): $first"; }
}

kernel_clients() {
	local j s stores
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
	# the report: N kreads, each a namespace client of its own, each its rows
	[ "$(jr '.results.kread | length')" = $N ] || fail "the report has $(jr '.results.kread | length') kreads, expected $N"
	[ "$(jr '[.results.kread[].netns // empty] | unique | length')" = $N ] ||
		fail "expected $N distinct namespaces, the report names: $(jr '[.results.kread[].netns] | join(" ")')"
	[ "$(jr '[.results.kread[].address // empty] | unique | length')" = $N ] ||
		fail "expected $N distinct client addresses, the report names: $(jr '[.results.kread[].address] | join(" ")')"
	stores=$(jr .end.stores)
	for ((j = 0; j < N; j++)); do
		s=$(jr --arg n "kread-$j kept" '.results.figures[] | select(.name == $n) | .stores')
		[ -n "$s" ] && [ "$s" -gt 0 ] && [ "$s" = "$stores" ] ||
			fail "kread-$j: expected a 'kread-$j kept' figure over the $stores stores, saw '${s:-none}'"
		grep -q "kread-${j}kept-open:[^;]*;namespaceclientsw-ns${j}10\.77\.0\.$((10 + j))\(mount\|ns-clients\):" "$T/joined.txt" ||
			fail "report.txt does not flag kread-$j as namespace sw-ns$j's client"
	done
	# the readers read through the writer's run: one at least saw a store
	[ "$(jr '[.results.figures[] | select(.kind == "kernel-mount" and (.name | endswith(" kept")))
		| select(.unresolved < .stores)] | length')" -ge 1 ] ||
		fail "expected a kernel reader to see a store, none did (did they read through the writer's run?)"
	grep -q "ns-clients:${N}ofthekreadseachakernelNFSclient[^;]*theyshareitsclock" "$T/joined.txt" ||
		fail "report.txt does not say the $N clients share one guest's clock"
	# the clock every client shares: its error stated (clock.json)
	[ "$(jr '.start.clock | .clock_json and .err_ns > 0')" = true ] ||
		fail "expected the client guest's clock error in report.json, saw $(jr -c .start.clock)"
	grep -q "clock:offset-\?[0-9]*ns+-[0-9.]*[mun]*s(clock.json)" "$T/joined.txt" ||
		fail "report.txt does not state the clock's offset and error: $(grep '^clock' "$run/report.txt")"
	# the server's side: knfsd's export cache saw each namespace's address
	# (and the probes'), its counters moved
	[ "$(jr '.results.nfsd.client_addresses // 0')" -ge $N ] ||
		fail "knfsd's export cache holds $(jr '.results.nfsd.client_addresses // "no"') client addresses, expected at least $N (server/nfsd-after.txt)"
	[ "$(jr '.results.nfsd.getattr_v3 // 0')" -gt 0 ] || fail "knfsd counted no v3 GETATTR (server/nfsd-*.txt)"
}

# the hundred probes: every log whole, every observer its figures in
# report.json, the rows and the text's table the first 8, the spread
probes100() {
	local j bad stores
	for ((j = 0; j < P; j++)); do
		"$b/common/stalewin-logdump" "$run/probe-$j.swlog" >"$T/p.txt" 2>&1 || fail "probe-$j.swlog does not read cleanly: $(tail -n 1 "$T/p.txt")"
		tail -n 1 "$T/p.txt" | grep -q ' END ' || fail "probe-$j.swlog does not end with END: $(tail -n 1 "$T/p.txt")"
	done
	[ ! -e "$run/probe-$P.swlog" ] || fail "more than $P probe logs"
	[ "$(jr '.results.observers | length')" = $P ] ||
		fail "expected $P observers in report.json, saw $(jr '.results.observers | length')"
	stores=$(jr .end.stores)
	# (a store before a probe's first reply is not judged by it:
	# consistency.no_reference, out of its window)
	bad=$(jr --argjson s "$stores" '[.results.observers[] | select(.replies == 0 or .window.stores == 0
		or .window.stores + .consistency.no_reference != $s
		or ([.window | has("p50_ns", "p90_ns", "p99_ns", "max_ns")] | all | not)
		or .achieved_replies_per_s == null) | .name] | join(", ")')
	[ -z "$bad" ] || fail "expected each observer's replies and window over the $stores stores, saw none for: $bad"
	[ "$(jr -c '.results.observers_in_rows | [.rows, .of]')" = "[8,$P]" ] ||
		fail "expected observers_in_rows 8 of $P, saw $(jr -c .results.observers_in_rows)"
	[ "$(jr '.results.observer_spread | .observers == '$P' and (.worst | startswith("probe-"))')" = true ] ||
		fail "expected the spread over $P observers with the worst named, saw $(jr -c .results.observer_spread)"
	[ "$(jr '[.results.figures[] | select(.kind == "observed")] | length')" = 8 ] ||
		fail "expected 8 observed figures (the rows'), saw $(jr '[.results.figures[] | select(.kind == "observed")] | length')"
	[ "$(head -n 1 "$run/report.csv" | tr ',' '\n' | grep -c '^obs[0-9]*_status$')" = 8 ] ||
		fail "expected 8 observers' columns in report.csv, saw: $(head -n 1 "$run/report.csv")"
	grep -q "observers:${P}probetargets:[^;]*holdthefirst8" "$T/joined.txt" ||
		fail "report.txt does not say its rows hold 8 of $P observers: $(grep -A2 '^observers' "$run/report.txt")"
	grep -q "spread:W_obsoverthe[0-9]*observersthatjudgedastore(min/median/max):p50[^;]*,p99[^;]*;worstprobe-[0-9]*/t0v3(p99" "$T/joined.txt" ||
		fail "report.txt does not give the spread with the worst named: $(grep -A3 '^spread' "$run/report.txt")"
	grep -q "observed:all${P}:[0-9]*checked" "$T/joined.txt" || fail "report.txt does not sum the $P observers' consistency"
	# a probe polling every 500 ms misses updates: a store it sees
	# revealed by an update made before it is early, and explained so
	# (docs/semantics.md, consistency); an early store of any other kind
	# means the clock line's error is understated
	[ "$(jr '.results.observer_spread | .early == (.explained["early-update"] // 0)')" = true ] ||
		fail "expected every early store explained early-update, saw $(jr -c '.results.observer_spread | {early, explained}')"
	[ "$(jr '.results.observer_spread.early')" = 0 ] ||
		grep -q "observed:all${P}:.*explained:.*early-update$(jr '.results.observer_spread.early')[;,]" "$T/joined.txt" ||
		fail "report.txt's observed line does not explain its early stores: $(grep -A2 '^observed' "$run/report.txt")"
	grep -q "allaretimedontheoneclientclockoftheclockline:itserrorappliestoeach" "$T/joined.txt" ||
		fail "report.txt does not say the $P observers share the clock line's error"
	# every probe still up 3 s after go (the first of 100 launched used
	# to end before the writer began) and what they cost the guest
	grep -q "^probes: $P alive of $P; VmRSS read for [1-9][0-9]* of them, summed [0-9]* kB" "$run/client/mem.txt" ||
		fail "expected client/mem.txt to count $P probes alive, saw: $(cat "$run/client/mem.txt" 2>&1)"
	# and each saw the writer's run: some store revealed to it
	bad=$(jr '[.results.observers[] | select(.window.unresolved >= .window.stores) | .name] | join(", ")')
	[ -z "$bad" ] || fail "expected each observer to see a store revealed, none was to: $bad"
	echo "probes100: $(tr '\n' ' ' <"$run/client/mem.txt"); $(jr -r '.results.nfsd | "knfsd: \(.getattr_v3) v3 GETATTRs in \(.seconds) s"')"
	sed -n '/^observers:/,/^$/p' "$run/report.txt"
}

sw_case complete complete
sw_case kernel_clients kernel_clients
sw_case probes100 probes100
sw_case nothing_left nothing_left "$run"
sw_done "$N namespace clients and $P probes, each its own log, in $(($(date +%s) - t0)) s"
