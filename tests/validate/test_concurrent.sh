#!/usr/bin/env bash
# Description: two `stalewin validate` started together on one host: the
# second waits for the first (flock), so it does not take the first one's
# pinned sysctls (100 / 300) for the host's originals and leave them
# behind.  Without the lock the host ends at 100 / 300.
set -u
. "$(dirname "$0")/../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
host_test conc
"$V" validate --pairs rewrite-700ms --out "$out/a" >"$out/oa" 2>"$out/ea" &
a=$!
for _ in $(seq 1 200); do [ "$(sysctls)" != "$before" ] && break; sleep 0.1; done
"$V" validate --pairs rewrite-700ms --out "$out/b" >"$out/ob" 2>"$out/eb" &
b=$!
wait $a; wait $b
grep -q "another validate holds" "$out/eb" || fail "the second validate did not wait for the first: $(cat "$out/eb")"
[ "$(sysctls)" = "$before" ] || fail "sysctls not restored after two validates: before $before, after $(sysctls)"
sw_done
