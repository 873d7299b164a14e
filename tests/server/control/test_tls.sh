#!/usr/bin/env bash
# Description: the control API off loopback (common/control.h "Off
# loopback"), in two network namespaces this test creates and joins by a
# veth pair made inside them (nothing of the host's network is touched, no
# packet leaves them): the writer's `serve --tls` listens on 10.99.0.1 in
# one, the clients run in the other (10.99.0.2 allowed, 10.99.0.3 not).
# A broken server or client would show: serve starting off loopback
# without TLS or without an allow-list, or taking a bad CIDR; plain HTTP
# answered off loopback, or a client sending the token over it; a client
# talking to a key that is not the token file's pin (a wrong pin, no pin,
# another serve's certificate); the same certificate twice; a client
# outside the allow-list served; a flood not answered 429 and logged, or
# the run disturbed by it (start, status, stop and the fetched log, all
# over the pinned TLS); the guests' --insecure-private-link not working,
# or working off a private address.
. "$(dirname "$0")/../../lib/test-lib.sh"
set -uo pipefail
sw_control_bins
[ "$(id -u)" -eq 0 ] || skip "needs root (ip netns); running as uid $(id -u)"
sw_need ip "ip(8) not installed (Debian iproute2)"
sw_need curl "curl(1) not installed"
sw_need jq "jq not installed"
sw_need_shm_tmpfs

T=$(mktemp -d /tmp/sw-tlstest-XXXXXX)
ROOT=$(mktemp -d /dev/shm/sw-tlsroot-XXXXXX)
NS_S=sw-tls-s-$$ NS_C=sw-tls-c-$$
SPS=()
cleanup() {
	local p
	for p in "${SPS[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	# anything else still in them was started by this test
	for p in $(ip netns pids "$NS_S" 2>/dev/null) $(ip netns pids "$NS_C" 2>/dev/null); do
		kill "$p" 2>/dev/null
	done
	ip netns del "$NS_S" 2>/dev/null
	ip netns del "$NS_C" 2>/dev/null
	rm -rf "$T" "$ROOT"
}
trap cleanup EXIT
sw_on_fail() { for f in "$T"/serve*.log; do echo "--- $f:"; tail -n 20 "$f"; done; }

ip netns add "$NS_S" && ip netns add "$NS_C" || skip "cannot create network namespaces (ip netns add)"
ip -n "$NS_S" link add sw-s type veth peer name sw-c netns "$NS_C" ||
	skip "cannot create a veth pair inside the namespaces"
ip -n "$NS_S" addr add 10.99.0.1/24 dev sw-s
ip -n "$NS_C" addr add 10.99.0.2/24 dev sw-c
ip -n "$NS_C" addr add 10.99.0.3/24 dev sw-c
for n in "$NS_S" "$NS_C"; do ip -n "$n" link set lo up; done
ip -n "$NS_S" link set sw-s up && ip -n "$NS_C" link set sw-c up
inS() { ip netns exec "$NS_S" "$@"; }
inC() { ip netns exec "$NS_C" "$@"; }

serve() { # NAME serve-args... -> $T/NAME.{url,tok,log}, pid in SPS
	local n=$1; shift
	# not through inS: $! must be the writer's own PID (ip netns exec execs)
	ip netns exec "$NS_S" "$W" serve --root "$ROOT" --runs "$T/runs" --token-file "$T/$n.tok" \
		--url-file "$T/$n.url" "$@" 2>"$T/serve-$n.log" &
	SPS+=($!)
	for _ in $(seq 200); do [ -s "$T/$n.url" ] && return 0; sleep 0.05; done
	fail "serve $n did not come up: $(cat "$T/serve-$n.log")"
	return 1
}
ctlC() { inC "$CTL" --url "$U" --token-file "$T/a.tok" "$@"; }
expect_rc() { # WANT WHAT MESSAGE-PART cmd... (stderr to $T/err)
	local want=$1 what=$2 msg=$3 rc; shift 3
	"$@" >"$T/out" 2>"$T/err"; rc=$?
	[ "$rc" = "$want" ] || { fail "$what: expected exit $want, saw $rc: $(cat "$T/err")"; return 1; }
	grep -qF -- "$msg" "$T/err" || fail "$what: expected '$msg' on stderr, saw: $(cat "$T/err")"
}

case_bad_input() {
	local a=(--root "$ROOT" --runs "$T/runs" --token-file "$T/bad.tok")
	expect_rc 2 "plain HTTP on 10.99.0.1" "expected --tls to listen on 10.99.0.1" \
		inS timeout 10 "$W" serve --listen 10.99.0.1:0 --allow 10.99.0.2 "${a[@]}"
	expect_rc 2 "TLS off loopback without --allow" "expected at least one --allow" \
		inS timeout 10 "$W" serve --listen 10.99.0.1:0 --tls "${a[@]}"
	expect_rc 2 "a CIDR of /33" "expected --allow IPV4[/BITS]" \
		inS timeout 10 "$W" serve --listen 10.99.0.1:0 --tls --allow 10.99.0.0/33 "${a[@]}"
	expect_rc 2 "a CIDR with host bits" "no host bits past /24" \
		inS timeout 10 "$W" serve --listen 10.99.0.1:0 --tls --allow 10.99.0.2/24 "${a[@]}"
	expect_rc 2 "--insecure-private-link on all addresses" "only on one private address" \
		inS timeout 10 "$W" serve --listen 0.0.0.0:0 --insecure-private-link --allow 10.99.0.2 "${a[@]}"
	expect_rc 2 "--tls with --insecure-private-link" "saw both" \
		inS timeout 10 "$W" serve --listen 10.99.0.1:0 --tls --insecure-private-link --allow 10.99.0.2 "${a[@]}"
	[ ! -e "$T/bad.tok" ] || fail "a refused serve wrote its token file"
}

case_token_file() {
	[ "$(stat -c %a "$T/a.tok")" = 600 ] || fail "token file mode $(stat -c %a "$T/a.tok"), expected 600"
	head -n 1 "$T/a.tok" | grep -qE '^[0-9a-f]{64}$' || fail "first line is not the 64-hex token: $(head -n 1 "$T/a.tok")"
	grep -qE '^pin sha256//[A-Za-z0-9+/]{43}=$' "$T/a.tok" || fail "no pin line: $(tail -n +2 "$T/a.tok")"
	[[ $U == https://10.99.0.1:* ]] || fail "expected an https URL on 10.99.0.1, saw $U"
	[ "$(sed -n 's/^pin //p' "$T/a.tok")" != "$(sed -n 's/^pin //p' "$T/b.tok")" ] ||
		fail "two serves drew the same key (pin $(sed -n 's/^pin //p' "$T/a.tok"))"
}

case_plain_refused() {
	local rc
	inC curl -s --noproxy '*' -o /dev/null -m 5 "http://${U#https://}/v1/clock"; rc=$?
	[ $rc != 0 ] || fail "plain HTTP to the TLS port was answered"
	expect_rc 5 "stalewin-ctl over plain http off loopback" "refusing to send the token over plain HTTP" \
		ctlC --url "http://${U#https://}" info
}

case_pin() {
	sed '/^pin /d' "$T/a.tok" > "$T/nopin.tok"
	expect_rc 5 "a token file without a pin" "expected a 'pin sha256//...' line" \
		inC "$CTL" --url "$U" --token-file "$T/nopin.tok" info
	sed 's|^pin .*|pin sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=|' "$T/a.tok" > "$T/wrong.tok"
	expect_rc 5 "a wrong pin" "not the one pinned" inC "$CTL" --url "$U" --token-file "$T/wrong.tok" info
	# serve b: another certificate at another port, a's token file
	expect_rc 5 "another serve's certificate" "not the one pinned" \
		inC "$CTL" --url "$(cat "$T/b.url")" --token-file "$T/a.tok" info
	! grep -q "GET /v1/info" "$T/serve-b.log" || fail "serve b received a request under a's pin"
	inC curl -s --noproxy '*' -k --pinnedpubkey "$(sed -n 's/^pin //p' "$T/b.tok")" -o /dev/null -m 5 "$U/v1/clock" &&
		fail "curl pinning b's key was served by a"
}

case_outsider() {
	local rc
	inC curl -s --noproxy '*' -k --interface 10.99.0.3 -m 5 -o /dev/null "$U/v1/clock"; rc=$?
	[ $rc != 0 ] || fail "10.99.0.3 (not on --allow) was served"
	expect_rc 1 "stalewin-ctl from 10.99.0.1 (not on --allow)" "unreachable" \
		inS "$CTL" --url "$U" --token-file "$T/a.tok" info
	grep -q "10.99.0.3: connection refused: not on the --allow list" "$T/serve-a.log" ||
		fail "no log line for the refused outsider: $(tail -n 3 "$T/serve-a.log")"
}

case_run_and_flood() {
	local id s1 s2 n200 n429
	ctlC prepare file=t.dat size=1048576 >/dev/null || { fail "prepare over TLS: $(cat "$T/err")"; return; }
	ctlC start file=t.dat policy=eager workload=rewrite duration=60 interval-ms=20 \
		writeback-ms=100 expire-ms=200 > "$T/start.json" 2>"$T/err" ||
		{ fail "start over TLS: $(cat "$T/err")"; return; }
	id=$(jq -r .run_id "$T/start.json")
	[ "$(ctlC status --get active)" = true ] || fail "run not active after start"
	s1=$(ctlC status | jq .status.stores)
	# one client, one kept-alive connection, 1500 requests as fast as they go
	for _ in $(seq 1500); do echo "url = \"$U/v1/clock\""; echo 'output = "/dev/null"'; done > "$T/flood.cfg"
	inC curl -s --noproxy '*' -k --pinnedpubkey "$(sed -n 's/^pin //p' "$T/a.tok")" \
		-H "Authorization: Bearer $(head -n 1 "$T/a.tok")" -K "$T/flood.cfg" \
		-w '%{http_code}\n' > "$T/codes" 2>/dev/null
	n200=$(grep -c '^200$' "$T/codes") n429=$(grep -c '^429$' "$T/codes")
	echo "flood: $n200 answered 200, $n429 answered 429"
	[ "$n429" -gt 0 ] || fail "a flood of 1500 requests got no 429 ($n200 answered 200)"
	[ "$n200" -ge 400 ] || fail "expected the burst of 400 answered, saw $n200"
	grep -q "10.99.0.2: GET /v1/clock: 429, over 100 requests/s" "$T/serve-a.log" ||
		fail "no log line for the flood: $(tail -n 3 "$T/serve-a.log")"
	sleep 1
	s2=$(ctlC status | jq .status.stores)
	[ "$(ctlC status --get active)" = true ] || fail "the run ended under the flood: $(ctlC status)"
	[ "$s2" -gt "$s1" ] || fail "the run stopped storing under the flood ($s1 then $s2 stores)"
	ctlC stop > "$T/stop.json" || { fail "stop over TLS: $(cat "$T/err")"; return; }
	jq -e '.stopped == true and .exit_code == 0 and .status.state == "done"' "$T/stop.json" >/dev/null ||
		fail "stop reply: $(cat "$T/stop.json")"
	ctlC fetch "$id" "$T/w.swlog" 2>"$T/err" || { fail "fetch over TLS: $(cat "$T/err")"; return; }
	cmp -s "$T/w.swlog" "$T/runs/$id/writer.swlog" || fail "the log fetched over TLS differs from the writer's"
	"$DUMP" "$T/w.swlog" | awk '$2 == "END"' | grep -q . || fail "the fetched log has no END record"
}

# the attached clients of one host: a named client (the right token, header
# X-Stalewin-Client) has its own bucket, so one's flood leaves the next
# served; a name without the token is no name; a malformed one is a 400
case_named_clients() {
	local pin tokh n200 n429 code
	pin=$(sed -n 's/^pin //p' "$T/a.tok") tokh="Authorization: Bearer $(head -n 1 "$T/a.tok")"
	for _ in $(seq 600); do echo "url = \"$U/v1/clock\""; echo 'output = "/dev/null"'; done > "$T/named.cfg"
	inC curl -s --noproxy '*' -k --pinnedpubkey "$pin" -H "$tokh" -H "X-Stalewin-Client: x1" \
		-K "$T/named.cfg" -w '%{http_code}\n' > "$T/codes1" 2>/dev/null
	n200=$(grep -c '^200$' "$T/codes1") n429=$(grep -c '^429$' "$T/codes1")
	echo "x1's flood: $n200 answered 200, $n429 answered 429"
	[ "$n429" -gt 0 ] && [ "$n200" -ge 400 ] || fail "x1: expected its burst of 400 served and then 429s, saw $n200 and $n429"
	grep -q "10.99.0.2 client x1: GET /v1/clock: 429, over 100 requests/s" "$T/serve-a.log" ||
		fail "no log line naming client x1: $(tail -n 3 "$T/serve-a.log")"
	# x2, at once, from the same address: its own full bucket of 400
	# serves all its 300 (x1's empty one would serve only its refill)
	head -n 600 "$T/named.cfg" > "$T/x2.cfg"
	inC curl -s --noproxy '*' -k --pinnedpubkey "$pin" -H "$tokh" -H "X-Stalewin-Client: x2" \
		-K "$T/x2.cfg" -w '%{http_code}\n' > "$T/codes2" 2>/dev/null
	n200=$(grep -c '^200$' "$T/codes2")
	[ "$n200" = 300 ] || fail "x2 right after x1's flood: expected all 300 of its requests served, saw $n200 ($(sort "$T/codes2" | uniq -c | tr '\n' ' '))"
	# the name without the right token: the address' own bucket, and 401
	code=$(inC curl -s --noproxy '*' -k --pinnedpubkey "$pin" -H "Authorization: Bearer x" \
		-H "X-Stalewin-Client: x3" -o /dev/null -w '%{http_code}' "$U/v1/clock")
	[ "$code" = 401 ] || fail "a name with a wrong token: expected 401, saw $code"
	code=$(inC curl -s --noproxy '*' -k --pinnedpubkey "$pin" -H "$tokh" \
		-H "X-Stalewin-Client: a b" -o "$T/bad.json" -w '%{http_code}' "$U/v1/clock")
	[ "$code" = 400 ] && grep -q "expected header 'X-Stalewin-Client: NAME' with 1 to 64 characters.*saw 'a b'" "$T/bad.json" ||
		fail "a malformed name: expected 400 naming what was expected and seen, saw $code $(cat "$T/bad.json")"
	expect_rc 2 "stalewin-ctl --client-id with a space" "expected a client name of 1 to 64" \
		ctlC --client-id "a b" info
	ctlC --client-id c-9 info >/dev/null 2>"$T/err" || fail "stalewin-ctl --client-id c-9 info: $(cat "$T/err")"
}

case_private_link() {
	local a=(--root "$ROOT" --runs "$T/runs")
	serve p --listen 10.99.0.1:0 --insecure-private-link --allow 10.99.0.2 || return
	grep -qx "insecure-private-link 10.99.0.1" "$T/p.tok" || fail "token file lacks the private link: $(cat "$T/p.tok")"
	[[ $(cat "$T/p.url") == http://10.99.0.1:* ]] || fail "expected an http URL, saw $(cat "$T/p.url")"
	inC "$CTL" --url "$(cat "$T/p.url")" --token-file "$T/p.tok" info >/dev/null 2>"$T/err" ||
		fail "the private link's plain HTTP failed: $(cat "$T/err")"
	head -n 1 "$T/p.tok" > "$T/p1.tok"
	expect_rc 5 "plain http with a token file that names no private link" "refusing to send the token" \
		inC "$CTL" --url "$(cat "$T/p.url")" --token-file "$T/p1.tok" info
}

# The route fuzzer's corpus (fuzz_route.c's format: METHOD, PATH,
# AUTHORIZATION with T for the right token, CONTENT-LENGTH, BODY) sent
# through the TLS-terminated path: every answer one of control.h's codes,
# a JSON {"error"} from 400 on, and the server alive after it.  The
# fuzzer itself runs below HTTP (tests/server/control/fuzz_route.c).
case_corpus_over_tls() {
	local f m path auth code n=0 pin tok body
	pin=$(sed -n 's/^pin //p' "$T/a.tok") tok=$(head -n 1 "$T/a.tok")
	for f in "$(dirname "$0")"/corpus/route/*; do
		{ m=$(sed -n 1p "$f") path=$(sed -n 2p "$f") auth=$(sed -n 3p "$f"); } 2>/dev/null
		[ "$auth" = T ] && auth="Bearer $tok"
		tail -n +5 "$f" > "$T/cin"
		body=(); [ -s "$T/cin" ] && body=(--data-binary @"$T/cin")
		[[ $m =~ ^[A-Z]{1,10}$ && $path == /* ]] || continue
		code=$(inC curl -s --noproxy '*' -k --pinnedpubkey "$pin" -m 10 --path-as-is -X "$m" \
			${auth:+-H "Authorization: $auth"} "${body[@]}" \
			-o "$T/cbody" -w '%{http_code}' "$U$path" 2>/dev/null) || continue
		n=$((n + 1))
		case $code in
		200|201|400|401|404|405|409|413|429) ;;
		*) fail "corpus $(basename "$f"): $m $path answered $code" ;;
		esac
		if [ "$code" -ge 400 ] && ! jq -e '.error | type == "string"' "$T/cbody" >/dev/null 2>&1; then
			fail "corpus $(basename "$f"): $code without a JSON error: $(head -c 200 "$T/cbody")"
		fi
	done
	[ $n -ge 10 ] || fail "expected at least 10 corpus requests sent over TLS, saw $n"
	ctlC stop >/dev/null 2>&1
	ctlC info >/dev/null 2>"$T/err" || fail "serve a no longer answers after the corpus: $(cat "$T/err")"
	echo "corpus: $n requests over TLS"
}

sw_case bad-input case_bad_input
serve a --listen 10.99.0.1:0 --tls --allow 10.99.0.2/32 || sw_done
serve b --listen 10.99.0.1:0 --tls --allow 10.99.0.2/32 || sw_done
U=$(cat "$T/a.url")
sw_case token-file case_token_file
sw_case plain-refused case_plain_refused
sw_case pin case_pin
sw_case outsider case_outsider
sw_case run-and-flood case_run_and_flood
sw_case named-clients case_named_clients
sw_case private-link case_private_link
sw_case corpus-over-tls case_corpus_over_tls
sw_done
