#!/usr/bin/env bash
# Description: bad run folders must give one clear message naming the file
# (and the record) and the documented exit code, and a partial run must
# still print its report marked PARTIAL (exit 3).  A broken analysis shows
# as a crash, exit 0 on damaged input, a silent drop of a probe log of
# another run, or a message that does not say which file is wrong.
# Cases: missing writer log (2), unknown log version (2), torn writer tail
# (3), corrupt record mid-log (3), writer without END (3), torn probe (3),
# probe of another run (3), probe with no overlap (3), clock offset
# before/after beyond its errors (3), unparsable clock.json (3), no probe
# log (3), a run interrupted by Ctrl-C (meta.json "interrupted") (3), a
# clean run (0).
# Each is a case of its own (test-lib.sh): --case torn runs one.
. "$(dirname "$0")/../../lib/test-lib.sh"
# shellcheck source=tests/analysis/cli/lib.sh
. "$(dirname "$0")/lib.sh"

synth() { # DIR ARGS...
	local d=$1; shift
	"$SYN" --out "$T/$d" --duration 3 --writeback-ms 500 --expire-ms 1000 "$@" >/dev/null ||
		{ fail "expected stalewin-synth to make $d, saw it fail"; sw_done; }
}

# expect NAME DIR RC PATTERN...: exit code and every pattern on stderr
expect() {
	local name=$1 dir=$2 want=$3; shift 3
	"$REP" "$T/$dir" >"$T/$name.out" 2>"$T/$name.err"
	local rc=$?
	if [ "$rc" -ne "$want" ]; then
		fail "expected exit $want, saw $rc; stderr:"
		cat "$T/$name.err"
		return
	fi
	for p in "$@"; do
		if ! grep -q -- "$p" "$T/$name.err"; then
			fail "expected '$p' on stderr, saw:"
			cat "$T/$name.err"
			return
		fi
	done
	if [ "$want" -eq 3 ] && ! grep -q PARTIAL "$T/$name.out"; then
		fail "expected a partial report printed and marked PARTIAL, saw none"
		return
	fi
	local first
	first=$(head -n 1 "$T/$name.err")
	echo "exit $rc${first:+: $first}"
}

clean() {
	synth clean
	expect clean clean 0
}
interrupted() {
	synth interrupted
	printf '{"argv":["stalewin-run"],"interrupted":true,"partial":true}\n' >"$T/interrupted/meta.json"
	expect interrupted interrupted 3 "meta.json" "interrupted by the user"
}
missing() {
	mkdir -p "$T/empty"
	expect missing empty 2 "writer.swlog" "no such file"
}
version() {
	synth version
	printf '\x09\x00' | dd of="$T/version/writer.swlog" bs=1 seek=8 conv=notrunc status=none
	expect version version 2 "writer.swlog" "version"
}
# cut_tail DIR FILE N: a synthetic run in DIR, N bytes cut off its FILE
cut_tail() {
	local sz
	synth "$1"
	sz=$(stat -c %s "$T/$1/$2")
	truncate -s $((sz - $3)) "$T/$1/$2"
}
torn() {
	cut_tail torn writer.swlog 7
	expect torn torn 3 "writer.swlog" "record" "torn"
}
corrupt() {
	synth corrupt
	local sz
	sz=$(stat -c %s "$T/corrupt/writer.swlog")
	printf '\xff\xff\xff' | dd of="$T/corrupt/writer.swlog" bs=1 seek=$((sz / 2)) conv=notrunc status=none
	expect corrupt corrupt 3 "writer.swlog" "record" "corrupt"
}
noend() {
	synth noend --no-end
	expect noend noend 3 "writer.swlog" "END record"
}
probe_torn() {
	cut_tail ptorn probe-0.swlog 30
	expect probe-torn ptorn 3 "probe-0.swlog" "torn"
}
mixed() {
	synth mixed --probe-run-id 1234
	expect mixed mixed 3 "probe-0.swlog" "two runs mixed"
}
no_overlap() {
	synth overlap --offset-ns 1000000000000
	rm "$T/overlap/clock.json"
	expect no-overlap overlap 3 "probe-0.swlog" "do not overlap"
}
clock_moved() {
	synth clock
	cat >"$T/clock/clock.json" <<'J'
{"before":{"offset_ns":0,"err_ns":1000,"rtt_min_ns":1,"samples":8,"t_real_ns":1},
 "after":{"offset_ns":5000000,"err_ns":1000,"rtt_min_ns":1,"samples":8,"t_real_ns":2}}
J
	expect clock-moved clock 3 "clock.json" "more than the errors allow"
}
clock_garbage() {
	synth badclock
	echo '{"before":' >"$T/badclock/clock.json"
	expect clock-garbage badclock 3 "clock.json" "parse error"
}
no_probe() {
	synth noprobe --no-probe
	expect no-probe noprobe 3 "no probe log"
}

sw_case clean clean
sw_case interrupted interrupted
sw_case missing missing
sw_case version version
sw_case torn torn
sw_case corrupt corrupt
sw_case noend noend
sw_case probe-torn probe_torn
sw_case mixed mixed
sw_case no-overlap no_overlap
sw_case clock-moved clock_moved
sw_case clock-garbage clock_garbage
sw_case no-probe no_probe
sw_done "every bad run folder behaved"
