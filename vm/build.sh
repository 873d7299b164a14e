#!/usr/bin/env bash
# vm/build.sh - build (or find in the cache) what a stalewin guest boots:
#   kernel    Debian's stock linux-image-6.1.0-N-amd64 (apt-get download,
#             dpkg-deb -x, never installed), its ELF vmlinux extracted from
#             vmlinuz (PVH boot), and a cpio of the module closure the
#             guests need (virtio, 9p, ext4, nfsd, nfs v3/v4);
#   userland  busybox-static, rpc.nfsd/rpc.mountd/exportfs (nfs-kernel-server
#             .deb, unpacked), rpcbind, mount.nfs, their ldd closure, /init;
#   project   stalewin-writer/-probe/-reader/-ctl/-logdump from the host's
#             build dir and their ldd closure (host and guest are Debian 12).
# Each part is cached under $SW_VM_CACHE (default /var/cache/stalewin/vm),
# keyed by a hash of its inputs (package versions, these scripts, the
# binaries), and rebuilt only when they change.
#
#   vm/build.sh [--kernel VMLINUX|NAME] [--build-dir DIR] [--quiet]
# prints shell assignments: SW_VM_VMLINUX= SW_VM_INITRD= SW_VM_KVER=
# SW_VM_KERNEL_DESC= SW_VM_BINS= (project binaries found) SW_VM_KPKG=
# (package=version of a Debian kernel).
# NAME (vm_kernel_names in lib.sh): stock or 6.1 = bookworm's
# linux-image-amd64 through the host's apt; 6.12 = trixie's, 7.2 = sid's
# linux-image-amd64, fetched with vm/apt-private (the host's apt
# configuration untouched); the release must start with NAME.
# With --kernel, that ELF (e.g. a patched kernel with the drivers built in)
# is used and no modules are loaded (unless its version matches the stock
# modules, which are then included).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

kernel= build_dir=${SW_BUILD_DIR:-$SW_TOP/build}
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=${2:?}; shift 2 ;;
	--build-dir) build_dir=${2:?}; shift 2 ;;
	--quiet) SW_VM_QUIET=1; shift ;;
	-h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) vm_usage_die "build: unknown option '$1' (expected --kernel, --build-dir, --quiet)" ;;
	esac
done

# Modules per guest role (loading costs ~0.1 s each under TCG, so each
# role loads only its own: sw-insmod-ROLE.list; boot-one loads all).
SW_MODS_common="virtio_pci virtio_net virtio_blk virtio_rng 9pnet_virtio 9p"
# A trailing ? marks a module some kernels do not have (built in or gone).
# xfs and btrfs are loaded by the server guest only when it mounts them
# (sw-insmod-fs-FS.list): btrfs pulls raid6/xor, whose benchmarks cost
# seconds under TCG.
SW_MODS_server="ext4 crc32c_generic? nfsd"
SW_MODS_client="nfsv3 nfsv4"
SW_MODS_all="$SW_MODS_common $SW_MODS_server $SW_MODS_client"
SW_MODS_FS="xfs btrfs"
# device-mapper's flakey target (and dm_mod), loaded by the server guest
# only for --fault io-error (sw-insmod-dm.list; empty when the kernel
# has no such module: the guest then says so)
SW_MODS_dm="dm_flakey?"
# macvlan, loaded by the client guest only for vm run --ns-clients (one
# macvlan on eth0 per network namespace: sw-insmod-ns.list)
SW_MODS_ns="macvlan"
mkdir -p "$SW_VM_CACHE" 2>/dev/null || vm_die "cannot create the cache $SW_VM_CACHE (set SW_VM_CACHE to a writable directory)"
vm_space_check "$SW_VM_CACHE" 400
# one builder at a time (several runs/tests may start together); a cache
# hit holds the lock ~0.2 s
exec 9>"$SW_VM_CACHE/.build.lock"
flock -w 600 9 || vm_die "waited 600 s for the cache lock $SW_VM_CACHE/.build.lock"
scripts_hash=$(cat "$SW_VM_DIR/lib.sh" "$SW_VM_DIR/build.sh" "$SW_VM_DIR/init" "$SW_VM_DIR"/guest/*.sh | vm_hash)

# ---------------------------------------------------------------- kernel
# module closure of M (lines "insmod PATH"); M? may be missing
mod_closure() { # ROOT KVER M PKG
	local m=${3%\?}
	if ! modprobe -d "$1" -S "$2" --show-depends "$m" 2>/dev/null; then
		[ "$m" != "$3" ] && return 0
		vm_die "module $m not found in $4 (expected in lib/modules/$2)"
	fi
}
# build_kernel_part PKG VER FETCH...: the kernel cache part of a Debian
# linux-image package; FETCH... PKG=VER prints the .deb's path.
build_kernel_part() {
	local pkg=$1 ver=$2 key dir tmp deb kver m f role list
	shift 2
	key=$(echo "$pkg $ver $kernel_hash" | vm_hash)
	dir=$SW_VM_CACHE/kernel-$key
	if [ ! -f "$dir/done" ]; then
		vm_log "building the kernel part ($pkg $ver) in $dir"
		deb=$("$@" "$pkg=$ver") || exit 1
		rm -rf "$dir"; tmp=$(mktemp -d "$SW_VM_CACHE/.kernel.XXXXXX")
		dpkg-deb -x "$deb" "$tmp/root" || vm_die "dpkg-deb -x $deb failed"
		# sid (7.x) splits the image: linux-image-X depends on
		# linux-binary-X (vmlinuz), linux-modules-X and linux-base-X (config,
		# modules.builtin) of the same version
		for dep in $(dpkg-deb -f "$deb" Depends | tr ',' '\n' |
			sed -n 's/^ *\(linux-\(binary\|modules\|base\)-[0-9][^ ]*\) (= \([^)]*\)).*/\1=\3/p'); do
			deb=$("$@" "$dep") || exit 1
			dpkg-deb -x "$deb" "$tmp/root" || vm_die "dpkg-deb -x $deb failed"
		done
		if [ ! -d "$tmp/root/lib/modules" ] && [ -d "$tmp/root/usr/lib/modules" ]; then
			mkdir -p "$tmp/root/lib" && ln -s ../usr/lib/modules "$tmp/root/lib/modules"
		fi
		kver=$(ls "$tmp/root/lib/modules" 2>/dev/null | sed -n 1p || true)
		[ -n "$kver" ] || vm_die "$pkg $ver has no lib/modules/VERSION (unpacked: $(cd "$tmp/root" && find . -maxdepth 3 | head -8 | tr '\n' ' '))"
		# 7.x: the image and config live in lib/modules/VERSION/
		mkdir -p "$tmp/root/boot"
		for f in vmlinuz config; do
			[ -f "$tmp/root/boot/$f-$kver" ] || [ ! -f "$tmp/root/lib/modules/$kver/$f" ] ||
				cp "$tmp/root/lib/modules/$kver/$f" "$tmp/root/boot/$f-$kver"
		done
		[ -f "$tmp/root/boot/vmlinuz-$kver" ] || vm_die "$pkg $ver has no boot/vmlinuz-$kver nor lib/modules/$kver/vmlinuz"
		vm_extract_vmlinux "$tmp/root/boot/vmlinuz-$kver" "$tmp/vmlinux" ||
			vm_die "found no ELF payload in $tmp/root/boot/vmlinuz-$kver"
		depmod -b "$tmp/root" "$kver" || vm_die "depmod -b failed for $kver"
		mkdir -p "$tmp/mods/lib/modules/$kver"
		for role in all server client dm ns $(printf 'fs-%s ' $SW_MODS_FS); do
			case "$role" in
			fs-*) list=${role#fs-} ;;
			dm) list=$SW_MODS_dm ;;
			ns) list=$SW_MODS_ns ;;
			*) eval "list=\"\$SW_MODS_common \$SW_MODS_$role\"" ;;
			esac
			for m in $list; do mod_closure "$tmp/root" "$kver" "$m" "$pkg $ver"; done |
				awk '$1=="insmod"{ if (!seen[$2]++) print $2 }' >"$tmp/$role.list"
			# busybox insmod cannot read compressed modules: decompressed below
			sed -e "s#^$tmp/root##" -e 's/\.ko\.\(xz\|zst\|gz\)$/.ko/' "$tmp/$role.list" \
				>"$tmp/mods/lib/modules/sw-insmod-$role.list"
		done
		cat "$tmp"/*.list | sort -u | while read -r f; do
			rel=${f#$tmp/root}
			mkdir -p "$tmp/mods$(dirname "$rel")"
			case "$f" in
			*.ko.xz) xz -dc "$f" >"$tmp/mods${rel%.xz}" ;;
			*.ko.zst) zstd -qdc "$f" >"$tmp/mods${rel%.zst}" ;;
			*.ko.gz) gzip -dc "$f" >"$tmp/mods${rel%.gz}" ;;
			*) cp "$f" "$tmp/mods$rel" ;;
			esac || vm_die "cannot decompress $f"
		done
		# modules.dep & co of the decompressed set, so the kernel's
		# request_module (busybox modprobe) finds what mount asks for
		cp "$tmp/root/lib/modules/$kver"/modules.{builtin,builtin.modinfo,order} \
			"$tmp/mods/lib/modules/$kver/" 2>/dev/null || true
		depmod -b "$tmp/mods" "$kver" || vm_die "depmod -b failed for the module subset of $kver"
		mkdir -p "$dir"
		vm_cpio "$tmp/mods" "$dir/modules.cpio"
		mv "$tmp/vmlinux" "$dir/vmlinux"
		cp "$tmp/root/boot/config-$kver" "$dir/config" 2>/dev/null || : >"$dir/config"
		echo "$kver" >"$dir/kver"
		echo "$pkg $ver" >"$dir/package"
		rm -rf "$tmp"
		touch "$dir/done"
		# several kernels are in use at once (the matrix): keep 8
		ls -dt "$SW_VM_CACHE"/kernel-*/ 2>/dev/null | tail -n +9 | xargs -r rm -rf
	fi
	SW_VM_VMLINUX=$dir/vmlinux
	SW_VM_KVER=$(cat "$dir/kver")
	SW_VM_KPKG="$pkg=$ver"
	SW_VM_KERNEL_DESC="Debian $(cat "$dir/package") (stock, modules)"
	mods_cpio=$dir/modules.cpio
}
build_stock_kernel() { build_kernel_part "$SW_KPKG" "$SW_KPKG_VER" vm_fetch_deb_spec; }
vm_fetch_deb_spec() { vm_fetch_deb "${1%%=*}" "${1#*=}"; }
# NAME (6.12, 7.2) -> the suite's linux-image-amd64 dependency
build_named_kernel() {
	local name=$1 suite meta ver pkg
	suite=$(vm_kernel_suite "$name")
	# SW_VM_KERNEL_META: tests only (a package that cannot be fetched)
	meta=$("$SW_VM_DIR/apt-private" "$suite" show "${SW_VM_KERNEL_META:-linux-image-amd64}") ||
		vm_die "kernel $name: cannot fetch ${SW_VM_KERNEL_META:-linux-image-amd64} from Debian $suite (above)"
	pkg=$(echo "$meta" | grep -m1 '^Depends:' | grep -o 'linux-image-[0-9][^ ,]*-amd64 (= [^)]*)' | sed -n 1p)
	[ -n "$pkg" ] || vm_die "kernel $name: $suite's linux-image-amd64 depends on no linux-image-N-amd64 ($(echo "$meta" | grep -m1 '^Depends:'))"
	ver=$(echo "$pkg" | sed 's/.*(= \(.*\))/\1/') pkg=${pkg%% *}
	case "${pkg#linux-image-}" in
	"$name".*|"$name"-*) ;;
	*) vm_die "kernel $name: $suite's linux-image-amd64 is now $pkg $ver, not $name (update vm_kernel_suite in vm/lib.sh)" ;;
	esac
	build_kernel_part "$pkg" "$ver" "$SW_VM_DIR/apt-private" "$suite" download
}

# --------------------------------------------------------------- userland
build_userland() {
	local vers key tmp deb r f p
	vers=""
	for p in busybox-static rpcbind nfs-common libc6 libtirpc3 kmod xfsprogs btrfs-progs e2fsprogs dmsetup iproute2; do
		vers+="$p=$(vm_pkg_installed "$p") "
	done
	[ -x /bin/busybox ] && busybox --list | grep -x insmod >/dev/null ||
		vm_die "busybox-static is not installed (scripts/packages.d/vm.txt; ./stalewin setup)"
	[ -x /sbin/rpcbind ] || vm_die "rpcbind is not installed (scripts/packages.d/vm.txt)"
	[ -x /sbin/mount.nfs ] || vm_die "mount.nfs (nfs-common) is not installed (scripts/packages.d/vm.txt)"
	p=nfs-kernel-server
	vers+="$p=$SW_NKS_VER"
	key=$(echo "$vers $scripts_hash" | vm_hash)
	userland_cpio=$SW_VM_CACHE/userland-$key.cpio
	[ -f "$userland_cpio" ] && return 0
	vm_log "building the guest userland ($vers)"
	deb=$(vm_fetch_deb nfs-kernel-server "$SW_NKS_VER")
	tmp=$(mktemp -d "$SW_VM_CACHE/.userland.XXXXXX")
	dpkg-deb -x "$deb" "$tmp/nks"
	r=$tmp/root
	mkdir -p "$r"/{bin,sbin,etc,proc,sys,dev,tmp,run,sw,mnt,var/lib/nfs/nfsdcld,usr/sbin,lib64}
	cp /bin/busybox "$r/bin/busybox"
	cp "$SW_VM_DIR/init" "$r/init"; chmod 755 "$r/init"
	mkdir -p "$r/opt/stalewin/guest"
	cp "$SW_VM_DIR"/guest/*.sh "$r/opt/stalewin/guest/"
	# nfsdcld: kernels without legacy client tracking (7.x) refuse to end
	# the v4 grace period early unless the tracking daemon runs
	for f in rpc.nfsd rpc.mountd exportfs nfsdcld; do
		vm_copy_with_libs "$r" "$tmp/nks/usr/sbin/$f" "/usr/sbin/$f"
	done
	vm_copy_with_libs "$r" /sbin/rpcbind
	vm_copy_with_libs "$r" /sbin/mount.nfs
	ln -s mount.nfs "$r/sbin/mount.nfs4"
	# mkfs for the server's xfs and btrfs disks (absent on the host: the
	# guest says so when that filesystem is asked for)
	for f in /sbin/mkfs.xfs /sbin/mkfs.btrfs; do
		[ -x "$f" ] && vm_copy_with_libs "$r" "$f"
	done
	# dmsetup for --fault io-error (the export's disk under a dm table);
	# absent on the host: the guest says so when that fault is asked for
	[ -x /sbin/dmsetup ] && vm_copy_with_libs "$r" /sbin/dmsetup
	# vm run --ns-clients: iproute2's ip as sw-ip (busybox's has no
	# netns nor macvlan); busybox's nsenter and unshare do the rest
	[ ! -x /sbin/ip ] || vm_copy_with_libs "$r" /sbin/ip /usr/local/sbin/sw-ip
	vm_copy_with_libs "$r" /sbin/rpcinfo 2>/dev/null || vm_copy_with_libs "$r" /usr/sbin/rpcinfo 2>/dev/null || true
	# what `./stalewin run` (bash) needs beyond busybox, as on a user's VM:
	# bash, jq, coreutils' date (+%N) and numfmt, util-linux's flock (the
	# run folder's claim, scripts/lib/claim.sh) (tests/vm/test_own_hosts.sh)
	for f in /bin/bash /usr/bin/jq /bin/date /usr/bin/numfmt /usr/bin/flock; do vm_copy_with_libs "$r" "$f"; done
	cp /etc/netconfig "$r/etc/netconfig"  # libtirpc refuses to work without it
	cp /etc/services /etc/protocols "$r/etc/"
	cp /etc/rpc "$r/etc/rpc" 2>/dev/null || true
	cat >"$r/etc/passwd" <<'PW'
root:x:0:0:root:/root:/bin/sh
_rpc:x:100:65534::/run/rpcbind:/bin/false
statd:x:101:65534::/var/lib/nfs:/bin/false
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
PW
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$r/etc/group"
	printf 'passwd: files\ngroup: files\nhosts: files\nservices: files\nrpc: files\nprotocols: files\n' >"$r/etc/nsswitch.conf"
	printf '127.0.0.1 localhost\n10.77.0.1 sw-server\n10.77.0.2 sw-client\n' >"$r/etc/hosts"
	: >"$r/etc/exports"; : >"$r/etc/fstab"
	ln -s /proc/mounts "$r/etc/mtab"
	touch "$r/var/lib/nfs/etab" "$r/var/lib/nfs/rmtab"
	vm_cpio "$r" "$userland_cpio"
	rm -rf "$tmp"
	ls -t "$SW_VM_CACHE"/userland-*.cpio 2>/dev/null | tail -n +3 | xargs -r rm -f
}

# ---------------------------------------------------------------- project
build_project() {
	local b key tmp f found=""
	for b in server/stalewin-writer server/stalewin-cost client/stalewin-probe client/stalewin-reader \
		client/stalewin-ctl common/stalewin-logdump common/stalewin-runfolder \
		client/stalewin-progress analysis/stalewin-report; do
		[ -x "$build_dir/$b" ] && found+="$build_dir/$b "
	done
	SW_VM_BINS=$(for f in $found; do basename "$f"; done | tr '\n' ' ')
	key=$( (echo "$scripts_hash"; for f in $found; do echo "$f"; cat "$f"; done) | vm_hash)
	proj_cpio=$SW_VM_CACHE/project-$key.cpio
	[ -f "$proj_cpio" ] && return 0
	vm_log "packing the project's binaries from $build_dir: ${SW_VM_BINS:-none}"
	tmp=$(mktemp -d "$SW_VM_CACHE/.project.XXXXXX")
	mkdir -p "$tmp/opt/stalewin/bin"
	for f in $found; do
		vm_copy_with_libs "$tmp" "$f" "/opt/stalewin/bin/$(basename "$f")"
	done
	vm_cpio "$tmp" "$proj_cpio"
	rm -rf "$tmp"
	# keep the cache small: the last 4 project archives
	ls -t "$SW_VM_CACHE"/project-*.cpio 2>/dev/null | tail -n +5 | xargs -r rm -f
}

# a kernel part depends on how it is made, not on every edit of these files
kernel_hash=$( (declare -f build_kernel_part mod_closure vm_extract_vmlinux vm_cpio
	echo "$SW_MODS_common|$SW_MODS_server|$SW_MODS_client|$SW_MODS_FS|$SW_MODS_dm|$SW_MODS_ns") | vm_hash)
vm_apt_facts
mods_cpio= SW_VM_KPKG=
if [ -n "$kernel" ] && vm_kernel_known "$kernel"; then
	case "$kernel" in
	stock|6.1) build_stock_kernel ;;
	*) build_named_kernel "$kernel" ;;
	esac
elif [ -n "$kernel" ]; then
	case "$kernel" in */*|*.*) ;; *) vm_usage_die "--kernel: unknown kernel name '$kernel' (known: $vm_kernel_names, or a path to an ELF vmlinux)" ;; esac
	[ -f "$kernel" ] || vm_usage_die "--kernel: expected an ELF vmlinux or one of $vm_kernel_names, no file at $kernel"
	[ "$(head -c 4 "$kernel" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] ||
		vm_usage_die "--kernel: expected an ELF vmlinux (PVH), $kernel is not ELF (a bzImage? give the vmlinux from the build folder)"
	ukver=$(grep -a -m1 -o 'Linux version [^ ]*' "$kernel" | awk '{print $3}' || true)
	build_stock_kernel # cached: tells the stock version and its modules
	if [ -n "$ukver" ] && [ "$ukver" = "$SW_VM_KVER" ]; then
		SW_VM_KERNEL_DESC="user kernel $(realpath "$kernel") ($ukver, the stock modules)"
	else
		mods_cpio=
		SW_VM_KERNEL_DESC="user kernel $(realpath "$kernel") (${ukver:-unknown version}, drivers built in)"
	fi
	SW_VM_VMLINUX=$(realpath "$kernel")
	SW_VM_KVER=$ukver SW_VM_KPKG=
else
	build_stock_kernel
fi
build_userland
build_project
key=$(cat $mods_cpio "$userland_cpio" "$proj_cpio" /dev/null 2>/dev/null | wc -c)
key=$(echo "$mods_cpio $userland_cpio $proj_cpio $key" | vm_hash)
initrd=$SW_VM_CACHE/initrd-$key.cpio
if [ ! -f "$initrd" ]; then
	cat $mods_cpio "$userland_cpio" "$proj_cpio" >"$initrd.tmp" && mv "$initrd.tmp" "$initrd"
	ls -t "$SW_VM_CACHE"/initrd-*.cpio 2>/dev/null | tail -n +7 | xargs -r rm -f # a matrix uses 3 at once
fi
printf 'SW_VM_VMLINUX=%q\nSW_VM_INITRD=%q\nSW_VM_KVER=%q\nSW_VM_KERNEL_DESC=%q\nSW_VM_BINS=%q\nSW_VM_KPKG=%q\n' \
	"$SW_VM_VMLINUX" "$initrd" "$SW_VM_KVER" "$SW_VM_KERNEL_DESC" "$SW_VM_BINS" "$SW_VM_KPKG"
