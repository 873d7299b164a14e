#!/usr/bin/env bash
# Description: `stalewin-matrix` (the tables, findings and checks of
# `stalewin vm matrix`) on a fixed matrix output folder: golden/matrix-runs
# is a real `vm matrix --quick` (6.1 and 7.2 x ext4, xfs, tmpfs x rewrite,
# with the quiet runs and traces), trimmed to what the tool reads
# (meta.json, report.json, report.csv's first row, server/nfsd-states.txt,
# server/trace.txt, vm/kernel-release.txt, quiet/*/{writer.swlog,
# trace.txt}; the experiments' traces without fill_mg_cmtime, as
# vm/guest/trace.sh now records them).  Asserts: the text and JSON against golden files; every
# cell carries the issue's keys; `--check` (the quick vm test's
# assertions) passes on it and fails, naming the cell, when the folder is
# broken: tmpfs updating the times, traced ctime sets that leave no
# equal stamp with no query, a run folder without report.json; traced
# delegation events counted (grant, recall, return); bad input
# exits 2 naming what was expected.  Refresh after an intended change:
#   tests/analysis/cli/test_matrix.sh --update-golden
. "$(dirname "$0")/../../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
golden_start "$@"
MX=$BLD/analysis/stalewin-matrix
[ -x "$MX" ] || { fail "expected $MX to be built"; sw_done; }
args=(--kernels 6.1,7.2 --fs ext4,xfs,tmpfs --workloads rewrite
	--sysctls "vm.dirty_writeback_centisecs=100 vm.dirty_expire_centisecs=100"
	--writer-args=--populate --duration 4 --wall 180)
tar -xJf "$G/matrix-runs.tar.xz" && mv matrix-runs m || fail "cannot unpack $G/matrix-runs.tar.xz"
"$MX" m "${args[@]}" >matrix.txt 2>err.txt || fail "text: exit $?: $(cat err.txt)"
"$MX" m "${args[@]}" --json >matrix.json 2>>err.txt || fail "json: exit $?: $(cat err.txt)"

json() {
	cmp -s matrix.json m/matrix.json || fail "--json output and m/matrix.json differ"
	# the issue's keys in every cell: 2 kernels x 3 fs x v3/v4
	jq -e '(.cells | length) == 12 and all(.cells[]; has("kernel") and has("fs") and has("vers")
		and has("workload") and has("stores") and has("truth_p50_s") and has("truth_p99_s")
		and has("truth_max_s") and has("uncovered") and has("updates_per_1k")
		and has("equal_stamps") and has("kclient_p50_s") and has("run"))
		and (.findings | type) == "array" and (.quiet | length) == 12' matrix.json >/dev/null ||
		fail "matrix.json: expected 12 cells with the issue's keys and 12 quiet runs, saw $(jq -c '[(.cells | length), (.quiet | length), (.cells[0] | keys)]' matrix.json)"
}
check() {
	"$MX" m "${args[@]}" --check >check.txt || fail "--check on the fixed folder: $(cat check.txt)"
}

# broken folders: --check must fail, naming the cell
mutate() { # NAME EXPECTED-TEXT: run --check on m-NAME (prepared by the caller)
	"$MX" "m-$1" "${args[@]}" --check >"check-$1.txt"
	local rc=$?
	[ $rc -eq 1 ] && grep -q "$2" "check-$1.txt" ||
		fail "$1: expected --check to fail (exit 1) with '$2', saw exit $rc: $(head -3 "check-$1.txt")"
}
broken_tmpfs() {
	local r
	cp -r m m-tmpfs
	r=$(jq -r '.cells[] | select(.kernel_name == "7.2" and .fs == "tmpfs" and .vers == 3) | .run' matrix.json)
	jq '.results.cost.updates = 7' "m/$r/report.json" >"m-tmpfs/$r/report.json"
	mutate tmpfs "7.2 tmpfs: expected pre-mapped pages written silently"
}
broken_mg() {
	local q=m-mg/7.2/quiet/xfs-noquery/trace.txt
	cp -r m m-mg
	grep ' ctime_ns_xchg: ' "$q" >sets.txt
	[ -s sets.txt ] || fail "the fixture's 7.2 xfs noquery trace has no ctime_ns_xchg line"
	for _ in $(seq 1 50); do cat sets.txt; done >>"$q"
	mutate mg "7.2 xfs: expected more equal stamps with no query"
}
broken_gone() {
	local r
	cp -r m m-gone
	r=$(jq -r '.cells[] | select(.kernel_name == "6.1" and .fs == "xfs") | .run' matrix.json | head -1)
	rm "m-gone/$r/report.json"
	mutate gone "expected a cell for kernel 6.1 xfs rewrite v3"
	"$MX" m-gone "${args[@]}" >gone.txt
	[ $? -eq 1 ] && grep -q '^missing cells: 6.1 xfs rewrite (no report.json in ' gone.txt ||
		fail "a run without report.json: expected exit 1 and 'missing cells', saw: $(tail -2 gone.txt)"
}

# delegations as nfsd traced them: three real lines of a 6.1 run (the
# full matrix, ext4 random) added to 6.1 ext4's trace
delegations() {
	local r
	cp -r m m-deleg
	r=$(jq -r '.cells[] | select(.kernel_name == "6.1" and .fs == "ext4" and .vers == 4) | .run' matrix.json)
	cat >>"m-deleg/$r/server/trace.txt" <<'X'
            nfsd-226     [000] .....    71.546328: nfsd_deleg_read: client 6b119724:98c1d671 stateid 00000002:00000001
 stalewin-writer-464     [000] ...1.    74.631565: nfsd_cb_recall: addr=10.77.0.2:0 client 6b119724:98c1d671 stateid 00000002:00000001
            nfsd-226     [000] .....    74.818020: nfsd_deleg_return: client 6b119724:98c1d671 stateid 00000002:00000001
X
	"$MX" m-deleg "${args[@]}" >deleg.txt
	grep -q '^6.1.0-57-amd64       ext4  g1 r1 R1 ' deleg.txt &&
		grep -q 'nfsd traced a read delegation granted to the v4.2 client in 1 of 3 runs and a recall in 1 (events nfsd_deleg_read,nfsd_cb_recall,nfsd_deleg_return)' deleg.txt ||
		fail "traced delegation: expected 'g1 r1 R1' and its finding, saw: $(grep -A8 '^v4.2 read' deleg.txt; grep 'nfsd traced' deleg.txt)"
}

bad_input() {
	"$MX" /nonexistent "${args[@]}" >/dev/null 2>bad.txt
	[ $? -eq 2 ] && grep -q "expected a matrix output folder, saw '/nonexistent'" bad.txt ||
		fail "missing folder: expected exit 2 naming it, saw: $(cat bad.txt)"
	"$MX" m --kernels 6.1 --fs ext4 >/dev/null 2>bad.txt
	[ $? -eq 2 ] && grep -q "no --workloads" bad.txt || fail "no --workloads: expected exit 2, saw: $(cat bad.txt)"
	"$MX" m --kernels 6.1,,7.2 --fs ext4 --workloads rewrite >/dev/null 2>bad.txt
	[ $? -eq 2 ] && grep -q "expected at most 16 comma-separated names" bad.txt ||
		fail "empty kernel name: expected exit 2, saw: $(cat bad.txt)"
}

sw_case json json
sw_case check check
sw_case broken-tmpfs broken_tmpfs
sw_case broken-mg broken_mg
sw_case broken-gone broken_gone
sw_case delegations delegations
sw_case bad-input bad_input
sw_case golden golden_compare matrix.txt matrix.json
golden_done "text and JSON match, --check passes and fails where broken"
