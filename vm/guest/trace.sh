# vm/guest/trace.sh - the server guest's tracepoints (sourced by
# server.sh; busybox sh).  What the kernel itself did to the writer's
# file, with no query from userspace: the timestamp:* events (fs/inode.c,
# 6.13+: ctime_ns_xchg / inode_set_ctime_to_ts = ctime set, ctime_xchg_skip
# = set to the value it had, fill_mg_cmtime = a getattr that marked ctime
# queried), filtered to the file's inode; and knfsd's delegation events
# (nfsd:*deleg*, nfsd:nfsd_cb_recall: whatever this kernel names them).  Clock:
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
	for e in $SW_TR/events/nfsd/*deleg* $SW_TR/events/nfsd/nfsd_cb_recall; do
		[ -d "$e" ] && echo 1 >"$e/enable" 2>/dev/null && SW_TR_ENABLED="$SW_TR_ENABLED nfsd:${e##*/}"
	done
	# SW_TRACE_EVENTS (vm run: SW_VM_TRACE_EVENTS): more set_event names,
	# e.g. "writeback:* jbd2:*", unfiltered
	for e in ${SW_TRACE_EVENTS:-}; do
		echo "$e" >>$SW_TR/set_event 2>/dev/null && SW_TR_ENABLED="$SW_TR_ENABLED $e"
	done
	echo 1 >$SW_TR/tracing_on
}
sw_trace_stop() { # FILE
	[ -w $SW_TR/set_event ] || return 0
	echo 0 >$SW_TR/tracing_on
	{
		echo "# trace_clock: $(sed 's/.*\[\(.*\)\].*/\1/' $SW_TR/trace_clock)"
		for e in $SW_TR_ENABLED; do echo "# enabled: $e"; done
		grep -v '^#' $SW_TR/trace
	} >"$1" 2>/dev/null
	echo >$SW_TR/set_event
	[ -d $SW_TR/events/timestamp ] && echo 0 >$SW_TR/events/timestamp/filter 2>/dev/null
	: >$SW_TR/trace
}
