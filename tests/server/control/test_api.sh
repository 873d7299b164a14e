#!/usr/bin/env bash
# Description: the control API of `stalewin-writer serve` against a real
# writer on tmpfs.  A broken server would show: a token file readable by
# others, requests served without (or with a wrong) token, an oversize body
# accepted, an unknown operation answered with something other than a JSON
# 404, a "file" outside --root accepted (.., absolute path, symlink out of
# the root), two concurrent starts both succeeding, a stop that does not end
# the child, a fetched log that is not the writer's whole swlog, or a
# same-host clock offset estimate whose error bound excludes the true 0.
. "$(dirname "$0")/../../lib/test-lib.sh"
sw_immediate=1 # each step needs the one before it
set -euo pipefail
sw_control_bins
sw_need curl "curl(1) not installed"
sw_need jq "jq not installed"
sw_need_shm_tmpfs

T=$(mktemp -d /tmp/sw-ctltest-XXXXXX)
ROOT=$(mktemp -d /dev/shm/sw-ctlroot-XXXXXX)
SP=
cleanup() {
	[ -n "$SP" ] && kill "$SP" 2>/dev/null && wait "$SP" 2>/dev/null
	rm -rf "$T" "$ROOT"
}
trap cleanup EXIT
sw_on_fail() { echo "--- server log:"; cat "$T/serve.log"; }

"$W" serve --token-file "$T/tok" --root "$ROOT" --runs "$T/runs" --url-file "$T/url" \
	2>"$T/serve.log" &
SP=$!
for _ in $(seq 200); do [ -s "$T/url" ] && break; sleep 0.05; done
[ -s "$T/url" ] || fail "server wrote no --url-file within 10 s"
U=$(cat "$T/url")
[[ $U == http://127.0.0.1:* ]] || fail "expected the server bound to 127.0.0.1 by default, saw $U"
[ "$(stat -c %a "$T/tok")" = 600 ] || fail "token file mode $(stat -c %a "$T/tok"), expected 600"
TOK=$(cat "$T/tok")
[[ $TOK =~ ^[0-9a-f]{64}$ ]] || fail "token is not 64 hex digits: $TOK"
ctl() { "$CTL" --url "$U" --token-file "$T/tok" "$@"; }

# raw HTTP: code and body
http() { # METHOD ROUTE [curl args...] -> "CODE BODY"
	local m=$1 r=$2; shift 2
	curl -s --noproxy '*' -o "$T/body" -w '%{http_code}' -X "$m" "$@" "$U$r"
}
expect() { # CODE METHOD ROUTE [curl args...]
	local want=$1 got; shift
	got=$(http "$@")
	[ "$got" = "$want" ] || fail "$1 $2: expected HTTP $want, saw $got: $(cat "$T/body")"
	if [ "$want" -ge 400 ]; then
		jq -e '.error | type == "string" and length > 0' "$T/body" >/dev/null ||
			fail "$1 $2: HTTP $want without a JSON {\"error\":...}: $(cat "$T/body")"
	fi
}
AUTH=(-H "Authorization: Bearer $TOK")

echo "== authentication"
expect 401 GET /v1/status
# the token with its last hex digit changed (to 1 when it is 0: a fixed
# replacement digit equals the real one in 1 of 16 runs)
last=${TOK: -1}; other=0; [ "$last" = 0 ] && other=1
expect 401 GET /v1/clock -H "Authorization: Bearer ${TOK%?}$other"
expect 401 GET /v1/clock -H "Authorization: Bearer ${TOK}x"
expect 401 POST /v1/runs -H "Authorization: Basic $TOK" -d '{"file":"a","policy":"eager","workload":"rewrite"}'
expect 401 POST /v1/stop
[ -z "$(ls "$T/runs")" ] || fail "an unauthenticated request created a run folder"
echo "bad" > "$T/bad"
set +e
"$CTL" --url "$U" --token-file "$T/bad" status 2>"$T/err"; rc=$?
set -e
[ $rc = 4 ] || fail "stalewin-ctl with a wrong token: expected exit 4, saw $rc"
grep -q "wrong token" "$T/err" || fail "stalewin-ctl wrong-token message: $(cat "$T/err")"
expect 200 GET /v1/status "${AUTH[@]}"

echo "== oversize body, bad JSON, unknown operations"
head -c 20000 /dev/zero | tr '\0' ' ' > "$T/big"
expect 413 POST /v1/runs "${AUTH[@]}" -H 'Content-Type: application/json' --data-binary @"$T/big"
# the same without Content-Length (chunked): refused while reading
expect 413 POST /v1/runs "${AUTH[@]}" -H 'Transfer-Encoding: chunked' --data-binary @"$T/big"
expect 400 POST /v1/runs "${AUTH[@]}" -d '{"file": '
expect 400 POST /v1/runs "${AUTH[@]}" -d '[1,2]'
expect 404 GET /v1/nosuch "${AUTH[@]}"
expect 404 POST /v2/runs "${AUTH[@]}" -d '{}'
expect 404 GET /v1/runs/0123456789abcdef/log "${AUTH[@]}"
expect 404 GET /v1/runs/../../etc/log "${AUTH[@]}" --path-as-is
expect 405 DELETE /v1/status "${AUTH[@]}"
expect 405 GET /v1/stop "${AUTH[@]}"
expect 409 POST /v1/stop "${AUTH[@]}"
expect 400 POST /v1/runs "${AUTH[@]}" -d '{"file":"a","policy":"eager","workload":"rewrite","log":"/tmp/x"}'
expect 400 POST /v1/runs "${AUTH[@]}" -d '{"file":"a","policy":"eager","workload":"rewrite","--x":1}'

echo "== --file confined under --root"
mkdir "$ROOT/sub"
ln -s /tmp "$ROOT/out"
ln -s /etc/passwd "$ROOT/pw"
for f in ../escape.dat sub/../../escape.dat /tmp/escape.dat out/escape.dat pw "$ROOT/../escape.dat" sub; do
	expect 400 POST /v1/runs "${AUTH[@]}" -d "{\"file\":\"$f\",\"policy\":\"eager\",\"workload\":\"rewrite\",\"duration\":1}"
done
[ ! -e /tmp/escape.dat ] && [ ! -e "$(dirname "$ROOT")/escape.dat" ] || fail "a file was created outside --root"
[ "$(cat /etc/passwd | head -c 4)" = "root" ] || fail "/etc/passwd changed?!"

echo "== POST /v1/files creates the run's file under --root only"
expect 400 POST /v1/files "${AUTH[@]}" -d '{"file":"../escape.dat","size":4096}'
expect 400 POST /v1/files "${AUTH[@]}" -d '{"file":"out/escape.dat","size":4096}'
[ ! -e /tmp/escape.dat ] || fail "POST /v1/files created a file through a symlink out of --root"
expect 200 POST /v1/files "${AUTH[@]}" -d '{"file":"sub/pre.dat","size":65536}'
[ "$(stat -c %s "$ROOT/sub/pre.dat")" = 65536 ] || fail "prepared file has size $(stat -c %s "$ROOT/sub/pre.dat"), expected 65536"

set +e
ctl start file=../escape.dat policy=eager workload=rewrite 2>"$T/err"; rc=$?
set -e
[ $rc = 2 ] || fail "stalewin-ctl start with a file outside the root: expected exit 2 (bad input), saw $rc"

echo "== the writer's own bad-input error comes back"
expect 400 POST /v1/runs "${AUTH[@]}" -d '{"file":"x.dat","policy":"bogus","workload":"rewrite"}'
grep -q bogus "$T/body" || fail "writer's error line missing from the reply: $(cat "$T/body")"

echo "== concurrent start: exactly one wins"
body='{"file":"sub/c.dat","policy":"eager","workload":"rewrite","duration":30,"interval-ms":20,"writeback-ms":100,"expire-ms":200}'
cpids=()
for i in 1 2 3; do
	curl -s --noproxy '*' -o "$T/c$i" -w '%{http_code}' "${AUTH[@]}" -d "$body" "$U/v1/runs" > "$T/code$i" &
	cpids+=($!)
done
wait "${cpids[@]}"
codes=$(for i in 1 2 3; do cat "$T/code$i"; echo; done | sort | tr "\n" " ")
[ "$codes" = "201 409 409 " ] || fail "three concurrent starts: expected codes 201 409 409, saw $codes"
ID=$(ctl status --get run_id)
[[ $ID =~ ^[0-9a-f]{16}$ ]] || fail "run id '$ID'"
[ "$(ctl status --get active)" = true ] || fail "run not active after start"
PID=$(ctl status --get pid)
[ -d "/proc/$PID" ] || fail "writer child $PID not running"
set +e
ctl start file=sub/d.dat policy=eager workload=rewrite duration=1 2>"$T/err"; rc=$?
set -e
[ $rc = 3 ] || fail "stalewin-ctl start while active: expected exit 3, saw $rc ($(cat "$T/err"))"
sleep 0.5

echo "== stop ends the child, the log is whole"
ctl stop > "$T/stop.json"
jq -e '.active == false and .stopped == true and .exit_code == 0 and .status.state == "done" and .status.stores > 0' \
	"$T/stop.json" >/dev/null || fail "stop reply: $(cat "$T/stop.json")"
[ ! -d "/proc/$PID" ] || [ "$(awk '{print $3}' /proc/$PID/stat)" = Z ] || fail "child $PID still alive after stop"
ctl fetch "$ID" "$T/w.swlog"
cmp "$T/w.swlog" "$T/runs/$ID/writer.swlog" || fail "fetched log differs from the server's file"
"$DUMP" "$T/w.swlog" > "$T/dump.txt" || fail "stalewin-logdump rejects the fetched log"
awk '$2 == "END"' "$T/dump.txt" | grep -q . || fail "fetched log has no END record"
stores=$(awk '$2 == "STORE"' "$T/dump.txt" | wc -l)
[ "$stores" -eq "$(jq .status.stores "$T/stop.json")" ] || fail "log has $stores STORE records, status says $(jq .status.stores "$T/stop.json")"
jq -e '.stopped == false' <(ctl stop) >/dev/null || fail "second stop should report stopped=false"

echo "== clock: same host, so the true offset is 0 and must lie inside the bound"
ctl clock --samples 100 --json > "$T/clock.json"
jq -e '.samples == 100 and .rtt_min_ns > 0 and .err_ns * 2 >= .rtt_min_ns and
	(.offset_ns | fabs) <= .err_ns' "$T/clock.json" >/dev/null ||
	fail "clock estimate excludes 0 or is malformed: $(cat "$T/clock.json")"

echo "== SIGTERM: the server stops and removes its token"
kill "$SP"; wait "$SP" || fail "serve exited $? on SIGTERM"
SP=
[ ! -e "$T/tok" ] || fail "token file left after exit"
sw_done
