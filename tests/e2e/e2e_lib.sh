# tests/e2e/e2e_lib.sh: shared set-up of the end-to-end tests (sourced
# after tests/lib/test-lib.sh).  Each test runs scripts/stalewin-run for
# real: nfs-ganesha in its own network namespace, stalewin-writer serve,
# stalewin-probe over NFS, stalewin-report; then asserts on report.json /
# report.csv, each assertion on what the run before it left (immediate
# mode: the first failure ends the test, showing the run's report).
sw_immediate=1
set -euo pipefail
B=${SW_BUILD_DIR:?SW_BUILD_DIR not set}
S=${SW_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
export SW_BUILD_DIR=$B SW_TOP=$S

[ "$(id -u)" -eq 0 ] || skip "needs root (mount, ip netns) for ganesha; running as uid $(id -u)"
for c in ganesha.nfsd rpcbind ip nfs-ls jq mkfs.ext4; do
	command -v "$c" >/dev/null || skip "$c not installed (./stalewin setup)"
done
for b in server/stalewin-writer client/stalewin-ctl client/stalewin-probe analysis/stalewin-report common/stalewin-logdump; do
	[ -x "$B/$b" ] || skip "$B/$b not built"
done

E2E_TMP=$(mktemp -d /tmp/sw-e2e-XXXXXX)
trap 'rm -rf "$E2E_TMP"' EXIT
sw_on_fail() {
	if [ -n "${RUN:-}" ] && [ -f "$RUN/report.txt" ]; then
		echo "--- $RUN/report.txt"; cat "$RUN/report.txt"
	fi
}

# run_exp NAME stalewin-run-args...  -> sets RUN
run_exp() {
	local name=$1; shift
	RUN=$E2E_TMP/$name
	echo "== stalewin-run $*"
	set +e
	"$S/scripts/stalewin-run" --out "$RUN" "$@" > "$E2E_TMP/$name.out" 2> "$E2E_TMP/$name.err"
	local rc=$?
	set -e
	if [ $rc != 0 ] && [ "${ALLOW_PARTIAL:-0}" = 0 -o $rc != 3 ] &&
		[ "${ALLOW_FAULTS:-0}" = 0 -o $rc != 4 ]; then
		cat "$E2E_TMP/$name.err" >&2
		fail "stalewin-run exited $rc"
	fi
	[ -s "$RUN/report.json" ] || { cat "$E2E_TMP/$name.err" >&2; fail "no report.json in $RUN"; }
	[ -s "$RUN/report.csv" ] || fail "no report.csv in $RUN"
}

jqr() { jq -e "$@" "$RUN/report.json" >/dev/null; }

# fault_key KIND KEY: KEY of the first KIND entry of faults.json as exact
# digits (jq 1.6 reads ns as doubles); "kind" leads each entry
fault_key() {
	awk -v k="\"$1\"" -v key="\"$2\":" '$1 == "\"kind\":" { cur = index($0, k) > 0 }
		cur && $1 == key { gsub(/[^0-9]/, ""); print; exit }' "$RUN/faults.json"
}

# The consistency check of every observer: something checked, and every
# store whose W_obs - W_truth fell outside [-err, resolution + err] has an
# explanation from the logs (a probe stall, a slow reply, a gap, an update
# before the store...), none "unexplained".
check_consistency() {
	jqr '.results.observers | length > 0' || fail "no observer in the report"
	jqr 'all(.results.observers[]; .consistency as $c | $c.checked > 0 and
		($c.early + $c.late) == ([$c.explained | to_entries[] | select(.key != "unexplained") | .value] | add // 0))' ||
		fail "consistency check failed: $(jq -c '[.results.observers[] | {name, consistency}]' "$RUN/report.json")"
}

# awk over report.csv with columns by name: col["w_truth_ns"] etc.; the
# awk variable bound is $BOUND.  Absolute ns times (~1.8e18) do not fit a
# double exactly: rel(t) gives ns since BASE_S whole seconds, exactly.
csv_awk() { # program
	awk -F, -v bound="${BOUND:-0}" '
	function rel(t,   l) { l = length(t); if (l <= 9) return t + 0
		if (base == "") base = substr(t, 1, l - 9) - 1
		return (substr(t, 1, l - 9) - base) * 1000000000 + substr(t, l - 8) }
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next } '"$1" "$RUN/report.csv"
}
