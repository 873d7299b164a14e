# tests/vm/own_hosts/server.sh - the server guest of test_own_hosts.sh
# (busybox sh, run by /init from the share), set up by hand as a user sets
# up their own server: knfsd exporting two tmpfs (/export/a for the run,
# /export/b for the wrong-export case), then `stalewin-writer serve` with
# its root on /export/a.  The token goes to the share (a user copies it to
# the client).  Waits until the client says it finished.
. /opt/stalewin/guest/knfsd.sh
fail() { echo "$*" >/sw/server.failed; echo "server: FAILED: $*"; exit 1; }
mkdir -p /export/a /export/b
mount -t tmpfs -o size=128m tmpfs /export/a && mount -t tmpfs -o size=16m tmpfs /export/b ||
	fail "cannot mount the two tmpfs exports"
sw_knfsd_up /export/a /export/b >/tmp/knfsd.log 2>&1 || fail "knfsd: $(tail -n 3 /tmp/knfsd.log | tr '\n' ' ')"
mkdir -p /tmp/runs
# the guests' private link (vm/guest/server.sh says why plain HTTP there)
stalewin-writer serve --listen 10.77.0.1:7070 --token-file /tmp/token --root /export/a \
	--insecure-private-link --allow 10.77.0.2 --runs /tmp/runs >/sw/serve.log 2>&1 &
sp=$!
n=0
while [ ! -s /tmp/token ] && kill -0 $sp 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
[ -s /tmp/token ] || fail "stalewin-writer serve did not start: $(tail -n 2 /sw/serve.log | tr '\n' ' ')"
cp /tmp/token /sw/token
echo "server: knfsd and stalewin-writer serve up at uptime $(cut -d' ' -f1 /proc/uptime)s"
touch /sw/server.ready
n=0
while [ ! -e /sw/client.finished ] && [ $n -lt 6000 ]; do sleep 0.1; n=$((n + 1)); done
kill $sp 2>/dev/null
exportfs -ua 2>/dev/null
exit 0
