#!/usr/bin/env bash
# Description: stalewin-runfolder writes a run folder's meta.json and
# clock.json in the one shape both orchestrators use: ns integers above
# 2^53 exact, dotted keys nested, argv kept whole (with a "--" in it), the
# folder's logs listed with their kind and run id, clock drift from before
# and after, the ATTR record size from records.h, and exit 2 with a message
# on bad input.  A broken tool shows as a rounded time, a lost key or log,
# or bad input accepted.
. "$(dirname "$0")/../lib/test-lib.sh"
set -uo pipefail
B=${SW_BUILD_DIR:?SW_BUILD_DIR not set}
RF=$B/common/stalewin-runfolder SYN=$B/analysis/stalewin-synth
T=$(mktemp -d /tmp/sw-runfolder-XXXXXX)
trap 'rm -rf "$T"' EXIT

"$SYN" --out "$T" --kread-ms 500 >/dev/null || fail "stalewin-synth"

meta() {
	local m want
	printf 'vm.dirty_ratio\t20\nnfs-ganesha=5.7\n' > "$T/kv.txt"
	printf '0 cto /mnt/a\n1 kept /mnt/b\n' > "$T/readers.txt"
	"$RF" meta "$T" --str tool=test --int t_start_real_ns=1796303068260005061 \
		--bool interrupted=true --str server.kind=ganesha --json server.info='{"a":[1]}' \
		--kv-file sysctls="$T/kv.txt" --argv 3 run -- x \
		--table readers="$T/readers.txt:index,mode,mount_point" || fail "meta exit $?"
	m=$(tr -d ' \n' < "$T/meta.json")
	for want in '"format":1' '"t_start_real_ns":1796303068260005061' '"interrupted":true' \
		'"server":{"kind":"ganesha","info":{"a":[1]}}' '"vm.dirty_ratio":"20"' \
		'"nfs-ganesha":"5.7"' '"argv":["run","--","x"]' \
		'"readers":[{"index":0,"mode":"cto","mount_point":"/mnt/a"},{"index":1,"mode":"kept","mount_point":"/mnt/b"}]' '"host":{"hostname":' \
		'{"file":"kread-0.swlog","kind":"reader","run_id":"05157a1e5eed0001"}' \
		'{"file":"probe-0.swlog","kind":"probe"' '{"file":"writer.swlog","kind":"writer"'; do
		[[ $m == *"$want"* ]] || fail "meta.json lacks $want: $m"
	done
}

clock() {
	local c want
	echo '{"offset_ns":9007199254740993,"err_ns":5,"t_real_ns":1700000000000000001}' > "$T/b.json"
	echo '{"offset_ns":9007199254741003,"err_ns":6,"t_real_ns":1700000000000000101}' > "$T/a.json"
	"$RF" clock "$T" --before "$T/b.json" --after "$T/a.json" --note n || fail "clock exit $?"
	c=$(tr -d ' \n' < "$T/clock.json")
	for want in '"offset_ns":9007199254740993' '"drift_ns":10' '"drift_interval_ns":100' '"note":"n"'; do
		[[ $c == *"$want"* ]] || fail "clock.json lacks $want: $c"
	done
	"$RF" clock "$T" --before "$T/b.json" --after "$T/missing.json" --name c2.json || fail "clock without after"
	grep -q '"after"' "$T/c2.json" && fail "c2.json has an after estimate that was missing"
}

record_bytes() {
	[ "$("$RF" record-bytes ATTR)" = 108 ] || fail "record-bytes ATTR: expected 108 (96 + frame 12)"
}

bad_input() {
	local bad rc
	printf 'vm.dirty_ratio\t20\nnfs-ganesha=5.7\n' > "$T/kv.txt"
	echo '{"offset_ns":9007199254741003,"err_ns":6,"t_real_ns":1700000000000000101}' > "$T/a.json"
	for bad in "record-bytes FOO" "meta $T --int x=abc" "meta $T --argv 5 a" "meta $T --str novalue" "meta $T --table r=$T/kv.txt" \
		"clock $T --after $T/a.json" "clock $T --before $T/missing.json" "nosuch"; do
		# shellcheck disable=SC2086
		"$RF" $bad >/dev/null 2>"$T/err"; rc=$?
		[ $rc = 2 ] && [ -s "$T/err" ] || fail "'$bad': expected exit 2 and a message, saw $rc: $(cat "$T/err")"
	done
}

sw_case meta meta
sw_case clock clock
sw_case record-bytes record_bytes
sw_case bad-input bad_input
sw_done
