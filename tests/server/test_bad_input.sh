#!/usr/bin/env bash
# Description: bad input to stalewin-writer.  Each case must be refused with
# exit 2 and exactly one line on stderr that says what was expected (and
# what was seen), and must not leave a log or a new data file behind.  A
# broken writer shows as a crash, exit 0/1, a multi-line or empty message,
# or a run that starts on a symlink, a directory or the wrong filesystem.
# A rate that cannot be met runs, and says so with the achieved rate.
set -u
W=${SW_BUILD_DIR:?}/server/stalewin-writer
[ -x "$W" ] || { echo "FAIL: no $W"; exit 1; }
T=$(mktemp -d /tmp/sw-writer-bad-XXXXXX)
S=""
if [ -d /dev/shm ] && [ "$(stat -f -c %T /dev/shm)" = tmpfs ]; then
	S=$(mktemp -d /dev/shm/sw-writer-bad-XXXXXX)
fi
trap 'rm -rf "$T" ${S:+"$S"}' EXIT
fails=0
ok=${S:-$T}
expect2() { # NAME ARGS...
	local name=$1; shift
	local err rc
	err=$("$W" "$@" 2>&1 >/dev/null); rc=$?
	local lines; lines=$(printf '%s' "$err" | grep -c '')
	if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q expected <<<"$err"; then
		echo "FAIL $name: exit $rc, $lines line(s): $err"; fails=$((fails+1))
	else
		echo "ok   $name: $err"
	fi
}
base=(--workload rewrite --duration 0.2)
expect2 "unknown policy" --file $ok/f --policy lazy "${base[@]}" --log $T/l
expect2 "unknown workload" --file $ok/f --policy eager --workload zigzag --log $T/l
expect2 "size 0" --file $ok/f --policy eager "${base[@]}" --log $T/l --size 0
expect2 "size beyond memory" --file $ok/f --policy eager "${base[@]}" --log $T/l --size 1T
[ -e $ok/f ] && { echo "FAIL: a refused run left $ok/f behind"; fails=$((fails+1)); }
expect2 "bad size suffix" --file $ok/f --policy eager "${base[@]}" --log $T/l --size 12Q
expect2 "negative rate" --file $ok/f --policy eager --workload random --rate -5 --log $T/l
expect2 "hot-share > 1" --file $ok/f --policy eager --workload random --hot-pages 2 --hot-share 1.5 --log $T/l
expect2 "page beyond file" --file $ok/f --policy eager "${base[@]}" --page 999 --log $T/l
expect2 "missing --file" --policy eager "${base[@]}" --log $T/l
expect2 "unknown option" --file $ok/f --policy eager "${base[@]}" --log $T/l --frobnicate
expect2 "unknown --trap" --file $ok/f --policy eager "${base[@]}" --trap sigbus --log $T/l
expect2 "--trap with native" --file $T/n --policy native "${base[@]}" --trap uffd --log $T/l
mkdir $ok/dir; ln -s $ok/target $ok/link; : > $ok/target
expect2 "directory" --file $ok/dir --policy eager "${base[@]}" --log $T/l
expect2 "symlink" --file $ok/link --policy eager "${base[@]}" --log $T/l
expect2 "unwritable log path" --file $ok/f --policy eager "${base[@]}" --log /nonexistent/dir/l
[ -e $ok/f ] && { echo "FAIL: a refused run left $ok/f behind"; fails=$((fails+1)); }
: > $T/exists
expect2 "log exists" --file $ok/f --policy eager "${base[@]}" --log $T/exists
if [ "$(stat -f -c %T "$T")" != tmpfs ]; then
	expect2 "emulated policy off tmpfs" --file $T/f --policy deferred "${base[@]}" --log $T/l2
else
	echo "skip emulated-off-tmpfs case: $T is on tmpfs"
fi
[ -e $T/l ] && { echo "FAIL: a refused run left a log $T/l"; fails=$((fails+1)); }

# A rate that cannot be met is not refused: the run says so (one stderr
# line, a WARN NOTE in the log, rate_achieved in the status file).
if [ -n "$S" ]; then
	err=$("$W" --file $S/r --policy eager --workload stream --rate 100000000 \
		--duration 0.5 --log $T/r.log --status-file $T/r.st 2>&1 >/dev/null); rc=$?
	if [ $rc -ne 0 ] || ! grep -q "rate not met: planned 100000000.0 stores/s, achieved" <<<"$err" ||
	   ! "${SW_BUILD_DIR}/common/stalewin-logdump" $T/r.log | grep -q "level=1 rate not met" ||
	   ! grep -q '"rate_achieved":' $T/r.st || ! grep -q '"warning":"rate not met' $T/r.st; then
		echo "FAIL unmet rate: exit $rc, stderr '$err', status $(cat $T/r.st 2>/dev/null)"; fails=$((fails+1))
	else
		echo "ok   unmet rate: $err"
	fi
fi
exit $((fails > 0))
