#!/usr/bin/env bash
# Description: the real playbook against this machine as both node groups
# (ansible_connection=local), everything in temporary folders: the tree
# pushed as a git archive, built, the server step skipped with its reason
# (this kernel has no nfsd, or stalewin_knfsd=false where it has one: the
# host is never exported from), the cells run by the fallback against
# nfs-ganesha in a network namespace, and each run folder fetched into a
# temporary controller folder as results/<kernel>/<cell>/run-1/, where
# `stalewin summary` reads it.  A cell the fallback cannot run (xfs) is
# skipped, saying why.  The same playbook run again changes nothing;
# `--tags run` alone, the controller's copy gone, fetches the same run
# again without running it (the node keeps it, marked done).  The
# server's filesystem step alone (the role's server_fs.yml, knfsd aside:
# there is none to export with): a tmpfs and a loop-file ext4 mounted in
# the temporary folder, each one's writer control API answering
# stalewin-ctl on the loopback with its token, a second pass changing
# nothing, stop.yml stopping both.  A
# wrong fetch or unpack path fails here ("expected ... run-1/meta.json").
# Skips (77) without ansible-playbook, root, ganesha or ip netns.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
top=${SW_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v ansible-playbook >/dev/null || skip "ansible-playbook is not installed (Debian ansible-core; ./stalewin setup)"
[ "$(id -u)" = 0 ] || skip "needs root (the fallback's ganesha runs in a network namespace)"
command -v ganesha.nfsd >/dev/null || skip "nfs-ganesha is not installed (./stalewin setup)"
git -C "$top" rev-parse HEAD >/dev/null 2>&1 || skip "$top is not a git checkout (the playbook pushes a git archive of it)"
T=$(mktemp -d /tmp/sw-ansible-local.XXXXXX)
cleanup() {
	local p m
	for p in "$T"/node/serve/*/pid; do [ -s "$p" ] && kill "$(cat "$p")" 2>/dev/null; done
	for m in "$T/export/ext4" "$T/export/tmpfs"; do mountpoint -q "$m" && umount "$m"; done
	[ -n "${SW_KEEP_TMP:-}" ] && echo "kept $T" || rm -rf "$T"
}
trap cleanup EXIT
export ANSIBLE_LOCAL_TEMP=$T/ansible-tmp ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0
knfsd=true
modprobe -n nfsd 2>/dev/null && knfsd=false # a kernel with nfsd: leave this host's exports alone
cat >"$T/inv.ini" <<EOI
[stalewin_servers]
sw-local ansible_connection=local ansible_python_interpreter=/usr/bin/python3
[stalewin_clients]
sw-local
EOI
cat >"$T/vars.yml" <<EOI
stalewin_dir: $T/node
stalewin_results: $T/controller/results
stalewin_knfsd: $knfsd
stalewin_local_fallback: true
stalewin_cells: ["eager:tmpfs:rewrite:3", "native:xfs:rewrite:3"]
stalewin_duration_s: 4
stalewin_writer_args: "--writeback-ms 500 --expire-ms 1000"
EOI
play() { # LOG [ARGS]: the playbook, its exit code in rc
	local l=$1
	shift
	nice -n 10 ansible-playbook -i "$T/inv.ini" -e @"$T/vars.yml" "$top/ansible/stalewin.yml" "$@" >"$T/$l" 2>&1
	rc=$?
}
sw_on_fail() { echo "--- last lines of the playbook's output:"; tail -n 25 "$T/play1.out" 2>/dev/null; }
kver=$(uname -r)
R=$T/controller/results/$kver/eager-tmpfs-rewrite-v3/run-1

first() {
	local t0=$SECONDS
	play play1.out
	echo "first run: exit $rc, $((SECONDS - t0)) s"
	[ "$rc" = 0 ] || { fail "expected the playbook to exit 0, saw $rc"; return; }
	[ -x "$T/node/current/build/server/stalewin-writer" ] || fail "expected the tree built under $T/node/current, saw no stalewin-writer"
	[ -f "$T/node/current/stalewin" ] && [ ! -e "$T/node/current/.git" ] || fail "expected a git archive (no .git) at $T/node/current"
	if [ $knfsd = true ]; then
		grep -q "SKIP: server sw-local: kernel $kver has no nfsd module" "$T/play1.out" ||
			fail "expected the server step skipped, naming the missing nfsd module"
	else
		grep -q "SKIP: server sw-local: knfsd not wanted" "$T/play1.out" || fail "expected the server step skipped (stalewin_knfsd=false)"
	fi
	grep -q "the cells run against nfs-ganesha on sw-local instead" "$T/play1.out" || fail "expected the fallback said"
	grep -q "SKIP cell native-xfs-rewrite-v3 run 1 on sw-local: the fallback runs tmpfs and ext4 only" "$T/play1.out" ||
		fail "expected the xfs cell skipped with its reason"
}
fetched() {
	local f
	for f in meta.json writer.swlog probe-0.swlog report.json report.txt; do
		[ -s "$R/$f" ] || fail "expected the fetched run folder $R/$f, saw $(ls "$T/controller/results/$kver" 2>&1 | head -n 3)"
	done
	[ -s "$R/../run-1.log" ] || fail "expected the run's log beside it"
	head -n 1 "$R/report.txt" | grep -q complete || fail "expected a complete run, saw '$(head -n 1 "$R/report.txt")'"
	[ ! -e "$T/controller/results/$kver/native-xfs-rewrite-v3/run-1" ] || fail "expected no run of the skipped xfs cell"
	SW_NO_BUILD=1 SW_BUILD_DIR=$T/node/current/build "$top/stalewin" summary "$R" >"$T/summary.out" 2>&1 ||
		fail "stalewin summary on the fetched folder: $(tail -n 3 "$T/summary.out")"
	grep -Eq '^eager +[0-9.]+m?s' "$T/summary.out" || fail "expected an eager row with a truth p50, saw: $(head -n 4 "$T/summary.out")"
	sed -n 1,4p "$T/summary.out"
}
again() {
	play play2.out
	[ "$rc" = 0 ] || { fail "second run: expected exit 0, saw $rc"; return; }
	grep -Eq '^sw-local +: .*changed=0 ' "$T/play2.out" ||
		fail "expected nothing changed on the second run, saw: $(grep -B2 '^changed:' "$T/play2.out" | grep TASK | head -n 5) $(grep '^sw-local ' "$T/play2.out")"
	grep '^sw-local ' "$T/play2.out"
}
runtag() {
	local id
	id=$(jq -r .run_id "$R/meta.json")
	rm -rf "$T/controller/results/$kver"
	play play3.out --tags run
	[ "$rc" = 0 ] || { fail "--tags run: expected exit 0, saw $rc"; return; }
	[ "$(jq -r .run_id "$R/meta.json" 2>/dev/null)" = "$id" ] ||
		fail "--tags run: expected run $id fetched again into $R, saw $(jq -r .run_id "$R/meta.json" 2>&1)"
	[ -e "$R/../run-1.done" ] || fail "--tags run: expected run-1.done with the folder"
	echo "--tags run: run $id fetched again, not rerun"
}
serverfs() {
	local port=$((17000 + RANDOM % 2000)) fs url
	cat >"$T/fs.yml" <<EOI
- name: The server's filesystems and writers alone
  hosts: sw-local
  gather_facts: false
  vars:
    stalewin_dir: $T/node
    stalewin_tree: $T/node/current
    stalewin_export_root: $T/export
    stalewin_fs: [tmpfs, ext4]
    stalewin_serve_listen: 127.0.0.1
    stalewin_serve_port_base: $port
  tasks:
    - name: Each filesystem
      ansible.builtin.include_role:
        name: stalewin
        tasks_from: server_fs.yml
      loop: [tmpfs, ext4]
      loop_control:
        loop_var: stalewin_fs_name
        index_var: stalewin_fs_index
    - name: Stop
      ansible.builtin.include_role:
        name: stalewin
        tasks_from: stop.yml
      when: stop | default(false) | bool
EOI
	fsplay() { ANSIBLE_ROLES_PATH=$top/ansible/roles nice -n 10 ansible-playbook -i "$T/inv.ini" "$T/fs.yml" "$@"; }
	fsplay >"$T/fs1.out" 2>&1 || { fail "server_fs.yml: $(grep -m2 -E 'fatal|msg' "$T/fs1.out")"; return; }
	for fs in tmpfs ext4; do
		[ "$(findmnt -n -o FSTYPE --mountpoint "$T/export/$fs")" = "$fs" ] || fail "expected $fs mounted at $T/export/$fs"
		url=$(cat "$T/node/serve/$fs/url" 2>/dev/null)
		"$T/node/current/build/client/stalewin-ctl" --url "$url" --token-file "$T/node/serve/$fs/token" info >"$T/info-$fs.json" 2>&1 ||
			fail "$fs: expected its writer answering at '$url', saw $(cat "$T/info-$fs.json")"
		jq -e --arg r "$T/export/$fs" '.root == $r' "$T/info-$fs.json" >/dev/null ||
			fail "$fs: expected the writer's root $T/export/$fs, saw $(cat "$T/info-$fs.json")"
	done
	fsplay >"$T/fs2.out" 2>&1
	grep -Eq '^sw-local +: .*changed=0 ' "$T/fs2.out" || fail "server_fs.yml again: expected nothing changed, saw $(grep '^sw-local ' "$T/fs2.out")"
	fsplay -e stop=true >"$T/fs3.out" 2>&1
	for fs in tmpfs ext4; do
		[ ! -e "$T/node/serve/$fs/pid" ] || fail "$fs: expected its writer stopped by stop.yml"
	done
	echo "writers answered on 127.0.0.1:$port and :$((port + 1)); second pass: $(grep '^sw-local ' "$T/fs2.out" | grep -o 'changed=[0-9]*')"
}
sw_case first-run first
sw_case fetched fetched
sw_case idempotent again
sw_case run-tag runtag
sw_case server-fs serverfs
sw_done "pushed, built, run by the fallback, fetched, summarised; rerun changed nothing"
