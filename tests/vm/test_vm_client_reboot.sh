#!/usr/bin/env bash
# Description: `stalewin vm run --fault client-reboot@4` in a real 20 s
# eager run (knfsd server guest, kernel-NFS client guest, 20 stores/s):
# the client guest reboots 4 s after the writer started (its readers and
# probe end their logs on SIGTERM, the guest resets, the host boots it
# again, its readers come back on a new mount).  Asserts:
#  - exit 4 and the report's first line naming client-reboot with its
#    gap and its store count, which equals the stores of report.csv
#    inside the gap (counted here);
#  - faults.json holds it once, with an end and the end's clock
#    (end_clock): the report puts the end on the writer's clock with the
#    offset measured after the reboot, not the run's;
#  - the run went on on the server: writer END reason=1, >= 19.8 s of
#    stores, every STORE of writer.swlog in the report;
#  - nothing the readers logged before the reboot is lost: kread-0.swlog
#    ends with END, its last read within 1 s of the fault's start, and
#    has as many reads before it as the period allows; the probe's log too
#    ends with END;
#  - the readers are back: client/reboot/kread-0.swlog read good data
#    after the gap's end, and client/reboot/probe-0.swlog has good replies;
#  - nothing is left running: no qemu, no work folder, no mount.
# A fault not injected (no gap, no END by SIGTERM) or not recorded (no
# client-reboot in faults.json or the first line) fails here.  77
# without qemu.  ~70 s.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
vm_needs_bins server/stalewin-writer client/stalewin-reader client/stalewin-probe client/stalewin-ctl \
	common/stalewin-logdump common/stalewin-runfolder analysis/stalewin-report
command -v jq >/dev/null || skip "jq not installed"
dump=$b/common/stalewin-logdump
dur=20 rate=20 at=4
vm_test_dir vm-reboot run run.err report.txt
run=$T/run
PATH=$b/analysis:$PATH "$top/vm/run.sh" --policy eager --duration $dur --probe-rate 50 \
	--mount-opts vers=3,nolock --reader-mode kept-open --writer-args "--interval-ms 50" \
	--fault client-reboot@$at --build-dir "$b" --out "$run" >"$T/report.txt" 2>"$T/run.err"
rc=$?
cat "$T/run.err"
[ -s "$run/report.json" ] || { cat "$T/report.txt"; fail "no report.json (exit $rc)"; }
first=$(head -n 1 "$run/report.txt")
[ $rc -eq 4 ] || { cat "$T/report.txt"; fail "expected exit 4, saw $rc ($first)"; }
jr() { jq -r "$@" "$run/report.json"; }

# recorded: once in faults.json, with its end and the end's clock
jq -e '[.faults[] | select(.kind == "client-reboot" and .t_end_real_ns != null
	and .end_clock == "client/clock-after-reboot.json")] | length == 1' "$run/faults.json" >/dev/null ||
	fail "expected one client-reboot with an end and end_clock in faults.json, saw: $(cat "$run/faults.json" 2>/dev/null)"
n_f=$(jr '.end.faults[] | select(.kind == "client-reboot") | .stores')
f0=$(jr '.end.faults[] | select(.kind == "client-reboot") | .t_start_real_ns')
f1=$(jr '.end.faults[] | select(.kind == "client-reboot") | .t_end_real_ns')
[[ $first == *"  complete, with faults: client-reboot at "*" s for "*" s ($n_f stores)"* ]] ||
	fail "expected the first line to name 'client-reboot at S s for D s ($n_f stores)', saw: $first"
gap=$(awk -v a="$f0" -v b="$f1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
awk -v g="$gap" 'BEGIN { exit !(g > 1 && g < 120) }' || fail "expected a gap of 1 to 120 s (a reboot under TCG), saw $gap s"
# the end on the writer's clock through the offset after the reboot
raw1=$(jq -r '.faults[] | select(.kind == "client-reboot") | .t_end_real_ns' "$run/faults.json")
off2=$(jq -r .offset_ns "$run/client/clock-after-reboot.json")
awk -v r="$raw1" -v o="$off2" -v f="$f1" 'BEGIN { d = r + o - f; exit !(d < 1e4 && d > -1e4) }' ||
	fail "the report's end $f1 is not the raw end $raw1 + the offset after the reboot $off2"

# the stores in the gap, as report.csv has them
incsv() { awk -F, -v a="$f0" -v b="$f1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ t = $c["t_s_real_ns"] + 0 } '"$1" "$run/report.csv"; }
n_in=$(incsv 't >= a && t <= b + 0 { n++ } END { print n + 0 }')
[ "$n_in" = "$n_f" ] || fail "the report counts $n_f stores in the gap, report.csv has $n_in inside it"

# the run went on on the server
"$dump" "$run/writer.swlog" >"$T/w.txt" 2>/dev/null || true
grep -q ' END .*reason=1 ' "$T/w.txt" || fail "the writer did not run its planned duration: $(tail -n 1 "$T/w.txt")"
jr --argjson d $dur '(.end.t_end_real_ns - .end.t_start_real_ns) >= ($d - 0.2) * 1e9' | grep -q true ||
	fail "the writer's stores span less than the planned $dur s"
logged=$(awk '$2 == "STORE"' "$T/w.txt" | wc -l)
[ "$(jr .end.stores)" = "$logged" ] || fail "writer.swlog has $logged STORE records, the report counts $(jr .end.stores)"
[ "$n_f" -ge $((rate * 6 / 10)) ] || fail "only $n_f stores in a $gap s gap at $rate/s: the writer did not go on"

# the readers' logs up to the reboot (observers' clock + the run's offset)
off=$(jq -r '.before.offset_ns // 0' "$run/clock.json")
"$dump" "$run/kread-0.swlog" >"$T/k.txt" 2>/dev/null || true
tail -n 1 "$T/k.txt" | grep -q ' END ' || fail "kread-0.swlog does not end with END: $(tail -n 1 "$T/k.txt")"
read -r k_n k_first k_last < <(awk -v o="$off" '$2 == "KREAD" { for (i = 3; i <= NF; i++) if ($i ~ /^t_after=/) t = substr($i, 9) + o
	if (!n++) f = t; l = t } END { printf "%d %.0f %.0f\n", n, f, l }' "$T/k.txt")
awk -v l="$k_last" -v a="$f0" 'BEGIN { exit !(l <= a + 5e8 && l > a - 1e9) }' ||
	fail "the first boot's reader read last at $k_last, not within 1 s before the reboot at $f0: reads before it were lost"
awk -v n="$k_n" -v f="$k_first" -v l="$k_last" 'BEGIN { exit !(n >= (l - f) / 1e8 * 0.6) }' ||
	fail "only $k_n reads in the $(( (k_last - k_first) / 1000000 )) ms before the reboot (one per 100 ms planned)"
"$dump" "$run/probe-0.swlog" 2>/dev/null | tail -n 1 | grep -q ' END ' || fail "probe-0.swlog does not end with END"

# the readers back after the gap (their clock: the one after the reboot)
"$dump" "$run/client/reboot/kread-0.swlog" >"$T/k2.txt" 2>/dev/null ||
	fail "no reader log after the reboot (client/reboot/kread-0.swlog)"
k_back=$(awk -v o="$off2" -v b="$f1" '$2 == "KREAD" && / err=0 / { for (i = 3; i <= NF; i++) if ($i ~ /^t_after=/) t = substr($i, 9) + o
	if (t >= b) n++ } END { print n + 0 }' "$T/k2.txt")
[ "$k_back" -gt 0 ] || fail "the reader after the reboot read nothing good after the gap's end"
p_back=$("$dump" "$run/client/reboot/probe-0.swlog" 2>/dev/null | grep -c ' ATTR .* status=0 ')
[ "$p_back" -gt 0 ] || fail "the probe after the reboot had no good reply (client/reboot/probe-0.swlog)"

nothing_left "$run"
sw_done "exit $rc; gap $gap s, $n_f stores in it; $k_n reads before the reboot, $k_back good after, probe $p_back good replies after; $first"
