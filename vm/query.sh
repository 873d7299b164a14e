# vm/query.sh - what queries the writer's file in `vm run` (sourced by
# vm/run.sh, never run).  On a multigrain kernel (6.13+, a filesystem
# that opts in) a query of ctime (a GETATTR, a stat) makes the next
# timestamp fine-grained, so how often the file is queried changes what
# the run measures (7.2 left 0 of 200 stores with an equal
# ctime under a stat after every store, ~150 of 200 with none).  Every
# run therefore records the planned rate (meta.json query_rate_hz and
# query_rate) and whether the server's filesystem was seen multigrain
# (multigrain, multigrain_how: vm/guest/trace.sh sw_trace_mg).

# --query-rate N|wire: GETATTRs/s per probe target, above 0 and at most
# the probe's pacing limit (stalewin-probe --rate: 1000), or wire.
vm_query_check() { # RATE
	[ "$1" = wire ] && return 0
	[[ "$1" =~ ^[0-9]+(\.[0-9]+)?$ ]] && awk -v r="$1" 'BEGIN { exit !(r > 0 && r <= 1000) }' ||
		vm_usage_die "--query-rate: expected GETATTRs/s per probe target above 0 and at most 1000 (the probe paces with poll()'s 1 ms: faster is 'wire'), or wire (the probe flat out), saw '$1'"
}

# The kernel readers' planned GETATTRs/s of an unchanged file: a
# close-to-open reader (or noac) one per read, every EVERY_MS; a kept-open
# one at most one per acregmin (3 s unless acregmin= / actimeo=; it
# doubles up to acregmax while nothing changes, so this is the most).
# A change adds a READ whose reply carries attributes too.
vm_query_readers_hz() { # EVERY_MS "MODES" MOUNT_OPTS...
	local every=$1 modes=$2
	shift 2
	printf '%s\n' "$@" | awk -v every="$every" -v modes="$modes" '
		{ n = split($0, o, ","); noac = 0; acmin = 3
		  for (i = 1; i <= n; i++) {
			if (o[i] == "noac") noac = 1
			if (o[i] ~ /^(actimeo|acregmin)=[0-9]+$/) { split(o[i], kv, "="); acmin = kv[2] + 0 }
		  }
		  m = split(modes, md, " ")
		  for (i = 1; i <= m; i++)
			hz += (md[i] == "cto" || noac || acmin == 0) ? 1000 / every : 1 / acmin }
		END { printf "%.3f", hz + 0 }'
}

# vm_query_meta_args D: the meta.json options of experiment folder D
# (stalewin-runfolder meta), appended to the array args.  Uses the plan's
# SW_PROBE_RATE, SW_PROBE_VERS, SW_READER_EVERY_MS, SW_READER_MODES,
# SW_MOUNTS.
vm_query_meta_args() { # D
	local d=$1 targets readers total probe_hz mg how=""
	local -a mounts
	targets=$(echo "$SW_PROBE_VERS" | tr + '\n' | grep -c .)
	[ -s "$d/client/probe-0.url" ] || targets=0
	targets=$((targets * ${SW_PROBES:-1})) # --probes M
	IFS='|' read -r -a mounts <<<"$SW_MOUNTS"
	readers=$(vm_query_readers_hz "$SW_READER_EVERY_MS" "$SW_READER_MODES" "${mounts[@]}")
	# --ns-clients N: the one mount's reader N times
	[ "${SW_NS_CLIENTS:-0}" = 0 ] || readers=$(awk -v r="$readers" -v n="$SW_NS_CLIENTS" 'BEGIN { printf "%.3f", r * n }')
	if [ "$SW_PROBE_RATE" = wire ] && [ "$targets" -gt 0 ]; then
		probe_hz=null total=null
	else
		probe_hz=$SW_PROBE_RATE
		[ "$targets" -gt 0 ] || probe_hz=0
		total=$(awk -v p="$probe_hz" -v t="$targets" -v r="$readers" 'BEGIN { printf "%.3f", p * t + r }')
	fi
	args+=(--json "query_rate_hz=$total"
		--json "query_rate={\"probe\":\"$SW_PROBE_RATE\",\"probe_hz\":$probe_hz,\"probe_targets\":$targets,\"readers_hz\":$readers,\"unit\":\"GETATTRs per second against the file from the client guest, planned (probe_hz per target; readers_hz: a close-to-open reader one per read, a kept-open one at most one per acregmin); null: the probe flat out (wire speed, its achieved rate is in the report)\"}")
	if [ -s "$d/server/multigrain.txt" ]; then
		read -r mg how <"$d/server/multigrain.txt"; mg=${mg%:}
		case "$mg" in
		yes) args+=(--bool multigrain=true) ;;
		no) args+=(--bool multigrain=false) ;;
		*) args+=(--json multigrain=null) ;;
		esac
		args+=(--str "multigrain_how=$how")
	fi
}
