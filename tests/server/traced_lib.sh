# tests/server/traced_lib.sh: what the traced-run model tests share
# (sourced by test_model_traced.sh and test_model_eager_stock.sh).
# traced_start NAME: checks the tools, sets SW, R, D (the fixtures), T (a
# scratch folder removed at exit), fails and fail().
traced_start() {
	B=${SW_BUILD_DIR:?}
	SW=$B/server/stalewin-model-sweep R=$B/analysis/stalewin-report
	D=$(cd "$(dirname "$0")" && pwd)/data
	for x in "$SW" "$R"; do [ -x "$x" ] || { echo "FAIL: build $x first"; exit 1; }; done
	command -v jq >/dev/null || { echo "SKIP: jq missing"; exit 77; }
	T=$(mktemp -d "/tmp/sw-$1.XXXXXX")
	trap 'rm -rf "$T"' EXIT
	fails=0
}
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# kernel_figures DIR N: the kernel's truth p50/p90 and updates of fixture
# DIR's writer.swlog (stalewin-report) into $T/N.k; 1 (and a failure) if
# the report failed
kernel_figures() {
	mkdir -p "$T/$2"
	cp "$1/writer.swlog" "$T/$2/"
	"$R" "$T/$2" --format json 2>"$T/$2.rerr" |
		jq -c '[.results.figures[] | select(.kind == "truth")][0] as $t
		| {p50: $t.p50_ns, p90: $t.p90_ns, updates: .results.cost.updates}' >"$T/$2.k" ||
		{ fail "run $2: report: $(tail -1 "$T/$2.rerr")"; return 1; }
}
# jq: rel(a; b) and bands(model; kernel): the model's p50/p90 within 5 %
# of the kernel's and its updates within 2, one "BAD ..." line per miss
BANDS_JQ='def rel($a; $b): (($a - $b) | fabs) / $b;
def bands($m; $k):
	(if rel($m.p50_ns; $k.p50) > 0.05 then "BAD expected the model'"'"'s p50 within 5 % of the kernel'"'"'s \($k.p50) ns, saw \($m.p50_ns) ns" else empty end),
	(if rel($m.p90_ns; $k.p90) > 0.05 then "BAD expected the model'"'"'s p90 within 5 % of the kernel'"'"'s \($k.p90) ns, saw \($m.p90_ns) ns" else empty end),
	(if (($m.updates - $k.updates) | fabs) > 2 then "BAD expected the model'"'"'s updates within 2 of the kernel'"'"'s \($k.updates), saw \($m.updates)" else empty end);
'
# bad_lines N: prints $T/N.out's other lines, fails once per BAD line
bad_lines() {
	grep -v '^BAD ' "$T/$1.out"
	while IFS= read -r l; do fail "run $1: ${l#BAD }"; done < <(grep '^BAD ' "$T/$1.out")
}
