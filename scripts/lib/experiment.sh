# experiment.sh - what the two paths of one experiment share (sourced,
# never run): scripts/stalewin-run (`./stalewin run`, the host path) and
# vm/run.sh (`./stalewin vm run`, two qemu guests).  Each path keeps
# what only it does (ganesha in a namespace; the guests and their plan);
# here: the option table, its parser and the --help it makes, the fault
# specs, and the readers' table both hand to stalewin-runfolder.
# Names of policies and workloads come from the writer (names.sh).
# `stalewin cost` and `stalewin demo` use the option table too.

# ------------------------------------------------------------ options
# The option table, fio's way: each path lists its options once, a row
# each, and the rows make the parser's table, the defaults and --help:
#   sw_opt NAME VAR ARG DEFAULT HELP
#     ARG a word:         NAME ARG sets $VAR, DEFAULT until then
#     ARG ending in ...:  NAME ARG appends to the array VAR (repeatable)
#     ARG =VAL:           NAME (no value) sets $VAR to VAL, DEFAULT until then
#   A second row for a VAR (another name of the option) keeps its default.
# The rows fill SW_OPTS and SW_OPT_HELP; sw_opts_parse ARGS... walks the
# arguments with them; hooks the sourcing script defines:
#   sw_opt_missing OPT   OPT has no value (must exit)
#   sw_opt_other ARGS... an argument the table does not know: handles it
#                        and sets sw_opt_used to how many it took (or
#                        exits)
# SW_OPTS_NONEMPTY=1: an empty value counts as missing, but for the
# options listed in SW_OPTS_EMPTY_OK (space-separated).
declare -A SW_OPTS=() SW_OPT_SEEN=()
SW_OPT_HELP=()
sw_opt() {
	local name=$1 var=$2 arg=$3 def=$4 help=$5 shown=$1
	case $arg in
	=*) SW_OPTS[$name]="=$var:${arg#=}" ;;
	*...) SW_OPTS[$name]=+$var shown+=" $arg" ;;
	*) SW_OPTS[$name]=$var shown+=" $arg" help+=${def:+ (default $def)} ;;
	esac
	if [ -z "${SW_OPT_SEEN[$var]:-}" ]; then
		SW_OPT_SEEN[$var]=1
		case $arg in *...) eval "$var=()" ;; *) printf -v "$var" '%s' "$def" ;; esac
	fi
	SW_OPT_HELP+=("$(printf '  %-27s %s' "$shown" "$help")")
}

sw_opts_parse() {
	local o t v
	while [ $# -gt 0 ]; do
		case $1 in -h|--help) sw_usage; exit 0 ;; esac
		t=${SW_OPTS[$1]:-}
		if [ -z "$t" ]; then
			sw_opt_used=0
			sw_opt_other "$@"
			shift "$sw_opt_used"
			continue
		fi
		o=$1
		if [[ $t == =* ]]; then
			t=${t#=}
			printf -v "${t%%:*}" '%s' "${t#*:}"
			shift
			continue
		fi
		[ $# -ge 2 ] || sw_opt_missing "$o"
		v=$2
		[ -n "$v" ] || [ "${SW_OPTS_NONEMPTY:-0}" = 0 ] ||
			[[ " ${SW_OPTS_EMPTY_OK:-} " == *" $o "* ]] || sw_opt_missing "$o"
		if [[ $t == +* ]]; then
			local -n sw_opt_arr=${t#+}
			sw_opt_arr+=("$v")
			unset -n sw_opt_arr
		else
			printf -v "$t" '%s' "$v"
		fi
		shift 2
	done
}

# --help: the comment at the top of the script that sources this file
# (from its second line to `set -euo`), without the '# ', its line
# "@options" replaced by the table's lines.
sw_usage() {
	sed -n '2,/^set -euo/p' "${SW_USAGE_FILE:-$0}" | grep '^#' | sed 's/^# \{0,1\}//' |
		SW_T=$(printf '%s\n' "${SW_OPT_HELP[@]}") awk '$0 == "@options" { if (ENVIRON["SW_T"] != "") print ENVIRON["SW_T"]; next } 1'
}

# ------------------------------------------------------------ faults
# A fault spec is KIND@SEC[:DOWN_SEC] (a fault that is undone DOWN s
# later, default 1) or KIND@SEC (one that is not).  Each path names its
# kinds: sw_fault_ok SPEC 'A|B' 'C|D' is 0 when SPEC is A or B with an
# optional :DOWN, or C or D without one; sw_fault_expect 'A|B' 'C|D' is
# what the error message says was expected.
sw_fault_ok() {
	[[ $1 =~ ^($2)@[0-9]+(\.[0-9]+)?(:[0-9]+(\.[0-9]+)?)?$ || $1 =~ ^($3)@[0-9]+(\.[0-9]+)?$ ]]
}
sw_fault_expect() { echo "$1@SEC[:DOWN_SEC] or $2@SEC"; }
# sw_fault_split SPEC: sets fault_kind, fault_at, fault_down (default 1)
sw_fault_split() {
	fault_kind=${1%%@*} fault_at=${1#*@} fault_down=1
	[[ $fault_at == *:* ]] && fault_down=${fault_at#*:} fault_at=${fault_at%%:*}
	return 0
}

# ------------------------------------------------------------ meta.json
# the kernel-mount readers' table: one line each, "index mode options
# mount-point" (vm/guest/client.sh and stalewin-run write the same lines)
sw_readers_table() { echo "readers=$1:index,mode,mount_opts_requested,mount_point"; } # TXT
