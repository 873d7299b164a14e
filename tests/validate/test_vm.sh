#!/usr/bin/env bash
# Description: reduced `stalewin validate --vm --quick` (one replay VM run
# and the deferred pair, ~3.5 min): the replay of the Linux NFS client
# (analysis/replay.c, the mount's options) against the real kernel client
# of the client guest, v3 and v4.2 default mounts, kept-open and
# close-to-open readers, ~400 stores each; and the deferred model against
# the patched guest kernel.
# Replay pairs: fails when one leaves its band (p50/p90 10 % or one read
# period, max one acregmin, unresolved 10 % or 2), i.e. when the replay and
# the kernel client disagree, or when a reader's replay ran at no traced
# jiffy of the client (its tracepoints and kprobes, vm/guest/trace.sh).
# For each reader it prints where the replay's GETATTRs and the client's
# matched (revalmatch.h) and how many decisions the logs left open
# (undetermined: analysis/README.md), and the first read where the two
# parted: what a failure is read from on a machine whose folder is gone.
# Deferred pair: fails when the model, replayed on the kernel's own stores
# from the kernel's phase (its flusher runs, jiffies, commits and knfsd's
# atime handles, traced), leaves the p50/p90/updates bands of the kernel's
# figures, or when the trace gave no kernel phase; and when the emulated
# run (the writer running the model live on tmpfs in the guest) leaves the
# band of the same model replayed on its own stores at its own lead (the
# file's creation, server/run.c): a writer that does not run its own
# model.  Both runs store 25 s after their file's creation (validate's
# vm run --lead 25: a settled file); without a fixed lead the deferred
# p50 turned on how fast the client guest started (0.8-1.9 s on the
# patched 6.1 guest), at it five kernel runs gave 1.39-1.49 s and three
# emulated runs 1.49 s (tests/server/data/README.md, deferred-6.1-15).
# The emulated run against the kernel run is still one draw against
# another: its row's verdict is validate's, printed here
# (tests/validate/vm_patched.jq), and not asserted.
# The deferred pair needs vm/kernel's build: while it is absent the test,
# after the replay pairs passed, exits 77 saying so.  Skips (77) where qemu
# cannot run.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not installed"
command -v jq >/dev/null || skip "jq missing"
out=$(mktemp -d /tmp/sw-validate-vm.XXXXXX)
# kept when the test fails (the runs, their traces and validate's JSON:
# what a disagreement is diagnosed from), removed otherwise
trap 'if [ "${keep:-0}" = 1 ]; then echo "kept for diagnosis: $out"; else rm -rf "$out"; fi' EXIT
sw_on_fail() { keep=1; }
"$V" validate --vm --quick --host-pairs none --json --out "$out/v" >"$out/j" 2>"$out/e"; rc=$?
if ! jq -e '.pairs' "$out/j" >/dev/null 2>&1; then
	fail "validate --vm gave no JSON (exit $rc): $(tail -3 "$out/e")"
	sw_done
fi
if jq -e '[.pairs[] | .fails | index("run failed")] | any' "$out/j" >/dev/null &&
	grep -qiE "qemu.*(cannot|abort|not found)|kvm" "$out"/v/vm-*.log 2>/dev/null; then
	skip "qemu cannot run here: $(grep -hiE "qemu" "$out"/v/vm-*.log | tail -2)"
fi
jq -r '.pairs[] | "\(.name) \(.workload): p50 \(.model.p50)/\(.real.p50) unresolved \(.model.uncovered)/\(.real.uncovered) within=\(.within) \(.fails | join(","))"' "$out/j"
# where each reader's replay and client parted (analysis/pass/revalmatch.h):
# what a failure on a machine whose run folder is gone is read from
jq -r '.pairs[] | select(.name | test("kread")) | select(.replay_rpc.match != null)
	| "\(.name): GETATTRs replay \(.replay_rpc.match.replay), client \(.replay_rpc.match.client), at the same read \(.replay_rpc.match.matched); stores served by the same read \(.replay_rpc.same_read // "?") of \(.real.stores); undetermined \(.replay_rpc.undetermined // 0) (\(.replay_rpc.undetermined_against_rule // 0) against the send-time rule)\(if .replay_rpc.match.first_part then "; first apart: " + (.replay_rpc.match.first_part | tojson) else "" end)"' "$out/j"
n=$(jq '[.pairs[] | select(.name | test("kread"))] | length' "$out/j")
[ "$n" -ge 4 ] || fail "expected 4 replay pairs (v3, v4.2 x kept-open, cto), saw $n"
bad=$(jq -r '[.pairs[] | select(.name | test("kread")) | select(.within | not) | .name] | join(" ")' "$out/j")
[ -z "$bad" ] || fail "replay pairs outside their bands: $bad"
jq -e '[.pairs[] | select(.name | test("kread")) | .real.stores >= 300] | all' "$out/j" >/dev/null ||
	fail "a replay comparison rests on fewer than 300 stores"
# every reader's replay at the client's own traced jiffies (client/trace.txt,
# v3 and v4.2, kept-open and close-to-open, whose v4 revalidations are its
# OPENs): a reader with none is the client's tracing, or its tie to the
# replay, broken (before 6 Dec a v4.2 kept-open reader drew 0 of 11 when
# its OPEN's fattr was set up a tick after the OPEN, and v4 close-to-open
# readers always 0); fewer than all is said
untraced=$(jq -r '[.pairs[] | select(.name | test("kread")) | select((.replay_rpc.revalidations // 0) > 0)
	| select((.replay_rpc.traced // 0) == 0) | .name] | join(" ")' "$out/j")
[ -z "$untraced" ] || fail "replays with no revalidation at the client's traced jiffies: $untraced"
jq -r '.pairs[] | select(.name | test("kread")) | select(.replay_rpc.traced != .replay_rpc.revalidations)
	| "NOTE: \(.name): \(.replay_rpc.traced) of \(.replay_rpc.revalidations) revalidations at the client'"'"'s traced jiffies"' "$out/j"
vm=$(jq -r '.vm // empty' "$out/j")
if [ -z "$vm" ]; then
	np=$(jq '[.pairs[] | select(.name == "vm-deferred-patched")] | length' "$out/j")
	[ "$np" -eq 1 ] || fail "expected the vm-deferred-patched pair, saw $np"
	jq -r -f "$(dirname "$0")/vm_patched.jq" "$out/j" >"$out/p" || fail "the patched pair's checks (jq) did not run"
	cat "$out/p"
	while read -r line; do fail "${line#BAD }"; done < <(grep '^BAD' "$out/p")
fi
[ -z "$vm" ] || skip "the replay pairs passed, the deferred pair did not run: $vm"
sw_done
