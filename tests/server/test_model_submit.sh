#!/usr/bin/env bash
# Description: the stock run's submission of a never-written page and the
# block device's first writeback, against three traced eager runs of the
# stock 6.1 guest (tests/server/data/eager-stock-6.1-10..12: native ext4,
# one page rewritten every 100 ms, 1 s / 5 s, 20 s, NFS readers).  Stock
# ext4 write-protects a page only as it submits it
# (clear_page_dirty_for_io), and a page with no block only after its
# delalloc allocation: in runs 10 and 11 a store landed 18 ms into the
# run, before that (run 10: allocation 44.5 ms into it; run 11: the page
# cleaned 27 ms into it, traced by a kprobe on folio_clear_dirty_for_io),
# and did not fault.  In run 12 the block device's first writeback wrote
# 5 pages where the other runs wrote 6 (writeback_single_inode wrote=):
# the wb's writeout count folded a run later, and background writeback
# went on a run longer.  With --ino the kernel-phase replay reads both
# from the trace; its truth p50, p90 and updates must be within the
# bands of test_model_eager_stock.sh and its uncovered stores the
# kernel's (one store landing in the allocation moves that count by one
# or two; at the kernel's phase the model had the kernel's count in all
# 19 traced runs of 5 Dec).  Without them (no --ino) each run must leave those
# bands: a harness that traps the store in the allocation, or counts 6
# pages where the kernel wrote 5, shows here.  Run 13 (the native side of
# validate's stock pair, 5 Dec) also holds a commit's length: its
# buffers reach the block device inode at the commit's end (~4 ms,
# --wb-run-commit-us), and there a commit timer 2 ms before a flusher
# run dirtied it after the run's background pass: the flusher was
# re-armed from the run's end.  With the commit taken as instant
# (--wb-run-commit-us 0) the model leaves the bands (p90 3.10 s against
# 2.11 s, 16 updates against 17).
# A case per run (run-10 .. run-13) and run-13-instant-commit.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/traced_lib.sh"
MODEL=(--policy eager --writeback-ms 1000 --expire-ms 5000 --wb-bg-share fprop
	--create-meta-pages 5 --alloc-meta-pages 2 --wb-run-commit-us 4200
	--wb-run-alloc-us 17400 --wb-run-pass-us 6000 --wb-run-io-us 1500
	--atime-read-ms 60 --jiffy-us 4000 --phases 4)
# the kernel's uncovered stores: its report's truth row
kernel_uncovered() {
	"$R" "$T/$1" --format json 2>/dev/null |
		jq '[.results.figures[] | select(.kind == "truth")][0].unresolved'
}
UNC_JQ='def unc($m; $k): if $m.uncovered != $k then "BAD expected the model'"'"'s uncovered stores to be the kernel'"'"'s \($k), saw \($m.uncovered)" else empty end;'
check_run() {
	local n=$1 ku
	kernel_figures "$D/eager-stock-6.1-$n" "$n" || return
	ku=$(kernel_uncovered "$n")
	[[ $ku =~ ^[0-9]+$ ]] || { fail "run $n: no uncovered count in the kernel's report (saw '$ku')"; return; }
	sweep "$n" "$T/$n.m" --ino "$(cat "$D/eager-stock-6.1-$n/file.ino")" || return
	sweep "$n" "$T/$n.old" || return
	jq -n -r --arg n "$n" --argjson ku "$ku" --slurpfile k "$T/$n.k" --slurpfile m "$T/$n.m" \
		--slurpfile o "$T/$n.old" "$BANDS_JQ$UNC_JQ"'
		$k[0] as $k | $m[0].kernel_phase as $m | $o[0].kernel_phase as $o
		| "run \($n): kernel p50 \($k.p50 / 1e9) p90 \($k.p90 / 1e9) updates \($k.updates) uncovered \($ku); model p50 \($m.p50_ns / 1e9) p90 \($m.p90_ns / 1e9) updates \($m.updates) uncovered \($m.uncovered) (submissions from \($m.submit_traced_from), first bdev writeback \($m.first_bdev_pages_traced) pages); without them p50 \($o.p50_ns / 1e9) p90 \($o.p90_ns / 1e9) updates \($o.updates) uncovered \($o.uncovered)",
		(if $m.submit_traced_from == "none" then "BAD expected traced submissions of the file in the trace, saw none" else empty end),
		bands($m; $k), unc($m; $ku),
		([bands($o; $k), unc($o; $ku)] | if length == 0 then "BAD expected the model without them out of its bands" else empty end)
	' >"$T/$n.out" || fail "run $n: the checks (jq) did not run"
	bad_lines "$n"
}
# run 13 with the commit taken as instant
instant_commit() {
	local d=$D/eager-stock-6.1-13
	[ -s "$T/13.k" ] || kernel_figures "$d" 13 || return
	sweep 13 "$T/13.instant" --ino "$(cat "$d/file.ino")" --wb-run-commit-us 0 &&
		out_of_bands x13 "$T/13.k" "$T/13.instant" "run 13 with the commit instant"
}
for n in 10 11 12 13; do
	sw_case "run-$n" check_run "$n"
done
sw_case run-13-instant-commit instant_commit
sw_done
