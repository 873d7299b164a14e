# tests/server/traced_lib.sh: what the traced-run model tests share
# (sourced after tests/lib/test-lib.sh by test_model_traced.sh,
# test_model_eager_stock.sh, test_model_journal.sh, test_model_submit.sh,
# test_model_patched.sh and test_model_eager_settled.sh).  Sourcing it
# checks the tools (skips without jq) and sets SW, R, D (the fixtures)
# and T (a scratch folder removed at exit).
set -u
B=${SW_BUILD_DIR:?}
SW=$B/analysis/stalewin-model-sweep R=$B/analysis/stalewin-report
D=$(cd "$(dirname "$0")" && pwd)/data
for x in "$SW" "$R"; do [ -x "$x" ] || { fail "expected $x built, saw none"; sw_done; }; done
command -v jq >/dev/null || skip "jq missing"
T=$(mktemp -d "/tmp/sw-$sw_test.XXXXXX")
trap 'rm -rf "$T"' EXIT
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
# sweep N OUT [model args]: the model (the caller's MODEL) at the kernel's
# phase of fixture eager-stock-6.1-N, its JSON in OUT
sweep() {
	local d=$D/eager-stock-6.1-$1 out=$2
	shift 2
	"$SW" --log "$d/writer.swlog" "${MODEL[@]}" "$@" --kernel-trace "$d/trace.txt" \
		--bdi 254:0 --created-s "$(cat "$d/server.prepared")" >"$out" 2>"$out.err" ||
		{ fail "sweep of run $(basename "$d"): $(cat "$out.err")"; return 1; }
}
# out_of_bands TAG K M WHAT: the model's figures in M (a sweep's JSON)
# must leave the bands of the kernel's in K (kernel_figures): a rule
# shown to matter by running without it
out_of_bands() {
	jq -n -r --arg what "$4" --slurpfile k "$2" --slurpfile m "$3" "$BANDS_JQ"'
		$k[0] as $k | $m[0].kernel_phase as $m | [bands($m; $k)] as $b
		| "\($what): p50 \($m.p50_ns / 1e9) p90 \($m.p90_ns / 1e9) updates \($m.updates)",
		  (if ($b | length) == 0 then "BAD expected the model out of its bands" else empty end)' \
		>"$T/$1.out" && bad_lines "$1" || fail "$4: the check (jq) did not run"
}
# bad_lines N: prints $T/N.out's other lines, fails once per BAD line
bad_lines() {
	grep -v '^BAD ' "$T/$1.out"
	while IFS= read -r l; do fail "run $1: ${l#BAD }"; done < <(grep '^BAD ' "$T/$1.out")
}
