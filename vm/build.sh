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
#   vm/build.sh [--kernel VMLINUX] [--build-dir DIR] [--quiet]
# prints shell assignments: SW_VM_VMLINUX= SW_VM_INITRD= SW_VM_KVER=
# SW_VM_KERNEL_DESC= SW_VM_BINS= (project binaries found).
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
SW_MODS_server="ext4 crc32c_generic nfsd"
SW_MODS_client="nfsv3 nfsv4"
SW_MODS_all="$SW_MODS_common $SW_MODS_server $SW_MODS_client"
mkdir -p "$SW_VM_CACHE" 2>/dev/null || vm_die "cannot create the cache $SW_VM_CACHE (set SW_VM_CACHE to a writable directory)"
vm_space_check "$SW_VM_CACHE" 400
# one builder at a time (several runs/tests may start together); a cache
# hit holds the lock ~0.2 s
exec 9>"$SW_VM_CACHE/.build.lock"
flock -w 600 9 || vm_die "waited 600 s for the cache lock $SW_VM_CACHE/.build.lock"
kernel_hash=$(cat "$SW_VM_DIR/lib.sh" "$SW_VM_DIR/build.sh" | vm_hash)
scripts_hash=$(cat "$SW_VM_DIR/lib.sh" "$SW_VM_DIR/build.sh" "$SW_VM_DIR/init" "$SW_VM_DIR"/guest/*.sh | vm_hash)

# ---------------------------------------------------------------- kernel
build_stock_kernel() {
	local pkg ver key dir tmp deb kver m
	pkg=$SW_KPKG ver=$SW_KPKG_VER
	key=$(echo "$pkg $ver $kernel_hash" | vm_hash)
	dir=$SW_VM_CACHE/kernel-$key
	if [ ! -f "$dir/done" ]; then
		vm_log "building the stock kernel part ($pkg $ver) in $dir"
		deb=$(vm_fetch_deb "$pkg" "$ver")
		rm -rf "$dir"; tmp=$(mktemp -d "$SW_VM_CACHE/.kernel.XXXXXX")
		dpkg-deb -x "$deb" "$tmp/root" || vm_die "dpkg-deb -x $deb failed"
		kver=$(ls "$tmp/root/lib/modules" | sed -n 1p)
		[ -n "$kver" ] || vm_die "$deb has no lib/modules/VERSION"
		vm_extract_vmlinux "$tmp/root/boot/vmlinuz-$kver" "$tmp/vmlinux" ||
			vm_die "found no ELF payload in $tmp/root/boot/vmlinuz-$kver"
		depmod -b "$tmp/root" "$kver" || vm_die "depmod -b failed for $kver"
		mkdir -p "$tmp/mods/lib/modules/$kver"
		for role in all server client; do
			eval "list=\"\$SW_MODS_common \$SW_MODS_$role\""
			for m in $list; do
				modprobe -d "$tmp/root" -S "$kver" --show-depends "$m" ||
					vm_die "module $m not found in $pkg"
			done | awk '$1=="insmod"{ if (!seen[$2]++) print $2 }' >"$tmp/$role.list"
			sed "s#^$tmp/root##" "$tmp/$role.list" >"$tmp/mods/lib/modules/sw-insmod-$role.list"
		done
		while read -r f; do
			mkdir -p "$tmp/mods$(dirname "${f#$tmp/root}")"
			cp "$f" "$tmp/mods${f#$tmp/root}"
		done <"$tmp/all.list"
		# modules.dep & co so the kernel's request_module (busybox
		# modprobe) finds what mount asks for by alias
		cp "$tmp/root/lib/modules/$kver"/modules.{dep,alias,symbols,builtin,order} \
			"$tmp/mods/lib/modules/$kver/" 2>/dev/null || true
		mkdir -p "$dir"
		vm_cpio "$tmp/mods" "$dir/modules.cpio"
		mv "$tmp/vmlinux" "$dir/vmlinux"
		cp "$tmp/root/boot/config-$kver" "$dir/config"
		echo "$kver" >"$dir/kver"
		echo "$pkg $ver" >"$dir/package"
		rm -rf "$tmp"
		touch "$dir/done"
		ls -dt "$SW_VM_CACHE"/kernel-*/ 2>/dev/null | tail -n +3 | xargs -r rm -rf
	fi
	SW_VM_VMLINUX=$dir/vmlinux
	SW_VM_KVER=$(cat "$dir/kver")
	SW_VM_KERNEL_DESC="Debian $(cat "$dir/package") (stock, modules)"
	mods_cpio=$dir/modules.cpio
}

# --------------------------------------------------------------- userland
build_userland() {
	local vers key tmp deb r f p
	vers=""
	for p in busybox-static rpcbind nfs-common libc6 libtirpc3 kmod; do
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
	mkdir -p "$r"/{bin,sbin,etc,proc,sys,dev,tmp,run,sw,mnt,var/lib/nfs,usr/sbin,lib64}
	cp /bin/busybox "$r/bin/busybox"
	cp "$SW_VM_DIR/init" "$r/init"; chmod 755 "$r/init"
	mkdir -p "$r/opt/stalewin/guest"
	cp "$SW_VM_DIR"/guest/*.sh "$r/opt/stalewin/guest/"
	for f in rpc.nfsd rpc.mountd exportfs; do
		vm_copy_with_libs "$r" "$tmp/nks/usr/sbin/$f" "/usr/sbin/$f"
	done
	vm_copy_with_libs "$r" /sbin/rpcbind
	vm_copy_with_libs "$r" /sbin/mount.nfs
	ln -s mount.nfs "$r/sbin/mount.nfs4"
	vm_copy_with_libs "$r" /sbin/rpcinfo 2>/dev/null || vm_copy_with_libs "$r" /usr/sbin/rpcinfo 2>/dev/null || true
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
	for b in server/stalewin-writer client/stalewin-probe client/stalewin-reader \
		client/stalewin-ctl common/stalewin-logdump; do
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

vm_apt_facts
mods_cpio=
if [ -n "$kernel" ]; then
	[ -f "$kernel" ] || vm_usage_die "--kernel: expected an ELF vmlinux, no file at $kernel"
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
	SW_VM_KVER=$ukver
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
	ls -t "$SW_VM_CACHE"/initrd-*.cpio 2>/dev/null | tail -n +5 | xargs -r rm -f
fi
printf 'SW_VM_VMLINUX=%q\nSW_VM_INITRD=%q\nSW_VM_KVER=%q\nSW_VM_KERNEL_DESC=%q\nSW_VM_BINS=%q\n' \
	"$SW_VM_VMLINUX" "$initrd" "$SW_VM_KVER" "$SW_VM_KERNEL_DESC" "$SW_VM_BINS"
