#!/usr/bin/env bash
# Description: bad input against a real ganesha: a missing file, a missing
# export, a directory instead of a file, NFSv4 sent to the MOUNT port, a
# port nobody listens on, an unknown host, a malformed URL, an existing log,
# a --rate of 0 or above the probe's limit.
# Each must give exactly one line on stderr naming the problem and exit 2
# (input) or 1 (no usable answer within --connect-timeout-ms), within a
# bounded time, never a crash or a hang; the log, when created, must end
# with an END record (reason ERROR) and read back clean.
. "$(dirname "$0")/../../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"

echo x > "$T/exp/f"
mkdir "$T/exp/d"
gns_up
base="nfs://127.0.0.1$SW_EXPORT_0"
p3="nfsport=$SW_NFS_PORT&mountport=$SW_MNT_PORT"
n=0
# expect CODE PATTERN URL
expect() {
	local code=$1 pat=$2 url=$3 rc=0
	n=$((n + 1))
	rm -f "$T/b.log"
	timeout 30 "$gns" exec --state "$T/st" -- "$probe" --url "$url" --log "$T/b.log" \
		--duration 2 --quiet --connect-timeout-ms 1000 2>"$T/b.err" || rc=$?
	[ $rc = 124 ] && fail "'$url': probe hung (killed after 30 s)"
	[ $rc = "$code" ] || fail "'$url': exit $rc, expected $code; stderr: $(cat "$T/b.err")"
	[ "$(wc -l < "$T/b.err")" = 1 ] || fail "'$url': expected one line on stderr, saw: $(cat "$T/b.err")"
	grep -q -- "$pat" "$T/b.err" || fail "'$url': stderr lacks '$pat': $(cat "$T/b.err")"
	if [ -e "$T/b.log" ]; then
		"$check" "$T/b.log" > "$T/b.txt" || fail "'$url': log not clean"
		grep -q '^END 3 ' "$T/b.txt" || fail "'$url': log has no END record with reason ERROR (3)"
	fi
	echo "ok: exit $code: $(cat "$T/b.err")"
}
expect 2 "NFS3ERR_NOENT" "$base/nope?version=3&$p3"
expect 2 "no such file" "$base/nope?version=4&nfsport=$SW_NFS_PORT"
expect 2 "MNT3ERR" "nfs://127.0.0.1/nosuchexport/f?version=3&$p3"
expect 2 "no such file" "nfs://127.0.0.1/nosuchexport/f?version=4&nfsport=$SW_NFS_PORT"
expect 2 "expected a regular file, saw a directory" "$base/d?version=3&$p3"
expect 2 "expected a regular file" "$base/d?version=4&nfsport=$SW_NFS_PORT"
expect 2 "does not serve NFSv4" "$base/f?version=4&nfsport=$SW_MNT_PORT"
expect 2 "is not NFSv3" "$base/f?version=3&nfsport=$SW_MNT_PORT&mountport=$SW_NFS_PORT"
expect 1 "no usable answer" "$base/f?version=3&nfsport=1&mountport=2"
expect 2 "unknown host" "nfs://no-such-host.invalid/sw0/f"
expect 2 "expected 3 or 4" "$base/f?version=2"
expect 2 "nfs://" "http://127.0.0.1/sw0/f"
# an existing log is refused (no --force)
touch "$T/exists.log"
rc=0; "$probe" --url "$base/f" --log "$T/exists.log" --quiet 2>"$T/b.err" || rc=$?
[ $rc = 2 ] && grep -q -- "--force" "$T/b.err" || fail "existing log: exit $rc, stderr $(cat "$T/b.err")"
# --rate 0 and above the probe's pacing limit (1000/s): exit 2, naming
# what was expected and what was seen, before any request
for r in 0 5000 -3; do
	rc=0; "$probe" --url "$base/f" --log "$T/r$r.log" --rate "$r" --quiet 2>"$T/b.err" || rc=$?
	[ $rc = 2 ] && grep -q "expected GETATTRs/s per target above 0 and at most 1000.*saw '$r'" "$T/b.err" ||
		fail "--rate $r: expected exit 2 naming the limit and '$r', saw exit $rc: $(cat "$T/b.err")"
	[ ! -e "$T/r$r.log" ] || fail "--rate $r: a log was created before the input was checked"
done
sw_done "$n URLs + existing log + bad --rate"
