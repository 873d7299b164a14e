#!/usr/bin/env bash
# Description: the writeback model against two traced eager runs of the
# stock 6.1 guest (native ext4, one page rewritten every 100 ms, 1 s / 5 s,
# 20 s; tests/server/data/README.md).  stalewin-model-sweep replays the
# eager model on each run's own stores from the kernel's first flusher
# run, the file's creation time (server.prepared) and the kernel's own
# firings of the writeout_period timer (timer:timer_start); the model's
# truth p50 and p90 must be within 5 % of the kernel's (stalewin-report on
# the same log) and its updates within 2 of the kernel's, and its timer
# must fire at exactly the traced times (not the model's own).  Its own timer
# (--period-timer wheel: the wheel's bucket, re-armed on the grid of its
# expiries, armed by a writeout that completes after the run) must fire
# within one jiffy of each of the kernel's six firings: a model that fires
# it on time, files it in the wrong bucket, re-arms it from its late
# firing, or counts the first writeout at the flusher run's start (17 and
# 26 ms before the kernel did: across a bucket boundary in both runs)
# leaves that.  In run 1 the firing's timing decides the figures: the
# on-time timer (exact, 3 s after the arming) ages the wb's writeout count
# before the 13.19 s flusher run that the kernel ran first, and the second
# stretch of per-run updates starts at 22.6 s, not 19.4 s: p50 0.81 s
# against 0.70 s, which must miss by at least 7 %.
# Arguments: [--five-bdev-pages] the runs to check (default 1 2).
# --five-bdev-pages (runs 3 and 4, writer_model_eager_stock_5pages): their
# traces predate writeback_single_inode, the line that says how many pages
# the block device's first writeback wrote.  The kernel wrote 6 in 16 of
# the 19 runs that have it and 5 in three (writer_model_submit_traced;
# the model's default, --create-meta-pages 5, is the 6).  With 5
# (--create-meta-pages 4) both runs must fit as above (run 3: p50 0.696 s,
# 15 updates; run 4: 0.600 s, 16), and with the default both must miss:
# the one input their traces lack is all that separates them, so a model
# change that moves either shows here (the kernel's first background
# stretch lasted five runs, the 6-page model's three or four).
# A case per run: run-N.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/traced_lib.sh"
MODEL=(--policy eager --writeback-ms 1000 --expire-ms 5000 --wb-bg-share fprop
	--create-meta-pages 5 --alloc-meta-pages 2 --wb-run-commit-us 4200
	--wb-run-alloc-us 17400 --wb-run-pass-us 6000 --wb-run-io-us 1500 --atime-read-ms 60
	--jiffy-us 4000 --phases 8)
five=0
[ "${1:-}" = --five-bdev-pages ] && { five=1; shift; MODEL+=(--create-meta-pages 4); }
[ $# -gt 0 ] || set -- 1 2
check_run() {
	local n=$1 d v
	d=$D/eager-stock-6.1-$n
	kernel_figures "$d" "$n" || return
	for v in traced wheel exact; do
		"$SW" --log "$d/writer.swlog" "${MODEL[@]}" --kernel-trace "$d/trace.txt" --bdi 254:0 \
			--created-s "$(cat "$d/server.prepared")" --period-timer $v >"$T/$n.$v" 2>"$T/$n.err" ||
			{ fail "run $n ($v): sweep: $(cat "$T/$n.err")"; return; }
	done
	jq -n -r --arg n "$n" --slurpfile k "$T/$n.k" --slurpfile m "$T/$n.traced" \
		--slurpfile w "$T/$n.wheel" --slurpfile x "$T/$n.exact" "$BANDS_JQ"'
		$k[0] as $k | $m[0].kernel_phase as $m | $w[0].kernel_phase as $w | $x[0].kernel_phase as $x
		| $m.period_traced_mono_ns as $tf
		| "run \($n): kernel p50 \($k.p50 / 1e9) p90 \($k.p90 / 1e9) updates \($k.updates); model (traced firings) p50 \($m.p50_ns / 1e9) p90 \($m.p90_ns / 1e9) updates \($m.updates); wheel p50 \($w.p50_ns / 1e9) updates \($w.updates); exact p50 \($x.p50_ns / 1e9) updates \($x.updates)",
		(if ($tf | length) != 6 then "BAD expected 6 firings of writeout_period in the trace, saw \($tf | length)" else empty end),
		(if $m.period_fire_mono_ns != $tf then "BAD expected the replay with the traced firings to fire at them, \($tf), saw \($m.period_fire_mono_ns)" else empty end),
		bands($m; $k),
		(if ($n == "1") and rel($x.p50_ns; $k.p50) < 0.07 then "BAD expected the on-time timer (exact) to miss the kernel'"'"'s p50 by at least 7 %, saw \($x.p50_ns) ns against \($k.p50) ns" else empty end),
		([range(0; $tf | length) | select((($w.period_fire_mono_ns[.] // 0) - $tf[.]) | fabs > 4000000)] as $off
		 | if ($off | length) > 0 then "BAD expected the wheel'"'"'s firings within one jiffy of the traced ones \($tf), saw \($w.period_fire_mono_ns)" else empty end)
	' >"$T/$n.out" || fail "run $n: the checks (jq) did not run"
	bad_lines "$n"
	if [ $five = 1 ]; then # the default 6 pages must miss
		sweep "$n" "$T/$n.six" --create-meta-pages 5 --period-timer traced &&
			out_of_bands "$n.six" "$T/$n.k" "$T/$n.six" "run $n with the first bdev writeback at 6 pages"
	fi
}
for n in "$@"; do
	sw_case "run-$n" check_run "$n"
done
sw_done
