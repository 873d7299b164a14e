# tests/kernel/lib.sh: what the cmtime_check guest tests share (sourced,
# with repo set to the source tree).
# kernel_test_start NAME MIB: skips (77) without qemu, mkfs.ext4 or
# vm/boot-one.sh; sets share to a fresh folder (removed at exit) holding
# the static cmtime_check and an ext4 image of MIB MiB (ext4.img).
kernel_test_start() {
	command -v qemu-system-x86_64 >/dev/null || { echo "SKIP: qemu-system-x86_64 missing" >&2; exit 77; }
	command -v mkfs.ext4 >/dev/null || { echo "SKIP: mkfs.ext4 missing (e2fsprogs)" >&2; exit 77; }
	[ -x "$repo/vm/boot-one.sh" ] || { echo "SKIP: vm/boot-one.sh missing" >&2; exit 77; }
	share=$(mktemp -d "/tmp/sw-kernel-$1.XXXXXX")
	trap 'rm -rf "$share"' EXIT
	gcc -static -O2 -std=gnu11 -Wall -Wextra -Werror -o "$share/cmtime_check" \
		"$repo/tests/kernel/cmtime_check.c"
	truncate -s "${2}M" "$share/ext4.img"
	mkfs.ext4 -q -F "$share/ext4.img"
}
