#!/usr/bin/env bash
# bench/soak.sh: a long one-machine `stalewin run`, and whether anything of
# it grows with time.  A benchmark, not a test: it reports, it never fails
# on a figure.
#
#   bench/soak.sh [--json] [--duration S] [--every S] [-- stalewin-run options]
#
# One scripts/stalewin-run of S s (default 3600; its defaults otherwise:
# eager, rewrite, tmpfs through nfs-ganesha, one NFSv3 probe flat out)
# while every --every s (default S/120, at least 2) the RSS of each of its
# processes is sampled from /proc (VmRSS, VmHWM): stalewin-writer serve,
# the writer's run child (stalewin-writer run), each probe, ganesha.nfsd.
# Then, with --json, one object:
#   soak_duration_s, soak_samples, soak_exit (stalewin-run's exit code),
#   soak_stores (report.json .end.stores), soak_replies (every observer's
#   replies), soak_log_bytes (all *.swlog), soak_log_bytes_per_hour (and
#   soak_log_bytes_per_hour_<log>, e.g. _probe_0),
#   soak_peak_rss_kib_<proc> (the largest VmHWM seen; proc = writer_serve,
#   writer_run, probe_0, ..., ganesha),
#   soak_rss_growth_<proc> (mean VmRSS of the last quarter of samples over
#   the first quarter: 1.00 is flat), soak_rss_kib_per_hour_<proc> (that
#   difference in KiB per hour between the quarters' mean sample times),
#   soak_fds_first_<proc>, _last_, _peak_ (open file descriptors from
#   /proc/PID/fd), soak_log_bytes_per_store, soak_folder_bytes (the run
#   folder, du -sb), soak_rss_grows (true when a process
#   grew by more than 10 % and 1 MiB between the quarters).
# Without --json: the same as a table.  Needs root and nfs-ganesha (as
# stalewin run).  The run folder is removed at the end unless SW_SOAK_KEEP=1
# (then its path is printed on stderr).
set -euo pipefail
SW_TOP=${SW_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
prog=bench/soak.sh
json=0 duration=3600 every="" runargs=()
while [ $# -gt 0 ]; do
	case $1 in
	--json) json=1; shift ;;
	--duration) duration=${2:?}; shift 2 ;;
	--every) every=${2:?}; shift 2 ;;
	--) shift; runargs=("$@"); break ;;
	*) echo "$prog: unknown argument '$1' (expected --json, --duration S, --every S, -- run options)" >&2; exit 2 ;;
	esac
done
[[ $duration =~ ^[0-9]+$ ]] && [ "$duration" -ge 10 ] || { echo "$prog: expected --duration S >= 10, saw '$duration'" >&2; exit 2; }
[ -n "$every" ] || every=$(( duration / 120 > 2 ? duration / 120 : 2 ))
[[ $every =~ ^[0-9]+$ ]] && [ "$every" -ge 1 ] || { echo "$prog: expected --every S >= 1, saw '$every'" >&2; exit 2; }
command -v jq >/dev/null || { echo "$prog: jq not installed" >&2; exit 1; }
B=${SW_BUILD_DIR:-$SW_TOP/build}
tmp=$(mktemp -d /tmp/sw-soak-XXXXXX)
run=$tmp/run pid=""
cleanup() {
	if [ -n "$pid" ]; then kill -INT "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
	if [ "${SW_SOAK_KEEP:-0}" = 1 ]; then echo "$prog: kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "$prog: stalewin run for $duration s, sampling every $every s" >&2
SW_BUILD_DIR=$B "$SW_TOP/scripts/stalewin-run" --duration "$duration" --out "$run" "${runargs[@]}" \
	>"$tmp/run.out" 2>"$tmp/run.err" &
pid=$!

# this run's work folder: the one its writer's run child logs into
work=""
sample() { # one line per process: T NAME RSS_KIB HWM_KIB FDS
	local p f n
	if [ -z "$work" ]; then
		rid=$(sed -n 's/.*starting the writer: run-id=\([0-9a-f]*\).*/\1/p' "$tmp/run.err" | head -n 1)
		[ -z "$rid" ] || work=$( { grep -ao "/tmp/sw-run-[A-Za-z0-9]*/wruns/$rid/" /proc/[0-9]*/cmdline 2>/dev/null || true; } |
			head -n 1 | sed 's|.*:\(/tmp/sw-run-[A-Za-z0-9]*\)/.*|\1|')
		[ -n "$work" ] || return 0
	fi
	for f in $(grep -la -e "$run/" -e "$work/" /proc/[0-9]*/cmdline 2>/dev/null); do
		p=${f%/cmdline}
		n=$( { tr '\0' ' ' <"$f" || true; } 2>/dev/null | awk -v r="$run/" '{
			a = $1; sub(/.*\//, "", a)
			if (a == "ganesha.nfsd") print "ganesha"
			else if (a == "stalewin-writer" && $2 == "serve") print "writer_serve"
			else if (a == "stalewin-writer" && $2 == "run") print "writer_run"
			else if (a == "stalewin-probe") for (i = 2; i <= NF; i++) if (index($i, r "probe-") == 1) {
				x = substr($i, length(r) + 1); sub(/\.swlog$/, "", x); gsub(/-/, "_", x); print x } }')
		[ -n "$n" ] || continue
		fds=$(ls "$p/fd" 2>/dev/null | wc -l)
		awk -v t="$SECONDS" -v n="$n" -v fds="$fds" '/^VmRSS:/ { r = $2 } /^VmHWM:/ { h = $2 }
			END { if (r != "") print t, n, r, h, fds }' "$p/status" 2>/dev/null || true
	done
}
t0=$SECONDS
while kill -0 "$pid" 2>/dev/null; do
	sample >>"$tmp/samples" || true # (a process may end while it is read)
	for ((i = 0; i < every * 10 && SECONDS - t0 < duration + 600; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
done
set +e
wait "$pid"; rc=$?; pid=""
set -e
[ -s "$run/report.json" ] || { tail -n 5 "$tmp/run.err" >&2; echo "$prog: stalewin run exited $rc without a report" >&2; exit 1; }
[ -s "$tmp/samples" ] || { echo "$prog: no process of the run was ever sampled" >&2; exit 1; }

stores=$(jq '.end.stores // 0' "$run/report.json")
replies=$(jq '[.. | objects | .replies? // empty | numbers] | add // 0' "$run/report.json")
logs=$(for f in "$run"/*.swlog; do n=$(basename "$f" .swlog); echo "${n//-/_} $(stat -c %s "$f")"; done)
# per process: peak VmHWM, growth of the mean VmRSS (last quarter / first,
# and in KiB per hour between the quarters' mean sample times), open file
# descriptors (first and last sample, the most seen)
procs=$(awk '{ n[$2]++; k = n[$2]; t[$2, k] = $3; s[$2, k] = $1; f[$2, k] = $5
		if ($4 > h[$2]) h[$2] = $4; if ($5 > fm[$2]) fm[$2] = $5 }
	END { for (p in n) { q = int(n[p] / 4); if (q < 1) q = 1; a = b = ta = tb = 0
		for (i = 1; i <= q; i++) { a += t[p, i]; b += t[p, n[p] - q + i]
			ta += s[p, i]; tb += s[p, n[p] - q + i] }
		a /= q; b /= q; ta /= q; tb /= q
		printf "%s %d %.3f %d %d %.0f %d %d %d\n", p, h[p], (a > 0 ? b / a : 0), b - a, n[p],
			(tb > ta ? (b - a) * 3600 / (tb - ta) : 0), f[p, 1], f[p, n[p]], fm[p] } }' "$tmp/samples" | sort)
nsamples=$(awk '{ print $1 }' "$tmp/samples" | sort -u | wc -l)
grows=$(awk '$3 > 1.10 && $4 > 1024 { g = 1 } END { print g ? "true" : "false" }' <<<"$procs")
total=$(awk '{ s += $2 } END { print s + 0 }' <<<"$logs")
folder=$(du -sb "$run" | awk '{ print $1 }')
perstore=$(awk -v b="$total" -v n="$stores" 'BEGIN { printf "%.1f", (n > 0 ? b / n : 0) }')
perh() { awk -v b="$1" -v d="$duration" 'BEGIN { printf "%.0f", b * 3600 / d }'; }
if [ $json = 1 ]; then
	{
		echo "soak_duration_s $duration"; echo "soak_samples $nsamples"; echo "soak_exit $rc"
		echo "soak_stores $stores"; echo "soak_replies $replies"
		echo "soak_log_bytes $total"; echo "soak_log_bytes_per_hour $(perh "$total")"
		echo "soak_log_bytes_per_store $perstore"; echo "soak_folder_bytes $folder"
		while read -r n b; do echo "soak_log_bytes_per_hour_$n $(perh "$b")"; done <<<"$logs"
		while read -r p h g _ _ gh f1 f2 fm; do
			echo "soak_peak_rss_kib_$p $h"; echo "soak_rss_growth_$p $g"
			echo "soak_rss_kib_per_hour_$p $gh"
			echo "soak_fds_first_$p $f1"; echo "soak_fds_last_$p $f2"; echo "soak_fds_peak_$p $fm"
		done <<<"$procs"
		echo "soak_rss_grows $grows"
	} | jq -Rn '[inputs | split(" ") | {(.[0]): (.[1] | fromjson)}] | add'
else
	printf '%-34s %s\n' "duration (s)" "$duration" "samples" "$nsamples" "stalewin run exit" "$rc" \
		"stores" "$stores" "replies" "$replies" "log bytes" "$total" "log bytes per hour" "$(perh "$total")" \
		"log bytes per store" "$perstore" "run folder (bytes)" "$folder"
	while read -r p h g d n gh f1 f2 fm; do
		printf '%-34s %s\n' "$p peak RSS (KiB)" "$h" "$p RSS last/first quarter" "$g ($d KiB, $n samples)" \
			"$p RSS growth (KiB/h)" "$gh" "$p open fds (first, last, peak)" "$f1, $f2, $fm"
	done <<<"$procs"
	printf '%-34s %s\n' "RSS grows" "$grows"
fi
