# tests/vm/lib.sh: the start every vm test shares.  Sourced; sets top (the
# source tree), b (the build dir), loads vm/lib.sh, defines fail(), and
# skips (77) with the reason when qemu cannot run here.
top=${SW_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
b=${SW_BUILD_DIR:-$top/build}
. "$top/vm/lib.sh"
fail() { echo "FAIL: $*"; exit 1; }
why=$(vm_qemu_check) || { echo "SKIP: qemu cannot run: $why"; exit 77; }
