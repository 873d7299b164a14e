# tests/lib/test-lib.sh: the one library of the shell tests (git's
# t/test-lib.sh as the model).  A test sources it first, with no
# arguments of its own (it takes its options from the test's):
#	. "$(dirname "$0")/../lib/test-lib.sh"
#
#   skip REASON   the test cannot run here: "SKIP: REASON" on stdout and
#                 exit 77, which ctest counts as skipped (SKIP_RETURN_CODE),
#                 never as passed.  After a fail it ends the test as
#                 failed: a skip never hides a failure.
#   fail WHAT     an assertion failed: "FAIL <case>: WHAT" on stdout (WHAT
#                 says "expected X, saw Y"), counted; the test goes on and
#                 sw_done exits 1.  In immediate mode (sw_immediate=1 set
#                 by the test, SW_TEST_IMMEDIATE=1, or --immediate) fail
#                 ends the test at once.  A test may define sw_on_fail:
#                 it runs after each FAIL line (to show a log).
#   sw_case NAME CMD [ARG...]
#                 runs CMD ARG... (a function of the test) as the case
#                 NAME, unless a selection names other cases; then
#                 "ok   NAME" or "FAIL NAME (N failures)".  A case fails
#                 only through fail (return ends it early); under set -e a
#                 command that fails ends the test, in a case as anywhere.
#   sw_done [WHAT]
#                 the summary line ("PASS <test>: ..." or "FAIL <test>:
#                 ...") and the exit status: 1 after any fail, else 0.
#                 Every test ends with it.
# One case by name: the set-up outside the cases runs as always, then
# only the cases selected:
#	tests/server/test_lead.sh --case settled
#	SW_TEST_CASE=settled ctest -R writer_lead
# --case and SW_TEST_CASE take a glob or a comma-separated list of globs;
# a selection no case matches fails.  --list prints the cases' names
# instead of running them (the set-up before them runs: a skip shows).
# These options come before the test's own arguments.
# Set-up checks (before the cases):
#   sw_need_built FILE...   each FILE executable, else fail and sw_done
#   sw_skip_unbuilt FILE... each FILE executable, else skip
#   sw_need CMD REASON      CMD on PATH, else skip REASON
#   sw_need_shm_tmpfs       /dev/shm a tmpfs, else skip
#   sw_control_bins         B the build, W CTL DUMP the writer, stalewin-ctl,
#                           logdump in it (built, else skip)
#   sw_scratch PREFIX       T a new folder PREFIX.XXXXXX, removed on exit
#   sw_writer_scratch NAME  the writer's tests' set-up: W and LD (the
#                           writer, logdump; built, else fail), S a new
#                           folder /dev/shm/NAME-XXXXXX (a tmpfs, else skip)

sw_test=$(basename "$0" .sh)
sw_test=${sw_test#test_}
sw_immediate=${sw_immediate:-${SW_TEST_IMMEDIATE:-0}}
_sw_fails=0 _sw_case="" _sw_case_fails=0 _sw_ran=0 _sw_failed=0 _sw_names="" _sw_list=0
while [ $# -gt 0 ]; do
	case $1 in
	--case) SW_TEST_CASE=${2:?--case: expected a case name}; shift 2 ;;
	--case=*) SW_TEST_CASE=${1#--case=}; shift ;;
	--immediate) sw_immediate=1; shift ;;
	--list) _sw_list=1; shift ;;
	*) break ;;
	esac
done

skip() {
	echo "SKIP: $*"
	[ "$_sw_fails" -eq 0 ] || sw_done
	exit 77
}

fail() {
	echo "FAIL ${_sw_case:-$sw_test}: $*"
	_sw_fails=$((_sw_fails + 1)) _sw_case_fails=$((_sw_case_fails + 1))
	if declare -F sw_on_fail >/dev/null; then
		sw_on_fail
	fi
	if [ "$sw_immediate" = 1 ]; then
		sw_done
	fi
	return 0
}

# 0 when NAME is selected (no selection: every case)
_sw_selected() {
	local p pats
	[ -n "${SW_TEST_CASE:-}" ] || return 0
	IFS=, read -ra pats <<<"$SW_TEST_CASE"
	for p in "${pats[@]}"; do
		# shellcheck disable=SC2053 # a glob on purpose
		[[ $1 == $p ]] && return 0
	done
	return 1
}

sw_case() {
	local name=$1
	shift
	_sw_names="$_sw_names $name"
	_sw_selected "$name" || return 0
	if [ "$_sw_list" = 1 ]; then
		echo "$name"
		return 0
	fi
	_sw_case=$name _sw_case_fails=0 _sw_ran=$((_sw_ran + 1))
	"$@"
	if [ "$_sw_case_fails" -eq 0 ]; then
		echo "ok   $name"
	else
		echo "FAIL $name ($_sw_case_fails failures)"
		_sw_failed=$((_sw_failed + 1))
	fi
	_sw_case=""
	return 0
}

# shellcheck disable=SC2120 # WHAT is optional
sw_done() {
	local n cases="" sel=""
	[ "$_sw_list" = 0 ] || exit 0
	n=$(wc -w <<<"$_sw_names")
	[ -z "${SW_TEST_CASE:-}" ] || sel=" (SW_TEST_CASE=$SW_TEST_CASE)"
	if [ "$_sw_fails" -gt 0 ]; then
		[ "$n" -eq 0 ] || cases=", $_sw_failed of $_sw_ran cases run failed$sel"
		[ -z "$_sw_case" ] || cases=", in case $_sw_case (immediate)"
		echo "FAIL $sw_test: $_sw_fails failures$cases"
		exit 1
	fi
	if [ -n "$sel" ] && [ "$_sw_ran" -eq 0 ]; then
		echo "FAIL $sw_test: no case matches$sel (its cases:${_sw_names:- none})"
		exit 1
	fi
	[ "$n" -eq 0 ] || cases=": $_sw_ran of $n cases$sel"
	echo "PASS $sw_test$cases${1:+; $1}"
	exit 0
}

sw_need_built() {
	local f
	for f in "$@"; do
		[ -x "$f" ] || { fail "expected $f built, saw none"; sw_done; }
	done
}
sw_skip_unbuilt() {
	local f
	for f in "$@"; do
		[ -x "$f" ] || skip "$f not built"
	done
}
sw_need() { command -v "$1" >/dev/null || skip "$2"; }
sw_need_shm_tmpfs() {
	[ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] || skip "/dev/shm is not tmpfs"
}
sw_writer_scratch() {
	W=${SW_BUILD_DIR:?}/server/stalewin-writer
	LD=${SW_BUILD_DIR}/common/stalewin-logdump
	sw_need_built "$W" "$LD"
	sw_need_shm_tmpfs
	S=$(mktemp -d "/dev/shm/$1-XXXXXX")
}
sw_control_bins() {
	B=${SW_BUILD_DIR:?SW_BUILD_DIR not set}
	W=$B/server/stalewin-writer CTL=$B/client/stalewin-ctl DUMP=$B/common/stalewin-logdump
	sw_skip_unbuilt "$W" "$CTL" "$DUMP"
}
sw_scratch() {
	T=$(mktemp -d "$1.XXXXXX")
	trap 'rm -rf "$T"' EXIT
}
