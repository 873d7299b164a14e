# tests/kernel/lib.sh: what the cmtime_check guest tests share (sourced
# after tests/lib/test-lib.sh, with repo set to the source tree).
# kernel_test_start NAME MIB: skips (77) without qemu, mkfs.ext4 or
# vm/boot-one.sh; sets share to a fresh folder (removed at exit) holding
# the static cmtime_check and an ext4 image of MIB MiB (ext4.img).
kernel_test_start() {
	command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 missing"
	command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 missing (e2fsprogs)"
	[ -x "$repo/vm/boot-one.sh" ] || skip "vm/boot-one.sh missing"
	share=$(mktemp -d "/tmp/sw-kernel-$1.XXXXXX")
	trap 'rm -rf "$share"' EXIT
	gcc -static -O2 -std=gnu11 -Wall -Wextra -Werror -o "$share/cmtime_check" \
		"$repo/tests/kernel/cmtime_check.c" "$repo/tests/kernel/cmtime_lib.c"
	truncate -s "${2}M" "$share/ext4.img"
	mkfs.ext4 -q -F "$share/ext4.img"
}
