#!/usr/bin/env bash
# Description: the mail of a small real study against a golden file.
# data/study-quick.tar.xz is `./stalewin study quick` as made on 6 Dec
# 2026 (19:45-19:52 UTC, this repository's 2-core machine): the patched
# 6.1 guest (cache key 3edd4f371b85e3d3: the series before the ordering
# became a switch, so always AS_CMTIME + ordering; its writer logged no
# ordering field and the mail says "ordering not recorded"), eager and
# deferred on ext4, three runs each, a fresh boot a
# run, real knfsd and kernel NFS clients (v3 and v4.2, kept-open and
# close-to-open readers), the logs as the guests wrote them (the reports,
# consoles and the client's RPC trace left out: none of them is read
# here).  From it, every step after the guests:
#  - `stalewin-report study` again: deferred stays stale longer than
#    eager at the truth's p50 with an interval that excludes 0 (the
#    kernel's behaviour, not a draw: 1.24-1.50 s against 0.60 s);
#  - `mail` refuses it (scaled writeback, 3 runs a cell), each reason
#    named; with --sketch the whole message equals golden/study-mail.txt
#    (fixed From and Date), is clean for `mail --check`, and names no
#    path of this machine.
# Refresh after an intended change with
#   tests/analysis/cli/test_study_golden.sh --update-golden
. "$(dirname "$0")/../../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
golden_start "$@"
tar -xJf "$SRC/tests/analysis/cli/data/study-quick.tar.xz" || fail "cannot unpack data/study-quick.tar.xz"
"$REP" study study-quick >study.txt 2>err.txt || fail "study: exit $?: $(cat err.txt)"
"$REP" verdict study-quick --json >v.json 2>err.txt || fail "verdict: exit $?: $(cat err.txt)"

figures() {
	jq -e '.comparisons | length == 1 and .[0].policy == "deferred" and
		.[0].truth_p50_s.n == 3 and .[0].truth_p50_s.n_eager == 3 and
		.[0].truth_p50_s.ci_lo > 0.3 and .[0].truth_p50_s.ci_hi < 1.5' v.json >/dev/null ||
		fail "verdict: expected deferred - eager with an interval inside +0.3..+1.5 s, n 3 / 3; saw $(jq -c '.comparisons[0].truth_p50_s' v.json)"
	jq -e '.comparisons[0].views | has("v3 kept-open") and has("v3 cto") and has("v4.2 kept-open") and has("v4.2 cto")' v.json >/dev/null ||
		fail "verdict: expected the four kernel readers' views (v3, v4.2 x kept-open, cto), saw $(jq -c '.comparisons[0].views | keys' v.json)"
}
refused() {
	"$REP" mail study-quick >/dev/null 2>err.txt
	[ $? -eq 2 ] && grep -q 'writeback scaled' err.txt && grep -q 'fewer than 5 runs' err.txt ||
		fail "mail: expected exit 2 naming scaled writeback and fewer than 5 runs, saw: $(cat err.txt)"
}
mail() {
	"$REP" mail study-quick --sketch --from "A Developer <dev@example.org>" \
		--date "Sun, 06 Dec 2026 20:00:00 +0000" >study-mail.txt 2>err.txt || fail "mail --sketch: exit $?: $(cat err.txt)"
	"$REP" mail --check study-mail.txt >/dev/null 2>err.txt || fail "mail --check: $(cat err.txt)"
	grep -q "$T" study-mail.txt && fail "the mail names a path of this machine: $(grep -n "$T" study-mail.txt | head -2)"
	golden_compare study-mail.txt
}
sw_case figures figures
sw_case refused refused
sw_case mail mail
golden_done "a real study's verdict, refusal and golden mail"
