# claim.sh - a run folder taken by one experiment at a time (sourced by
# scripts/stalewin-run and vm/run.sh, never run).
#
# Two experiments on one host (two `run`s, a `run` beside a `vm run`)
# share nothing else by name: ganesha's network namespace is
# sw-gns-PID-RAND, its NFS/MNT ports and the writer's control port
# (127.0.0.1:0) live inside that namespace, the work folders are mktemp's,
# `mount -o loop` takes a free loop device, the guests' link is a unix
# socket in the work folder, the memory-pressure cgroup is sw-run-PID.
# The run folder is the one name two runs could share: the default one
# is made of the clock's second (two runs started in the same second got
# the same folder; the second refused it, exit 2), and two runs given
# one --out both passed the emptiness check and then wrote into it
# (the second failed late and its clean-up copied its server logs over
# the first's).  Here a run folder is claimed before anything is written:
# flock on DIR/.stalewin-claim, which holds the holder's PID, program and
# start time, kept for the run's life by an open descriptor (its
# children inherit it) and removed at the end (sw_claim_release).
#
#   sw_claim_run_dir PROG OUT BASE: OUT set: claim OUT (created if
#     missing); a folder another live run holds is refused naming that
#     run (PID, program, since), one with files as before; return 2.
#     OUT empty: claim BASE, else BASE-2, BASE-3 ... up to BASE-99 (the
#     first free, empty one); return 1 when none is.  Sets SW_CLAIMED (the
#     folder, absolute) and SW_CLAIM_FD.
#   sw_claim_held PROG DIR: DIR claimed whatever it holds (a study that
#     --resume continues): return 2 naming the holder when a live run has it.
#   sw_claim_release: the claim file goes (the descriptor closes at exit).
SW_CLAIMED="" SW_CLAIM_FD="" SW_CLAIM_WHY=""

# sw_claim__try PROG DIR: 0 claimed; 1 held, 4 an error (SW_CLAIM_WHY
# says why); 3 not empty.  (Not in a subshell: the descriptor is ours.)
sw_claim__try() {
	local prog=$1 d=$2 f fd i j held
	SW_CLAIM_WHY=""
	mkdir -p "$d" 2>/dev/null || { SW_CLAIM_WHY="cannot create $d"; return 4; }
	f=$d/.stalewin-claim
	for ((i = 0; i < 5; i++)); do
		exec {fd}>>"$f" || { SW_CLAIM_WHY="cannot open $f"; return 4; }
		if ! flock -n "$fd"; then
			# (the holder writes its name just after its flock: wait for it)
			for ((j = 0; j < 20; j++)); do
				held=$(tr -d '\n' < "$f" 2>/dev/null)
				[ -z "$held" ] || break
				sleep 0.05
			done
			eval "exec $fd>&-"
			SW_CLAIM_WHY="held by ${held:-a process that has not yet written its name} (the lock $f)"
			return 1
		fi
		# the holder before us removed the file after we opened it: ours
		# is then a lock on a file no one else sees; take the new one
		# (/proc, not /dev/fd: a minimal guest, as own-hosts runs, has no
		# /dev/fd)
		[ "$f" -ef "/proc/$BASHPID/fd/$fd" ] && break
		eval "exec $fd>&-"
		fd=""
	done
	[ -n "$fd" ] || { SW_CLAIM_WHY="its lock $f kept changing under us"; return 1; }
	if [ "${SW_CLAIM_ANY:-0}" = 0 ] && [ -n "$(find "$d" -mindepth 1 -maxdepth 1 ! -name .stalewin-claim -print -quit)" ]; then
		eval "exec $fd>&-"
		return 3
	fi
	printf 'PID %s (%s, since %s)\n' "$$" "$prog" "$(date -u +%FT%TZ)" > "$f"
	SW_CLAIMED=$(cd "$d" && pwd) SW_CLAIM_FD=$fd
}

sw_claim_run_dir() { # PROG OUT BASE
	local prog=$1 out=$2 base=$3 d rc n
	if [ -n "$out" ]; then
		sw_claim__try "$prog" "$out" && return 0
		rc=$?
		case $rc in
		1) echo "$prog: run folder $out is in use by another run, $SW_CLAIM_WHY: pass another --out" >&2 ;;
		3) echo "$prog: run folder $out exists and is not empty; pass another --out" >&2 ;;
		*) echo "$prog: $SW_CLAIM_WHY" >&2 ;;
		esac
		return 2
	fi
	for ((n = 1; n < 100; n++)); do
		d=$base; [ $n = 1 ] || d=$base-$n
		sw_claim__try "$prog" "$d" && return 0
		[ $? != 4 ] || { echo "$prog: $SW_CLAIM_WHY" >&2; return 1; }
	done
	echo "$prog: no free run folder among $base, $base-2 ... $base-99 (each held by a run or not empty): pass --out" >&2
	return 1
}

sw_claim_held() { # PROG DIR
	SW_CLAIM_ANY=1 sw_claim__try "$1" "$2" && return 0
	echo "$1: $2 is in use by another run, $SW_CLAIM_WHY" >&2
	return 2
}

sw_claim_release() {
	[ -n "$SW_CLAIM_FD" ] || return 0
	rm -f "$SW_CLAIMED/.stalewin-claim"
	eval "exec $SW_CLAIM_FD>&-"
	SW_CLAIM_FD=""
}
