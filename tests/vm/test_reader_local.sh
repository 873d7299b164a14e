#!/usr/bin/env bash
# Description: stalewin-reader on a local tmpfs file written by
# stalewin-writer (no NFS: the page cache is the file, so every read must
# return the latest stamp).  Checks: bad input is refused with exit 2 and
# one line; both modes (kept-open pread, close-to-open) see generations
# that never go backwards and reach the writer's last ones, all tagged with
# the writer's run id; a page the writer never touched reads as NOSTAMP;
# SIGTERM ends the log with END reason=signal; the meta names the mount's
# options.  A broken reader shows as a stuck or decreasing generation,
# torn/other-run flags, a missing END, or a meta without mount_options.
. "$(dirname "$0")/../lib/test-lib.sh"
sw_immediate=1 # each check stands on the run before it
set -u
b=${SW_BUILD_DIR:?}
R=$b/client/stalewin-reader W=$b/server/stalewin-writer D=$b/common/stalewin-logdump
for x in "$R" "$W" "$D"; do [ -x "$x" ] || fail "$x is not built"; done
[ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] || skip "/dev/shm is not a tmpfs"
T=$(mktemp -d /tmp/sw-reader-XXXXXX) S=$(mktemp -d /dev/shm/sw-reader-XXXXXX)
trap 'rm -rf "$T" "$S"' EXIT

for args in "" "--path $S/f" "--path $S/f --page x --every-ms 10 --mode cto --log $T/x --duration 1" \
	"--path $S/f --page 0 --every-ms 0 --mode cto --log $T/x --duration 1" \
	"--path $S/f --page 0 --every-ms 10 --mode nope --log $T/x --duration 1" \
	"--path /nonexistent-dir/f --page 0 --every-ms 10 --mode cto --log $T/x --duration 1" --bogus; do
	# shellcheck disable=SC2086
	"$R" $args 2>"$T/err"; rc=$?
	[ $rc -eq 2 ] || fail "'$args': expected exit 2, saw $rc"
	[ "$(wc -l <"$T/err")" -eq 1 ] || fail "'$args': expected one line on stderr, saw: $(cat "$T/err")"
	[ ! -e "$T/x" ] || fail "'$args': left a log behind"
done

id=5eed00000000abcd
: >"$S/f" && truncate -s 64K "$S/f"
"$W" run --file "$S/f" --policy eager --workload rewrite --interval-ms 50 --page 0 \
	--size 64K --duration 2 --run-id "$id" --log "$T/w.swlog" 2>"$T/w.err" &
wp=$!
"$R" --path "$S/f" --page 0 --every-ms 20 --mode kept-open --log "$T/k.swlog" --duration 2.5 --run-id "$id" --quiet &
k1=$!
"$R" --path "$S/f" --page 0 --every-ms 20 --mode cto --log "$T/c.swlog" --duration 2.5 --run-id "$id" --quiet &
k2=$!
"$R" --path "$S/f" --page 3 --every-ms 50 --mode cto --log "$T/n.swlog" --duration 10 --run-id "$id" --quiet &
k3=$!
wait $wp || fail "the writer failed: $(cat "$T/w.err")"
wait $k1 || fail "kept-open reader failed"
wait $k2 || fail "cto reader failed"
kill -TERM $k3; wait $k3 || fail "the NOSTAMP reader did not exit 0 on SIGTERM"
last=$("$D" "$T/w.swlog" | awk '$2=="STORE"{for(i=3;i<=NF;i++) if($i~/^gen=/) g=substr($i,5)} END{print g+0}')
[ "$last" -ge 10 ] || fail "the writer made only $last stores"
for m in k c; do
	"$D" --meta "$T/$m.swlog" >"$T/$m.txt" || fail "$m.swlog does not read cleanly"
	grep -q '"mount_options":"rw' "$T/$m.txt" || fail "$m.swlog meta lacks mount_options"
	grep -q '"mount_fstype":"tmpfs"' "$T/$m.txt" || fail "$m.swlog meta lacks the mount's fstype"
	awk -v last="$last" -v m="$m" '$2=="KREAD"{g=-1;f="";e="";for(i=3;i<=NF;i++){if($i~/^gen=/)g=substr($i,5)+0;if($i~/^flags=/)f=substr($i,7);if($i~/^err=/)e=substr($i,5)}
		if (e!="0") {print m": read error " e; bad=1}
		if (g>0 && f!="0" && f!="0x0") {print m": flags " f " at gen " g; bad=1}
		if (g<prev) {print m": generation went back from " prev " to " g; bad=1}
		prev=g; if(g>max)max=g}
		END{ if (max < last-1) {print m": reached gen " max ", writer reached " last; bad=1} exit bad }' "$T/$m.txt" ||
		fail "reader $m misread the local file"
	grep -q ' END .*reason=1 ' "$T/$m.txt" || fail "$m.swlog has no END reason=1"
done
"$D" "$T/n.swlog" >"$T/n.txt"
grep -q ' KREAD .*gen=0 .*flags=0x2' "$T/n.txt" || fail "an untouched page did not read as NOSTAMP (0x2)"
grep ' KREAD ' "$T/n.txt" | grep -vq 'flags=0x2' && fail "an untouched page read as something else than NOSTAMP"
grep -q ' END .*reason=2 ' "$T/n.txt" || fail "SIGTERM did not end the log with END reason=2"
sw_done "writer reached gen $last; both modes followed it; NOSTAMP and SIGTERM ok"
