#!/usr/bin/env bash
# Description: Ctrl-C (SIGINT) and SIGTERM in the middle of a validate pair
# restore the host's vm.dirty_writeback_centisecs / dirty_expire_centisecs,
# leave no tmpfs, loop mount or writer behind, and exit 3 (cut short).  A
# validate without its trap shows as sysctls left at the model's values
# (100 / 300) or a mount left in /proc/mounts.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
need_host
before=$(sysctls)
interrupt() { # SIG
	local sig=$1 out pid rc
	out=$(mktemp -d /tmp/sw-validate-int.XXXXXX)
	# job control on: a non-interactive shell starts background jobs
	# with SIGINT ignored, and an ignored signal cannot be trapped
	set -m
	"$V" validate --pairs rewrite-100ms --out "$out/v" >"$out/o" 2>"$out/e" &
	pid=$!
	set +m
	for _ in $(seq 1 200); do  # until the pair's sysctls are in place
		[ "$(sysctls)" != "$before" ] && break
		sleep 0.1
	done
	[ "$(sysctls)" = "100 300" ] || fail "$sig: the pair's sysctls never appeared (saw $(sysctls))"
	sleep 2
	kill -$sig $pid
	wait $pid; rc=$?
	[ $rc -eq 3 ] || fail "$sig: expected exit 3, saw $rc: $(tail -2 "$out/e")"
	[ "$(sysctls)" = "$before" ] || fail "$sig: sysctls not restored: before $before, after $(sysctls)"
	grep -q "interrupted; sysctls restored" "$out/e" || fail "$sig: no interruption message: $(cat "$out/e")"
	! grep -q sw-validate /proc/mounts || fail "$sig: a sw-validate mount was left behind"
	! pgrep -f "$out/v/" >/dev/null || fail "$sig: a writer of the pair still runs"
	rm -rf "$out"
}
for sig in INT TERM; do
	sw_case "$sig" interrupt "$sig"
done
sw_done
