# vm/scenario.sh - `vm run --scenario NAME` (sourced by vm/run.sh, never
# run): what the run sets up on purpose and what its report then explains
# (meta.json scenario, scenario_note; analysis/pass/attrs.c, deleg.c).
#   deleg-none    the server holds the file open for write from its
#                 creation, before any client opens it, to the writer's
#                 end: knfsd grants no read delegation while a local
#                 writer holds the file open for write (i_writecount > 0),
#                 so the report says so rather than a row of zeros.
#   deleg-recall  the client's readers open and read the file and the
#                 client holds a read delegation (the server guest waits
#                 until /proc/fs/nfsd/clients/*/states shows it, up to
#                 SW_DELEG_WAIT_S, 5 s: the readers run only the writer's
#                 duration); only then does the server-side writer open
#                 it for write: its open breaks nfsd's lease, nfsd
#                 recalls the delegation over the callback channel, the
#                 open waits for the DELEGRETURN, then the writer stores.
#                 lockd's grace period (which keeps nfsd from granting
#                 any delegation: locks_in_grace) is cut to 3 s in the
#                 server guest (fs.nfs.nlm_grace_period, nlm_timeout).
#                 The report gives each grant and recall with its time,
#                 the recall's latency and when each reader first read
#                 new data after it (analysis/pass/deleg.c).
# Both need NFSv4 (--vers 4.2 or both).
# Not yet: the client-side writer of 7.2.
vm_scenario_names="deleg-none, deleg-recall"

vm_scenario_check() { # NAME VERS CONTROL
	case "$1" in
	"") ;;
	deleg-none|deleg-recall)
		[ "$2" != 3 ] || vm_usage_die "--scenario $1: delegations are NFSv4's: expected --vers 4.2 or both, saw --vers 3"
		# through the control API the client starts the writer before
		# its readers (the server picks the run id): the wrong order
		[ "$1" != deleg-recall ] || [ "${3:-}" != api ] ||
			vm_usage_die "--scenario deleg-recall: the readers must open the file before the writer: expected --control auto or direct, saw --control api" ;;
	*) vm_usage_die "--scenario: expected one of: $vm_scenario_names, saw '$1'" ;;
	esac
}

# the sentence the report gives for the scenario
vm_scenario_note() { # NAME
	case "$1" in
	deleg-none) echo "no delegation: a local writer holds the file open for write" ;;
	deleg-recall) echo "the client read the file and held a read delegation before the server's writer opened it for write: its open recalls the delegation" ;;
	esac
}
