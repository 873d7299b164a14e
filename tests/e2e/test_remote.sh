#!/usr/bin/env bash
# Description: the two-host path of stalewin-run (--writer-url), with the
# writer's `stalewin-writer serve` and the client side placed in one
# network namespace next to ganesha: the client drives a writer it did not
# start, through the control API only (create the file, start, status,
# stop, fetch), and writes clock.json from its before/after estimates.
# The serve speaks TLS (--tls), as off loopback: the whole --writer-url
# path goes over https pinned to the token file's key (the plain path is
# every other e2e test's).
# The offset estimate must contain the true offset (0: same kernel clock),
# the report must use clock.json, and the consistency check must pass with
# the offset error in its interval.  A client that mis-signs the offset,
# loses the log over HTTP or mixes run ids fails here.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
G=$E2E_TMP/g EXP=$E2E_TMP/exp
mkdir -p "$EXP"
mount -t tmpfs -o size=64m sw-e2e-remote "$EXP"
SP=
cleanup_remote() {
	[ -n "$SP" ] && kill "$SP" 2>/dev/null && wait "$SP" 2>/dev/null
	"$S/scripts/ganesha-ns" down --state "$G" >/dev/null 2>&1 || true
	umount "$EXP" 2>/dev/null || true
	rm -rf "$E2E_TMP"
}
trap cleanup_remote EXIT
eval "$("$S/scripts/ganesha-ns" up --state "$G" --export "$EXP")"
"$S/scripts/ganesha-ns" exec --state "$G" -- "$B/server/stalewin-writer" serve \
	--root "$EXP" --runs "$E2E_TMP/wruns" --token-file "$E2E_TMP/tok" \
	--url-file "$E2E_TMP/url" --tls 2> "$E2E_TMP/serve.log" &
SP=$!
for _ in $(seq 200); do [ -s "$E2E_TMP/url" ] && break; sleep 0.05; done
[ -s "$E2E_TMP/url" ] || fail "serve did not come up: $(cat "$E2E_TMP/serve.log")"
[[ $(cat "$E2E_TMP/url") == https://* ]] || fail "serve --tls printed $(cat "$E2E_TMP/url")"
RUN=$E2E_TMP/run
set +e
"$S/scripts/ganesha-ns" exec --state "$G" -- "$S/scripts/stalewin-run" \
	--writer-url "$(cat "$E2E_TMP/url")" --token-file "$E2E_TMP/tok" \
	--server "nfs://127.0.0.1$SW_EXPORT_0?nfsport=$SW_NFS_PORT&mountport=$SW_MNT_PORT" \
	--writer-file remote.dat --policy eager --workload rewrite --duration 3 \
	--interval-ms 100 --writeback-ms 300 --expire-ms 900 --out "$RUN" \
	> "$E2E_TMP/run.out" 2> "$E2E_TMP/run.err"
rc=$?
set -e
[ $rc = 0 ] || { cat "$E2E_TMP/run.err" >&2; fail "stalewin-run --writer-url exited $rc"; }
[ -s "$RUN/clock.json" ] || fail "no clock.json in a remote-writer run"
jq -e '[.before, .after] | all(.samples > 0 and .err_ns > 0 and (.offset_ns | fabs) <= .err_ns)' "$RUN/clock.json" >/dev/null ||
	fail "clock estimates exclude the true offset 0: $(cat "$RUN/clock.json")"
cmp "$RUN/writer.swlog" "$E2E_TMP/wruns/$(jq -r .run_id "$RUN/meta.json")/writer.swlog" ||
	fail "the fetched log differs from the writer's own file"
jqr '.start.clock.clock_json == true' || fail "the report did not use clock.json: $(jq -c .start.clock "$RUN/report.json")"
jqr '.end.complete == true' || fail "report not complete: $(jq -c .end "$RUN/report.json")"
check_consistency
sw_done "offset $(jq .before.offset_ns "$RUN/clock.json") +- $(jq .before.err_ns "$RUN/clock.json") ns"
