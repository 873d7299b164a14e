#!/usr/bin/env bash
# Description: bad input to stalewin-writer.  Each case must be refused with
# exit 2 and exactly one line on stderr that says what was expected (and
# what was seen), and must not leave a log or a new data file behind.  A
# broken writer shows as a crash, exit 0/1, a multi-line or empty message,
# or a run that starts on a symlink, a directory or the wrong filesystem.
# A rate that cannot be met runs, and says so with the achieved rate.
. "$(dirname "$0")/../lib/test-lib.sh"
set -u
W=${SW_BUILD_DIR:?}/server/stalewin-writer
[ -x "$W" ] || { fail "expected $W, saw none"; sw_done; }
T=$(mktemp -d /tmp/sw-writer-bad-XXXXXX)
S=""
if [ -d /dev/shm ] && [ "$(stat -f -c %T /dev/shm)" = tmpfs ]; then
	S=$(mktemp -d /dev/shm/sw-writer-bad-XXXXXX)
fi
trap 'rm -rf "$T" ${S:+"$S"}' EXIT
ok=${S:-$T}
mkdir $ok/dir; ln -s $ok/target $ok/link; : > $ok/target
: > $T/exists
expect2() { # ARGS...: refused, exit 2, one line saying what was expected
	local err rc lines
	err=$("$W" "$@" 2>&1 >/dev/null); rc=$?
	lines=$(printf '%s' "$err" | grep -c '')
	if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q expected <<<"$err"; then
		fail "expected exit 2 and one line saying what was expected, saw exit $rc, $lines line(s): $err"
	else
		echo "$err"
	fi
}
base=(--workload rewrite --duration 0.2)
sw_case unknown-policy expect2 --file $ok/f --policy lazy "${base[@]}" --log $T/l
sw_case unknown-workload expect2 --file $ok/f --policy eager --workload zigzag --log $T/l
sw_case size-0 expect2 --file $ok/f --policy eager "${base[@]}" --log $T/l --size 0
sw_case size-beyond-memory expect2 --file $ok/f --policy eager "${base[@]}" --log $T/l --size 1T
sw_case bad-size-suffix expect2 --file $ok/f --policy eager "${base[@]}" --log $T/l --size 12Q
sw_case negative-rate expect2 --file $ok/f --policy eager --workload random --rate -5 --log $T/l
sw_case hot-share expect2 --file $ok/f --policy eager --workload random --hot-pages 2 --hot-share 1.5 --log $T/l
sw_case page-beyond-file expect2 --file $ok/f --policy eager "${base[@]}" --page 999 --log $T/l
sw_case missing-file expect2 --policy eager "${base[@]}" --log $T/l
sw_case unknown-option expect2 --file $ok/f --policy eager "${base[@]}" --log $T/l --frobnicate
sw_case unknown-trap expect2 --file $ok/f --policy eager "${base[@]}" --trap sigbus --log $T/l
sw_case trap-with-native expect2 --file $T/n --policy native "${base[@]}" --trap uffd --log $T/l
sw_case directory expect2 --file $ok/dir --policy eager "${base[@]}" --log $T/l
sw_case symlink expect2 --file $ok/link --policy eager "${base[@]}" --log $T/l
sw_case unwritable-log expect2 --file $ok/f --policy eager "${base[@]}" --log /nonexistent/dir/l
sw_case log-exists expect2 --file $ok/f --policy eager "${base[@]}" --log $T/exists
sw_case list-unknown-kind expect2 --list policy
# model profiles (server/model/profiles): only the model's options, and
# what they rest on
printf '[profile]\nvalidated = x\n[model]\npolicy = eager\n' >$T/p-policy.profile
printf '[model]\nwb-bg-share = fprop\n' >$T/p-unvalidated.profile
printf '[profile]\nvalidated = x\n[model]\nwb-bg-share = sometimes\n' >$T/p-value.profile
sw_case profile-not-model expect2 --file $ok/f --policy eager "${base[@]}" --log $T/l --model-profile $T/p-policy.profile
sw_case profile-unvalidated expect2 --file $ok/f --policy eager "${base[@]}" --log $T/l --model-profile $T/p-unvalidated.profile
sw_case profile-bad-value expect2 --file $ok/f --policy eager "${base[@]}" --log $T/l --model-profile $T/p-value.profile
sw_case profile-missing expect2 --file $ok/f --policy eager "${base[@]}" --log $T/l --model-profile $T/none.profile
sw_case profile-no-file expect2 --file $ok/f --policy eager "${base[@]}" --log $T/l --model-profile
# --help is made from the option table that makes getopt's (server/cli.c):
# every option it lists is one getopt knows, and no line is over 80
help_table() {
	local help o err n=0
	help=$("$W" --help) || fail "expected --help to exit 0, saw $?"
	for o in $(grep -oE '^  --[a-z0-9-]+' <<<"$help"); do
		[ "$o" != --help ] || continue
		n=$((n + 1))
		err=$("$W" "$o" 2>&1 >/dev/null)
		! grep -q 'expected a known option' <<<"$err" || fail "expected $o (in --help) known, saw '$err'"
	done
	[ "$n" -ge 40 ] || fail "expected --help to list the writer's 40-odd options, saw $n"
	! grep -qE '^.{81}' <<<"$help" || fail "expected --help's lines at most 80 wide, saw $(grep -E '^.{81}' <<<"$help" | head -1)"
}
sw_case help-is-the-table help_table
# The scripts check names against --list (scripts/lib/names.sh): every
# list is there, the writer's own refusal names it, and so does a script's.
lists() {
	local k n err want top
	top=$(cd "$(dirname "$0")/../.." && pwd)
	for k in policies workloads traps; do
		n=$("$W" --list $k | paste -sd'|') || fail "expected --list $k to exit 0, saw $?"
		[ -n "$n" ] || fail "expected names from --list $k, saw none"
	done
	want="expected --policy $("$W" --list policies | paste -sd'|'), saw 'lazy'"
	err=$("$W" --file $ok/f --policy lazy "${base[@]}" --log $T/l 2>&1)
	grep -qxF "stalewin-writer: $want" <<<"$err" || fail "expected '$want', saw '$err'"
	err=$("$top/scripts/stalewin-run" --policy lazy 2>&1)
	grep -qxF "stalewin-run: $want" <<<"$err" || fail "expected stalewin-run to say '$want', saw '$err'"
	want="expected --workload $("$W" --list workloads | paste -sd'|'), saw 'zigzag'"
	err=$("$top/scripts/stalewin-run" --workload zigzag 2>&1)
	grep -qxF "stalewin-run: $want" <<<"$err" || fail "expected stalewin-run to say '$want', saw '$err'"
}
sw_case names-from-the-writer lists
# stalewin-run's --fault specs: refused before anything is
# set up (no root needed), exit 2, one line naming what was expected and
# what was seen: a time past the run's end, a negative time or step, a
# kind only the guests inject, and a fault that needs a disk file system.
run_faults() {
	local top err rc a want
	top=$(cd "$(dirname "$0")/../.." && pwd)
	while IFS='|' read -r a want; do
		# shellcheck disable=SC2086
		err=$("$top/scripts/stalewin-run" --duration 5 --out "$T/run-bad" $a 2>&1 >/dev/null); rc=$?
		[ $rc = 2 ] && [ "$(printf '%s' "$err" | grep -c '')" = 1 ] && [[ $err == *"$want"* ]] ||
			{ fail "$a: expected exit 2 and one line with '$want', saw exit $rc: $err"; continue; }
		echo "$a: $err"
	done <<-'EOF2'
	--fault partition@5:1|at a time before the run's end (--duration 5), saw 5 s
	--fault ganesha-pause@9.5|at a time before the run's end (--duration 5), saw 9.5 s
	--fault partition@1:-2|saw 'partition@1:-2' (a negative time or step)
	--fault enospc@-1|saw 'enospc@-1' (a negative time or step)
	--fault clock-step@1:-2|saw 'clock-step@1:-2': clock-step is injected only in vm run's guests
	--fault io-error@1:2|saw 'io-error@1:2': io-error is injected only in vm run's guests
	--fault client-reboot@1|saw 'client-reboot@1': client-reboot is injected only in vm run's guests
	--fs tmpfs --fault enospc@1|expected --fs ext4 or ext4-lazytime for --fault enospc@1
	--fault memory-pressure@1:2|expected --fs ext4 or ext4-lazytime for --fault memory-pressure@1:2
	EOF2
	[ ! -e "$T/run-bad" ] || fail "expected no run folder after refused faults, saw $T/run-bad"
}
sw_case run-faults run_faults
off_tmpfs() {
	if [ "$(stat -f -c %T "$T")" != tmpfs ]; then
		expect2 --file $T/f --policy deferred "${base[@]}" --log $T/l2
	else
		echo "not checked: $T is on tmpfs"
	fi
}
sw_case emulated-off-tmpfs off_tmpfs
# no refused run left a data file or a log behind
nothing_left() {
	[ ! -e $ok/f ] || fail "expected no $ok/f after refused runs, saw one"
	[ ! -e $T/l ] || fail "expected no log $T/l after refused runs, saw one"
}
sw_case nothing-left nothing_left

# A rate that cannot be met is not refused: the run says so (one stderr
# line, a WARN NOTE in the log, rate_achieved in the status file).
unmet_rate() {
	local err rc
	[ -n "$S" ] || { echo "not checked: no tmpfs at /dev/shm"; return; }
	err=$("$W" --file $S/r --policy eager --workload stream --rate 100000000 \
		--duration 0.5 --log $T/r.log --status-file $T/r.st 2>&1 >/dev/null); rc=$?
	if [ $rc -ne 0 ] || ! grep -q "rate not met: planned 100000000.0 stores/s, achieved" <<<"$err" ||
	   ! "${SW_BUILD_DIR}/common/stalewin-logdump" $T/r.log | grep -q "level=1 rate not met" ||
	   ! grep -q '"rate_achieved":' $T/r.st || ! grep -q '"warning":"rate not met' $T/r.st; then
		fail "expected the run to say the rate was not met, saw exit $rc, stderr '$err', status $(cat $T/r.st 2>/dev/null)"
	else
		echo "$err"
	fi
}
sw_case unmet-rate unmet_rate
sw_done
