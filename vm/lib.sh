# vm/lib.sh - shared helpers of the vm/ scripts (sourced, never run).
# Everything the guests are made of comes from Debian 12 packages: the
# stock kernel and nfs-kernel-server are fetched with `apt-get download`
# and unpacked (never installed on the host); busybox-static, rpcbind,
# nfs-common (mount.nfs) and the shared libraries come from the host's
# installed Debian 12 packages (scripts/packages.d/vm.txt).

SW_VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SW_TOP=${SW_TOP:-$(cd "$SW_VM_DIR/.." && pwd)}
SW_VM_CACHE=${SW_VM_CACHE:-/var/cache/stalewin/vm}
SW_VM_PROG=${SW_VM_PROG:-stalewin vm}

vm_die() { echo "$SW_VM_PROG: $*" >&2; exit 1; }
vm_usage_die() { echo "$SW_VM_PROG: $*" >&2; exit 2; }
vm_log() { [ -n "${SW_VM_QUIET:-}" ] || echo "$SW_VM_PROG: $*" >&2; }

# Seconds since the epoch with ms, for elapsed-time messages.
# (bash builtins only: the host's two cores also run the TCG guests)
vm_now() { echo "${EPOCHREALTIME/[.,]/}"; }   # microseconds
vm_elapsed() { # START_US -> seconds with one decimal
	local d=$(( ${EPOCHREALTIME/[.,]/} - $1 ))
	printf '%d.%d' $((d / 1000000)) $((d / 100000 % 10))
}
vm_older_than() { (( ${EPOCHREALTIME/[.,]/} - $1 > $2 * 1000000 )); } # START_US S

# qemu usable at all?  Prints why not and returns 1.
vm_qemu_check() {
	local q
	q=$(command -v qemu-system-x86_64 2>/dev/null) || {
		echo "qemu-system-x86_64 not found (Debian package qemu-system-x86; ./stalewin setup installs it)"
		return 1
	}
	"$q" -accel help 2>/dev/null | grep -x tcg >/dev/null || { # no -q: SIGPIPE + pipefail
		echo "$q has no TCG accelerator"
		return 1
	}
	return 0
}

# Free space check: need MIB mebibytes under DIR.
vm_space_check() { # DIR MIB
	local avail
	mkdir -p "$1" 2>/dev/null || vm_die "cannot create $1 (expected a writable directory)"
	avail=$(df -Pm "$1" | awk 'NR==2{print $4}')
	[ -n "$avail" ] && [ "$avail" -ge "$2" ] ||
		vm_die "not enough space in $1: need $2 MiB, have ${avail:-?} MiB free"
}

# What apt offers today: the stock kernel package (what linux-image-amd64
# depends on) and its version, nfs-kernel-server's version.  One apt-cache
# call (~1 s), remembered per state of apt's package lists.  Sets
# SW_KPKG SW_KPKG_VER SW_NKS_VER.
vm_apt_facts() {
	local lk f
	lk=$(ls -l --time-style=+%s /var/lib/apt/lists/ 2>/dev/null | vm_hash)
	f=$SW_VM_CACHE/apt-facts-$lk
	if [ ! -s "$f" ]; then
		local t=$f.tmp.$$ # two vm runs at once: each its own, mv is atomic
		apt-cache show --no-all-versions linux-image-amd64 nfs-kernel-server 2>/dev/null | awk '
			/^Package:/ {p=$2}
			/^Version:/ && p=="nfs-kernel-server" {print "SW_NKS_VER=" $2}
			/^Depends:/ && p=="linux-image-amd64" {
				if (match($0, /linux-image-6\.1\.0-[0-9]+-amd64 \(= [^)]+\)/)) {
					split(substr($0, RSTART, RLENGTH), a, /[ ()=]+/)
					print "SW_KPKG=" a[1]; print "SW_KPKG_VER=" a[2]
				}
			}' >"$t"
		grep -q '^SW_KPKG=' "$t" && grep -q '^SW_NKS_VER=' "$t" ||
			{ rm -f "$t"; vm_die "apt knows no linux-image-amd64 -> linux-image-6.1.0-N-amd64 or nfs-kernel-server (run apt-get update)"; }
		mv "$t" "$f"
	fi
	. "$f"
}

vm_pkg_candidate() { apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/{print $2; exit}'; }
vm_pkg_installed() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null; }

# Fetch a .deb into the cache (once); prints its path.
vm_fetch_deb() { # PKG [VERSION]
	local d="$SW_VM_CACHE/debs" ver=${2:-} f
	mkdir -p "$d"
	[ -n "$ver" ] || ver=$(vm_pkg_candidate "$1")
	[ -n "$ver" ] && [ "$ver" != "(none)" ] || vm_die "apt knows no package $1 (expected a Debian 12 package)"
	f=$(ls "$d/$1"_*"$(echo "${ver#*:}" )"_*.deb 2>/dev/null | sed -n 1p)
	if [ -z "$f" ]; then
		(cd "$d" && apt-get download -q "$1=$ver" >/dev/null 2>"$d/.apt.err") ||
			vm_die "apt-get download $1=$ver failed: $(tail -1 "$d/.apt.err")"
		f=$(ls "$d/$1"_*"${ver#*:}"_*.deb 2>/dev/null | sed -n 1p)
	fi
	[ -f "$f" ] || vm_die "downloaded $1 but found no .deb in $d"
	echo "$f"
}

# Extract the ELF vmlinux from a bzImage (the logic of the kernel's
# scripts/extract-vmlinux: find a compressed payload that decompresses to
# an ELF).  The ELF boots under qemu through its PVH note, ~4.5 s faster
# than the bzImage (no decompression under TCG).
vm_extract_vmlinux() { # BZIMAGE OUT
	local img=$1 out=$2 magic cmd pos
	for pair in "fd377a585a00|xz -dc" "1f8b0800|gzip -dc" "28b52ffd|zstd -dc" \
		"894c5a|lzop -dc" "02214c18|lz4 -dc" "425a68|bzip2 -dc"; do
		magic=${pair%%|*} cmd=${pair#*|}
		for pos in $(LC_ALL=C grep -obUaP "$(echo "$magic" | sed 's/../\\x&/g')" "$img" | cut -d: -f1 | sed -n 1,5p); do
			tail -c +$((pos + 1)) "$img" | $cmd >"$out.tmp" 2>/dev/null || true
			if [ "$(head -c 4 "$out.tmp" | od -An -tx1 | tr -d ' ')" = 7f454c46 ]; then
				mv "$out.tmp" "$out"
				return 0
			fi
		done
	done
	rm -f "$out.tmp"
	return 1
}

# Copy an executable and its shared-library closure (ldd) into ROOT,
# keeping paths.  Libraries are resolved with the host's ldd: host and
# guest are both Debian 12.
vm_copy_with_libs() { # ROOT FILE [DEST]
	local root=$1 f=$2 dest=${3:-$2} lib
	mkdir -p "$root$(dirname "$dest")"
	cp -L "$f" "$root$dest"
	ldd "$f" 2>/dev/null | awk '/=> \//{print $3} /^\t\/[^ ]+ \(/{print $1}' |
	while read -r lib; do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

# newc cpio of a directory, deterministic order, owner root.
vm_cpio() { # DIR OUT
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --quiet) >"$2.tmp" && mv "$2.tmp" "$2"
}

vm_hash() { sha256sum | cut -c1-16; }

# Guest kernels by name (vm/build.sh --kernel NAME): stock and 6.1 are
# bookworm's linux-image-amd64 (the host's apt lists, as before); the
# others are a suite's linux-image-amd64 fetched with vm/apt-private.
# The package's release must start with the name (checked at fetch).
vm_kernel_names="stock 6.1 6.12 7.2"
vm_kernel_known() { case " $vm_kernel_names " in *" $1 "*) return 0 ;; esac; return 1; }
vm_kernel_suite() { # NAME -> suite
	case "$1" in
	stock|6.1) echo bookworm ;;
	6.12) echo trixie ;;
	7.2) echo sid ;;
	*) return 1 ;;
	esac
}

# vm_model_profile KERNEL CHOICE: the model profile file (server/model/
# profiles) the emulated runs on a server guest of KERNEL take.  CHOICE:
# auto, the profile validated for that kernel (guest-KERNEL; none when
# there is none: the report says so); none; a NAME there; or a FILE.
# Prints the path ("" for none), or why not and returns 2.
vm_model_profile() {
	local k=$1 c=$2 d=$SW_TOP/server/model/profiles
	[ "$k" = stock ] && k=6.1
	case $c in
	none) return 0 ;;
	auto) [ -f "$d/guest-$k.profile" ] && echo "$d/guest-$k.profile"; return 0 ;;
	*/*) [ -f "$c" ] && { realpath "$c"; return 0; } ;;
	*) [ -f "$d/$c.profile" ] && { echo "$d/$c.profile"; return 0; } ;;
	esac
	echo "--model-profile: expected auto, none, a profile of $d ($(cd "$d" && ls -- *.profile | sed 's/\.profile$//' | paste -sd, -)) or a file, saw '$c'"
	return 2
}
