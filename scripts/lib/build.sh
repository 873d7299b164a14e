# scripts/lib/build.sh (sourced): build what a subcommand needs first, as
# `./stalewin demo` does.  sw_build_first PROG BIN... runs `./stalewin
# build` (setup: the Debian packages; then an incremental cmake build) when
# one of the BINs (paths under $SW_BUILD_DIR) is missing or a source file
# (*.c *.h CMakeLists.txt) is newer than it; its output goes to a log shown
# only on failure.  SW_NO_BUILD=1 skips it.  Needs SW_TOP.
sw_build_first() { # PROG BIN...
	local prog=$1 log b stale=0 bd=${SW_BUILD_DIR:-$SW_TOP/build}
	shift
	[ "${SW_NO_BUILD:-0}" = 1 ] && return 0
	for b in "$@"; do
		if [ ! -x "$bd/$b" ] || [ -n "$(find "$SW_TOP" -path "$bd" -prune -o \
			-path "$SW_TOP/.git" -prune -o \( -name '*.[ch]' -o -name CMakeLists.txt \) \
			-newer "$bd/$b" -print -quit 2>/dev/null)" ]; then
			stale=1
			break
		fi
	done
	[ $stale = 1 ] || return 0
	echo "$prog: building first (./stalewin build)" >&2
	log=$(mktemp /tmp/sw-build-XXXXXX.log) || return 1
	if ! "$SW_TOP/stalewin" build >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		echo "$prog: ./stalewin build failed (log above; SW_NO_BUILD=1 uses the build as it is)" >&2
		rm -f "$log"
		return 1
	fi
	rm -f "$log"
}
