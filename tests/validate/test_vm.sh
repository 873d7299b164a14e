#!/usr/bin/env bash
# Description: reduced `stalewin validate --vm --quick` (one VM run, ~1.5
# min): the replay of the Linux NFS client (analysis/replay.c, the mount's
# options) against the real kernel client of the client guest, v3 and v4.2
# default mounts, kept-open and close-to-open readers, ~400 stores each.
# Fails when a replay pair leaves its band (p50/p90 10 % or one read period,
# max one acregmin, unresolved 10 % or 2), i.e. when the replay and the
# kernel client disagree, or when a kept-open replay ran at no traced
# jiffy of the client (its tracepoints and kprobes, vm/guest/trace.sh).  The deferred/lang pairs against the patched guest
# kernel need vm/kernel's build: while it is absent the test, after the
# replay pairs passed, exits 77 saying so.  Skips (77) where qemu cannot run.
set -u
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
command -v qemu-system-x86_64 >/dev/null || { echo "SKIP: qemu-system-x86_64 not installed"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq missing"; exit 77; }
out=$(mktemp -d /tmp/sw-validate-vm.XXXXXX)
trap 'rm -rf "$out"' EXIT
"$V" validate --vm --quick --host-pairs none --json --out "$out/v" >"$out/j" 2>"$out/e"; rc=$?
if ! jq -e '.pairs' "$out/j" >/dev/null 2>&1; then
	fail "validate --vm gave no JSON (exit $rc): $(tail -3 "$out/e")"
	exit 1
fi
if jq -e '[.pairs[] | .fails | index("run failed")] | any' "$out/j" >/dev/null &&
	grep -qiE "qemu.*(cannot|abort|not found)|kvm" "$out"/v/vm-*.log 2>/dev/null; then
	echo "SKIP: qemu cannot run here: $(grep -hiE "qemu" "$out"/v/vm-*.log | tail -2)"
	exit 77
fi
jq -r '.pairs[] | "\(.name) \(.workload): p50 \(.model.p50)/\(.real.p50) unresolved \(.model.uncovered)/\(.real.uncovered) within=\(.within) \(.fails | join(","))"' "$out/j"
n=$(jq '[.pairs[] | select(.name | test("kread"))] | length' "$out/j")
[ "$n" -ge 4 ] || fail "expected 4 replay pairs (v3, v4.2 x kept-open, cto), saw $n"
bad=$(jq -r '[.pairs[] | select(.within | not) | .name] | join(" ")' "$out/j")
[ -z "$bad" ] || fail "replay pairs outside their bands: $bad"
jq -e '[.pairs[] | .real.stores >= 300] | all' "$out/j" >/dev/null || fail "a comparison rests on fewer than 300 stores"
# the kept-open replays at the client's own traced jiffies (client/trace.txt)
untraced=$(jq -r '[.pairs[] | select(.name | test("kread")) | select(.workload | test("kept-open"))
	| select((.replay_rpc.traced // 0) == 0) | .name] | join(" ")' "$out/j")
[ -z "$untraced" ] || fail "kept-open replays with no revalidation at the client's traced jiffies: $untraced"
[ $fails -eq 0 ] || exit 1
vm=$(jq -r '.vm // empty' "$out/j")
if [ -n "$vm" ]; then
	echo "SKIP (replay pairs passed): $vm"
	exit 77
fi
echo PASS
