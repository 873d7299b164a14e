#!/usr/bin/env bash
# Description: `./stalewin cost` on the patched guest kernel, its counters
# against workloads whose answer is known (stores a tick apart, a statx
# after each, 1 and 2 threads, ext4 and tmpfs, eager and deferred):
#   eager-handles     ext4, eager, 1 thread: one jbd2 handle per first
#                     store to a clean page (the file is allocated before:
#                     no allocation handle), one timestamp update per store,
#                     a hold time for every handle (start and stop paired);
#   deferred-none     ext4, deferred, 1 thread: no handle and no update in
#                     the fault path; the msync(MS_SYNC) after the stores
#                     starts at least one handle and applies one update;
#   tmpfs-null        tmpfs: the journal figures are null with the reason
#                     (no journal), not zeros;
#   faults-exact      every row: T threads x M pages stores, each counted
#                     as exactly one minor fault (T x M pages dirtied), in
#                     the timed round and in the counted (traced) one.
# A counter wired to the wrong tracepoint, a fill that leaves large folios
# (one fault maps many pages) or a tmpfs journal figure of 0 fails here.
# No timing is asserted: only counts (TCG guests, CI machines vary).
# SW_KERNEL_BASE (default 7.2) picks the patched base; skips (77) when
# none is cached: ./stalewin vm kernel build --base B.  SW_COST_HOST=1:
# the same on this machine's kernel (`stalewin cost --host`, root): its
# stock policy stands for eager, and deferred is checked only when the
# kernel has vm.mmap_cmtime_policy.
. "$(dirname "$0")/../lib/test-lib.sh"
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
base=${SW_KERNEL_BASE:-7.2}
eager=eager deferred=deferred
if [ "${SW_COST_HOST:-0}" = 1 ]; then
	[ "$(id -u)" -eq 0 ] || skip "--host needs root"
	grep -qw tracefs /proc/filesystems || skip "this kernel has no tracefs"
	kargs=(--host) kern="host $(uname -r)"
	[ -e /proc/sys/vm/mmap_cmtime_policy ] || eager=stock deferred=""
else
	"$repo/vm/kernel/stalewin-vm-kernel" --print-path --base "$base" >/dev/null 2>&1 ||
		skip "no patched $base guest kernel is cached; build one with ./stalewin vm kernel build --base $base, then rerun"
	command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 missing"
	kern=patched; [ "$base" = 6.1 ] || kern=patched:$base
	kargs=(--kernel "$kern")
fi
for t in mkfs.ext4 jq; do
	command -v $t >/dev/null || skip "$t missing"
done
out=$(mktemp -d /tmp/sw-cost-counts.XXXXXX)
trap 'rm -rf "$out"' EXIT
pages=40
if ! "$repo/stalewin" cost "${kargs[@]}" --fs ext4 --fs tmpfs --policy $eager \
	${deferred:+--policy $deferred} --threads 1 --threads 2 --pages $pages --repeats 1 --spaced \
	--query statx --json --out "$out/run" >"$out/cost.json" 2>"$out/err"; then
	cat "$out/err"
	fail "expected ./stalewin cost to succeed on $kern, it failed (above)"
	sw_done
fi
# row FS POLICY THREADS: that row's JSON
row() { jq -c --arg f "$1" --arg p "$2" --argjson t "$3" \
	'.rows[] | select(.fs == $f and .policy == $p and .threads == $t)' "$out/cost.json"; }
# val ROW KEY
val() { jq -r ".$2" <<<"$1"; }

eager_handles() {
	local r s h u
	r=$(row ext4 $eager 1) s=$(val "$r" stores) h=$(val "$r" handles_stores) u=$(val "$r" updates_stores)
	echo "ext4 $eager: $s stores, $h handles, $u updates during the stores"
	[ "$h" -ge $((s * 9 / 10)) ] && [ "$h" -le $((s + 2)) ] ||
		fail "ext4 $eager: expected about one jbd2 handle per store ($s), saw $h"
	[ "$u" -eq "$s" ] || fail "ext4 $eager: expected one timestamp update per store ($s), saw $u"
	# each handle's hold paired (its task's start to its stats event)
	local holds p99
	holds=$(val "$r" handle_holds) p99=$(val "$r" handle_hold_p99_us)
	echo "ext4 $eager: $holds handle holds timed, p99 $p99 us"
	[ "$holds" -ge "$h" ] && [ "$p99" != null ] ||
		fail "ext4 $eager: expected a hold time for each of the $h handles, saw $holds (p99 $p99)"
}
deferred_none() {
	local r h hf u uf
	[ -n "$deferred" ] || { echo "deferred: not offered by $kern"; return 0; }
	r=$(row ext4 deferred 1)
	h=$(val "$r" handles_stores) hf=$(val "$r" handles_flush)
	u=$(val "$r" updates_stores) uf=$(val "$r" updates_flush)
	echo "ext4 deferred: $h handles and $u updates during the stores, $hf and $uf at the flush"
	[ "$h" -eq 0 ] || fail "ext4 deferred: expected no jbd2 handle in the fault path, saw $h"
	[ "$u" -eq 0 ] || fail "ext4 deferred: expected no timestamp update in the fault path, saw $u"
	[ "$hf" -ge 1 ] || fail "ext4 deferred: expected the flush to start a handle, saw $hf"
	[ "$uf" -eq 1 ] || fail "ext4 deferred: expected the flush to apply one update, saw $uf"
}
tmpfs_null() {
	local r k why
	for p in $eager $deferred; do
		r=$(row tmpfs $p 1)
		for k in handles_per_1k commits_per_1k handle_hold_p99_us handle_wait_p99_us; do
			[ "$(val "$r" $k)" = null ] || fail "tmpfs $p: expected $k null (no journal), saw $(val "$r" $k)"
		done
		why=$(val "$r" null_because.handles_per_1k)
		[[ $why == *"no journal"* ]] || fail "tmpfs $p: expected the reason 'no journal' for handles_per_1k, saw '$why'"
	done
}
faults_exact() {
	local n bad
	local want=8
	[ -n "$deferred" ] || want=4
	n=$(jq '.rows | length' "$out/cost.json")
	[ "$n" -eq $want ] || fail "expected $want rows (2 fs x the policies x 2 thread counts), saw $n"
	bad=$(jq -r --argjson m $pages '.rows[] | select(.stores != .threads * $m or .faults != .stores
		or .one_fault_stores != .stores or .counted_stores != .stores
		or .faults_counted != .counted_stores or .faults_exact != true)
		| "\(.fs) \(.policy) \(.threads) threads: \(.stores) stores timed, \(.faults) faults, \(.one_fault_stores) single; \(.counted_stores) counted, \(.faults_counted) faults"' "$out/cost.json")
	[ -z "$bad" ] || fail "expected T x $pages stores, each exactly one fault, saw: $bad"
}
# nfs-pressure (guests only): --query nfs with --pressure runs, its rows
# say so, every store is one fault, the writer fsynced, and the client
# guest (query_from client-guest, the rate asked in the row) polled the
# file over NFS, every poll finding it (the rate's bound:
# tests/server/cost/test_cost_clientpoll.c).  A smoke test: no rate is
# asserted (the rate reached is the emulator's).
nfs_pressure() {
	local bad found
	if [ "${SW_COST_HOST:-0}" = 1 ]; then echo "nfs-pressure: guests only"; return 0; fi
	"$repo/stalewin" cost "${kargs[@]}" --fs ext4 --policy eager --policy deferred \
		--threads 1 --pages $pages --repeats 1 --query nfs --query-rate 200 --pressure --json \
		--out "$out/nfs" >"$out/nfs.json" 2>"$out/nfs.err" ||
		{ cat "$out/nfs.err"; fail "expected ./stalewin cost --query nfs --pressure to succeed, it failed (above)"; return 0; }
	jq -r '.rows[] | "\(.policy): client \(.polls_per_s) statx/s, \(.polls_found) found the file; writer \(.pressure_fsyncs_per_s) fsyncs/s"' "$out/nfs.json"
	bad=$(jq -r '.rows[] | select(.query != "nfs" or .pressure != true
		or (.pressure_fsyncs_per_s // 0) <= 0 or .faults_exact != true
		or (.polls_per_s // 0) <= 0 or (.polls_found // 0) <= 0
		or .query_from != "client-guest" or .query_rate != 200
		or .polls_found != .polls)
		| "\(.policy): query \(.query) from \(.query_from) asked \(.query_rate)/s, pressure \(.pressure) at \(.pressure_fsyncs_per_s)/s, faults_exact \(.faults_exact), client polls \(.polls) at \(.polls_per_s)/s found \(.polls_found)"' "$out/nfs.json")
	[ -z "$bad" ] || fail "expected rows of query nfs from the client guest asked 200/s with the writer fsyncing, every poll finding the file and exact faults, saw: $bad"
}
# xfs-log (guests only): xfs's commits are its log writes
# (xfs:xlog_iclog_write, filtered to the disk): a count, never null, and
# the reason gone from null_because; the round's msync(MS_SYNC) is a
# datasync of timestamp-only changes, which forces no log, so no count is
# asserted beyond that (the writes come later, from the CIL push).
xfs_log() {
	local bad
	if [ "${SW_COST_HOST:-0}" = 1 ]; then echo "xfs-log: guests only"; return 0; fi
	"$repo/stalewin" cost "${kargs[@]}" --fs xfs --policy $eager --threads 1 --pages $pages \
		--repeats 1 --json --out "$out/xfs" >"$out/xfs.json" 2>"$out/xfs.err" ||
		{ cat "$out/xfs.err"; fail "expected ./stalewin cost --fs xfs to succeed, it failed (above)"; return 0; }
	jq -r '.rows[] | "xfs \(.policy): \(.handles_stores)+\(.handles_flush) transactions, \(.commits) log writes (\(.commit_event))"' "$out/xfs.json"
	bad=$(jq -r '.rows[] | select(.commit_event != "xfs/xlog_iclog_write"
		or (.commits | type) != "number" or (.commits_per_1k | type) != "number"
		or (.null_because | has("commits_per_1k")))
		| "\(.policy): commit_event \(.commit_event), commits \(.commits), why \(.null_because.commits_per_1k)"' "$out/xfs.json")
	[ -z "$bad" ] || fail "expected xfs's log writes counted (xlog_iclog_write, a number), saw: $bad"
}
sw_case eager-handles eager_handles
sw_case deferred-none deferred_none
sw_case tmpfs-null tmpfs_null
sw_case faults-exact faults_exact
sw_case nfs-pressure nfs_pressure
sw_case xfs-log xfs_log
sw_done "cost counters on $kern: eager one handle a store, deferred none in the fault, tmpfs null, T x M faults"
