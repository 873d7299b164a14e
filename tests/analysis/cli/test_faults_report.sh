#!/usr/bin/env bash
# Description: the report's status line and exit code from faults.json
# on synthetic run folders (no root, no NFS): without faults `complete`,
# exit 0; a partition recorded by `stalewin-runfolder fault`
# -> "complete, with faults: partition at 2.00 s for 3.00 s (N stores)",
# exit 4, N the stores synth made inside it (one every 100 ms: 31, the
# bounds included); a fault that cut the run short -> "PARTIAL: ...", exit
# 3; a writer log without END -> PARTIAL naming writer.swlog; a
# faults.json that is not JSON -> partial with a message that says what
# was expected.  The guests' faults (no qemu needed here): a
# client-reboot whose end is timed on another clock (end_clock: the end
# shifted by that file's offset_ns, no dur_ns in faults.json; a missing
# file a problem, not a partial report), and io-error's filesystem in
# words from its raw counts; a server-crash's stores against a crafted
# copy of the file after the reboot (those on disk, those the lagging
# kernel reader never read; another run's stamp; no copy at all).  A
# status line that hides a fault fails here.
. "$(dirname "$0")/../../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
RF=$BLD/common/stalewin-runfolder
[ -x "$RF" ] || skip "$RF not built"
first() { head -n 1 "$1/report.txt"; }
report() { "$REP" "$1" --format all --out "$1" > /dev/null 2>"$1.err"; echo $?; }

"$SYN" --out "$T/ok" --duration 10 --interval-us 100000 > /dev/null || { fail "synth ok"; sw_done; }
# the writer's first record is the run's start: faults relative to it
t0=$("$BLD/common/stalewin-logdump" "$T/ok/writer.swlog" | awk '$2 == "STORE" { sub(/.*t_after=/, ""); sub(/ .*/, ""); print; exit }')
[ -n "$t0" ] || t0=$("$BLD/common/stalewin-logdump" "$T/ok/writer.swlog" | sed -n '2s/.* t=\([0-9]*\).*/\1/p')

no_faults() {
	local rc
	rc=$(report "$T/ok")
	[ "$rc" = 0 ] || fail "no faults: expected exit 0, saw $rc"
	[[ $(first "$T/ok") == *"  complete  [synthetic logs]" ]] || fail "no faults: expected 'complete', saw: $(first "$T/ok")"
}

partition() {
	local rc n want
	cp -r "$T/ok" "$T/part"
	"$RF" fault "$T/part" --str kind=partition --int "t_start_real_ns=$((t0 + 2000000000))" \
		--int "t_end_real_ns=$((t0 + 5000000000))" || fail "stalewin-runfolder fault"
	jq -e '.faults[0].dur_ns == 3000000000' "$T/part/faults.json" > /dev/null || fail "faults.json lacks dur_ns: $(cat "$T/part/faults.json")"
	rc=$(report "$T/part")
	[ "$rc" = 4 ] || fail "partition: expected exit 4 (complete, with faults), saw $rc"
	n=$(jq '.end.faults[0].stores' "$T/part/report.json")
	want=$(awk -F, -v a="$((t0 + 2000000000))" -v b="$((t0 + 5000000000))" 'NR > 1 && $4 >= a && $4 <= b { n++ } END { print n + 0 }' "$T/part/report.csv")
	[ "$n" = "$want" ] && [ "$n" -ge 29 ] || fail "partition: expected $want stores inside (>= 29), the report says $n"
	[[ $(first "$T/part") == *"complete, with faults: partition at 2.00 s for 3.00 s ($n stores)  "* ]] ||
		fail "partition: status line: $(first "$T/part")"
}

cut_short() {
	local rc
	cp -r "$T/ok" "$T/cut"; rm -f "$T/cut/faults.json"
	"$RF" fault "$T/cut" --str kind=control-outage --int "t_start_real_ns=$((t0 + 8000000000))" --bool cut_short=true
	rc=$(report "$T/cut")
	[ "$rc" = 3 ] || fail "cut short: expected exit 3, saw $rc"
	[[ $(first "$T/cut") == *"PARTIAL: control-outage at 8.00 s, to the end ("*" stores); cut short: faults.json (see Problems)  "* ]] ||
		fail "cut short: status line: $(first "$T/cut")"
}

no_end() {
	local rc
	"$SYN" --out "$T/noend" --duration 5 --interval-us 100000 --no-end > /dev/null || fail "synth noend"
	rc=$(report "$T/noend")
	[ "$rc" = 3 ] || fail "no END: expected exit 3, saw $rc"
	[[ $(first "$T/noend") == *"PARTIAL: cut short: writer.swlog (see Problems)  "* ]] || fail "no END: status line: $(first "$T/noend")"
}

bad_json() {
	local rc
	cp -r "$T/ok" "$T/bad"; echo '{"faults": [' > "$T/bad/faults.json"
	rc=$(report "$T/bad")
	[ "$rc" = 3 ] || fail "bad faults.json: expected exit 3, saw $rc"
	grep -q 'expected faults.json as JSON' "$T/bad.err" || fail "bad faults.json: no clear error: $(cat "$T/bad.err")"
}

end_clock() {
	local rc n
	cp -r "$T/ok" "$T/reboot"; rm -f "$T/reboot/faults.json"
	mkdir -p "$T/reboot/client"
	# the end read on a clock 250 ms behind: the report adds the 250 ms
	echo '{"offset_ns":250000000,"err_ns":1000000}' > "$T/reboot/client/clock-after-reboot.json"
	"$RF" fault "$T/reboot" --str kind=client-reboot --int "t_start_real_ns=$((t0 + 2000000000))" \
		--int "t_end_real_ns=$((t0 + 4750000000))" --str end_clock=client/clock-after-reboot.json ||
		fail "stalewin-runfolder fault"
	jq -e '.faults[0] | has("dur_ns") | not' "$T/reboot/faults.json" > /dev/null ||
		fail "end_clock: a dur_ns over two clocks in faults.json: $(cat "$T/reboot/faults.json")"
	rc=$(report "$T/reboot")
	[ "$rc" = 4 ] || fail "end_clock: expected exit 4, saw $rc"
	n=$(jq '.end.faults[0].stores' "$T/reboot/report.json")
	[[ $(first "$T/reboot") == *"complete, with faults: client-reboot at 2.00 s for 3.00 s ($n stores)  "* ]] ||
		fail "end_clock: expected 'client-reboot at 2.00 s for 3.00 s', saw: $(first "$T/reboot")"
	# why the observers' columns end there: said, not partial
	jq -e '[.end.problems[] | select(.partial == false and (.message | startswith("client-reboot at 2.00 s ended the client guest")))] | length == 1' \
		"$T/reboot/report.json" > /dev/null || fail "end_clock: no note that the observers ended at the reboot: $(jq -c .end.problems "$T/reboot/report.json")"
	rm "$T/reboot/client/clock-after-reboot.json"
	rc=$(report "$T/reboot")
	[ "$rc" = 4 ] || fail "end_clock missing: expected exit 4 (a problem, not partial), saw $rc"
	jq -e '[.end.problems[] | select(.partial == false and (.message | contains("for the end of fault 0")))] | length == 1' "$T/reboot/report.json" > /dev/null ||
		fail "end_clock missing: no problem (not partial) naming the fault's end: $(jq -c .end.problems "$T/reboot/report.json")"
	[[ $(first "$T/reboot") == *"client-reboot at 2.00 s for 2.75 s ("* ]] ||
		fail "end_clock missing: expected the run's offset (0) for the end, saw: $(first "$T/reboot")"
}

io_error() {
	local rc n d ro nf want
	for d in "ro false false refusing new files, mounted rw" "rw true true remounted read-only" \
		"ok false true writable after"; do
		set -- $d; ro=$2 nf=$3; shift 3; want="$*"
		cp -r "$T/ok" "$T/io-$1"; rm -f "$T/io-$1/faults.json"
		"$RF" fault "$T/io-$1" --str kind=io-error --str clock=writer --str fs=ext4 \
			--int "t_start_real_ns=$((t0 + 2000000000))" --int "t_end_real_ns=$((t0 + 4000000000))" \
			--int io_errors=10 --int fs_errors=9 --bool "read_only_after=$ro" --bool "new_file_after=$nf" ||
			fail "stalewin-runfolder fault"
		rc=$(report "$T/io-$1")
		[ "$rc" = 4 ] || fail "io-error: expected exit 4, saw $rc"
		n=$(jq '.end.faults[0].stores' "$T/io-$1/report.json")
		[[ $(first "$T/io-$1") == *"io-error at 2.00 s for 2.00 s ($n stores; ext4: 10 block I/O errors, 9 error lines, $want)  "* ]] ||
			fail "io-error: expected '... ($n stores; ext4: 10 block I/O errors, 9 error lines, $want)', saw: $(first "$T/io-$1")"
		[ "$(jq -r '.end.faults[0].what' "$T/io-$1/report.json")" = "ext4: 10 block I/O errors, 9 error lines, $want" ] ||
			fail "io-error: report.json's what: $(jq -c '.end.faults[0]' "$T/io-$1/report.json")"
	done
	cp -r "$T/ok" "$T/io-none"; rm -f "$T/io-none/faults.json"
	"$RF" fault "$T/io-none" --str kind=io-error --str fs=xfs --int "t_start_real_ns=$((t0 + 2000000000))" \
		--int "t_end_real_ns=$((t0 + 4000000000))" --int io_errors=0 --int fs_errors=0 \
		--bool read_only_after=false --bool new_file_after=true
	report "$T/io-none" > /dev/null
	[[ $(first "$T/io-none") == *"stores; xfs: no write error in the kernel's log)  "* ]] ||
		fail "io-error without errors: $(first "$T/io-none")"
}

# le64 N: N as 8 little-endian bytes
le64() {
	local h i out=""
	h=$(printf '%016x' "$1")
	for i in 14 12 10 8 6 4 2 0; do out+="\\x${h:$i:2}"; done
	printf "$out"
}
# crash_file FILE RUN_ID GEN: a one-page file whose page 0 holds the
# writer's stamp of generation GEN (records.h struct sw_stamp)
crash_file() {
	local magic=$((0x504d415453574c53)) rid=$((0x$2)) t=1700000000000000000
	{ le64 $magic; le64 "$rid"; le64 0; le64 "$3"; le64 $t; le64 $((magic ^ rid ^ 0 ^ $3 ^ t))
		head -c $((4096 - 48)) /dev/zero; } >"$1"
}

# server-crash: the stores before the crash against the page the disk
# kept (generation 90 of 95 made before it) and the reader's reads (2 s
# late: it read up to ~80): the stores on disk it never read are counted
# and named (report.json: their generations)
server_crash() {
	local d=$T/crash rc before maxr want stores
	"$SYN" --out "$d" --policy deferred --pages 1 --duration 10 --interval-us 100000 --kread-ms 100 \
		--kread-lag-ms 2000 --run-id 1234abcd00000001 --no-end > /dev/null || { fail "synth crash"; return; }
	t0=$("$BLD/common/stalewin-logdump" "$d/writer.swlog" | awk '$2 == "STORE" { sub(/.*t_after=/, ""); sub(/ .*/, ""); print; exit }')
	mkdir -p "$d/server"
	crash_file "$d/server/file-after-crash.bin" 1234abcd00000001 90
	"$RF" fault "$d" --str kind=server-crash --str clock=writer --int "t_start_real_ns=$((t0 + 9450000000))" \
		--int "t_end_real_ns=$((t0 + 9900000000))" --str file_after=server/file-after-crash.bin --bool cut_short=true ||
		fail "stalewin-runfolder fault"
	rc=$(report "$d")
	[ "$rc" = 3 ] || fail "server-crash: expected exit 3 (PARTIAL), saw $rc"
	"$BLD/common/stalewin-logdump" "$d/writer.swlog" > "$T/cw.txt"
	before=$(awk -v t=$((t0 + 9450000000)) '$2 == "STORE" { v = $0; sub(/.*t_after=/, "", v); sub(/ .*/, "", v); if (v + 0 <= t) n++ } END { print n + 0 }' "$T/cw.txt")
	maxr=$("$BLD/common/stalewin-logdump" "$d/kread-0.swlog" | grep -o ' gen=[0-9]*' | cut -d= -f2 | sort -n | tail -n 1)
	want=$((90 - maxr))
	[ "$before" -ge 90 ] && [ "$maxr" -lt 90 ] || fail "server-crash: the synthetic run is not what the case needs: $before stores before, the reader read up to $maxr"
	jq -e --argjson b "$before" --argjson w "$want" '.end.faults[0].crash | .stores_before == $b and .on_disk_after == 90
		and .on_read_pages == 90 and .never_read == $w and .probe_based <= 90
		and .never_read_stores == [{"page": 0, "gen_first": (91 - $w), "gen_last": 90}]' "$d/report.json" > /dev/null ||
		fail "server-crash: expected $before stores before, 90 on disk, $want never read, saw $(jq -c '.end.faults[0].crash' "$d/report.json")"
	[[ $(first "$d") == *"PARTIAL: server-crash at 9.45 s for 0.45 s ("*" stores; $before stores before it, 90 on disk after the reboot; never seen changed: $want of 90 by the kernel readers, "*" by the probe's last times); cut short: "* ]] ||
		fail "server-crash: status line: $(first "$d")"
	# another run's stamp on the disk: none of its stores is there
	crash_file "$d/server/file-after-crash.bin" 1234abcd00000002 90
	report "$d" > /dev/null
	[ "$(jq '.end.faults[0].crash.on_disk_after' "$d/report.json")" = 0 ] ||
		fail "server-crash: another run's stamp counted: $(jq -c '.end.faults[0].crash' "$d/report.json")"
	# no copy of the file: said, no figures
	rm "$d/server/file-after-crash.bin"
	report "$d" > /dev/null
	jq -e '(.end.faults[0] | has("crash") | not) and ([.end.problems[] | select(.message | contains("expected the writer'"'"'s file as the disk kept it"))] | length == 1)' \
		"$d/report.json" > /dev/null || fail "server-crash without the file's copy: $(jq -c '[.end.faults, .end.problems]' "$d/report.json")"
}

sw_case no-faults no_faults
sw_case partition partition
sw_case cut-short cut_short
sw_case no-end no_end
sw_case bad-json bad_json
sw_case end-clock end_clock
sw_case io-error io_error
sw_case server-crash server_crash
sw_done "status line and exit code from faults.json"
