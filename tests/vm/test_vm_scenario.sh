#!/usr/bin/env bash
# Description: vm run --scenario.  deleg-none on the stock 6.1 guests
# (native ext4, NFSv4.2 only, 3 s): the server guest holds the file open
# for write from its creation, before the client's readers open it, so
# knfsd grants no read delegation; the report must say why ("no
# delegation: a local writer holds the file open for write") rather than
# a row of zeros, with nfsd's delegation events traced and no grant among
# them (report.json results.delegations), and meta.json must name the
# scenario.  What this 3 s run cannot show: that the hold is why.  On
# the stock 6.1 guests a short run without the scenario traces no grant
# either (the kernel grants none in the first minute or so after knfsd
# starts, the NLM grace period being the likely reason, not checked);
# with --lead 70, once each: without the scenario nfsd traced 1 grant
# (when the writer had closed the file), with deleg-none 0.  Bad input,
# with no guest: an unknown scenario, and deleg-none
# with --vers 3 (delegations are NFSv4's), exit 2 naming what was
# expected.  ~30 s.  Skips (77) only when qemu cannot run.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
vm_needs_bins server/stalewin-writer client/stalewin-reader client/stalewin-probe analysis/stalewin-report
vm_test_dir vm-scen run

badinput() {
	local rc=0
	"$top/vm/run.sh" --scenario bogus --build-dir "$b" --out "$T/bad1" >/dev/null 2>"$T/bad.err" || rc=$?
	[ $rc = 2 ] && grep -q "expected one of: deleg-none, saw 'bogus'" "$T/bad.err" ||
		fail "--scenario bogus: expected exit 2 naming the scenarios, saw exit $rc: $(cat "$T/bad.err")"
	rc=0
	"$top/vm/run.sh" --scenario deleg-none --vers 3 --build-dir "$b" --out "$T/bad2" >/dev/null 2>"$T/bad.err" || rc=$?
	[ $rc = 2 ] && grep -q "expected --vers 4.2 or both, saw --vers 3" "$T/bad.err" ||
		fail "--scenario deleg-none --vers 3: expected exit 2, saw exit $rc: $(cat "$T/bad.err")"
}

deleg_none() {
	local rc=0 g
	PATH=$b/analysis:$PATH nice -n 10 "$top/vm/run.sh" --scenario deleg-none --policy native --fs ext4 \
		--vers 4.2 --duration 3 --build-dir "$b" --out "$T/run" >"$T/report.txt" 2>"$T/run.err" || rc=$?
	[ $rc -eq 0 ] || { tail -n 20 "$T/run.err"; fail "vm run --scenario deleg-none exited $rc"; }
	tr '\n' ' ' <"$T/report.txt" | tr -s ' ' |
		grep -q "deleg : scenario deleg-none: no delegation: a local writer holds the file open for write; nfsd traced 0 grants" ||
		fail "the report does not give deleg-none's reason with 0 grants traced: $(grep -A2 '^deleg' "$T/report.txt")"
	[ "$(jq -r .scenario "$T/run/meta.json")" = deleg-none ] || fail "meta.json does not name the scenario"
	g=$(jq -r '.results.delegations | "\(.scenario) \(.traced) \(.granted)"' "$T/run/report.json")
	[ "$g" = "deleg-none true 0" ] || fail "report.json delegations: expected 'deleg-none true 0', saw '$g'"
}
sw_case badinput badinput
sw_case deleg-none deleg_none
sw_done
