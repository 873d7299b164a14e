# names.sh - the names of policies, workloads and traps come from the
# writer (`stalewin-writer --list KIND`), never from a script's own list:
# adding one is a file and a line in its list, in C.
#
# sw_name_check BUILD_DIR KIND OPTION NAME...: 0 when the writer in
# BUILD_DIR takes every NAME, or when BUILD_DIR has no writer (the remote
# writer of --writer-url checks them); otherwise prints "expected OPTION
# a|b|c, saw 'NAME'" (or why the writer could not be asked) and returns 2.
sw_name_check() {
	local build=$1 kind=$2 opt=$3 names n
	shift 3
	# no writer here (a client host that drives a remote one with
	# --writer-url): the writer that runs checks the names itself
	[ -x "$build/server/stalewin-writer" ] || return 0
	names=$(sw_names "$build" "$kind" 2>/dev/null) || {
		echo "expected $build/server/stalewin-writer --list $kind to name the $kind $opt takes, saw it fail"
		return 2
	}
	for n in "$@"; do
		grep -qxF -- "$n" <<<"$names" && continue
		echo "expected $opt ${names//$'\n'/|}, saw '$n'"
		return 2
	done
}

# sw_names BUILD_DIR KIND: the writer's names of KIND, one a line, in the
# order of its list (vm run's default matrix is every policy of it)
sw_names() { "$1/server/stalewin-writer" --list "$2"; }

# sw_names_help BUILD_DIR KIND: the names for a --help line, "a|b|c", or
# where they come from when the writer is not built yet
sw_names_help() {
	local n
	n=$(sw_names "$1" "$2" 2>/dev/null) && [ -n "$n" ] && { echo "${n//$'\n'/|}"; return; }
	echo "one of stalewin-writer --list $2 (not built yet)"
}
