#!/usr/bin/env bash
# Description: the writeback model's journal against five traced eager
# runs of the stock 6.1 guest whose traces carry the jbd2 commits
# (tests/server/data/eager-stock-6.1-5..9: native ext4, one page
# rewritten every 100 ms, 1 s / 5 s, 20 s, NFS readers).  At the kernel's
# phase (its first flusher run, its first commit, its writeout_period
# firings) every later commit is the model's own, and each must come
# within 10 ms of the kernel's jbd2_start_commit: the commit timer at the
# timer wheel's bucket of round_jiffies_up(t_expires), not the whole
# second (jbd2_get_transaction); a handle past t_expires committing at
# once (jbd2_journal_stop); the readers' atime handle starting the next
# transaction after a commit an update forced.  The model's truth p50,
# p90 and updates must be within the bands of test_model_eager_stock.sh.
# Run 9's model runs a store (100 ms) ahead of the kernel from 17.9 s on,
# its commits with it: there only its first two commits are checked.
# Each rule is shown to matter: without the readers' atime handle
# (--atime-read-ms 0) run 9's second commit comes 0.77 s late; with the
# run's pages counted at its start (--wb-run-io-us 0), run 5's figures
# leave the bands (a writeout_period firing 0.3 ms into a run).
# A case per run (run-5 .. run-9) and per rule (no-atime-handle,
# pages-at-run).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/traced_lib.sh"
MODEL=(--policy eager --writeback-ms 1000 --expire-ms 5000 --wb-bg-share fprop
	--create-meta-pages 5 --alloc-meta-pages 2 --wb-run-commit-us 4200
	--wb-run-alloc-us 17400 --wb-run-pass-us 6000 --jiffy-us 4000 --phases 4)
RULES=(--wb-run-io-us 1500 --atime-read-ms 60)
check_run() {
	local n=$1
	kernel_figures "$D/eager-stock-6.1-$n" "$n" || return
	sweep "$n" "$T/$n.m" "${RULES[@]}" || return
	jq -n -r --arg n "$n" --slurpfile k "$T/$n.k" --slurpfile m "$T/$n.m" "$BANDS_JQ"'
		$k[0] as $k | $m[0].kernel_phase as $m
		| $m.commit_traced_mono_ns as $tc | $m.commit_mono_ns as $mc
		| (if $n == "9" then 2 else ($tc | length) end) as $check
		| "run \($n): kernel p50 \($k.p50 / 1e9) p90 \($k.p90 / 1e9) updates \($k.updates); model p50 \($m.p50_ns / 1e9) p90 \($m.p90_ns / 1e9) updates \($m.updates); commits traced \($tc | map(. / 1e9)), model \($mc | map(. / 1e9))",
		(if ($tc | length) < 3 then "BAD expected at least 3 jbd2 commits in the trace, saw \($tc | length)" else empty end),
		([range(0; $check) | select(((($mc[.] // 0) - $tc[.]) | fabs) > 10000000)] as $off
		 | if ($off | length) > 0 then "BAD expected the model'"'"'s commits within 10 ms of the kernel'"'"'s \($tc[0:$check]), saw \($mc[0:$check])" else empty end),
		bands($m; $k)
	' >"$T/$n.out" || fail "run $n: the checks (jq) did not run"
	bad_lines "$n"
}
# the rules matter
no_atime_handle() {
	if sweep 9 "$T/9.noatime" --wb-run-io-us 1500 --atime-read-ms 0; then
		jq -r '.kernel_phase | ((.commit_mono_ns[1] - .commit_traced_mono_ns[1]) / 1e9) as $d
			| "run 9 without the atime handle: second commit \($d) s after the kernel'"'"'s",
			  (if ($d | fabs) < 0.1 then "BAD expected it at least 0.1 s off" else empty end)' \
			"$T/9.noatime" >"$T/x1.out" && bad_lines x1 || fail "run 9 without the atime handle: the check (jq) did not run"
	fi
}
pages_at_run() {
	[ -s "$T/5.k" ] || kernel_figures "$D/eager-stock-6.1-5" 5 || return
	sweep 5 "$T/5.noio" --wb-run-io-us 0 --atime-read-ms 60 &&
		out_of_bands x2 "$T/5.k" "$T/5.noio" "run 5 with pages counted at the run"
}
for n in 5 6 7 8 9; do
	sw_case "run-$n" check_run "$n"
done
sw_case no-atime-handle no_atime_handle
sw_case pages-at-run pages_at_run
sw_done
