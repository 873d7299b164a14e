# scripts/lib/sysctl-pin.sh (sourced): pin host vm sysctls for a window and
# restore them always (normal end, failure, Ctrl-C, TERM), with one pinner
# at a time on the host.
#
#   . "$SW_TOP/scripts/lib/sysctl-pin.sh"
#   sw_sysctl_pin PROG dirty_writeback_centisecs=50 dirty_expire_centisecs=150
#   ... the pinned window ...
#   sw_sysctl_unpin
#
# Why a lock: two pinners at once (the demo and `stalewin validate`) must
# not leave the host pinned - the second would save the first's pinned
# values as the originals.  sw_sysctl_pin takes flock on
# /run/stalewin-sysctl.lock (waits up to SW_PIN_WAIT_S, default 900 s,
# saying who holds it: the holder writes its PID, program, SW_PIN_FOR (the
# run folder it pins for) and start into the lock file) and
# holds it until sw_sysctl_unpin, so the second pinner reads the true
# originals.  The originals are saved in /run/stalewin-sysctl.saved while
# pinned: a pinner killed with SIGKILL leaves it, and the next pinner
# restores from it before reading the originals.  The lock's descriptor is
# inherited by the pinner's children: the window lasts while any of them
# (a writer running under the pinned values) is alive.
#
# Traps: EXIT restores; INT and TERM restore, then TERM exits 143 and INT
# exits 130 unless SW_PIN_ON_INT=continue (the caller's child got the INT
# too and the caller ends its own way; SW_PIN_GOT_INT=1 then tells the
# caller, whose child may not have been running yet).  A caller with its own EXIT trap
# calls sw_sysctl_unpin in it.  Keys are names under /proc/sys/vm.
#
# Until `stalewin validate` uses this library it takes its own lock,
# /run/lock/stalewin-validate.lock, for its whole run: SW_PIN_COMPAT_LOCK
# (that path by default) is taken too, after ours.  A script that holds
# that lock itself and uses this library must set SW_PIN_COMPAT_LOCK=""
# (a second flock of the same file from one process would wait forever).
SW_PIN_LOCK=${SW_PIN_LOCK:-/run/stalewin-sysctl.lock}
SW_PIN_COMPAT_LOCK=${SW_PIN_COMPAT_LOCK-/run/lock/stalewin-validate.lock}
SW_PIN_SAVED=${SW_PIN_SAVED:-$SW_PIN_LOCK.saved}
SW_PIN_FD="" SW_PIN_FD2=""
SW_PIN_PROG=stalewin

# write back every KEY VALUE line of a saved file (reports what it could not)
sw_sysctl__restore_file() { # FILE
	local k v rc=0
	while read -r k v; do
		[ -n "$k" ] || continue
		if ! echo "$v" > "/proc/sys/vm/$k" 2>/dev/null; then
			echo "$SW_PIN_PROG: could not restore vm.$k to $v" >&2
			rc=1
		fi
	done < "$1"
	return $rc
}

sw_sysctl_unpin() {
	[ -n "$SW_PIN_FD" ] || return 0
	local rc=0
	if [ -f "$SW_PIN_SAVED" ]; then
		if sw_sysctl__restore_file "$SW_PIN_SAVED"; then
			echo "$SW_PIN_PROG: restored $(awk '{ printf "%svm.%s=%s", (NR > 1 ? " " : ""), $1, $2 }' "$SW_PIN_SAVED")" >&2
			rm -f "$SW_PIN_SAVED"
		else
			rc=1 # keep the file: the next pinner retries
		fi
	fi
	if [ -n "$SW_PIN_FD2" ]; then
		flock -u "$SW_PIN_FD2" 2>/dev/null || true
		eval "exec $SW_PIN_FD2>&-"
		SW_PIN_FD2=""
	fi
	flock -u "$SW_PIN_FD" 2>/dev/null || true
	eval "exec $SW_PIN_FD>&-"
	SW_PIN_FD=""
	return $rc
}

sw_sysctl__holder() { local h; h=$(tr -d '\n' < "$1" 2>/dev/null); echo "${h:-a process that did not say who it is}"; }
# take one lock file on a new descriptor (its number in sw_pin__fd)
sw_sysctl__lock() { # FILE
	local fd
	mkdir -p "$(dirname "$1")"
	exec {fd}>>"$1" || return 1
	if ! flock -n "$fd"; then
		echo "$SW_PIN_PROG: another stalewin process has pinned the vm sysctls ($1, held by $(sw_sysctl__holder "$1")); waiting for it (up to ${SW_PIN_WAIT_S:-900} s)" >&2
		if ! flock -w "${SW_PIN_WAIT_S:-900}" "$fd"; then
			eval "exec $fd>&-"
			echo "$SW_PIN_PROG: expected $1 to be free within ${SW_PIN_WAIT_S:-900} s, saw it held by $(sw_sysctl__holder "$1")" >&2
			return 1
		fi
	fi
	# who holds it, for the next one that waits (the lock is the open
	# descriptor, not the file's content)
	printf 'PID %s (%s%s, since %s)\n' "$BASHPID" "$SW_PIN_PROG" "${SW_PIN_FOR:+, for $SW_PIN_FOR}" \
		"$(date -u +%FT%TZ)" > "$1" 2>/dev/null || true
	sw_pin__fd=$fd
}

sw_sysctl__on_signal() { # SIG
	sw_sysctl_unpin
	if [ "$1" = TERM ]; then
		exit 143
	elif [ "${SW_PIN_ON_INT:-exit}" != continue ]; then
		exit 130
	fi
	# continue: the caller goes on, and must know it was interrupted
	# even when no child of its got the INT (it came between the pin
	# and the child's start): the pin is over, the caller ends its way
	SW_PIN_GOT_INT=1
}

sw_sysctl_pin() { # PROG KEY=VALUE...
	SW_PIN_PROG=$1
	shift
	local kv k v
	[ -z "$SW_PIN_FD" ] || { echo "$SW_PIN_PROG: sysctls already pinned by this process" >&2; return 1; }
	for kv in "$@"; do
		k=${kv%%=*} v=${kv#*=}
		[[ "$k" =~ ^[a-z_]+$ && "$v" =~ ^[0-9]+$ && -w /proc/sys/vm/$k ]] || {
			echo "$SW_PIN_PROG: expected KEY=N with a writable /proc/sys/vm/KEY, saw '$kv'" >&2
			return 2
		}
	done
	local sw_pin__fd
	sw_sysctl__lock "$SW_PIN_LOCK" || return 1
	SW_PIN_FD=$sw_pin__fd
	if [ -n "$SW_PIN_COMPAT_LOCK" ]; then
		sw_sysctl__lock "$SW_PIN_COMPAT_LOCK" || { sw_sysctl_unpin; return 1; }
		SW_PIN_FD2=$sw_pin__fd
	fi
	trap 'sw_sysctl_unpin' EXIT
	trap 'sw_sysctl__on_signal INT' INT
	trap 'sw_sysctl__on_signal TERM' TERM
	# a pinner that died without restoring: its originals first
	if [ -f "$SW_PIN_SAVED" ]; then
		echo "$SW_PIN_PROG: restoring the sysctls a killed pinner left ($SW_PIN_SAVED)" >&2
		sw_sysctl__restore_file "$SW_PIN_SAVED" && rm -f "$SW_PIN_SAVED"
	fi
	: > "$SW_PIN_SAVED.tmp"
	for kv in "$@"; do
		k=${kv%%=*}
		echo "$k $(cat "/proc/sys/vm/$k")" >> "$SW_PIN_SAVED.tmp"
	done
	mv "$SW_PIN_SAVED.tmp" "$SW_PIN_SAVED"
	for kv in "$@"; do
		k=${kv%%=*} v=${kv#*=}
		echo "$SW_PIN_PROG: pinning vm.$k $(cat "/proc/sys/vm/$k") -> $v (restored after)" >&2
		echo "$v" > "/proc/sys/vm/$k" || { sw_sysctl_unpin; return 1; }
	done
}

# the saved originals as "KEY VALUE" lines (for meta), empty if not pinned
sw_sysctl_originals() {
	[ -n "$SW_PIN_FD" ] && [ -f "$SW_PIN_SAVED" ] && cat "$SW_PIN_SAVED"
	return 0
}

# sw_sysctl_pin_meta DIR: when the vm sysctls are pinned for run folder
# DIR now (the holder's line names it, the originals are saved), the
# stalewin-runfolder meta options that say so, one word a line: who pinned
# them, the values the run saw and the originals; nothing otherwise (a
# pin restored before the run's end, as on a Ctrl-C, is no pin)
sw_sysctl_pin_meta() { # DIR
	local line k v
	[ -s "$SW_PIN_SAVED" ] && line=$(head -n 1 "$SW_PIN_LOCK" 2>/dev/null) || return 0
	[[ $line =~ ^PID\ [0-9]+\ \((.*),\ for\ (.*),\ since\ [^\)]*\)$ ]] || return 0
	[ "$(realpath -m "${BASH_REMATCH[2]}")" = "$(realpath -m "$1")" ] || return 0
	printf '%s\n' --bool sysctl_pin.pinned=true --str "sysctl_pin.by=${BASH_REMATCH[1]}"
	while read -r k v; do
		[ -n "$k" ] && [ -r "/proc/sys/vm/$k" ] || continue
		printf '%s\n' --int "sysctl_pin.values.$k=$(cat "/proc/sys/vm/$k")" --int "sysctl_pin.originals.$k=$v"
	done < "$SW_PIN_SAVED"
}
