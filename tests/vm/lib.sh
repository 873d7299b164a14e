# tests/vm/lib.sh: the start every vm test shares.  Sourced after
# tests/lib/test-lib.sh; sets top (the source tree), b (the build dir),
# loads vm/lib.sh, puts fail in immediate mode (each check stands on the
# guests' run before it), and skips with the reason when qemu cannot run
# here.
sw_immediate=1
top=${SW_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
b=${SW_BUILD_DIR:-$top/build}
. "$top/vm/lib.sh"
. "$top/tests/lib/left.sh"
why=$(vm_qemu_check) || skip "qemu cannot run: $why"

# nothing_left RUN: nothing of `vm run --out RUN` is left: no qemu of its
# RUN/vm/*.pid (killed, then fail), no work folder (the one named in
# RUN/vm/server.console.cmd), no mount and no live process naming either.
nothing_left() {
	local run=$1 f p w left
	for f in "$run"/vm/*.pid; do
		p=$(cat "$f")
		if kill -0 "$p" 2>/dev/null && grep -q qemu "/proc/$p/cmdline" 2>/dev/null; then
			kill -KILL "$p"; fail "qemu PID $p ($f) was left running"
		fi
	done
	w=$(grep -o '/tmp/sw-vm-run\.[A-Za-z0-9]*' "$run/vm/server.console.cmd" | head -n 1)
	[ -n "$w" ] || fail "no work folder in $run/vm/server.console.cmd"
	[ ! -e "$w" ] || fail "the work folder $w is still there"
	! grep -q -e "$w" -e "$run" /proc/mounts || fail "a mount of the run is left: $(grep -e "$w" -e "$run" /proc/mounts)"
	left=$(sw_procs_naming "$w" "$run")
	[ -z "$left" ] || fail "processes of the run still alive:$left"
}

# vm_needs_bins BIN...: each BIN (a path under $b) built, else fail
vm_needs_bins() {
	local t
	for t in "$@"; do [ -x "$b/$t" ] || fail "$b/$t is not built"; done
}

# vm_fault_needs: what a guest fault test runs and reads (a run, its
# logs, its run folder, its report) built, and jq
vm_fault_needs() {
	vm_needs_bins server/stalewin-writer client/stalewin-reader client/stalewin-probe \
		common/stalewin-logdump common/stalewin-runfolder analysis/stalewin-report
	command -v jq >/dev/null || skip "jq not installed"
}

# vm_fault_run RUN OPTIONS...: a native ext4 run of one kept-open v3
# reader and a 50/s probe, a store every 50 ms, with OPTIONS (its
# --duration, --fault, sysctls) into RUN; sets rc (vm run's exit) and
# first (the report's first line), defines jr (jq -r of RUN/report.json)
# and fails unless the report exists and gives vm run's exit code
vm_fault_run() {
	local run=$1
	shift
	PATH=$b/analysis:$PATH "$top/vm/run.sh" --policy native --fs ext4 --probe-rate 50 \
		--mount-opts vers=3,nolock --reader-mode kept-open --writer-args "--interval-ms 50" \
		"$@" --build-dir "$b" --out "$run" >"$T/report.txt" 2>"$T/run.err"
	rc=$?
	cat "$T/run.err"
	[ -s "$run/report.json" ] || { cat "$T/report.txt"; fail "no report.json (exit $rc)"; }
	first=$(head -n 1 "$run/report.txt")
	vm_fault_dir=$run
	[ "$rc" = "$(jr .end.exit_code)" ] || fail "vm run exited $rc, the report says $(jr .end.exit_code)"
}

jr() { jq -r "$@" "$vm_fault_dir/report.json"; }

# vm_writer_log_whole RUN: nothing silently dropped: every STORE of
# RUN/writer.swlog is in RUN/report.json, and the log ends with END
# (its dump left in $T/w.txt)
vm_writer_log_whole() {
	local logged
	"$b/common/stalewin-logdump" "$1/writer.swlog" >"$T/w.txt" 2>/dev/null || true
	logged=$(awk '$2 == "STORE"' "$T/w.txt" | wc -l)
	[ "$(jq -r .end.stores "$1/report.json")" = "$logged" ] ||
		fail "writer.swlog has $logged STORE records, the report counts $(jq -r .end.stores "$1/report.json")"
	tail -n 1 "$T/w.txt" | grep -q ' END ' || fail "writer.swlog does not end with END: $(tail -n 1 "$T/w.txt")"
}

# vm_test_dir NAME KEEP...: T = a new /tmp/sw-NAME.XXXXXX, removed at
# exit; with SW_TEST_KEEP=DIR the entries KEEP of T are copied there first
vm_test_dir() {
	T=$(mktemp -d "/tmp/sw-$1.XXXXXX")
	shift
	_vm_keep="$*"
	trap '[ -z "${SW_TEST_KEEP:-}" ] || (cd "$T" && cp -a $_vm_keep "$SW_TEST_KEEP/" 2>/dev/null); rm -rf "$T"' EXIT
}

# vm_refused ARGS... < CASES: each line "OPTIONS|WANT" (@T@ in OPTIONS is
# $T) run as vm/run.sh ARGS OPTIONS must be refused before any guest
# boots or any run folder is made: exit 2 and one line holding WANT.
# Sets n, the cases refused so.
vm_refused() {
	local a want err rc
	n=0
	while IFS='|' read -r a want; do
		[ -n "$a" ] || continue
		a=${a//@T@/$T}
		# (stdin: not the cases; a spec let through must not eat the rest;
		# timeout: nor boot guests for long)
		# shellcheck disable=SC2086
		err=$(timeout 60 "$top/vm/run.sh" "$@" --build-dir "$b" --out "$T/run-bad" $a 2>&1 >/dev/null </dev/null)
		rc=$?
		if [ $rc = 2 ] && [ "$(printf '%s' "$err" | grep -c '')" = 1 ] && [[ $err == *"$want"* ]]; then
			n=$((n + 1)); echo "$a: $err"
		else
			fail "$a: expected exit 2 and one line with '$want', saw exit $rc: $err"
		fi
		[ ! -e "$T/run-bad" ] || { fail "$a: a run folder was made ($T/run-bad)"; rm -rf "$T/run-bad"; }
	done
}
