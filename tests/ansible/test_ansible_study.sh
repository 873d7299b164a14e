#!/usr/bin/env bash
# Description: `stalewin study PLAN --inventory FILE` spreads a plan's
# cells over an inventory's pairs, here two pairs on this machine
# (ansible_connection=local, the ganesha fallback, knfsd left alone) and a
# third whose node cannot be reached (ssh to a closed port of the
# loopback).  Four cells of two runs each: every run lands in
# DIR/cells/<cell>/run-<k>/ with run-<k>.done, both live pairs ran cells,
# the lost pair is said lost and the cell it held is rerun by another
# pair, and `stalewin-report study` counts 2 of 2 runs in every cell
# (study.json).  A second `--resume` runs nothing again.  Skips (77)
# without ansible-playbook, root or ganesha.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
top=${SW_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
b=${SW_BUILD_DIR:-$top/build}
command -v ansible-playbook >/dev/null || skip "ansible-playbook is not installed (Debian ansible-core; ./stalewin setup)"
[ "$(id -u)" = 0 ] || skip "needs root (the fallback's ganesha runs in a network namespace)"
command -v ganesha.nfsd >/dev/null || skip "nfs-ganesha is not installed (./stalewin setup)"
[ -x "$b/analysis/stalewin-report" ] || fail "$b/analysis/stalewin-report is not built (./stalewin build)"
T=$(mktemp -d /tmp/sw-ansible-study.XXXXXX)
trap '[ -n "${SW_KEEP_TMP:-}" ] && echo "kept $T" || rm -rf "$T"' EXIT
export ANSIBLE_LOCAL_TEMP=$T/ansible-tmp ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 SW_NO_BUILD=1 SW_BUILD_DIR=$b
cat >"$T/inv.ini" <<EOI
[stalewin_servers]
p1 ansible_connection=local stalewin_dir=$T/p1
p2 ansible_connection=local stalewin_dir=$T/p2
lost ansible_host=127.0.0.1 ansible_port=1 ansible_connection=ssh ansible_ssh_common_args='-o ConnectTimeout=3 -o StrictHostKeyChecking=no'

[stalewin_clients]
lost stalewin_server=lost
p1 stalewin_server=p1
p2 stalewin_server=p2

[all:vars]
ansible_python_interpreter=/usr/bin/python3
stalewin_knfsd=false
stalewin_local_fallback=true
EOI
cat >"$T/plan.ini" <<'EOI'
[global]
repeats = 2
writeback = 1/5
lead_s = 1
duration_s = 5
vers = 3
mount = default
reader = kept-open cto
workload = rewrite random

[stock]
kernel = stock:6.1
policy = eager
fs = tmpfs ext4
EOI
S=$T/study
t0=$SECONDS
"$top/stalewin" study "$T/plan.ini" --inventory "$T/inv.ini" --out "$S" >"$T/study.out" 2>&1
rc=$?
echo "study: exit $rc, $((SECONDS - t0)) s"
sw_on_fail() { echo "--- study output:"; tail -n 20 "$T/study.out"; }

runs() {
	[ "$rc" = 0 ] || fail "expected the study to exit 0, saw $rc"
	local id k n=0
	for id in stock_6.1-eager-tmpfs-rewrite stock_6.1-eager-tmpfs-random stock_6.1-eager-ext4-rewrite stock_6.1-eager-ext4-random; do
		for k in 1 2; do
			[ -e "$S/cells/stock/$id/run-$k.done" ] && [ -s "$S/cells/stock/$id/run-$k/report.json" ] &&
				n=$((n + 1)) || fail "expected $S/cells/stock/$id/run-$k/ with run-$k.done"
		done
	done
	echo "runs fetched: $n of 8"
	jq -e '[.cells[] | .n] == [2, 2, 2, 2]' "$S/study.json" >/dev/null ||
		fail "study.json: expected n = 2 in each of 4 cells, saw $(jq -c '[.cells[] | .n]' "$S/study.json" 2>&1)"
}
spread() {
	local p
	for p in p1 p2; do
		grep -q ": done on $p\$" "$S/study.log" || fail "expected pair $p to have run a cell, saw: $(grep -c 'done on' "$S/study.log") cells done"
	done
	grep -q "pair lost/lost lost (fatal: \[lost\]: UNREACHABLE)" "$S/study.log" || fail "expected the pair 'lost' said lost"
	local held
	held=$(grep -m1 -o '[^ ]*: pair lost/lost lost' "$S/study.log" | sed 's/: pair.*//; s/^stalewin study: //')
	[ -n "$held" ] && grep -q "^stalewin study: $held: done on p[12]\$" "$S/study.log" ||
		fail "expected the cell the lost pair held ('$held') rerun on p1 or p2"
	grep -q "lost: lost (its cells were given to other pairs)" "$S/study.log" || fail "expected the study's closing word on the lost pair"
	grep -E 'on p[12]|lost' "$S/study.log" | head -n 4
}
resume() {
	"$top/stalewin" study "$T/plan.ini" --inventory "$T/inv.ini" --out "$S" --resume >"$T/resume.out" 2>&1 ||
		fail "--resume: expected exit 0, saw $?: $(tail -n 3 "$T/resume.out")"
	grep -q "0 cells over 3 pairs" "$T/resume.out" || fail "--resume: expected nothing left to run, saw $(grep 'cells over' "$T/resume.out")"
}
sw_case runs runs
sw_case spread spread
sw_case resume resume
sw_done "cells spread over two pairs, the lost pair's cell rerun, study.json complete"
