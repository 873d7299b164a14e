#!/usr/bin/env bash
# Description: `stalewin-report mail` on fixed synthetic runs (eager
# rewrite with a cto kernel reader and lost replies, deferred rewrite;
# a sketch, written with --sketch): the whole message against a golden
# file (fixed From and Date), every line <= 72 columns, the RFC 5322
# headers, findings carrying the figures (the uncovered count from the
# writer's log; no bound restated for an emulated deferred row, whose
# model enforces it), the inline ASCII CDF, and `./stalewin mail --attach`
# writing a MIME message with the PNG plots.  Refusals: test_mail_refuse.sh.  Refresh after an intended change with
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
# the front command with --attach: a MIME multipart message, its text
# part first (clean for mail --check), then the runs' CDF and timeline
# PNGs, each a base64 part that decodes to a PNG
attach() {
	local n magic
	if ! command -v gnuplot >/dev/null; then
		echo "NOTE: gnuplot missing: --attach was not checked"
		return
	fi
	SW_NO_BUILD=1 SW_BUILD_DIR=$BLD "$SRC/stalewin" mail e d --sketch --attach --to x@example.org >att.txt 2>front.err ||
		fail "./stalewin mail --attach: exit $?: $(cat front.err)"
	grep -q '^Content-Type: multipart/mixed; boundary="=_stalewin_part_boundary"$' att.txt ||
		fail "--attach: no multipart/mixed header"
	n=$(grep -c '^Content-Type: image/png; name="mail-[12]-[ed]-\(cdf\|timeline\).png"$' att.txt)
	[ "$n" = 4 ] || fail "--attach: expected 4 PNG parts (cdf and timeline of 2 runs), saw $n"
	# (into a variable: under pipefail a grep -q at the end of the pipe
	# could fail it by SIGPIPE of the commands before it)
	magic=$(awk '/^Content-Transfer-Encoding: base64$/ { on = 1; next } on && /^--=_stalewin/ { exit } on && NF' att.txt |
		base64 -d 2>/dev/null | od -An -c -N 4)
	[[ $magic == *P*N*G* ]] || fail "--attach: the first part does not decode to a PNG: $magic"
	[ "$(tail -n 1 att.txt)" = "--=_stalewin_part_boundary--" ] || fail "--attach: no closing boundary"
	grep -q '^Truth windows, CDF' att.txt && fail "--attach: the ASCII CDF is there too"
	"$REP" mail --check att.txt >/dev/null 2>err.txt || fail "--attach: mail --check on its text part: $(cat err.txt)"
	"$REP" mail e --attach /nonexistent.png >/dev/null 2>err.txt
	[ $? -eq 2 ] && grep -q -- '--attach /nonexistent.png: expected a readable file' err.txt ||
		fail "--attach of a missing file: expected exit 2 naming it, saw: $(cat err.txt)"
}
# without --attach: an ASCII CDF, a letter a run, its legend the rows' labels
ascii_cdf() {
	sed -n '/^Truth windows, CDF/,/^  a later letter/p' mail.txt >cdf.txt
	[ "$(grep -c '|' cdf.txt)" = 10 ] || fail "ASCII CDF: expected 10 rows, saw $(grep -c '|' cdf.txt)"
	grep '|' cdf.txt | grep -q a && grep '|' cdf.txt | grep -q b || fail "ASCII CDF: expected curves a and b: $(cat cdf.txt)"
	grep -q '^  a: eager' cdf.txt && grep -q '^  b: deferred' cdf.txt || fail "ASCII CDF: expected the legend a: eager, b: deferred"
}
sw_case width width
sw_case headers headers
sw_case findings findings
sw_case subject subject
sw_case attach attach
sw_case ascii-cdf ascii_cdf
sw_case golden golden_compare mail.txt
golden_done "golden, headers, findings, --attach, ASCII CDF, lines <= 72"
