# validate.jq: the computations of `stalewin validate` (scripts/stalewin-validate)
# over stalewin-report JSON.  --arg mode row|line|summary|footer.
#   (arguments are read from $ARGS.named, so every mode compiles alone)
#   row:     -n with m, r (slurped report.json of the model and real side),
#            name fs args load, wb ex dur (ms, ms, s), res (ms); optional s
#            (slurped stalewin-model-sweep output on the real side's stores:
#            the model at the kernel's own phase, else the sweep's median,
#            must also be within the p50/p90 bands: "model p50 at the
#            kernel's phase" / "sweep p50")
#   line:    one row.json -> one text line
#   summary: -s over row.json files, id load vm -> the validate object
#   kread:   a VM run's report.json, run every load -> rows, one per kernel
#            reader: its replay ("model") against the real client
#   footer:  the validate object -> text lines
# Bands (why each: analysis/README.md): p50/p90 within 10 % or one
# resolution, whichever is larger; max within one writeback interval;
# uncovered within 10 % or 2; updates within 1 per 10 s of run.  A figure
# that is null in a report (">end": the percentile falls among uncovered
# stores) equals only null.

def side:
  (.results.figures[] | select(.kind == "truth")) as $t
  | { stores: $t.stores, uncovered: $t.unresolved, p50: $t.p50_ns,
      p90: $t.p90_ns, p99: $t.p99_ns, max: $t.max_ns,
      updates: .results.cost.updates };
def abs: if . < 0 then -. else . end;
# relative error |model - real| / max(real, resolution): windows far below
# the resolution (a store covered by its own trap: 0 s against 3 us) are
# not "100 % off".  null when only one side is ">end".
def relerr($a; $b; $floor):
  if $a == null and $b == null then 0
  elif $a == null or $b == null then null
  else (($a - $b) | abs) / ([$b, $floor, 1] | max) end;
def within($a; $b; $tol):
  if $a == null and $b == null then true
  elif $a == null or $b == null then false
  else (($a - $b) | abs) <= $tol end;
# stalewin-model-sweep writes ">end" as -1; the reports as null
def sweep_fig($v): if $v == null or $v < 0 then null else $v end;
def fmt_s: if . == null then ">end" else (. / 1e9 * 100 | round / 100 | tostring) + "s" end;
def fmt_pct: if . == null then "n/a" else (. * 1000 | round / 10 | tostring) + "%" end;

$ARGS.named as $a
| $a.mode as $mode
| if $mode == "row" then
  ($a.m[0] | side) as $M | ($a.r[0] | side) as $R
  | $a.wb as $wb | $a.dur as $dur | $a.res as $res
  | ($res * 1e6) as $res_ns
  | [ (if within($M.p50; $R.p50; ([0.1 * ($R.p50 // 0), $res_ns] | max)) then empty else "p50" end),
      (if within($M.p90; $R.p90; ([0.1 * ($R.p90 // 0), $res_ns] | max)) then empty else "p90" end),
      (if within($M.max; $R.max; $wb * 1e6) then empty else "max" end),
      (if within($M.uncovered; $R.uncovered; ([2, 0.1 * $R.uncovered] | max)) then empty else "uncovered" end),
      (if within($M.updates; $R.updates; ([1, $dur / 10] | max)) then empty else "updates" end),
      (if (($M.stores - $R.stores) | abs) > ([1, 0.01 * $R.stores] | max) then "stores differ" else empty end),
      ($a.s[0]? // empty
       | (if .kernel_phase then [sweep_fig(.kernel_phase.p50_ns), sweep_fig(.kernel_phase.p90_ns), "at the kernel's phase"]
          else [sweep_fig(.p50_ns.median), sweep_fig(.p90_ns.median), "sweep median"] end) as [$s50, $s90, $how]
       | (if within($s50; $R.p50; ([0.1 * ($R.p50 // 0), $res_ns] | max)) then empty else "model p50 \($how)" end),
         (if within($s90; $R.p90; ([0.1 * ($R.p90 // 0), $res_ns] | max)) then empty else "model p90 \($how)" end),
         (if .kernel_phase == null or within(.kernel_phase.updates; $R.updates; ([1, $dur / 10] | max)) then empty
          else "model updates at the kernel's phase" end))
    ] as $fails
  | { name: $a.name, fs: $a.fs, workload: $a.args, writeback_ms: $wb,
      expire_ms: $a.ex, duration_s: $dur, resolution_ms: $res,
      load_avg: $a.load,
      # vm run --lead: the first store this long after the file's creation
      lead_s: ($a.lead // null),
      model: $M, real: $R,
      # validate --vm-runs N: every run of each side (model, real) and the
      # folders of the two compared (the median p50 of their side)
      runs: ($a.runs[0]? // null),
      model_sweep: ($a.s[0]? // null | if . == null then null else
        { phases: (.phases | length), p50: (.p50_ns | map_values(sweep_fig(.))),
          p90: (.p90_ns | map_values(sweep_fig(.))), updates: .updates,
          p50_rel_err: relerr(sweep_fig(.p50_ns.median); $R.p50; $res_ns),
          p90_rel_err: relerr(sweep_fig(.p90_ns.median); $R.p90; $res_ns),
          kernel_phase: (.kernel_phase // null | if . == null then null else
            { p50: sweep_fig(.p50_ns), p90: sweep_fig(.p90_ns), updates: .updates,
              first_run_mono_ns: .flusher_run_mono_ns,
              p50_rel_err: relerr(sweep_fig(.p50_ns); $R.p50; $res_ns),
              p90_rel_err: relerr(sweep_fig(.p90_ns); $R.p90; $res_ns) } end) } end),
      # the emulated run's own stores replayed by the model at its lead
      # (scripts/validate-vm.sh self_replay): what the writer should have
      # decided live
      emulated_replay: ($a.e[0]? // null | if . == null or .end == null then null else
        { lead_ms: .end.lead_ms, first_read_lead_ms: .end.first_read_lead_ms }
        + ([.start, .end] | map({ key: .store_time, value:
            { p50: sweep_fig(.phases[0].p50_ns), p90: sweep_fig(.phases[0].p90_ns),
              updates: .phases[0].updates } }) | from_entries) end),
      rel_err: { p50: relerr($M.p50; $R.p50; $res_ns),
                 p90: relerr($M.p90; $R.p90; $res_ns),
                 p99: relerr($M.p99; $R.p99; $res_ns),
                 uncovered: relerr($M.uncovered; $R.uncovered; 1),
                 updates: relerr($M.updates; $R.updates; 1) },
      within: ($fails | length == 0), fails: $fails }
elif $mode == "sides" then
  # -s over report.json files -> their figures, in that order
  map(side)
elif $mode == "median_run" then
  # -s over SIDE.I/report.json -> I of the run whose truth p50 is the
  # median (">end" sorts above every figure; the lower middle for an
  # even count)
  [ to_entries[] | { i: (.key + 1), p50: (.value | side | .p50) } ]
  | sort_by(if .p50 == null then infinite else .p50 end)
  | .[(length - 1) / 2 | floor].i
elif $mode == "kread" then
  # one report.json of a VM run -> a row per kernel reader: the real
  # client (kread-j) against the replay of its mount options
  . as $rep
  | [ $rep.results.kread | to_entries[] | .key as $j | .value as $k
      | ($rep.results.figures[] | select(.name | startswith("kread-\($j) "))
         | select(.name | endswith("replay") | not)) as $real
      | ($rep.results.figures[] | select(.name == "kread-\($j) replay")) as $rp
      | ($k.mount_options | split(",")) as $o
      | ([$o[] | select(startswith("acregmin=")) | ltrimstr("acregmin=") | tonumber] | first // (if any($o[]; . == "noac") then 0 else 3 end)) as $acmin
      | ($a.every * 1e6) as $res_ns
      | def side: { stores: .stores, uncovered: .unresolved, p50: .p50_ns,
                    p90: .p90_ns, p99: .p99_ns, max: .max_ns, updates: null };
        ($rp | side) as $M | ($real | side) as $R
      | [ (if within($M.p50; $R.p50; ([0.1 * ($R.p50 // 0), $res_ns] | max)) then empty else "p50" end),
          (if within($M.p90; $R.p90; ([0.1 * ($R.p90 // 0), $res_ns] | max)) then empty else "p90" end),
          (if within($M.max; $R.max; ([$acmin * 1e9, $res_ns] | max)) then empty else "max" end),
          (if within($M.uncovered; $R.uncovered; ([2, 0.1 * $R.uncovered] | max)) then empty else "uncovered" end),
          (if $R.stores < 300 then "fewer than 300 stores" else empty end)
        ] as $fails
      | { name: "\($a.run)/kread-\($j)", fs: "NFS client guest",
          workload: "mount \([$o[] | select(test("^(vers|ac|noac|nocto|actimeo)"))] | join(",")), reader \($k.mode) every \($a.every) ms",
          writeback_ms: 1000, expire_ms: 5000, duration_s: 40,
          resolution_ms: $a.every, load_avg: $a.load, model: $M, real: $R,
          rel_err: { p50: relerr($M.p50; $R.p50; $res_ns),
                     p90: relerr($M.p90; $R.p90; $res_ns),
                     p99: relerr($M.p99; $R.p99; $res_ns),
                     uncovered: relerr($M.uncovered; $R.uncovered; 1),
                     updates: null },
          # the replay's revalidations at the client's own traced
          # jiffies (client/trace.txt; analysis/pass/nfstrace.h)
          replay_rpc: { revalidations: $k.replay_revalidations, traced: $k.replay_traced },
          within: ($fails | length == 0), fails: $fails } ]
elif $mode == "line" then
  "\(.name) [\(.fs), wb \(.writeback_ms) ms, expire \(.expire_ms) ms, \(.duration_s) s\(if .lead_s then ", first store \(.lead_s) s after the file's creation" else "" end), load \(.load_avg)]\n"
  + "  model: p50 \(.model.p50 | fmt_s) p90 \(.model.p90 | fmt_s) p99 \(.model.p99 | fmt_s) max \(.model.max | fmt_s) uncovered \(.model.uncovered) updates \(.model.updates) (\(.model.stores) stores)\n"
  + "  real:  p50 \(.real.p50 | fmt_s) p90 \(.real.p90 | fmt_s) p99 \(.real.p99 | fmt_s) max \(.real.max | fmt_s) uncovered \(.real.uncovered) updates \(.real.updates) (\(.real.stores) stores)\n"
  + (if .model_sweep == null then "" else
      "  sweep: the model on the real run's stores, \(.model_sweep.phases) phases: p50 \(.model_sweep.p50.min | fmt_s)..\(.model_sweep.p50.median | fmt_s)..\(.model_sweep.p50.max | fmt_s) p90 \(.model_sweep.p90.min | fmt_s)..\(.model_sweep.p90.median | fmt_s)..\(.model_sweep.p90.max | fmt_s) (min..median..max) updates \(.model_sweep.updates.median); median off by p50 \(.model_sweep.p50_rel_err | fmt_pct) p90 \(.model_sweep.p90_rel_err | fmt_pct)\n"
      + (if .emulated_replay == null then "" else
        "  emulated replay: the model on the emulated run's own stores at its lead (\(.emulated_replay.lead_ms) ms), pages dirty at each store's start / end: p50 \(.emulated_replay.start.p50 | fmt_s) / \(.emulated_replay.end.p50 | fmt_s) p90 \(.emulated_replay.start.p90 | fmt_s) / \(.emulated_replay.end.p90 | fmt_s) updates \(.emulated_replay.start.updates) / \(.emulated_replay.end.updates)\n" end)
      + (if .model_sweep.kernel_phase == null then "" else
        "  kernel phase: the model on those stores from the kernel's own first flusher run: p50 \(.model_sweep.kernel_phase.p50 | fmt_s) p90 \(.model_sweep.kernel_phase.p90 | fmt_s) updates \(.model_sweep.kernel_phase.updates); off by p50 \(.model_sweep.kernel_phase.p50_rel_err | fmt_pct) p90 \(.model_sweep.kernel_phase.p90_rel_err | fmt_pct)\n" end) end)
  + (if .replay_rpc == null or .replay_rpc.revalidations == null then "" else
      "  replay: \(.replay_rpc.traced) of \(.replay_rpc.revalidations) revalidations at the client's traced jiffies\n" end)
  + (if .runs == null then "" else
      "  runs:  model p50 \([.runs.model[].p50 | fmt_s] | join(" "))  real p50 \([.runs.real[].p50 | fmt_s] | join(" "))  (compared: \(.runs.compared.model), \(.runs.compared.real): the median of each)\n" end)
  + "  err:   p50 \(.rel_err.p50 | fmt_pct) p90 \(.rel_err.p90 | fmt_pct) p99 \(.rel_err.p99 | fmt_pct)  -> \(if .within then "within bands" else "OUTSIDE: " + (.fails | join(", ")) end)"
elif $mode == "summary" then
  { schema: "stalewin-validate", schema_version: 1, run_id: $a.id,
    load_avg_end: $a.load, vm: $a.vm,
    complete: (($a.vm == null) and all(.[]; (.fails | index("run failed")) == null)),
    pairs: .,
    worst_p50_rel_err: ([.[] | .rel_err.p50? // null] | if any(. == null) then null else max end),
    worst_p90_rel_err: ([.[] | .rel_err.p90? // null] | if any(. == null) then null else max end),
    pairs_within_bands: ([.[] | select(.within)] | length),
    pairs_total: length }
elif $mode == "footer" then
  "validate \(.run_id): \(.pairs_within_bands)/\(.pairs_total) pairs within bands; worst p50 error \(.worst_p50_rel_err | fmt_pct), worst p90 error \(.worst_p90_rel_err | fmt_pct)"
else error("mode must be row, line, sides, median_run, kread, summary or footer") end
