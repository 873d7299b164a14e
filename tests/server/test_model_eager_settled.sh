#!/usr/bin/env bash
# Description: the writeback model against the stock 6.1 guest's eager
# runs on a settled file (vm run --lead 25: the first store 25 s after the
# file's creation; tests/server/data/README.md, eager-stock-6.1-14..16).
# stalewin-model-sweep replays the model on each run's own stores at the
# kernel's phase (its flusher runs, jiffies, commits, atime handles, the
# writeout_period timer's firings, the file's submissions and the writer's
# dirtying, traced); its truth p50/p90 must be within 5 % of the kernel's
# and its updates within 2 (traced_lib.sh bands).
# Arguments: the runs (default 14 15 16: p50 0.600-0.601 s, p90 2.40 s,
# 16 updates, against the kernel's 0.604 s, 2.42 s and 16 in each).
# A replay that arms the flusher at an eager store's start, not where
# the writer's fault did (its timestamp update dirtied the clean inode,
# writeback_mark_inode_dirty ... state= flags=I_DIRTY_SYNC, and
# wb_wakeup_delayed's timer_start followed, 1.4 ms into the store and a
# jiffy later), files that run's expiry a timer-wheel bucket early in run
# 14: one extra writeout page in its background stretch, the wb's share
# left above zero one period longer, and 0.700 s, 3.70 s, 15 updates.
# A case per run: run-N.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/traced_lib.sh"
command -v xz >/dev/null || skip "xz missing (the fixtures' traces are xz)"
MODEL=(--policy eager --writeback-ms 1000 --expire-ms 5000 --wb-bg-share fprop
	--create-meta-pages 5 --alloc-meta-pages 2 --wb-run-commit-us 4200
	--wb-run-alloc-us 17400 --wb-run-pass-us 6000 --wb-run-io-us 1500
	--atime-read-ms 60 --wb-run-submit-us 12000 --jiffy-us 4000 --phases 1 --lead-ms log)
[ $# -gt 0 ] || set -- 14 15 16
check_run() {
	local n=$1 d
	d=$D/eager-stock-6.1-$n
	xz -dc "$d/trace.txt.xz" >"$T/$n.trace" || { fail "run $n: cannot read $d/trace.txt.xz"; return; }
	kernel_figures "$d" "$n" || return
	"$SW" --log "$d/writer.swlog" "${MODEL[@]}" --kernel-trace "$T/$n.trace" --bdi 254:0 \
		--created-s "$(cat "$d/server.prepared")" --ino "$(cat "$d/file.ino")" \
		>"$T/$n.m" 2>"$T/$n.err" || { fail "run $n: sweep: $(cat "$T/$n.err")"; return; }
	jq -n -r --arg n "$n" --slurpfile k "$T/$n.k" --slurpfile m "$T/$n.m" "$BANDS_JQ"'
		$k[0] as $k | $m[0].kernel_phase as $m
		| "run \($n): kernel p50 \($k.p50 / 1e9) p90 \($k.p90 / 1e9) updates \($k.updates); model p50 \($m.p50_ns / 1e9) p90 \($m.p90_ns / 1e9) updates \($m.updates)",
		  bands($m; $k)' >"$T/$n.out" || { fail "run $n: the checks (jq) did not run"; return; }
	bad_lines "$n"
}
for n in "$@"; do
	sw_case "run-$n" check_run "$n"
done
sw_done
