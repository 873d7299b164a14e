# vm/guest/trace.sh - the guests' tracepoints (sourced by server.sh and
# client.sh; busybox sh).  The server's:  What the kernel itself did to the writer's
# file, with no query from userspace: the timestamp:* events (fs/inode.c,
# 6.13+: ctime_ns_xchg / inode_set_ctime_to_ts = ctime set, ctime_xchg_skip
# = set to the value it had, fill_mg_cmtime = a getattr that marked ctime
# queried), filtered to the file's inode; and knfsd's delegation events
# (nfsd:*deleg*, nfsd:nfsd_cb_recall, nfsd_cb_recall_done: the client's
# reply; whatever this kernel names them).  Clock:
# mono (CLOCK_MONOTONIC, as the writer's t_*_mono_ns).  A kernel without
# an event group simply has none enabled: the file's "# enabled:" lines
# say which were.
SW_TR=/sys/kernel/tracing
SW_TR_ENABLED=""
sw_trace_ok() {
	[ -d $SW_TR/events ] || mount -t tracefs nodev $SW_TR 2>/dev/null
	[ -w $SW_TR/set_event ]
}
# sw_trace_start INODE [sets]: "sets" leaves out fill_mg_cmtime (every
# getattr: thousands while a probe polls; the quiet runs need it)
sw_trace_start() { # INODE [sets]
	SW_TR_ENABLED=""
	sw_trace_ok || return 0
	echo 0 >$SW_TR/tracing_on
	echo >$SW_TR/set_event
	echo mono >$SW_TR/trace_clock 2>/dev/null
	[ "$(cat $SW_TR/buffer_size_kb)" -ge 4096 ] 2>/dev/null || echo 4096 >$SW_TR/buffer_size_kb
	: >$SW_TR/trace
	if [ -d $SW_TR/events/timestamp ]; then
		echo "ino == $1" >$SW_TR/events/timestamp/filter 2>/dev/null
		for e in $SW_TR/events/timestamp/*/; do
			e=${e%/}; e=${e##*/}
			[ "$2" = sets ] && [ "$e" = fill_mg_cmtime ] && continue
			echo 1 >$SW_TR/events/timestamp/$e/enable 2>/dev/null && SW_TR_ENABLED="$SW_TR_ENABLED timestamp:$e"
		done
	fi
	for e in $SW_TR/events/nfsd/*deleg* $SW_TR/events/nfsd/nfsd_cb_recall $SW_TR/events/nfsd/nfsd_cb_recall_done; do
		[ -d "$e" ] && echo 1 >"$e/enable" 2>/dev/null && SW_TR_ENABLED="$SW_TR_ENABLED nfsd:${e##*/}"
	done
	# SW_TRACE_EVENTS (vm run: SW_VM_TRACE_EVENTS): more set_event names,
	# e.g. "writeback:* jbd2:*", unfiltered
	# "kprobe:FUNC[:ARGS]" is a kprobe on FUNC named stalewin/FUNC (ARGS
	# its fetch args, commas for spaces), removed at stop
	for e in ${SW_TRACE_EVENTS:-}; do
		case $e in
		kprobe:*)
			sw_f=${e#kprobe:}; sw_a=""
			case $sw_f in *:*) sw_a=$(echo "${sw_f#*:}" | tr , ' '); sw_f=${sw_f%%:*} ;; esac
			echo "p:stalewin/$sw_f $sw_f $sw_a" >>$SW_TR/kprobe_events 2>/dev/null &&
				echo 1 >$SW_TR/events/stalewin/$sw_f/enable 2>/dev/null &&
				SW_TR_ENABLED="$SW_TR_ENABLED kprobe:$sw_f" ;;
		*)
			echo "$e" >>$SW_TR/set_event 2>/dev/null && SW_TR_ENABLED="$SW_TR_ENABLED $e" ;;
		esac
	done
	echo 1 >$SW_TR/tracing_on
}
# sw_trace_mg FILE FS: is FILE's ctime multigrain (6.13+, and FS opts in)?
# Observed rather than assumed from the version: a stat of the file fires
# timestamp:fill_mg_cmtime only on a multigrain inode.  Prints "yes|no|
# unknown HOW" (vm/query.sh puts it in meta.json).  The stat is a query:
# run it before the writer's set-up (which stats the file anyway).
sw_trace_mg() { # FILE FS
	local e=$SW_TR/events/timestamp/fill_mg_cmtime
	sw_trace_ok || { echo "unknown: no tracefs in the server guest"; return 0; }
	[ -d $e ] || { echo "no: kernel $(uname -r) has no timestamp:fill_mg_cmtime event (multigrain came in 6.13)"; return 0; }
	echo 0 >$SW_TR/tracing_on
	echo >$SW_TR/set_event
	: >$SW_TR/trace
	echo "ino == $(stat -c %i "$1")" >$e/filter 2>/dev/null
	echo 1 >$e/enable && echo 1 >$SW_TR/tracing_on
	stat "$1" >/dev/null
	echo 0 >$SW_TR/tracing_on
	echo 0 >$e/enable
	echo 0 >$e/filter 2>/dev/null
	if grep -q fill_mg_cmtime $SW_TR/trace; then
		echo "yes: a stat of the file fired timestamp:fill_mg_cmtime (kernel $(uname -r), $2)"
	else
		echo "no: a stat of the file fired no timestamp:fill_mg_cmtime: $2 does not opt in (kernel $(uname -r))"
	fi
	: >$SW_TR/trace
}
# The client guest's: when its NFS client took its jiffies for the file
# (the replay of a kept-open reader turns on whether a GETATTR
# or READ went out before or after a tick).  fs/nfs/inode.c, 6.1:
# nfs_revalidate_inode_enter just before the GETATTR's fattr is set up
# (nfs_fattr_init: fattr->time_start, later read_cache_jiffies);
# nfs_refresh_inode_enter as a reply is applied (nfs_update_inode's
# "now", attrtimeo_timestamp); nfs_initiate_read as a READ goes out, its
# fattr set up just before (nfs_pgio_rpcsetup); nfs_readpage_done as its
# reply comes (v3: its post-op attributes refreshed next).  Filtered to
# the file's fileid (the server's inode number); one superblock per
# reader (nosharecache): the reader's mount's dev tells them apart.
SW_TR_NFS="nfs_revalidate_inode_enter nfs_refresh_inode_enter nfs_initiate_read nfs_readpage_done"
# the kprobes (TYPE:NAME:FUNCTION; below), added at start, removed at stop
SW_TR_KPROBES="p:jif_check:nfs_revalidate_mapping p:jif_getattr:__nfs_revalidate_inode
	p:jif_refresh:nfs_refresh_inode p:jif_read:nfs_initiate_read p:jif_open:nfs4_opendata_alloc
	p:jif_fhget:nfs_fhget
	r:jif_ga3:nfs3_proc_getattr r:jif_ga4:nfs4_proc_getattr p:jif_update:nfs_update_inode
	p:jif_gai3:nfs3_proc_getattr p:jif_gai4:nfs4_proc_getattr p:jif_fattr:nfs_fattr_init"
sw_trace_start_nfs() { # FILEID
	SW_TR_ENABLED=""
	sw_trace_ok || return 0
	modprobe nfs 2>/dev/null
	[ -d $SW_TR/events/nfs ] || return 0
	echo 0 >$SW_TR/tracing_on
	echo >$SW_TR/set_event
	echo mono >$SW_TR/trace_clock 2>/dev/null
	[ "$(cat $SW_TR/buffer_size_kb)" -ge 4096 ] 2>/dev/null || echo 4096 >$SW_TR/buffer_size_kb
	: >$SW_TR/trace
	for sw_e in $SW_TR_NFS; do
		[ -d $SW_TR/events/nfs/$sw_e ] || continue
		echo "fileid == $1" >$SW_TR/events/nfs/$sw_e/filter 2>/dev/null || continue
		echo 1 >$SW_TR/events/nfs/$sw_e/enable 2>/dev/null && SW_TR_ENABLED="$SW_TR_ENABLED nfs:$sw_e"
	done
	# and the jiffies themselves, as the client compares them: a kprobe
	# reading jiffies_64 at the attribute check of every read
	# (nfs_revalidate_mapping, from nfs_file_read), as a GETATTR is set
	# up (__nfs_revalidate_inode), as a reply is applied
	# (nfs_refresh_inode) and as a READ goes out (nfs_initiate_read):
	# each right before the tracepoint above of the same task
	# and as a v4 OPEN's fattr is set up (nfs4_opendata_alloc: its
	# time_start becomes read_cache_jiffies through nfs_fhget) and as
	# nfs_fhget sets a new inode up ("now = jiffies": its
	# attrtimeo_timestamp, what the first no-change GETATTR doubles
	# against)
	# and, as kretprobes, as a GETATTR returns (nfs3_proc_getattr,
	# nfs4_proc_getattr: called through NFS_PROTO, so never inlined),
	# right before its reply is applied: __nfs_revalidate_inode's call of
	# nfs_refresh_inode is inlined and the kprobe above misses it; and at
	# nfs_update_inode (a symbol of Debian's 6.1 nfs.ko), whose "now =
	# jiffies" is the attrtimeo_timestamp and doubling jiffy: a tick
	# between the kretprobe and it moves that jiffy (traced: a doubling
	# at 499 jiffies by the kretprobes' count); and at the GETATTR's
	# procedure's entry and nfs_fattr_init (exported by nfs.ko, so called,
	# not inlined, from nfsv3/nfsv4): the fattr's time_start, later
	# read_cache_jiffies (traced: a tick between nfs4_proc_getattr's
	# entry and the init)
	modprobe nfsv4 2>/dev/null
	modprobe nfsv3 2>/dev/null
	for sw_k in $SW_TR_KPROBES; do
		sw_n=${sw_k#?:}; sw_n=${sw_n%%:*}
		echo "${sw_k%%:*}:stalewin/$sw_n ${sw_k##*:} j=@jiffies_64:u64" >>$SW_TR/kprobe_events 2>/dev/null &&
			echo 1 >$SW_TR/events/stalewin/$sw_n/enable 2>/dev/null &&
			SW_TR_ENABLED="$SW_TR_ENABLED kprobe:$sw_n"
	done
	echo 1 >$SW_TR/tracing_on
}
sw_trace_stop() { # FILE [HEADER_FILE: more "# " lines for the file]
	[ -w $SW_TR/set_event ] || return 0
	echo 0 >$SW_TR/tracing_on
	{
		echo "# trace_clock: $(sed 's/.*\[\(.*\)\].*/\1/' $SW_TR/trace_clock)"
		for sw_e in $SW_TR_ENABLED; do echo "# enabled: $sw_e"; done
		[ -n "${2:-}" ] && cat "$2"
		grep -v '^#' $SW_TR/trace
	} >"$1" 2>/dev/null
	echo >$SW_TR/set_event
	[ -d $SW_TR/events/timestamp ] && echo 0 >$SW_TR/events/timestamp/filter 2>/dev/null
	for sw_e in $SW_TR_NFS; do
		[ -d $SW_TR/events/nfs/$sw_e ] && echo 0 >$SW_TR/events/nfs/$sw_e/filter 2>/dev/null
	done
	if [ -d $SW_TR/events/stalewin ]; then
		echo 0 >$SW_TR/events/stalewin/enable
		for sw_k in $SW_TR_KPROBES; do
			sw_n=${sw_k#?:}; sw_n=${sw_n%%:*}
			echo "-:stalewin/$sw_n" >>$SW_TR/kprobe_events 2>/dev/null
		done
		for e in ${SW_TRACE_EVENTS:-}; do
			case $e in kprobe:*)
				sw_f=${e#kprobe:}
				echo "-:stalewin/${sw_f%%:*}" >>$SW_TR/kprobe_events 2>/dev/null ;;
			esac
		done
	fi
	: >$SW_TR/trace
}
