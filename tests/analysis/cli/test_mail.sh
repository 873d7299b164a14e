#!/usr/bin/env bash
# Description: `stalewin-report mail` on fixed synthetic runs (eager
# rewrite with a cto kernel reader and lost replies, deferred rewrite;
# a sketch, written with --sketch): the whole message against a golden
# file (fixed From and Date), every line <= 72 columns, the RFC 5322
# headers, findings carrying the figures (the uncovered count from the
# writer's log; no bound restated for an emulated deferred row, whose
# model enforces it), and `./stalewin mail` writing the PNG plots next to
# the mail.  Refusals: test_mail_refuse.sh.  Refresh after an intended change with
#   tests/analysis/cli/test_mail.sh --update-golden
. "$(dirname "$0")/../../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
golden_start "$@"
"$SYN" --out e --policy eager --duration 40 --kread-ms 500 --lost 30050-30150 \
	--mount-options rw,relatime,vers=3,actimeo=5 >/dev/null || fail "synth e"
"$SYN" --out d --policy deferred --duration 40 >/dev/null || fail "synth d"
"$REP" mail e d --sketch --from "A Developer <dev@example.org>" --to "linux-nfs@vger.kernel.org" \
	--date "Thu, 03 Dec 2026 12:00:00 +0000" >mail.txt 2>err.txt ||
	{ fail "mail exit $?"; cat err.txt; }

width() {
	awk 'length($0) > 72 { print "mail.txt line " NR " is " length($0) " columns: " $0; bad=1 } END { exit bad }' mail.txt ||
		fail "a mail line is wider than 72 columns"
}
headers() {
	local h
	for h in "From: A Developer <dev@example.org>" "To: linux-nfs@vger.kernel.org" \
		"Subject: \[sketch\] \[stalewin\]" "Date: Thu, 03 Dec 2026 12:00:00 +0000" "MIME-Version: 1.0" \
		"Content-Type: text/plain; charset=utf-8"; do
		sed '/^$/q' mail.txt | grep -q "^$h" || fail "header '$h' missing"
	done
}
# the findings carry the figures: eager's uncovered count is the truth's
# unresolved count of the JSON report, deferred's bound is 30 s + 5 s
findings() {
	local unres
	unres=$("$REP" e --format json | jq '.results.figures[] | select(.name == "truth") | .unresolved')
	tr '\n' ' ' <mail.txt | grep -q "eager: $unres of 400 stores" ||
		fail "no finding 'eager: $unres of 400 stores' (truth unresolved from the report)"
	# an emulated deferred row's bound is its model's own: no finding restates it
	tr '\n' ' ' <mail.txt | tr -s ' ' | grep -q "expire + writeback interval" &&
		fail "a finding checks an emulated row against the bound its model enforces"
}
# a subject with a line break is refused
subject() {
	"$REP" mail e --subject $'a\nBcc: x' >/dev/null 2>bad.txt
	[ $? -eq 2 ] && grep -q "one-line --subject" bad.txt || fail "a two-line subject: expected exit 2"
}
# the front command: plots next to the mail
plots() {
	local n
	if ! command -v gnuplot >/dev/null; then
		echo "NOTE: gnuplot missing: the plots beside the mail were not checked"
		return
	fi
	mkdir -p out
	SW_NO_BUILD=1 SW_BUILD_DIR=$BLD "$SRC/stalewin" mail e d --sketch --to x@example.org >out/mail.txt 2>front.err ||
		fail "./stalewin mail exit $?: $(cat front.err)"
	n=$(ls out/mail-*-cdf.png 2>/dev/null | wc -l)
	[ "$n" -eq 2 ] && grep -q "^  mail-1-e-cdf.png" out/mail.txt ||
		fail "./stalewin mail: expected 2 cdf plots next to the mail and listed in it, saw $n"
}
sw_case width width
sw_case headers headers
sw_case findings findings
sw_case subject subject
sw_case plots plots
sw_case golden golden_compare mail.txt
golden_done "golden, headers, findings, plots, lines <= 72"
