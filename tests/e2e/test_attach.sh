#!/usr/bin/env bash
# Description: many clients on one writer run.  One ganesha and one
# `stalewin-writer serve` as test_remote.sh starts them; a lead
# `stalewin run --writer-url ... --run-id X --wait-clients 2` and two
# `stalewin run --attach X` clients started once the lead has announced X.
# Cases:
#  - three_folders: all three exit 0 with a complete report;
#  - one_run: the writer run id X in the three meta.json and reports, the
#    lead's writer log byte for byte in each client's folder, the clients'
#    meta.json attached true, joined before the start, the lead's
#    clients_joined 2;
#  - three_clocks: three clock estimates (clock.json), each holding the
#    true offset 0 within its error;
#  - fanin: `stalewin fanin` of the three lists three clients with one
#    run id; a folder of another run id is refused (exit 2, both ids named);
#  - bad_attach: --attach to an unknown id and to the ended run, and a
#    --client-id the control API cannot carry, exit 2 naming what was
#    expected and seen.
# A client attached to another run than the lead's, or a lead that starts
# before its clients joined, fails one_run.  ~25 s.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
G=$E2E_TMP/g EXP=$E2E_TMP/exp
mkdir -p "$EXP"
mount -t tmpfs -o size=64m sw-e2e-attach "$EXP"
SP="" pids=()
cleanup_attach() {
	local p
	set +e # every step, whatever the one before it returned
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	[ -z "$SP" ] || { kill "$SP" 2>/dev/null; wait "$SP" 2>/dev/null; } # the serve (ip netns exec execs it)
	"$S/scripts/ganesha-ns" down --state "$G" >/dev/null 2>&1 || true
	umount "$EXP" 2>/dev/null || true
	rm -rf "$E2E_TMP"
}
trap cleanup_attach EXIT
eval "$("$S/scripts/ganesha-ns" up --state "$G" --export "$EXP")"
in_ns() { "$S/scripts/ganesha-ns" exec --state "$G" -- "$@"; }
in_ns "$B/server/stalewin-writer" serve --root "$EXP" --runs "$E2E_TMP/wruns" \
	--token-file "$E2E_TMP/tok" --url-file "$E2E_TMP/url" 2> "$E2E_TMP/serve.log" &
SP=$!
for _ in $(seq 200); do [ -s "$E2E_TMP/url" ] && break; sleep 0.05; done
[ -s "$E2E_TMP/url" ] || fail "serve did not come up: $(cat "$E2E_TMP/serve.log")"
URL=$(cat "$E2E_TMP/url")
NFS="nfs://127.0.0.1$SW_EXPORT_0?nfsport=$SW_NFS_PORT&mountport=$SW_MNT_PORT"
remote=(--writer-url "$URL" --token-file "$E2E_TMP/tok" --server "$NFS")
X=a$(od -An -N8 -tx8 /dev/urandom | tr -d ' \n' | cut -c2-)
ctl() { in_ns "$B/client/stalewin-ctl" --url "$URL" --token-file "$E2E_TMP/tok" "$@"; }

in_ns "$S/scripts/stalewin-run" "${remote[@]}" --writer-file attach.dat --run-id "$X" \
	--wait-clients 2 --wait-timeout 20 --policy eager --workload rewrite --duration 4 \
	--interval-ms 100 --writeback-ms 300 --expire-ms 900 --out "$E2E_TMP/lead" \
	> "$E2E_TMP/lead.out" 2> "$E2E_TMP/lead.err" &
pids+=($!)
for _ in $(seq 200); do ctl get "/v1/runs/$X" >/dev/null 2>&1 && break; sleep 0.05; done
for c in c1 c2; do
	in_ns "$S/scripts/stalewin-run" "${remote[@]}" --attach "$X" \
		--client-id "$c" --jitter-ms 500 --out "$E2E_TMP/$c" > "$E2E_TMP/$c.out" 2> "$E2E_TMP/$c.err" &
	pids+=($!)
done
i=0
for n in lead c1 c2; do
	set +e; wait "${pids[$i]}"; rc=$?; set -e
	[ $rc = 0 ] || { cat "$E2E_TMP/$n.err" >&2; fail "$n: stalewin-run exited $rc"; }
	i=$((i + 1))
done
pids=()

c_three_folders() {
for n in lead c1 c2; do
	RUN=$E2E_TMP/$n
	jqr '.end.complete == true' || fail "$n: report not complete: $(jq -c .end "$RUN/report.json")"
	[ -s "$RUN/writer.swlog" ] && [ -s "$RUN/probe-0.swlog" ] && [ -s "$RUN/report.txt" ] ||
		fail "$n: the run folder lacks a log or the report: $(ls "$RUN")"
done
}
sw_case three_folders c_three_folders

c_one_run() {
for n in lead c1 c2; do
	id=$(jq -r .run_id "$E2E_TMP/$n/meta.json")
	[ "$id" = "$X" ] || fail "$n: expected run id $X in meta.json, saw $id"
done
for n in c1 c2; do
	cmp "$E2E_TMP/lead/writer.swlog" "$E2E_TMP/$n/writer.swlog" || fail "$n: its writer log is not the lead's"
	jq -e --arg x "$X" '.attached == true and .attached_run_id == $x and .joined_before_start == true' \
		"$E2E_TMP/$n/meta.json" >/dev/null ||
		fail "$n: expected attached to $X before the start, saw $(jq -c '{attached, attached_run_id, joined_before_start}' "$E2E_TMP/$n/meta.json")"
done
jq -e '.clients_joined == 2 and (.attached // false) == false' "$E2E_TMP/lead/meta.json" >/dev/null ||
	fail "lead: expected 2 clients joined, saw $(jq -c '{clients_joined, attached}' "$E2E_TMP/lead/meta.json")"
}
sw_case one_run c_one_run

c_three_clocks() {
for n in lead c1 c2; do
	jq -e '[.before, .after] | all(.samples > 0 and .err_ns > 0 and (.offset_ns | fabs) <= .err_ns)' \
		"$E2E_TMP/$n/clock.json" >/dev/null || fail "$n: clock estimate missing or excluding 0: $(cat "$E2E_TMP/$n/clock.json" 2>&1)"
done
}
sw_case three_clocks c_three_clocks

c_fanin() {
"$B/analysis/stalewin-report" fanin "$E2E_TMP/lead" "$E2E_TMP/c1" "$E2E_TMP/c2" > "$E2E_TMP/fanin.txt" ||
	fail "stalewin-fanin exited $?"
cat "$E2E_TMP/fanin.txt"
"$B/analysis/stalewin-report" fanin --json "$E2E_TMP/lead" "$E2E_TMP/c1" "$E2E_TMP/c2" > "$E2E_TMP/fanin.json"
jq -e --arg x "$X" '.run_id == $x and (.clients | length) == 3 and
	([.clients[].client] | sort) == ["c1", "c2", "lead"] and .worst != null' "$E2E_TMP/fanin.json" >/dev/null ||
	fail "fanin: expected three clients of run $X, saw $(jq -c . "$E2E_TMP/fanin.json")"
cp -r "$E2E_TMP/c2" "$E2E_TMP/other"
jq '.run_id = "00000000000000ff"' "$E2E_TMP/c2/meta.json" > "$E2E_TMP/other/meta.json"
set +e
"$B/analysis/stalewin-report" fanin "$E2E_TMP/lead" "$E2E_TMP/other" > /dev/null 2> "$E2E_TMP/fanin.err"
rc=$?
set -e
[ $rc = 2 ] && grep -q "$X" "$E2E_TMP/fanin.err" && grep -q 00000000000000ff "$E2E_TMP/fanin.err" ||
	fail "fanin of two runs: expected exit 2 naming $X and 00000000000000ff, saw exit $rc: $(cat "$E2E_TMP/fanin.err")"
}
sw_case fanin c_fanin

c_bad_attach() {
for id in 0123456789abcdef "$X"; do
	set +e
	in_ns "$S/scripts/stalewin-run" "${remote[@]}" --attach "$id" --out "$E2E_TMP/bad-$id" > /dev/null 2> "$E2E_TMP/bad.err"
	rc=$?
	set -e
	want="no such run"; [ "$id" = "$X" ] && want="saw it ended"
	[ $rc = 2 ] && grep -q "expected .*$id\|$id.*expected" "$E2E_TMP/bad.err" && grep -q "$want" "$E2E_TMP/bad.err" ||
		fail "--attach $id: expected exit 2 and '$want', saw exit $rc: $(cat "$E2E_TMP/bad.err")"
done
set +e
in_ns "$S/scripts/stalewin-run" "${remote[@]}" --attach "$X" --client-id 'c 3' --out "$E2E_TMP/bad-name" > /dev/null 2> "$E2E_TMP/bad.err"
rc=$?
set -e
[ $rc = 2 ] && grep -q "expected --client-id NAME of 1 to 64 characters .*saw 'c 3'" "$E2E_TMP/bad.err" ||
	fail "--client-id 'c 3': expected exit 2 naming what was expected and seen, saw exit $rc: $(cat "$E2E_TMP/bad.err")"
}
sw_case bad_attach c_bad_attach
sw_done "run $X: three clients"
