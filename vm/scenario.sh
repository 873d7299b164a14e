# vm/scenario.sh - `vm run --scenario NAME` (sourced by vm/run.sh, never
# run): what the run sets up on purpose and what its report then explains
# (meta.json scenario, scenario_note; analysis/pass/attrs.c).
#   deleg-none  the server holds the file open for write from its creation,
#               before any client opens it, to the writer's end: knfsd
#               grants no read delegation while a local writer holds the
#               file open for write (i_writecount > 0), so the report says
#               so rather than a row of zeros.  Needs NFSv4 (--vers 4.2 or
#               both).
# Not yet (issue #34): deleg-recall, the client-side writer of 7.2.
vm_scenario_names="deleg-none"

vm_scenario_check() { # NAME VERS
	case "$1" in
	"") ;;
	deleg-none)
		[ "$2" != 3 ] || vm_usage_die "--scenario $1: delegations are NFSv4's: expected --vers 4.2 or both, saw --vers 3" ;;
	*) vm_usage_die "--scenario: expected one of: $vm_scenario_names, saw '$1'" ;;
	esac
}

# the sentence the report gives for the scenario
vm_scenario_note() { # NAME
	case "$1" in
	deleg-none) echo "no delegation: a local writer holds the file open for write" ;;
	esac
}
