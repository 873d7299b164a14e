#!/usr/bin/env bash
# Description: VM smoke test.  Boots the knfsd server guest and the
# kernel-NFS client guest (qemu TCG), runs one short eager run on the
# tmpfs export, and checks the logs: the writer's stores and updates were
# logged; the libnfs probe saw, over NFSv3 through knfsd, the very mtime
# the writer's update set; the kernel-mount readers (close-to-open and
# kept-open) returned stamps the writer wrote (a generation >= 1 with the
# writer's run id); the clock offset was measured before and after; the
# dmesg of both guests has no WARNING/BUG/Oops; and stalewin-report calls
# the run complete.  A broken image, knfsd, mount, probe, reader or
# collection shows as a failed boot (console tail printed), missing or
# empty logs, a probe that never saw the update, a reader stuck at
# generation 0, or a partial report.  The run has --lead 8: the writer
# waits until its file is 8 s old (its NOTE says so), and probe and
# readers, which would end 7 s after the go without it, must run that much
# longer to see its stores.  Skips (77) only when qemu cannot run at all.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
for t in server/stalewin-writer client/stalewin-reader client/stalewin-probe \
	common/stalewin-logdump analysis/stalewin-report; do
	[ -x "$b/$t" ] || fail "$b/$t is not built (the smoke test needs writer, reader, probe, logdump, report)"
done
dump=$b/common/stalewin-logdump
T=$(mktemp -d /tmp/sw-vm-smoke.XXXXXX)
trap 'rm -rf "$T"' EXIT
run=$T/run
PATH=$b/analysis:$PATH "$top/vm/run.sh" --policy eager --duration 4 \
	--mount-opts vers=3,nolock --reader-mode cto --reader-mode kept-open \
	--probe-rate 50 --lead 8 --build-dir "$b" --out "$run" >"$T/report.txt" 2>"$T/run.err"
rc=$?
cat "$T/run.err"
[ $rc -eq 0 ] || { cat "$T/report.txt"; fail "stalewin vm run exited $rc (0 = complete report expected; 3 = partial)"; }

for f in writer.swlog probe-0.swlog kread-0.swlog kread-1.swlog clock.json meta.json \
	vm/server.console vm/client.console vm/server.dmesg vm/client.dmesg; do
	[ -s "$run/$f" ] || fail "the run folder lacks $f"
done
runid=$(awk -F'"' '/"run_id"/{print $4; exit}' "$run/meta.json")

# writer: stores and at least one timestamp update, clean END
"$dump" "$run/writer.swlog" >"$T/w.txt" || fail "writer.swlog does not read cleanly"
stores=$(grep -c ' STORE ' "$T/w.txt")
grep -q ' END .*reason=1 ' "$T/w.txt" || fail "writer.swlog has no END reason=1 (done)"
[ "$stores" -gt 0 ] || fail "the writer logged no store"
grep -Eq 'NOTE .*--lead-ms 8000: (waited [0-9.]+ s|the file.s ctime was more)' "$T/w.txt" ||
	fail "expected the writer's --lead-ms 8000 NOTE (vm run --lead 8), saw: $(grep -i lead "$T/w.txt")"
awk '$2=="UPDATE"{for(i=3;i<=NF;i++) if ($i ~ /^mtime=/) print substr($i,7)}' "$T/w.txt" | sort -u >"$T/w.mtimes"
[ -s "$T/w.mtimes" ] || fail "the writer logged no timestamp update (eager must update at the first store)"
maxgen=$(awk '$2=="STORE"{for(i=3;i<=NF;i++) if ($i ~ /^gen=/) { g=substr($i,5)+0; if (g>m) m=g } } END{print m+0}' "$T/w.txt")

# probe: some GETATTR returned the mtime the writer's update set
"$dump" "$run/probe-0.swlog" >"$T/p.txt" || fail "probe-0.swlog does not read cleanly"
ok=$(grep -c ' ATTR .*status=0' "$T/p.txt")
[ "$ok" -gt 0 ] || fail "the probe got no successful GETATTR from knfsd"
awk '$2=="ATTR"{for(i=3;i<=NF;i++) if ($i ~ /^mtime=/) print substr($i,7)}' "$T/p.txt" | sort -u >"$T/p.mtimes"
seen=$(comm -12 "$T/w.mtimes" "$T/p.mtimes" | wc -l)
[ "$seen" -gt 0 ] || fail "the probe never saw an mtime the writer set (writer: $(head -3 "$T/w.mtimes" | tr '\n' ' '); probe: $(head -3 "$T/p.mtimes" | tr '\n' ' '))"

# kernel-mount readers: a stamp of this run with generation 1..maxgen
for j in 0 1; do
	"$dump" --meta "$run/kread-$j.swlog" >"$T/k$j.txt" || fail "kread-$j.swlog does not read cleanly"
	grep -q '"mount_options":"[^"]*vers=3' "$T/k$j.txt" || fail "kread-$j.swlog meta lacks the mount's options"
	grep -q "\"writer_run_id\":\"$runid\"" "$T/k$j.txt" || fail "kread-$j.swlog is not tied to the writer's run id $runid"
	good=$(awk -v m="$maxgen" '$2=="KREAD"{g=-1;e="";f="";for(i=3;i<=NF;i++){if($i~/^gen=/)g=substr($i,5)+0; if($i~/^err=/)e=substr($i,5); if($i~/^flags=/)f=substr($i,7)} if(g>=1 && g<=m && e=="0" && (f=="0"||f=="0x0")) n++} END{print n+0}' "$T/k$j.txt")
	[ "$good" -gt 0 ] || fail "kernel-mount reader $j never returned one of the writer's stamps (gen 1..$maxgen): $(grep -c KREAD "$T/k$j.txt") reads"
	grep -q ' END .*reason=1 ' "$T/k$j.txt" || fail "kread-$j.swlog has no clean END"
done

# clock offset before and after
grep -q '"before"' "$run/clock.json" && grep -q '"after"' "$run/clock.json" ||
	fail "clock.json lacks before/after: $(cat "$run/clock.json")"
if grep -E 'WARNING:|BUG:|Oops' "$run"/vm/*.dmesg; then fail "kernel trouble in a guest's dmesg"; fi
[ -s "$T/report.txt" ] || fail "stalewin vm run printed no report"
sw_done "$stores stores, probe $ok GETATTRs ($seen writer mtimes seen), readers good reads: ok"
