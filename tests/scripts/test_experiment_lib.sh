#!/usr/bin/env bash
# scripts/lib/experiment.sh, what `stalewin run` and `stalewin vm run`
# share: the option table (its parser, defaults and --help), the fault
# specs, the readers' table.
# Pure bash, no build needed.
. "$(dirname "$0")/../lib/test-lib.sh"
set -euo pipefail
. "$(cd "$(dirname "$0")/../.." && pwd)/scripts/lib/experiment.sh"

# the table of the cases below (in the caller's subshell)
rows() {
	sw_opt --list list X... '' 'a list'
	sw_opt --val val V def 'a value'
	sw_opt --alias val V '' 'another name of --val'
	sw_opt --flag flag =1 0 'a flag'
	sw_opt --empty empty E x 'may be empty'
}

# parse ARGS...: the table above over ARGS, in a subshell; prints the
# variables, or what the hooks said
parse() {
	(
		rows
		SW_OPTS_NONEMPTY=${NONEMPTY:-0} SW_OPTS_EMPTY_OK=--empty
		sw_opt_missing() { echo "missing $1"; exit 2; }
		sw_opt_other() { echo "other $1"; sw_opt_used=1; }
		sw_opts_parse "$@"
		echo "list=${list[*]:-} (${#list[@]}) val=$val flag=$flag empty=$empty"
	)
}
expect() { # WHAT EXPECTED SAW
	[ "$2" = "$3" ] || fail "$1: expected '$2', saw '$3'"
}

values() {
	expect "values" "list=a b c (2) val=v2 flag=1 empty=" \
		"$(parse --list a --val v1 --flag --list "b c" --alias v2 --empty '')"
	# a value that looks like an option is a value (as before)
	expect "option-like value" "list= (0) val=-h flag=0 empty=x" "$(parse --val -h)"
	expect "defaults" "list= (0) val=def flag=0 empty=x" "$(parse)"
}
sw_case values values

hooks() {
	local out
	out=$(parse --zz --val 1) || true
	expect "unknown option" "other --zz
list= (0) val=1 flag=0 empty=x" "$out"
	out=$(parse --val) && fail "a missing value: expected exit 2, saw 0"
	expect "missing value" "missing --val" "$out"
	out=$(NONEMPTY=1 parse --val '') && fail "an empty value: expected exit 2, saw 0"
	expect "empty value (NONEMPTY)" "missing --val" "$out"
	expect "empty value allowed" "list= (0) val=def flag=0 empty=" "$(NONEMPTY=1 parse --empty '')"
	expect "empty value (default)" "list= (0) val= flag=0 empty=x" "$(parse --val '')"
}
sw_case hooks hooks

# --help: the header, its @options line replaced by the table's rows
help_text() {
	local f out
	f=$(mktemp)
	printf '#!/bin/sh\n# line one\n#   indented\nnot a comment\n#\n# @options\n# last\nset -euo pipefail\n# after\n' >"$f"
	out=$(rows; SW_USAGE_FILE=$f sw_usage)
	expect "help" "line one
  indented

  --list X...                 a list
  --val V                     a value (default def)
  --alias V                   another name of --val
  --flag                      a flag
  --empty E                   may be empty (default x)
last" "$out"
	expect "no table" "line one
  indented

last" "$(SW_USAGE_FILE=$f sw_usage)"
	rm -f "$f"
}
sw_case help help_text

faults() {
	local d='a-b|c' o='k'
	sw_fault_ok a-b@1 "$d" "$o" || fail "a-b@1: expected accepted"
	sw_fault_ok c@1.5:2.5 "$d" "$o" || fail "c@1.5:2.5: expected accepted"
	sw_fault_ok k@3 "$d" "$o" || fail "k@3: expected accepted"
	! sw_fault_ok k@3:1 "$d" "$o" || fail "k@3:1: expected refused (no DOWN for k)"
	! sw_fault_ok a@1 "$d" "$o" || fail "a@1: expected refused (unknown kind)"
	! sw_fault_ok c@1:2:3 "$d" "$o" || fail "c@1:2:3: expected refused"
	! sw_fault_ok c@ "$d" "$o" || fail "c@: expected refused"
	expect "expect" "a-b|c@SEC[:DOWN_SEC] or k@SEC" "$(sw_fault_expect "$d" "$o")"
	sw_fault_split c@1.5:2.5
	expect "split" "c 1.5 2.5" "$fault_kind $fault_at $fault_down"
	sw_fault_split k@3
	expect "split, default down" "k 3 1" "$fault_kind $fault_at $fault_down"
	expect "readers table" "readers=/x/r.txt:index,mode,mount_opts_requested,mount_point" \
		"$(sw_readers_table /x/r.txt)"
}
sw_case faults faults

# each path's --help (and cost's, demo's) is made from its table: a line
# for every row, none left as @options
documented() {
	local top s keys k help
	top=$(cd "$(dirname "$0")/../.." && pwd)
	for s in scripts/stalewin-run vm/run.sh scripts/stalewin-cost scripts/stalewin-demo; do
		keys=$(grep -o '^sw_opt --[a-z0-9-]*' "$top/$s" | cut -d' ' -f2)
		[ -n "$keys" ] || { fail "$s: expected its option table (sw_opt rows), saw none"; continue; }
		help=$("$top/$s" --help)
		! grep -q '^@options' <<<"$help" || fail "$s: expected the table in its --help, saw @options"
		for k in $keys; do
			grep -qE -- "^  $k( |$)" <<<"$help" || fail "$s: expected a line for $k in its --help, saw none"
		done
	done
}
sw_case documented documented

sw_done
