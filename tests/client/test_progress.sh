#!/usr/bin/env bash
# Description: stalewin-progress, the live progress line.  On synthetic
# run folders (stalewin-synth: a known writer and a probe with two gaps)
# one line (--once) gives the writer's time against --duration, its
# stores/s, exactly the writer log's UPDATE count, the probe's replies/s
# and 2 outages; a folder of two run folders names the newer as run 2/2;
# on a live writer (tmpfs) plain lines come every --every seconds with
# growing figures, a terminal line is rewritten with \r and cleared at the
# end, and --until-file ends it.  Bad options exit 2 with one line.  A
# miscounted figure, a wrong current run or a tool that never ends fails
# here.
# Cases: bad-options, once, folder, live.
. "$(dirname "$0")/../lib/test-lib.sh"
sw_immediate=1
set -u
b=${SW_BUILD_DIR:?}
P=$b/client/stalewin-progress S=$b/analysis/stalewin-synth D=$b/common/stalewin-logdump
W=$b/server/stalewin-writer
for x in "$P" "$S" "$D" "$W"; do [ -x "$x" ] || fail "$x is not built"; done
T=$(mktemp -d /tmp/sw-progress-XXXXXX)
F=""
trap 'rm -rf "$T" $F' EXIT

bad_options() {
	local args rc
	for args in "" "--watch $T --every 0" "--watch $T --tty maybe" "--watch $T --url http://x"; do
		# shellcheck disable=SC2086
		"$P" $args --once 2>"$T/err"; rc=$?
		[ $rc -eq 2 ] || fail "'$args': expected exit 2, saw $rc"
		[ "$(wc -l <"$T/err")" -eq 1 ] || fail "'$args': expected one line on stderr, saw: $(cat "$T/err")"
	done
}

# one synthetic run: 5 s of eager stores every 100 ms, probe gaps at 1-1.5 s and 3-3.5 s
once() {
	local upd ngap line el sps u rps out
	"$S" --out "$T/one" --policy eager --duration 5 --interval-us 100000 --gap 1000-1500 \
		--gap 3000-3500 >/dev/null || fail "stalewin-synth failed"
	upd=$("$D" "$T/one/writer.swlog" | awk '$2 == "UPDATE"' | wc -l)
	ngap=$("$D" "$T/one/probe-0.swlog" | awk '$2 == "GAP"' | wc -l)
	[ "$ngap" = 2 ] || fail "synth wrote $ngap GAP records, expected 2 (test setup)"
	line=$("$P" --watch "$T/one" --duration 5 --once --tty no 2>&1) || fail "exit $? on a run folder"
	echo "once: $line"
	[[ $line =~ \]\ ([0-9]+)/5s\ stores/s\ ([0-9]+)\ updates\ ([0-9]+)\ replies/s\ ([0-9]+)\ outages\ ([0-9]+)$ ]] ||
		fail "expected '[ Ns] E/5s stores/s N updates N replies/s N outages N', saw '$line'"
	el=${BASH_REMATCH[1]} sps=${BASH_REMATCH[2]} u=${BASH_REMATCH[3]} rps=${BASH_REMATCH[4]} out=${BASH_REMATCH[5]}
	[ "$el" -ge 4 ] && [ "$el" -le 5 ] || fail "writer time: expected 4..5 s, saw $el"
	[ "$sps" -ge 9 ] && [ "$sps" -le 11 ] || fail "stores/s: expected 10 +- 1, saw $sps"
	[ "$u" = "$upd" ] || fail "updates: expected the log's $upd, saw $u"
	[ "$rps" -gt 0 ] || fail "replies/s: expected > 0, saw $rps"
	[ "$out" = 2 ] || fail "outages: expected the probe's 2 gaps, saw $out"
}

# a folder of runs: the newer one is current, number 2 of 2
folder() {
	local line
	mkdir -p "$T/m"
	"$S" --out "$T/m/a-first" --duration 2 --interval-us 100000 >/dev/null || fail "synth a"
	sleep 1.1
	"$S" --out "$T/m/b-second" --duration 3 --interval-us 50000 >/dev/null || fail "synth b"
	line=$("$P" --watch "$T/m" --experiments 2 --duration 3 --once --tty no 2>&1)
	echo "folder: $line"
	[[ $line == *"] 2/2 b-second "*"stores/s 20 "* ]] || fail "expected run 2/2 b-second at 20 stores/s, saw '$line'"
	# both runs of --experiments 2 ended (END in each writer log): it ends by itself
	timeout 10 "$P" --watch "$T/m" --experiments 2 --every 0.2 --tty no 2>/dev/null ||
		fail "with every run ended, expected the tool to end by itself (exit 0), saw exit $?"
}

# live: a writer on tmpfs, plain lines every second, ended by --until-file
live() {
	local wp pp tp p n first last
	[ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] || skip "/dev/shm is not a tmpfs"
	F=$(mktemp /dev/shm/sw-progress-XXXXXX)
	mkdir -p "$T/live"
	truncate -s 64K "$F"
	"$W" run --file "$F" --policy eager --workload rewrite --interval-ms 20 --size 64K \
		--writeback-ms 200 --expire-ms 200 \
		--duration 3 --log "$T/live/writer.swlog" 2>"$T/w.err" &
	wp=$!
	"$P" --watch "$T/live" --duration 3 --every 1 --tty no --until-file "$T/stop" 2>"$T/plain.txt" &
	pp=$!
	"$P" --watch "$T/live" --duration 3 --every 1 --tty yes --pid $wp 2>"$T/tty.txt" &
	tp=$!
	wait $wp || fail "the writer failed: $(cat "$T/w.err")"
	sleep 1.5
	touch "$T/stop"
	for p in $pp $tp; do
		for _ in $(seq 50); do kill -0 $p 2>/dev/null || break; sleep 0.1; done
		kill -0 $p 2>/dev/null && { kill $p; fail "stalewin-progress $p did not end (--until-file / --pid)"; }
	done
	cat "$T/plain.txt"
	n=$(grep -c 'stores/s' "$T/plain.txt")
	[ "$n" -ge 3 ] || fail "expected a plain line per second (>= 3), saw $n"
	grep -q $'\r' "$T/plain.txt" && fail "plain lines carry a carriage return"
	first=$(sed -n 1p "$T/plain.txt" | sed 's/.*updates \([0-9]*\).*/\1/')
	last=$(tail -n 1 "$T/plain.txt" | sed 's/.*updates \([0-9]*\).*/\1/')
	[ "$last" -gt "$first" ] || fail "updates did not grow: $first then $last"
	[ "$(tr -cd '\r' <"$T/tty.txt" | wc -c)" -ge 3 ] || fail "the terminal line was not rewritten with \\r"
	[ "$(tail -c 4 "$T/tty.txt" | od -An -c | tr -d ' ')" = '\r033[K' ] ||
		fail "the terminal line was not cleared at the end: $(tail -c 20 "$T/tty.txt" | od -An -c)"
}

sw_case bad-options bad_options
sw_case once once
sw_case folder folder
sw_case live live
sw_done "progress line figures, current run, plain and terminal output"
