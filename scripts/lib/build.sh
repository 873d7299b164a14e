# scripts/lib/build.sh (sourced): build what a subcommand needs first, as
# `./stalewin demo` does.  sw_build_first runs `./stalewin build` (setup:
# the Debian packages; then an incremental cmake build) with its output in
# a log shown only on failure.  SW_NO_BUILD=1 skips it (tests, CI steps
# that built already).  Needs SW_TOP.
sw_build_first() { # PROG
	local prog=$1 log
	[ "${SW_NO_BUILD:-0}" = 1 ] && return 0
	log=$(mktemp /tmp/sw-build-XXXXXX.log) || return 1
	if ! "$SW_TOP/stalewin" build >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		echo "$prog: ./stalewin build failed (log above; set SW_NO_BUILD=1 to use the build as it is)" >&2
		rm -f "$log"
		return 1
	fi
	rm -f "$log"
}
