#!/usr/bin/env bash
# Description: `stalewin validate --quick` (4 host pairs of 20 s, ~2 min):
# emulated eager on tmpfs (the writer's writeback model) against native on
# loop ext4, same workload and seed, host writeback sysctls pinned to the
# model's.  Fails when any pair leaves validate's bands (p50/p90 10 % or one
# resolution, max one writeback interval, uncovered 10 % or 2, updates 1
# per 10 s), i.e. when the model and the kernel disagree, and when the JSON
# lacks its fields or the sysctls are not restored.  The kernel's own
# schedule jitters (journal commit and flusher work latency under load can
# move one flush past a store and so a whole cycle at the run's end), so a
# pair outside its band is run once more and the test fails when it is
# outside again; a wrong model (below) is outside every time.
#  --broken: the same with the model's expire ignored on the emulated side
#  (SW_VALIDATE_EMULATED_EXTRA="--expire-ms 0"): validate must say OUTSIDE
#  and exit 1 (this proves the quick test can fail).
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
host_test test
if [ "${1:-}" = --broken ]; then
	SW_VALIDATE_EMULATED_EXTRA="--expire-ms 0" "$V" validate --pairs rewrite-100ms,rewrite-700ms \
		--json --out "$out/v" >"$out/j" 2>"$out/e"; rc=$?
	[ $rc -eq 1 ] || fail "broken model (expire ignored): expected exit 1, saw $rc: $(tail -3 "$out/e")"
	n=$(jq '.pairs_within_bands' "$out/j" 2>/dev/null)
	[ "$n" = 0 ] || fail "broken model: expected 0 pairs within bands, saw $n"
	jq -r '.pairs[] | "\(.name): model updates \(.model.updates) real \(.real.updates), outside: \(.fails | join(","))"' "$out/j"
else
	"$V" validate --quick --json --out "$out/v" >"$out/j" 2>"$out/e"; rc=$?
	jq -r '.pairs[] | "\(.name): p50 \(.model.p50)/\(.real.p50) p90 \(.model.p90)/\(.real.p90) uncovered \(.model.uncovered)/\(.real.uncovered) updates \(.model.updates)/\(.real.updates) within=\(.within) \(.fails | join(","))"' "$out/j"
	for k in pairs worst_p50_rel_err worst_p90_rel_err pairs_within_bands pairs_total; do
		jq -e "has(\"$k\")" "$out/j" >/dev/null || fail "JSON lacks $k"
	done
	t=$(jq .pairs_total "$out/j") w=$(jq .pairs_within_bands "$out/j")
	[ "$t" = 4 ] || fail "expected 4 quick pairs, saw $t"
	# a pair outside its bands twice, undisturbed, fails; a run whose
	# native disk another process wrote back (validate traces the host's
	# writebacks: "disturbed: N ...") does not count and is run again, up
	# to 3 runs in all; a pair disturbed in every run skips, saying so
	declare -A strikes=()
	j=$out/j k=1 again="" disturbed=""
	while :; do
		again="" disturbed=""
		while IFS='|' read -r name fails; do
			case $fails in
			*disturbed:*) disturbed+="${disturbed:+,}$name" ;;
			*) strikes[$name]=$((${strikes[$name]:-0} + 1)); again+="${again:+,}$name" ;;
			esac
		done < <(jq -r '.pairs[] | select(.within | not) | "\(.name)|\(.fails | join(","))"' "$j")
		for n in ${again//,/ }; do
			[ "${strikes[$n]}" -lt 2 ] || fail "validate --quick: $n outside its bands in two undisturbed runs"
		done
		[ -n "$again$disturbed" ] && [ $k -lt 3 ] && [ "$_sw_fails" = 0 ] || break
		k=$((k + 1))
		echo "run $k: again $again${disturbed:+ (disturbed: $disturbed)}"
		"$V" validate --pairs "${again}${again:+${disturbed:+,}}$disturbed" --json --out "$out/v$k" >"$out/j$k" 2>"$out/e$k"
		j=$out/j$k
		jq -r '.pairs[] | "\(.name) (run '$k'): p50 \(.model.p50)/\(.real.p50) p90 \(.model.p90)/\(.real.p90) uncovered \(.model.uncovered)/\(.real.uncovered) updates \(.model.updates)/\(.real.updates) within=\(.within) \(.fails | join(","))"' "$j"
	done
	[ "$k" = 1 ] && [ -z "$again$disturbed" ] && { [ $rc -eq 0 ] || fail "validate --quick: exit $rc with all pairs within: $(tail -3 "$out/e")"; }
	[ -n "$again" ] && [ "$_sw_fails" = 0 ] && fail "validate --quick: still outside after $k runs: $again"
	[ -n "$disturbed" ] && [ "$_sw_fails" = 0 ] &&
		skip "another process wrote back the native side's disk during every one of $k runs of $disturbed (sync or reclaim, traced): no comparison can be made on this host now"
fi
[ "$(sysctls)" = "$before" ] || fail "sysctls not restored: before $before, after $(sysctls)"
! grep -q sw-validate /proc/mounts || fail "a sw-validate mount was left behind"
sw_done
