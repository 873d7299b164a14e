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
#   client-writer the writer runs in the client guest, on a vers=4.2
#                 mount of the export of its own (one NFS client, the
#                 writer's), started and fetched through a control API
#                 of its own there (stalewin-writer serve on the guest's
#                 loopback: one clock, the estimate ~0); what observes it
#                 are other clients: the probe (libnfs) and the
#                 --ns-clients kernel clients, each in a network
#                 namespace of its own.  nfsd may grant the writer's
#                 client a write delegation (6.6 and later: --kernel
#                 6.12 or 7.2); its events are in server/trace.txt.
vm_scenario_names="deleg-none, deleg-recall, client-writer"

vm_scenario_check() { # NAME VERS CONTROL KERNEL NS_CLIENTS
	case "$1" in
	"") ;;
	client-writer)
		[ "${3:-}" != direct ] ||
			vm_usage_die "--scenario client-writer: the client guest runs the writer through a control API of its own: expected --control auto or api, saw direct"
		case "${4:-stock}" in stock|6.1|patched|patched:6.1)
			vm_usage_die "--scenario client-writer: nfsd offers write delegations from 6.6 on: expected --kernel 6.12, 7.2 or patched:7.2, saw ${4:-stock}" ;;
		esac
		[ "${5:-0}" -ge 1 ] 2>/dev/null ||
			vm_usage_die "--scenario client-writer: kernel readers in the writer's own network namespace would share its NFS client and lease: expected --ns-clients N (1..8) for them, saw none" ;;
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
	client-writer) echo "the writer ran in the client guest (vers=4.2, its own NFS client); the probe and namespace clients are others; truth: its own stat, not the server's" ;;
	esac
}
