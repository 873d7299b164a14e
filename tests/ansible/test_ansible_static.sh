#!/usr/bin/env bash
# Description: the Ansible playbook and role (ansible/) without touching a
# node: `ansible-playbook --syntax-check`, yamllint and ansible-lint
# (--offline: no collection fetched) clean; the example inventory's
# groups and pairs as `ansible-inventory --graph` shows them; and bad
# inventories refused by the controller's checks before any node is
# touched, exit 2 with a message naming the group, client or server at
# fault: no client group, a client whose server is not a server, two
# clients on one server, a cell on a filesystem its server does not
# export.  An unreachable node is named by Ansible (UNREACHABLE, exit 4).
# The kdevops plugin (.kdevops/): its node and host generation run for a
# sample configuration (2 pairs, prefix kd) give the nodes kd-stalewin-
# srv-N / -cli-N and a hosts file whose `ansible-inventory --graph` is
# the two groups, paired, which the playbook's checks accept; its make
# targets run the clone's own ansible/stalewin.yml.
# Skips (77) when ansible-playbook is not installed.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
top=${SW_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
A=$top/ansible
command -v ansible-playbook >/dev/null || skip "ansible-playbook is not installed (Debian ansible-core; ./stalewin setup)"
T=$(mktemp -d /tmp/sw-ansible-static.XXXXXX)
trap 'rm -rf "$T"' EXIT
export ANSIBLE_LOCAL_TEMP=$T/ansible-tmp ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0

syntax() {
	ansible-playbook --syntax-check -i "$A/inventory.example.ini" "$A/stalewin.yml" >"$T/syntax.out" 2>&1 ||
		fail "expected --syntax-check to pass, saw: $(tail -n 5 "$T/syntax.out")"
}
lint() {
	command -v yamllint >/dev/null || { fail "yamllint is not installed (scripts/packages.d/ansible.txt; ./stalewin setup)"; return; }
	command -v ansible-lint >/dev/null || { fail "ansible-lint is not installed (scripts/packages.d/ansible.txt)"; return; }
	yamllint -c "$A/.yamllint" "$A" >"$T/yamllint.out" 2>&1 || fail "yamllint: $(head -n 8 "$T/yamllint.out")"
	(cd "$A" && HOME=$T ansible-lint --offline -q --nocolor stalewin.yml roles/stalewin) >"$T/lint.out" 2>&1 ||
		fail "ansible-lint: $(grep -v '^$' "$T/lint.out" | head -n 12)"
}
graph() {
	ansible-inventory -i "$A/inventory.example.ini" --graph >"$T/graph.out" 2>&1 || fail "ansible-inventory: $(cat "$T/graph.out")"
	local want='@all:
  |--@ungrouped:
  |--@stalewin_servers:
  |  |--nfs-server-1
  |  |--nfs-server-2
  |--@stalewin_clients:
  |  |--nfs-client-1
  |  |--nfs-client-2'
	[ "$(cat "$T/graph.out")" = "$want" ] || fail "expected the graph
$want
saw
$(cat "$T/graph.out")"
	ansible-inventory -i "$A/inventory.example.ini" --host nfs-client-2 >"$T/host.json" 2>&1
	grep -q '"stalewin_server": "nfs-server-2"' "$T/host.json" || fail "expected nfs-client-2 paired with nfs-server-2, saw $(cat "$T/host.json")"
}
# the controller's play alone (--tags check: the node plays are skipped);
# a task that connected all the same would reach only a closed port of
# the loopback and fail the case (exit 4), never another address
printf '[%s:vars]\nansible_host=127.0.0.1\nansible_port=1\nansible_connection=ssh\n' stalewin_servers stalewin_clients >"$T/noconn.ini"
noconn=(-i "$T/noconn.ini")
check() { # NAME INVENTORY_TEXT [ansible-playbook args]: sets rc
	local n=$1 inv=$2
	shift 2
	printf '%s\n' "$inv" >"$T/$n.ini"
	ansible-playbook -i "$T/$n.ini" "$A/stalewin.yml" --tags check "${noconn[@]}" -e stalewin_results="$T/results" "$@" >"$T/$n.out" 2>&1
	rc=$?
}
expect_refused() { # NAME TEXT...: exit 2 and each TEXT in the output
	local n=$1 t
	shift
	[ "$rc" = 2 ] || fail "$n: expected exit 2, saw $rc: $(grep -E 'FAILED|msg' "$T/$n.out" | head -n 3)"
	for t in "$@"; do
		grep -qF -- "$t" "$T/$n.out" || fail "$n: expected '$t' in the output, saw: $(grep -E 'msg' "$T/$n.out" | head -n 3)"
	done
	echo "refused: $(grep -o '"msg": "[^"]*' "$T/$n.out" | head -n 1 | cut -c9-)"
}
good='[stalewin_servers]
s1
[stalewin_clients]
c1'
bad_inputs() {
	check good "$good"
	[ "$rc" = 0 ] || fail "good inventory: expected exit 0, saw $rc: $(grep msg "$T/good.out" | head -n 3)"
	check noclients '[stalewin_servers]
s1'
	expect_refused noclients "expected the inventory groups stalewin_servers and stalewin_clients" "each with a node; saw stalewin_servers=['s1'], stalewin_clients="
	check wrongpeer "$good
c2 stalewin_server=c1"
	expect_refused wrongpeer "client c2: expected stalewin_server to name a node of stalewin_servers" "saw 'c1'"
	check shared "$good
c2 stalewin_server=s1"
	expect_refused shared "server s1: expected one client, saw c1, c2"
	check nofs "$good" -e '{"stalewin_cells": ["native:zfs:rewrite:3"]}'
	expect_refused nofs "client c1: cell 'native:zfs:rewrite:3'" "server s1 exports"
}
unreachable() {
	# a node nothing answers for: ssh to a closed port of this machine's loopback
	printf '[stalewin_servers]\nlost ansible_host=127.0.0.1 ansible_port=1 ansible_connection=ssh\n[stalewin_clients]\nlost\n' >"$T/lost.ini"
	ansible-playbook -i "$T/lost.ini" "$A/stalewin.yml" --tags setup -e stalewin_results="$T/results" \
		-e ansible_ssh_common_args='-o ConnectTimeout=3 -o StrictHostKeyChecking=no' >"$T/lost.out" 2>&1
	rc=$?
	[ "$rc" = 4 ] || fail "unreachable node: expected exit 4 (Ansible's unreachable), saw $rc"
	grep -q 'UNREACHABLE.*\|lost.*unreachable=1' "$T/lost.out" && grep -q '^lost .*unreachable=1' "$T/lost.out" ||
		fail "expected the node 'lost' named unreachable, saw: $(tail -n 4 "$T/lost.out")"
	echo "unreachable: $(grep -m1 -o 'fatal: \[lost\]: UNREACHABLE.\{0,80\}' "$T/lost.out")"
}
kdevops() {
	local K=$top/.kdevops G=$T/kdevops
	mkdir -p "$G/templates"
	yamllint -c "$A/.yamllint" "$K" >"$T/kyaml.out" 2>&1 || fail "yamllint .kdevops: $(head -n 5 "$T/kyaml.out")"
	# what kdevops' extra_vars.yaml holds for the sample, and a stand-in
	# for its nodes template (kdevops renders its own)
	cat >"$G/extra_vars.yaml" <<EOI
kdevops_host_prefix: kd
kdevops_python_interpreter: /usr/bin/python3
kdevops_user_workflow_stalewin: true
stalewin_pairs: 2
stalewin_plugin_dir: $K
topdir_path: $G
kdevops_nodes: nodes.yaml
kdevops_nodes_template: $G/templates/nodes.j2
ansible_cfg_inventory: $G/hosts
EOI
	printf '%s\n' '{% for n in nodes %}' '- name: {{ n }}' '{% endfor %}' >"$G/templates/nodes.j2"
	cat >"$G/gen.yml" <<EOI
- name: kdevops' gen_nodes and gen_hosts, stalewin's part
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Nodes
      ansible.builtin.include_tasks: $K/playbooks/roles/gen_nodes/tasks/main.yml
    - name: Hosts
      ansible.builtin.include_tasks: $K/playbooks/roles/gen_hosts/tasks/main.yml
EOI
	ansible-playbook -i localhost, -c local "$G/gen.yml" -e @"$G/extra_vars.yaml" >"$G/gen.out" 2>&1 ||
		{ fail "generating nodes and hosts: $(grep -E 'FAILED|msg' "$G/gen.out" | head -n 3)"; return; }
	[ "$(grep -o 'kd-stalewin-[a-z]*-[0-9]' "$G/nodes.yaml" | tr '\n' ' ')" = "kd-stalewin-srv-1 kd-stalewin-cli-1 kd-stalewin-srv-2 kd-stalewin-cli-2 " ] ||
		fail "expected the nodes kd-stalewin-srv-1 -cli-1 -srv-2 -cli-2, saw $(cat "$G/nodes.yaml")"
	ansible-inventory -i "$G/hosts" --graph stalewin_clients >"$G/graph.out" 2>&1
	ansible-inventory -i "$G/hosts" --graph stalewin_servers >>"$G/graph.out" 2>&1
	local want='@stalewin_clients:
  |--kd-stalewin-cli-1
  |--kd-stalewin-cli-2
@stalewin_servers:
  |--kd-stalewin-srv-1
  |--kd-stalewin-srv-2'
	[ "$(cat "$G/graph.out")" = "$want" ] || fail "generated hosts: expected the graph
$want
saw
$(cat "$G/graph.out")"
	ansible-inventory -i "$G/hosts" --host kd-stalewin-cli-2 | grep -q '"stalewin_server": "kd-stalewin-srv-2"' ||
		fail "expected kd-stalewin-cli-2 paired with kd-stalewin-srv-2"
	ansible-playbook -i "$G/hosts" "$A/stalewin.yml" --tags check "${noconn[@]}" -e @"$G/extra_vars.yaml" \
		-e stalewin_results="$T/results" >"$G/check.out" 2>&1 || fail "the generated hosts refused by the playbook: $(grep msg "$G/check.out" | head -n 2)"
	make -n -f "$K/workflows/stalewin/Makefile" stalewin-run CONFIG_KDEVOPS_USER_WORKFLOW_STALEWIN=y \
		CONFIG_STALEWIN_SRC='"/src/stalewin"' Q= >"$G/make.out" 2>&1
	grep -q 'ansible-playbook .*-i hosts /src/stalewin/ansible/stalewin.yml --extra-vars=@./extra_vars.yaml .*--tags run' "$G/make.out" ||
		fail "make stalewin-run: expected the clone's ansible/stalewin.yml with extra_vars.yaml, saw $(cat "$G/make.out")"
	cat "$G/graph.out"
}
sw_case syntax syntax
sw_case lint lint
sw_case graph graph
sw_case bad-inputs bad_inputs
sw_case unreachable unreachable
sw_case kdevops kdevops
sw_done "playbook and role checked; bad inventories refused, naming the node"
