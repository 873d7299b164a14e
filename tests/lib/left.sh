# tests/lib/left.sh: sourced by tests that check that a run left nothing
# running.  sw_procs_naming A B prints the live processes (not zombies,
# not this shell) whose command line names A or B, as " [cmdline]" items;
# nothing when there are none.
sw_procs_naming() {
	local p left=""
	for p in /proc/[0-9]*; do
		[ "$p" = "/proc/$$" ] && continue
		grep -qa -e "$1" -e "$2" "$p/cmdline" 2>/dev/null || continue
		[ "$(awk '{print $3}' "$p/stat" 2>/dev/null)" = Z ] && continue
		left="$left [$(tr '\0' ' ' <"$p/cmdline" | cut -c1-80)]"
	done
	printf '%s' "$left"
}
