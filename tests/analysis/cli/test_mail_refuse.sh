#!/usr/bin/env bash
# Description: `stalewin-report mail` refuses runs that are a sketch, exit
# 2 naming each reason, and --sketch writes them marked so ("[sketch]" in
# the Subject, the reasons at the top).  One case per reason:
#   emulated  every row emulated by the writer (no kernel measured)
#   ganesha   every row served by nfs-ganesha (meta server.kind)
#   scaled    writeback other than the kernel's 5 s / 30 s
#   unsettled the file not settled at the writer's set-up (a real VM run
#             of tests/validate/data, which is also scaled, emulated, TCG)
#   repeats   fewer than 5 runs of one command (one run, then five)
# and a mail that contradicts itself: the uncovered stores never "could
# not have been seen" when the default mount's view saw them; the
# reproduce commands parse (bash -n), name no absolute path and keep
# every word whole; rows are sorted by workload, then policy; mail
# --check passes the mails made here and names a tab, a long line and a
# command that does not parse in a broken copy.
. "$(dirname "$0")/../../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
golden_start "$@"
refused() { # REASON-PATTERN RUN...: mail must refuse, naming the reason
	local pat=$1
	shift
	"$REP" mail "$@" >out.txt 2>err.txt
	local rc=$?
	[ "$rc" -eq 2 ] || { fail "$*: expected exit 2 (refused), saw $rc"; return; }
	grep -q "a sketch, not evidence to post: .*$pat" err.txt ||
		fail "$*: expected a reason matching '$pat', saw: $(cat err.txt)"
	[ ! -s out.txt ] || fail "$*: a refused mail wrote to stdout"
}
not_refused_for() { # REASON-PATTERN RUN...
	local pat=$1
	shift
	"$REP" mail "$@" >out.txt 2>err.txt
	! grep -q "a sketch, not evidence to post: .*$pat" err.txt ||
		fail "$*: did not expect a reason matching '$pat': $(grep "$pat" err.txt)"
}
# five runs of one command (r1..r5), the same with their meta naming
# ganesha (g1..g5), eager at the kernel's and at scaled writeback, and
# the VM run of the replay data (knfsd, so not ganesha; unsettled,
# scaled, emulated, TCG)
for i in 1 2 3 4 5; do
	"$SYN" --out r$i --policy deferred --duration 20 >/dev/null || fail "synth r$i"
	mkdir -p g$i && cp -r r$i/. g$i/ && jq '.server = {kind: "ganesha"}' r$i/meta.json >g$i/meta.json
done
"$SYN" --out e --policy eager --duration 20 >/dev/null || fail "synth e"
"$SYN" --out s --policy eager --duration 20 --writeback-ms 500 --expire-ms 1500 >/dev/null ||
	fail "synth s"
tar xzf "$SRC/tests/validate/data/kept-open-v4.2-2026-12-06.tar.gz" -C . ./vm-replay-quick ||
	fail "cannot unpack the VM run"

emulated() {
	refused "every row is emulated" e
}
# repeats: one run refused, five runs of one command not
repeats() {
	refused "fewer than 5 runs of one command.*: eager" e
	not_refused_for "fewer than 5 runs" r1 r2 r3 r4 r5
}
# scaled: 0.5 s / 1.5 s against the kernel's 5 s / 30 s
scaled() {
	refused "writeback scaled from the kernel's defaults (writeback every 0.5 s, expire 1.5 s.*x20) in: eager" s
	not_refused_for "writeback scaled" r1 r2 r3 r4 r5
}
ganesha() {
	refused "every row is served by nfs-ganesha" g1 g2 g3 g4 g5
}
unsettled() {
	refused "the file was not settled.* in: eager" vm-replay-quick
	not_refused_for "nfs-ganesha" vm-replay-quick
}
# --sketch: written, marked, reasons first, and what the mail says
sketch() {
	"$REP" mail e g1 vm-replay-quick s --sketch --from "A <a@b>" --date "Thu, 03 Dec 2026 12:00:00 +0000" \
		>sk.txt 2>err.txt || fail "--sketch: exit $?: $(cat err.txt)"
	grep -q '^Subject: \[sketch\] ' sk.txt || fail "--sketch: no [sketch] in the Subject"
	sed -n '/^$/,$p' sk.txt | sed -n 2p | grep -q '^SKETCH, not evidence to post, because:' ||
		fail "--sketch: the body does not start with the reasons"
	awk 'length($0) > 72 { bad=1 } END { exit bad }' sk.txt || fail "--sketch: a line over 72 columns"
	# the findings never contradict the view: the VM run's 36 uncovered
	# stores were all seen on its default mount
	tr '\n' ' ' <sk.txt | tr -s ' ' | grep -q "no client could" &&
		fail "a finding says no client could have seen the uncovered stores"
	tr '\n' ' ' <sk.txt | tr -s ' ' | grep -q "36 of 400 stores (9.0%) were never followed by a timestamp update.* 0 of its 400 stores were still unseen" ||
		fail "the uncovered finding does not say what the default mount saw"
	grep -q "tcg" sk.txt || fail "the TCG row's trap latency is shown as a figure"
	# rows: workload (random after rewrite), then eager before deferred
	awk '/^run /{r=1; next} r && /^$/{r=0} r && /^(eager|deferred) /{print $1}' sk.txt | tr '\n' ' ' >order.txt
	[ "$(cat order.txt)" = "eager eager eager deferred " ] ||
		fail "rows: expected eager eager eager deferred, saw $(cat order.txt)"
}
# reproduce commands: parse, no absolute path, no word cut
reproduce() {
	SW_TOP=$SRC "$REP" mail vm-replay-quick --sketch >vm.txt 2>/dev/null
	sed -n '/^To reproduce/,/^-- $/p' vm.txt | sed '1d;/^-- $/d;/^  #/d;/^$/d' >cmds.txt
	[ -s cmds.txt ] || fail "no reproduce command"
	bash -n cmds.txt 2>bn.txt || fail "reproduce commands do not parse: $(cat bn.txt)"
	grep -qE "(^| )/" cmds.txt && fail "an absolute path in the reproduce commands: $(grep -E '(^| )/' cmds.txt)"
	grep -q "^  ./stalewin vm run " cmds.txt || fail "the VM run is not reproduced as ./stalewin vm run"
	tr -d '\\\n' <cmds.txt | tr -s ' ' | grep -q -- "--sysctl vm.dirty_writeback_centisecs=100 --mount-opts vers=3,nolock" ||
		fail "a word of the command was cut: $(cat cmds.txt)"
}
# mail --check: a sketch and the VM mail pass; a copy with a tab, a line
# over 72 columns and a command cut inside a quote fails, each named
check() {
	SW_TOP=$SRC "$REP" mail vm-replay-quick --sketch >vm.txt 2>/dev/null
	"$REP" mail e vm-replay-quick --sketch >sk2.txt 2>/dev/null
	"$REP" mail --check sk2.txt >/dev/null 2>ck.txt || fail "mail --check on a sketch: $(cat ck.txt)"
	"$REP" mail --check vm.txt >/dev/null 2>ck.txt || fail "mail --check on the VM mail: $(cat ck.txt)"
	sed -e 's/^Environment$/Environment\t/' -e "s|--reader-every-ms 100 --out|--reader-every-ms 100 'x --out|" vm.txt >bad.txt
	printf '%080d\n' 0 >>bad.txt
	"$REP" mail --check bad.txt >/dev/null 2>ck.txt
	local rc=$?
	[ $rc -eq 1 ] && grep -q "expected no tab" ck.txt && grep -q "expected at most 72 columns, saw 80" ck.txt &&
		grep -q "expected a command bash -n parses" ck.txt ||
		fail "mail --check on a broken copy: expected exit 1 naming the tab, the 80 columns and the command, saw $rc: $(cat ck.txt)"
	"$REP" mail --check nosuch.txt >/dev/null 2>ck.txt
	[ $? -eq 2 ] || fail "mail --check of a missing file: expected exit 2"
}
# the other headers
headers() {
	"$REP" mail e --sketch --cc "b@c" --in-reply-to "<x@y>" >h.txt 2>/dev/null
	grep -q '^Cc: b@c' h.txt && grep -q '^In-Reply-To: <x@y>' h.txt && grep -q '^References: <x@y>' h.txt ||
		fail "--cc / --in-reply-to: headers missing"
	"$REP" mail e --sketch --cc $'a\nBcc: x' >/dev/null 2>bad.txt
	[ $? -eq 2 ] && grep -q "one-line --cc" bad.txt || fail "a two-line --cc: expected exit 2"
}
sw_case emulated emulated
sw_case repeats repeats
sw_case scaled scaled
sw_case ganesha ganesha
sw_case unsettled unsettled
sw_case sketch sketch
sw_case reproduce reproduce
sw_case check check
sw_case headers headers
sw_done "emulated, ganesha, scaled, unsettled, repeats; --sketch; findings; reproduce; --check"
