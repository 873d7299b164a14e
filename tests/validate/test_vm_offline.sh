#!/usr/bin/env bash
# Description: the replay pairs of two quick VM validations that failed on
# a fresh 2-core machine (6 Dec 2026; tests/validate/data, the run folders
# as validate --vm left them), replayed offline by today's analysis and
# judged by validate's own bands (stalewin-report validate kread).  Both
# failures were the trace feeding the replay, not the client's rules:
#  - v4.2 kept-open: the OPEN's fattr (nfs_fattr_init) set up a tick
#    after nfs4_opendata_alloc's entry; the replay took the entry's jiffy
#    as read_cache_jiffies and revalidated a read before the kernel all
#    run (p50 3.22 s against 3.72 s, 0 stores unresolved against 22, 0 of
#    11 revalidations at traced jiffies);
#  - v3 kept-open: a READ's tracepoint 0.4 ms after its kprobe (the task
#    preempted) lost the kprobe's jiffy and took the grid's next one; the
#    replay revalidated a read late every cycle (p50 2.72 s against 3.32 s).
# Two more from this machine (7 Dec), both the kind of the CI failure of
# 6 Dec (a replay p50 below the client's):
#  - loaded-2026-12-07-a, at host load 9.5 (two busy loops and two
#    kernel builds beside it): the v4.2 close-to-open row outside its
#    band (0.56 s against 0.66 s), because a fill was the read's start
#    where the client's figure is its return, and a change or a store
#    crossing the GETATTR, OPEN or READ, which the logs cannot order,
#    was decided by the send's jiffy;
#  - setup-window-2026-12-07, at load 6: the v3 kept-open row (1.65 s
#    against 2.06 s, 11 stores unresolved against 32, 1 of 12 GETATTRs
#    at the client's reads): the writer's set-up took 0.5 s, its first
#    revalidation's GETATTR came inside it, 145 ms before the set-up's
#    final stamp, and found a change; the replay placed the change at
#    the stamp and stayed a revalidation apart for the run.
#  - ci-2026-12-07: the CI failure of 6 Dec itself (the run folder the
#    test kept, found on this machine): v3 kept-open, replay p50 2.40 s
#    against 2.82 s, 23 stores unresolved against 0, 10 of 11
#    revalidations traced.
# Now each reader agrees with its client store by store, the undetermined
# ones counted (replay.h: sw_replay_served, take_client,
# sw_replay_update_window).
# Every reader's row must be within its bands and every revalidation of
# the replay at the client's traced jiffies: a v4 reader whose
# revalidations go untraced (0 of N, as close-to-open OPENs were counted
# before) fails here.
. "$(dirname "$0")/../lib/test-lib.sh"
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
REPORT=${SW_BUILD_DIR:?}/analysis/stalewin-report
sw_need jq "jq missing"
sw_need_built "$REPORT"
sw_scratch /tmp/sw-vm-offline
# replay TGZ: its run folder replayed, every reader row judged
replay() {
	local tgz=$1 n run rc k name within fails_ rp50 mp50 runc munc revals traced
	n=$(basename "$tgz" .tar.gz)
	mkdir -p "$T/$n"
	tar xzf "$tgz" -C "$T/$n" || { fail "$n: cannot unpack $tgz"; return; }
	run=$T/$n/vm-replay-quick
	rm -f "$run/report.json" "$run/report.txt"
	"$REPORT" "$run" --format json --out "$T/$n/rep" >"$T/$n/report.out" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] || { fail "$n: stalewin-report exited $rc, expected 0: $(tail -n2 "$T/$n/report.out")"; return; }
	"$REPORT" validate kread --run "$n" --every-ms 100 --load offline \
		"$T/$n/rep/report.json" >"$T/$n/rows.json" || { fail "$n: validate kread failed"; return; }
	k=$(jq length "$T/$n/rows.json")
	[ "$k" = 4 ] || fail "$n: expected 4 reader rows (v3 and v4.2, kept-open and cto), saw $k"
	while IFS='|' read -r name within fails_ rp50 mp50 runc munc revals traced; do
		echo "$name: real p50 ${rp50} ns, replay ${mp50} ns; unresolved ${runc} / ${munc}; traced ${traced} of ${revals}"
		[ "$within" = true ] || fail "$name: expected within its bands, outside on $fails_ (real p50 $rp50 ns, replay $mp50 ns, unresolved $runc against $munc)"
		[ "$revals" -gt 0 ] && [ "$traced" = "$revals" ] ||
			fail "$name: expected every revalidation of the replay at the client's traced jiffies, saw $traced of $revals"
	done < <(jq -r '.[] | [.name, .within, (.fails | join(",")), .real.p50, .model.p50, .real.uncovered, .model.uncovered, .replay_rpc.revalidations, .replay_rpc.traced] | map(tostring) | join("|")' "$T/$n/rows.json")
	# every GETATTR of the replay at a read where the client sent one, and
	# none of the client's missing (revalmatch.h; v4 close-to-open
	# readers revalidate by OPEN: not compared)
	while IFS='|' read -r name c r m part; do
		echo "$name: GETATTRs client $c, replay $r, at the same read $m"
		[ "$c" = "$m" ] && [ "$r" = "$m" ] && [ "$part" = null ] ||
			fail "$name: expected the replay's GETATTRs at the client's reads ($c), saw $m of $r matched, first apart: $part"
	done < <(jq -r '.[] | select(.replay_rpc.match != null) | [.name, .replay_rpc.match.client, .replay_rpc.match.replay, .replay_rpc.match.matched, (.replay_rpc.match.first_part | tojson)] | map(tostring) | join("|")' "$T/$n/rows.json")
}
# a case per validation: kept-open-v3-2026-12-06, kept-open-v4.2-2026-12-06,
# loaded-2026-12-07-a, setup-window-2026-12-07, ci-2026-12-07
for tgz in "$SRC"/tests/validate/data/*.tar.gz; do
	sw_case "$(basename "$tgz" .tar.gz)" replay "$tgz"
done
sw_done "every reader within its bands, every revalidation traced"
