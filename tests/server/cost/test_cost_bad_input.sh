#!/usr/bin/env bash
# Description: bad input to `./stalewin cost` and `stalewin-cost`, each
# refused before anything runs with exit 2 and a message saying what was
# expected and what was seen: an unknown fs or policy, threads 0 or 65, a
# policy the kernel does not offer (a stock kernel with deferred, a
# patched kernel with stock), an unknown --query, --query nfs with --host
# (no knfsd and client guest there), --query-rate without --query nfs or
# 0, an unknown kernel,
# --host with --kernel, --host without root (as nobody, when root);
# stalewin-cost measure on a directory of another filesystem than --fs,
# or with a patched policy on a kernel without vm.mmap_cmtime_policy (the
# host's, when it has none), --client-poll without --query-rate;
# stalewin-cost poll at rate 0; stalewin-cost table on a file of no rows.  A
# broken front shows as exit 0/1, a guest booted, or a message that names
# neither the expectation nor the input.
. "$(dirname "$0")/../../lib/test-lib.sh"
set -u
top=${SW_SOURCE_DIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
C=${SW_BUILD_DIR:?}/server/stalewin-cost
[ -x "$C" ] || { fail "expected $C, saw none"; sw_done; }
T=$(mktemp -d /tmp/sw-cost-bad-XXXXXX)
trap 'rm -rf "$T"' EXIT
# expect2 SEEN CMD...: exit 2, "expected" and SEEN in the message
expect2() {
	local seen=$1 err rc; shift
	err=$(SW_NO_BUILD=1 "$@" 2>&1 >/dev/null); rc=$?
	if [ $rc -ne 2 ] || ! grep -qE 'expected|offers' <<<"$err" ||
		! grep -qF -- "$seen" <<<"$err"; then
		fail "$*: expected exit 2 and a message naming '$seen', saw exit $rc: $err"
	else
		echo "exit 2: $err"
	fi
}
front() {
	expect2 "saw 'zfs'" "$top/stalewin" cost --fs zfs --out "$T/o1"
	expect2 "saw 'sloppy'" "$top/stalewin" cost --policy sloppy --out "$T/o2"
	expect2 "saw '0'" "$top/stalewin" cost --threads 0 --out "$T/o3"
	expect2 "saw '65'" "$top/stalewin" cost --threads 65 --out "$T/o4"
	expect2 "offers stock, saw deferred" "$top/stalewin" cost --kernel 6.1 --policy deferred --out "$T/o5"
	expect2 "offers eager deferred lang, saw stock" "$top/stalewin" cost --kernel patched --policy stock --out "$T/o6"
	expect2 "saw 'nsf'" "$top/stalewin" cost --query nsf --out "$T/o7"
	expect2 "with --host, expected none or statx" "$top/stalewin" cost --host --query nfs --out "$T/o11"
	expect2 "saw it with --query none" "$top/stalewin" cost --query-rate 50 --out "$T/o12"
	expect2 "saw '0'" "$top/stalewin" cost --query nfs --query-rate 0 --out "$T/o13"
	expect2 "saw '5.4'" "$top/stalewin" cost --kernel 5.4 --out "$T/o8"
	expect2 "saw --kernel 7.2" "$top/stalewin" cost --host --kernel 7.2 --out "$T/o9"
	if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
		chmod 755 "$T"
		expect2 "expected root" setpriv --reuid 65534 --regid 65534 --clear-groups \
			"$top/stalewin" cost --host --out "$T/o10"
	fi
	local made
	made=$(cd "$T" && ls -d o* 2>/dev/null | tr '\n' ' ')
	[ -z "$made" ] || fail "expected every refusal before anything ran, saw --out folders made (a guest booted?): $made"
}
measurer() {
	local other
	mkdir -p "$T/m"
	other=$(stat -f -c %T "$T/m")
	[ "$other" = tmpfs ] || expect2 "saw magic" "$C" measure --dir "$T/m" --fs tmpfs --policy stock --no-trace
	expect2 "saw '0'" "$C" measure --dir "$T/m" --fs tmpfs --policy stock --threads 0
	expect2 "saw no --query-rate" "$C" measure --dir "$T/m" --fs tmpfs --policy stock --client-poll "$T/m"
	expect2 "saw '0'" "$C" poll --path "$T/m/x" --rate 0 --ctl "$T/m"
	expect2 "saw 'btrfsx'" "$C" measure --dir "$T/m" --fs btrfsx --policy stock --no-trace
	if [ ! -e /proc/sys/vm/mmap_cmtime_policy ]; then
		expect2 "offers only stock" "$C" measure --dir "$T/m" --fs "$other" --policy deferred --no-trace
	fi
	echo '{"not": "a row"}' >"$T/bad.jsonl"
	expect2 "bad.jsonl:1" "$C" table "$T/bad.jsonl"
}
sw_case front front
sw_case measurer measurer
sw_done "bad input refused with exit 2, expected and seen"
