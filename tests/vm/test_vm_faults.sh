#!/usr/bin/env bash
# Description: one fault of `stalewin vm run --fault KIND@S[:D]` in a real
# 15 s eager run (knfsd server guest, kernel-NFS client guest, 20 stores/s):
#   knfsd-restart@3:3      (--control auto: the server guest runs the writer)
#   partition@3:3          (--control api: the client polls the control API
#                           through the outage and fetches the log after it)
#   server-guest-kill@4    (the server guest's qemu SIGKILLed)
# Asserts, for each:
#  - the exit code (4 complete with faults; 3 PARTIAL for the kill) and the
#    report's first line naming the fault with its store count, which
#    equals the stores of report.csv inside the fault (counted here);
#  - the run lasts its planned duration (writer END reason=1, >= 14.8 s of
#    stores), unless the fault kills the writer;
#  - no store logged before the fault is lost: every STORE of writer.swlog
#    is in the report, the stores before the fault are as many as the
#    rate made; after the kill, the log is exactly what it held when qemu
#    died (writer_log_bytes in faults.json) and has no END;
#  - the fault really happened and the observers kept going: the probe
#    failed during it and had good replies after it, the kernel reader
#    read good data after it (the kill: the probe polled on to its end);
#  - knfsd-restart is timed in the writer's clock (faults.json
#    "clock":"writer"; the report does not shift it by the clock offset);
#    the partition's control-API outage is in faults.json with its end;
#  - nothing is left running: no qemu, no work folder, no mount.
# A run that ends early, a fault missing from faults.json or the report,
# a log cut or lost, or a qemu left behind fails here.  77 without qemu.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
kind=${1:?usage: test_vm_faults.sh knfsd-restart|partition|server-guest-kill}
for t in server/stalewin-writer client/stalewin-reader client/stalewin-probe client/stalewin-ctl \
	common/stalewin-logdump common/stalewin-runfolder analysis/stalewin-report; do
	[ -x "$b/$t" ] || fail "$b/$t is not built"
done
command -v jq >/dev/null || skip "jq not installed"
dump=$b/common/stalewin-logdump
# 15 s: after a 3 s fault the kernel client reconnects with its own
# back-off (3 s, then 6 s), and must still have time to read
dur=15 rate=20 extra=()
case $kind in
knfsd-restart) spec=$kind@3:3 at=3 down=3 want_rc=4 want="complete, with faults: " ;;
# partition: longer than the client's 5 s status-poll timeout (vm/guest/
# faults.sh), else a poll sent into it may be answered by TCP's
# retransmission after the heal and no outage exists to record (a CI
# trial: a 3.05 s partition, no control-outage)
partition) spec=$kind@3:7 at=3 down=7 dur=22 want_rc=4 want="complete, with faults: " extra=(--control api) ;;
server-guest-kill) spec=$kind@4 at=4 down=0 want_rc=3 want="PARTIAL: " ;;
*) fail "unknown fault kind '$kind'" ;;
esac
T=$(mktemp -d /tmp/sw-vm-faults.XXXXXX)
trap 'rm -rf "$T"' EXIT
run=$T/run
PATH=$b/analysis:$PATH "$top/vm/run.sh" --policy eager --duration $dur --probe-rate 50 \
	--mount-opts vers=3,nolock --reader-mode kept-open --writer-args "--interval-ms 50" \
	--outage-grace 20 --fault "$spec" "${extra[@]}" --build-dir "$b" --out "$run" \
	>"$T/report.txt" 2>"$T/run.err"
rc=$?
cat "$T/run.err"
[ -s "$run/report.json" ] || { cat "$T/report.txt"; fail "no report.json (exit $rc)"; }
first=$(head -n 1 "$run/report.txt")
[ $rc -eq $want_rc ] || { cat "$T/report.txt"; fail "expected exit $want_rc, saw $rc ($first)"; }
jr() { jq -r "$@" "$run/report.json"; }

# the fault: in faults.json once, named by the first line with its count
jq -e --arg k "$kind" '[.faults[] | select(.kind == $k)] | length == 1' "$run/faults.json" >/dev/null ||
	fail "expected one $kind in faults.json, saw: $(cat "$run/faults.json" 2>/dev/null)"
n_f=$(jr --arg k "$kind" '.end.faults[] | select(.kind == $k) | .stores')
f0=$(jr --arg k "$kind" '.end.faults[] | select(.kind == $k) | .t_start_real_ns')
f1=$(jr --arg k "$kind" '.end.faults[] | select(.kind == $k) | .t_end_real_ns // "inf"')
# (faults in faults.json's order: a control-outage may come first)
[[ $first == *"  $want"*"$kind at "* ]] || fail "expected the first line to say '$want... $kind at', saw: $first"
[[ $first == *"($n_f stores)"* ]] || fail "the first line does not count the fault's $n_f stores: $first"
# report.csv: stores inside and before the fault (writer clock, as the report's)
incsv() { awk -F, -v a="$f0" -v b="$f1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ t = $c["t_s_real_ns"] + 0 } '"$1" "$run/report.csv"; }
n_in=$(incsv 't >= a && (b == "inf" || t <= b + 0) { n++ } END { print n + 0 }')
n_before=$(incsv 't < a { n++ } END { print n + 0 }')
[ "$n_in" = "$n_f" ] || fail "the report counts $n_f stores in the $kind, report.csv has $n_in inside it"
# (S counts from the writer's process start: its start-up under TCG is in it)
el=$(jr --argjson a "$f0" '(($a - .end.t_start_real_ns) / 1e9 * 100 | floor) / 100')
awk -v n="$n_before" -v r=$rate -v e="$el" 'BEGIN { exit !(e >= 1 && n >= r * e * 0.6) }' ||
	fail "only $n_before stores in the $el s before the fault ($rate/s planned): stores before it were lost"

# every store the writer logged is in the report
"$dump" "$run/writer.swlog" >"$T/w.txt" 2>"$T/w.err" || true
logged=$(awk '$2 == "STORE"' "$T/w.txt" | wc -l)
[ "$(jr .end.stores)" = "$logged" ] || fail "writer.swlog has $logged STORE records, the report counts $(jr .end.stores)"

# observers' clock -> writer clock (clock.json: server - client)
off=$(jq -r '.before.offset_ns // 0' "$run/clock.json" 2>/dev/null || echo 0)
"$dump" "$run/probe-0.swlog" >"$T/p.txt" 2>/dev/null || true
"$dump" "$run/kread-0.swlog" >"$T/k.txt" 2>/dev/null || true
count() { awk -v o="$off" -v a="$f0" -v b="$f1" "$1" "$2"; }
# good probe replies after the fault's end, failures (or a gap) inside it
p_after=$(count '$2 == "ATTR" && / status=0 / { for (i = 3; i <= NF; i++) if ($i ~ /^recv=/) t = substr($i, 6) + o
	if (b != "inf" && t > b + 0) n++ } END { print n + 0 }' "$T/p.txt")
# (a partition may leave the probe's TCP connection up: a reply ~D s late)
p_bad=$(count '$2 == "ATTR" { for (i = 3; i <= NF; i++) { if ($i ~ /^send=/) s = substr($i, 6); if ($i ~ /^recv=/) r = substr($i, 6) } }
	($2 == "ATTR" && (!/ status=0 / || r - s > 1e9)) || $2 == "GAP" { n++ } END { print n + 0 }' "$T/p.txt")
k_after=$(count '$2 == "KREAD" && / err=0 / { for (i = 3; i <= NF; i++) if ($i ~ /^t_after=/) t = substr($i, 9) + o
	if (b != "inf" && t > b + 0) n++ } END { print n + 0 }' "$T/k.txt")
# the probe's last word: a reply, a gap's end, an event or its END
p_last=$(count '{ for (i = 3; i <= NF; i++) if ($i ~ /^(recv|end|t)=/) { v = $i; sub(/^[a-z]*=/, "", v); t = v + o } }
	END { printf "%.0f", t }' "$T/p.txt")
[ "$p_bad" -gt 0 ] || fail "the probe saw no failed or late (> 1 s) reply and no gap: did the $kind happen while it polled?"

case $kind in
server-guest-kill)
	tail -n 1 "$T/w.txt" | grep -q ' END ' && fail "writer.swlog ends with END: the writer was not killed"
	want_b=$(jq -r '.faults[] | select(.kind == "server-guest-kill") | .writer_log_bytes' "$run/faults.json")
	[ "$(stat -c %s "$run/writer.swlog")" = "$want_b" ] ||
		fail "writer.swlog has $(stat -c %s "$run/writer.swlog") bytes, it held $want_b when qemu died"
	[ "$n_f" -le $rate ] || fail "$n_f stores counted after the kill request (more than 1 s of stores)"
	[[ $first == *writer.swlog* ]] || fail "the first line does not name writer.swlog as cut short: $first"
	# the probe polled on to its planned end (duration + 3 s after go)
	awk -v l="$p_last" -v a="$f0" 'BEGIN { exit !(l > a + 3e9) }' ||
		fail "the probe's last record is not 3 s after the kill: it stopped polling"
	grep -q ' END ' "$T/p.txt" || fail "probe-0.swlog has no END: the probe did not end by itself" ;;
*)
	grep -q ' END .*reason=1 ' "$T/w.txt" || fail "the writer did not run its planned duration: $(tail -n 1 "$T/w.txt")"
	jr --argjson d $dur '(.end.t_end_real_ns - .end.t_start_real_ns) >= ($d - 0.2) * 1e9' | grep -q true ||
		fail "the writer's stores span less than the planned $dur s"
	[ "$n_f" -ge $((rate * down * 6 / 10)) ] || fail "only $n_f stores inside a $down s fault at $rate/s"
	[ "$p_after" -gt 0 ] || fail "the probe had no good reply after the $kind ended: it did not keep going"
	[ "$k_after" -gt 0 ] || fail "the kernel reader read nothing good after the $kind ended" ;;
esac
case $kind in
knfsd-restart)
	jq -e '.faults[] | select(.kind == "knfsd-restart") | .clock == "writer"' "$run/faults.json" >/dev/null ||
		fail "knfsd-restart is not marked clock=writer in faults.json"
	raw=$(jq -r '.faults[] | select(.kind == "knfsd-restart") | .t_start_real_ns' "$run/faults.json")
	awk -v r="$raw" -v f="$f0" 'BEGIN { d = r - f; exit !(d < 1e4 && d > -1e4) }' ||
		fail "the report moved knfsd-restart's start from $raw (writer clock) to $f0" ;;
partition)
	jq -e '[.faults[] | select(.kind == "control-outage" and .t_end_real_ns != null)] | length >= 1' \
		"$run/faults.json" >/dev/null || fail "no control-outage with an end in faults.json: $(cat "$run/faults.json")"
	[ -s "$run/client/run_id" ] || fail "the writer was not started through the control API"
	[ ! -s "$run/client/ctl-fetch.err" ] || fail "the fetch failed: $(cat "$run/client/ctl-fetch.err")"
	[ ! -e "$run/vm/ctl-runs/$(cat "$run/client/run_id")/writer.swlog" ] ||
		fail "the fetched log differs from the writer's own copy in the share" ;;
esac

nothing_left "$run"
sw_done "$kind: exit $rc; $n_f stores in the fault, $n_before in the $el s before it; probe: $p_bad failed/late/gaps, $p_after good after; $first"
