#!/usr/bin/env bash
# Description: the series without CONFIG_MMU (review 2, U3): applies
# vm/kernel/patches/B to a hard-linked copy of the pristine source,
# configures riscv's nommu_virt_defconfig plus BLOCK and EXT4_FS (x86
# cannot be built without an MMU; riscv64-linux-gnu-gcc, package
# gcc-riscv64-linux-gnu), compiles the objects the series touches that a
# nommu kernel builds (mm/filemap.o, mm/page-writeback.o, mm/nommu.o,
# fs/inode.o, fs/ext4/inode.o; not a full vmlinux: ~2 min instead of a
# whole cross build on 2 cores), and checks that none of them references a
# symbol only mm/mmap_cmtime.o defines (that object is MMU-only): such a
# reference is the link failure the review found.  SW_KERNEL_BASE
# (default 6.1); SW_NOMMU_LINK=1 links the whole vmlinux as well.  Skips (77) without the cross compiler or the unpacked
# source.
. "$(dirname "$0")/../lib/test-lib.sh"
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
base=${SW_KERNEL_BASE:-6.1}
cross=riscv64-linux-gnu-
command -v ${cross}gcc >/dev/null || skip "${cross}gcc missing (apt-get install gcc-riscv64-linux-gnu)"
K=${SW_KERNEL_CACHE:-/var/cache/stalewin/kernel}
W=$K; [ "$base" = 6.1 ] || W=$K/$base
src=linux-source-$base
[ -f "$W/pristine/$src/Makefile" ] ||
	skip "no unpacked $src under $W/pristine (./stalewin vm kernel build --base $base unpacks it)"
tmp=$(mktemp -d /tmp/sw-kernel-nommu.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cp -al "$W/pristine/$src" "$tmp/src"
for p in "$repo/vm/kernel/patches/$base"/[0-9][0-9][0-9][0-9]-*.patch; do
	(cd "$tmp/src" && patch -p1 -s -f --no-backup-if-mismatch <"$p") ||
		{ fail "$(basename "$p") does not apply to $src"; sw_done; }
done
mk() { nice -n 19 make -s -C "$tmp/src" O="$tmp/b" ARCH=riscv CROSS_COMPILE=$cross "$@"; }
mk nommu_virt_defconfig >/dev/null
"$tmp/src/scripts/config" --file "$tmp/b/.config" -e BLOCK -e EXT4_FS
mk olddefconfig >/dev/null
grep -q '^CONFIG_MMU=y' "$tmp/b/.config" && { fail "expected a config without CONFIG_MMU, nommu_virt_defconfig gave CONFIG_MMU=y"; sw_done; }
grep -q '^CONFIG_EXT4_FS=y' "$tmp/b/.config" || { fail "expected CONFIG_EXT4_FS=y in the nommu config, olddefconfig dropped it"; sw_done; }
objs="mm/filemap.o mm/page-writeback.o mm/nommu.o fs/inode.o fs/ext4/inode.o"
if ! mk -j2 $objs >"$tmp/make.log" 2>&1; then
	grep -m5 -E 'error|Error' "$tmp/make.log" || tail -5 "$tmp/make.log"
	fail "expected the touched objects to compile without CONFIG_MMU, saw the errors above"
	sw_done
fi
# symbols only mm/mmap_cmtime.o defines, gathered from the series itself
only=$(grep -h -E '^\+(EXPORT_SYMBOL(_GPL)?\(|int sysctl_)' "$repo/vm/kernel/patches/$base"/*.patch |
	grep -h -o -E '(mapping_[a-z_]*flush_cmtime|sysctl_mmap_cmtime_[a-z]+)' | sort -u)
[ -n "$only" ] || { fail "expected the series to define mm/mmap_cmtime.o's symbols, found none"; sw_done; }
bad=
for o in $objs; do
	for s in $(${cross}nm -u "$tmp/b/$o" | awk '{print $2}'); do
		grep -qx -- "$s" <<<"$only" && bad="$bad $o:$s"
	done
done
if [ -n "$bad" ]; then
	fail "expected no nommu object to reference mm/mmap_cmtime.o (not built without CONFIG_MMU), saw:$bad (a link failure)"
	sw_done
fi
# SW_NOMMU_LINK=1: also link the whole nommu vmlinux (~7 min on 2 cores,
# so not by default)
linked=
if [ "${SW_NOMMU_LINK:-0}" = 1 ]; then
	if ! mk -j2 vmlinux >"$tmp/link.log" 2>&1; then
		grep -m5 -E 'undefined reference|error' "$tmp/link.log" || tail -5 "$tmp/link.log"
		fail "expected the nommu vmlinux to link (SW_NOMMU_LINK=1), saw the errors above"
		sw_done
	fi
	linked=", vmlinux links"
fi
sw_done "nommu ($base, riscv nommu_virt_defconfig + EXT4_FS): $(wc -w <<<"$objs") objects compile, none references $(echo $only)$linked"
