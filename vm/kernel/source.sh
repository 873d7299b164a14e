# vm/kernel/source.sh - the patched kernel's source tree (sourced by
# vm/kernel/stalewin-vm-kernel, never run): the build tools installed,
# linux-source-B found and unpacked pristine, the series applied to a
# work tree and verified (prepare_src).  configure() and the build stay
# in stalewin-vm-kernel: its cache key hashes configure()'s own text.

install_packages() {
	local pkgs missing=()
	pkgs=$(sed 's/#.*//' "$here/packages.txt" | awk 'NF {print $1}')
	for p in $pkgs; do
		# the 6.1 source is a host package; other bases come from vm/apt-private
		[[ "$p" == linux-source-* && "$base" != 6.1 ]] && continue
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	say "installing ${missing[*]} (vm/kernel/packages.txt)"
	mkdir -p "$K" || die "cannot create the kernel cache folder $K"
	# A fresh machine may have no package lists yet: update once, retry.
	DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >"$K/apt.log" 2>&1 ||
		{ apt-get update >>"$K/apt.log" 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >>"$K/apt.log" 2>&1; } ||
		die "apt-get install ${missing[*]} failed: $(tail -1 "$K/apt.log")"
}

# For a base other than 6.1: the suite and version of linux-source-B
# (first of $suites that has it) -> globals src_suite, src_avail.
find_source() {
	local s out errs=()
	for s in $suites; do
		if out=$("$repo/vm/apt-private" "$s" version "$SRCNAME" 2>&1); then
			src_suite=$s src_avail=$out
			return 0
		fi
		grep -q "no package $SRCNAME" <<<"$out" || errs+=("$(tail -1 <<<"$out")")
	done
	[ ${#errs[@]} -eq 0 ] ||
		die "base $base: could not look for $SRCNAME in every suite: ${errs[0]}"
	usage_die "--base $base: no source package reachable: $SRCNAME is in none of the suites $suites (Debian main, amd64, looked up with vm/apt-private; bases with a series here: $(cd "$here/patches" && ls -d [0-9]*.[0-9]* | paste -sd' '))"
}

check_disk() {
	mkdir -p "$K"
	local avail_kib need_kib=$((NEED_GIB * 1024 * 1024)) have=0
	[ -f "$W/pristine/.complete" ] && have=$((have + 1536 * 1024))
	[ -d "$W/src/$SRCNAME" ] && have=$((have + 1536 * 1024))
	avail_kib=$(df -Pk "$K" | awk 'NR==2 {print $4}')
	if [ $((avail_kib + have)) -lt "$need_kib" ]; then
		die "not enough disk under $K: need about ${NEED_GIB} GiB for base $base (pristine tree 1.5-1.8, work tree 1.5-1.8, build 0.6-0.8, ccache up to 2), $((avail_kib / 1024)) MiB free"
	fi
}

# The unpacked source of this base in $W/pristine; .complete holds the
# version (other bases) and is written last, so an interrupted unpack is
# redone.
unpack_pristine() {
	if [ "$base" = 6.1 ]; then
		[ -f "$W/pristine/.complete" ] && return 0
		[ -f "$TARBALL" ] || die "expected $TARBALL (package linux-source-6.1), none found"
	else
		[ "$(src_version)" = "$src_avail" ] && return 0
		local deb
		deb=$("$repo/vm/apt-private" "$src_suite" download "$SRCNAME=$src_avail") ||
			die "base $base: fetching $SRCNAME $src_avail from $src_suite failed (see above)"
		say "unpacking $(basename "$deb") into $W/deb"
		rm -rf "$W/deb" "$W/pristine/.complete"
		mkdir -p "$W/deb"
		dpkg-deb -x "$deb" "$W/deb" || die "dpkg-deb -x $deb failed"
		[ -f "$TARBALL" ] || die "$deb holds no $TARBALL"
	fi
	say "unpacking $TARBALL into $W/pristine (~1 min)"
	rm -rf "$W/pristine"; mkdir -p "$W/pristine"
	nice -n 19 tar xf "$TARBALL" -C "$W/pristine" || die "unpacking $TARBALL failed"
	[ -d "$W/pristine/$SRCNAME" ] || die "$TARBALL holds no $SRCNAME/"
	if [ "$base" = 6.1 ]; then touch "$W/pristine/.complete"
	else echo "$src_avail" >"$W/pristine/.complete"; fi
}

# Report the patch and hunk that do not apply, from patch's output:
# the first failed hunk with its file and line, and how many failed.
explain_patch_failure() {
	local p=$1 out=$2 f h n
	f=$(grep -m1 -B20 'FAILED' <<<"$out" | grep -E '^(patching|checking) file' | tail -1 | sed -E 's/^(patching|checking) file //')
	h=$(grep -m1 -E 'Hunk #[0-9]+ FAILED' <<<"$out" | sed -E 's/^Hunk #([0-9]+) FAILED at ([0-9]+).*/hunk #\1 (at line \2) failed/' || true)
	n=$(awk '/hunks? FAILED/ {n += $1} END {print n + 0}' <<<"$out")
	if [ -z "$h" ] && grep -q "can't find file to patch" <<<"$out"; then
		f=$(grep -m1 -E '^\|\+\+\+ b/' <<<"$out" | sed 's/^|+++ b\///')
		h="the file it changes does not exist"
	fi
	echo "patch $(basename "$p") does not apply to $SRCNAME $(src_version): ${f:+$f, }${h:-$(head -1 <<<"$out")}${h:+ ($n of its hunks failed)}"
}

# Dry-run then apply the series in order to tree $1.
apply_series() {
	local tree=$1 p out
	for p in "${patches[@]}"; do
		out=$(cd "$tree" && patch -p1 --dry-run -f <"$p" 2>&1) ||
			die "$(explain_patch_failure "$p" "$out")"
		(cd "$tree" && patch -p1 -s -f --no-backup-if-mismatch <"$p") ||
			die "patch $(basename "$p") failed after a clean dry run"
	done
}

# The files a series touches (the +++ side of its patches).
series_files() {
	grep -h -E '^\+\+\+ b/' "$@" | sed 's|^+++ b/||; s|\t.*||' | sort -u
}

# Apply the series to a scratch copy of the files it touches: the work
# tree is only changed once the whole series is known to apply.
verify_series() {
	local tmp f
	tmp=$(mktemp -d /tmp/sw-kernel-apply.XXXXXX)
	for f in $(series_files "${patches[@]}"); do
		if [ -f "$W/pristine/$SRCNAME/$f" ]; then
			mkdir -p "$tmp/$(dirname "$f")"
			cp "$W/pristine/$SRCNAME/$f" "$tmp/$f"
		fi
	done
	(apply_series "$tmp") || { rm -rf "$tmp"; exit 1; }
	rm -rf "$tmp"
}

# Bring $W/src to pristine + this series: revert a previously applied
# series (copies kept in applied.d), then apply.  Files keep fresh mtimes
# so kbuild recompiles exactly what changed.  A tree left half-patched
# (marker .applying) is copied afresh from pristine.
prepare_src() {
	local tree=$W/src/$SRCNAME p
	if [ -e "$W/src/.applying" ]; then
		say "the work tree was left half-patched; copying it afresh from pristine"
		rm -rf "$tree" "$W/src/applied.d" "$W/src/.applying"
	fi
	if [ ! -d "$tree" ]; then
		say "creating the work tree $tree"
		mkdir -p "$W/src"
		cp -a "$W/pristine/$SRCNAME" "$tree"
		rm -rf "$W/src/applied.d"
	fi
	if [ -d "$W/src/applied.d" ]; then
		if diff -rq "$W/src/applied.d" "$patchdir" >/dev/null 2>&1; then
			return 0
		fi
		touch "$W/src/.applying"
		say "reverting the previously applied series"
		# Keep a copy (with its mtime) of every file the old series
		# touched: files the new series leaves as they were get their
		# mtime back below, so kbuild rebuilds only what changed (a
		# rewritten pagemap.h alone costs ~700 objects).
		rm -rf "$W/src/keep.d"
		for f in $(series_files "$W/src/applied.d"/*.patch); do
			[ -f "$tree/$f" ] || continue
			mkdir -p "$W/src/keep.d/$(dirname "$f")"
			cp -p "$tree/$f" "$W/src/keep.d/$f"
		done
		for p in $(ls -r "$W/src/applied.d"/*.patch 2>/dev/null); do
			(cd "$tree" && patch -p1 -R -s -f --no-backup-if-mismatch <"$p") ||
				die "cannot revert $(basename "$p") in $tree; remove $W/src to start over"
		done
		rm -rf "$W/src/applied.d"
	fi
	touch "$W/src/.applying"
	say "applying ${#patches[@]} patches"
	apply_series "$tree"
	if [ -d "$W/src/keep.d" ]; then
		(cd "$W/src/keep.d" && find . -type f) | while IFS= read -r f; do
			! cmp -s "$W/src/keep.d/$f" "$tree/$f" || touch -r "$W/src/keep.d/$f" "$tree/$f"
		done
		rm -rf "$W/src/keep.d"
	fi
	mkdir -p "$W/src/applied.d"
	cp "${patches[@]}" "$W/src/applied.d/"
	rm -f "$W/src/.applying"
}
