# tests/vm/own_hosts/client.sh - the client guest of test_own_hosts.sh
# (busybox sh): mounts the server's exports by hand, as a user would, then
# runs ./stalewin run from the source tree in the share (bash, jq and the
# project's binaries are in the guest image): three refused commands (a
# directory that is not NFS, a mount of another export, a writer URL no one
# listens on) and the run itself.  Each command's exit code, stdout and
# stderr go to /sw/<name>.{rc,out,err}.
fail() { echo "$*" >/sw/client.failed; echo "client: FAILED: $*"; touch /sw/client.finished; exit 1; }
n=0
while [ ! -e /sw/server.ready ] && [ $n -lt 1800 ]; do
	[ -e /sw/server.failed ] && fail "the server failed: $(cat /sw/server.failed)"
	sleep 0.1; n=$((n + 1))
done
[ -e /sw/server.ready ] || fail "the server was not ready after 180 s"
mkdir -p /mnt/nfs /mnt/other
mount -t nfs -o vers=3,nolock 10.77.0.1:/export/a /mnt/nfs || fail "mount of 10.77.0.1:/export/a failed"
mount -t nfs -o vers=3,nolock 10.77.0.1:/export/b /mnt/other || fail "mount of 10.77.0.1:/export/b failed"
cd /sw/tree || fail "no source tree in the share"
sw() { # NAME ARGS...: ./stalewin run ARGS, recorded
	name=$1; shift
	./stalewin run "$@" --out "/sw/$name" >"/sw/$name.out" 2>"/sw/$name.err"
	echo $? >"/sw/$name.rc"
	echo "client: $name: exit $(cat "/sw/$name.rc")"
}
# (TCG guests: round trips of a few ms, so the clock error bound is raised
# from its 1 ms default; VMs under KVM do not need it)
W="--writer-url http://10.77.0.1:7070 --token-file /sw/token --server nfs://10.77.0.1/export/a --max-clock-err-us 50000"
sw bad-notnfs $W --kernel-mount /tmp --duration 2
sw bad-export $W --kernel-mount /mnt/other --duration 2
sw bad-url $(echo "$W" | sed 's/:7070/:7099/') --kernel-mount /mnt/nfs --duration 2
# eager emulated on the server's tmpfs with a short writeback model (a
# cycle every ~1.5 s: stores are covered, and seen, within the run)
sw run $W --kernel-mount /mnt/nfs --policy eager --duration ${SW_OWN_DURATION:-12} \
	--writeback-ms 500 --expire-ms 1000
umount /mnt/nfs /mnt/other
touch /sw/client.finished
exit 0
