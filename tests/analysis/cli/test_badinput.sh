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
# shellcheck source=tests/analysis/cli/lib.sh
. "$(dirname "$0")/lib.sh" badinput

synth() { # DIR ARGS...
	local d=$1; shift
	"$SYN" --out "$T/$d" --duration 3 --writeback-ms 500 --expire-ms 1000 "$@" >/dev/null ||
		{ echo "FAIL: synth $d" >&2; exit 1; }
}

# expect NAME DIR RC PATTERN...: exit code and every pattern on stderr
expect() {
	local name=$1 dir=$2 want=$3; shift 3
	"$REP" "$T/$dir" >"$T/$name.out" 2>"$T/$name.err"
	local rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "FAIL $name: expected exit $want, saw $rc; stderr:" >&2
		cat "$T/$name.err" >&2
		fails=$((fails + 1))
		return
	fi
	for p in "$@"; do
		if ! grep -q -- "$p" "$T/$name.err"; then
			echo "FAIL $name: expected '$p' on stderr, saw:" >&2
			cat "$T/$name.err" >&2
			fails=$((fails + 1))
			return
		fi
	done
	if [ "$want" -eq 3 ] && ! grep -q PARTIAL "$T/$name.out"; then
		echo "FAIL $name: a partial report must be printed and marked PARTIAL" >&2
		fails=$((fails + 1))
		return
	fi
	echo "ok $name (exit $rc)"
}

synth clean
expect clean clean 0

synth interrupted
printf '{"argv":["stalewin-run"],"interrupted":true,"partial":true}\n' >"$T/interrupted/meta.json"
expect interrupted interrupted 3 "meta.json" "interrupted by the user"

mkdir -p "$T/empty"
expect missing empty 2 "writer.swlog" "no such file"

synth version
printf '\x09\x00' | dd of="$T/version/writer.swlog" bs=1 seek=8 conv=notrunc status=none
expect version version 2 "writer.swlog" "version"

synth torn
sz=$(stat -c %s "$T/torn/writer.swlog")
truncate -s $((sz - 7)) "$T/torn/writer.swlog"
expect torn torn 3 "writer.swlog" "record" "torn"

synth corrupt
sz=$(stat -c %s "$T/corrupt/writer.swlog")
printf '\xff\xff\xff' | dd of="$T/corrupt/writer.swlog" bs=1 seek=$((sz / 2)) conv=notrunc status=none
expect corrupt corrupt 3 "writer.swlog" "record" "corrupt"

synth noend --no-end
expect noend noend 3 "writer.swlog" "END record"

synth ptorn
sz=$(stat -c %s "$T/ptorn/probe-0.swlog")
truncate -s $((sz - 30)) "$T/ptorn/probe-0.swlog"
expect probe-torn ptorn 3 "probe-0.swlog" "torn"

synth mixed --probe-run-id 1234
expect mixed mixed 3 "probe-0.swlog" "two runs mixed"

synth overlap --offset-ns 1000000000000
rm "$T/overlap/clock.json"
expect no-overlap overlap 3 "probe-0.swlog" "do not overlap"

synth clock
cat >"$T/clock/clock.json" <<'J'
{"before":{"offset_ns":0,"err_ns":1000,"rtt_min_ns":1,"samples":8,"t_real_ns":1},
 "after":{"offset_ns":5000000,"err_ns":1000,"rtt_min_ns":1,"samples":8,"t_real_ns":2}}
J
expect clock-moved clock 3 "clock.json" "more than the errors allow"

synth badclock
echo '{"before":' >"$T/badclock/clock.json"
expect clock-garbage badclock 3 "clock.json" "parse error"

synth noprobe --no-probe
expect no-probe noprobe 3 "no probe log"

if [ $fails -ne 0 ]; then
	echo "$fails failures" >&2
	exit 1
fi
echo "badinput: all cases behaved"
