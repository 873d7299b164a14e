#!/usr/bin/env python3
"""tests/vm/check_matrix.py OUT MATRIX_JSON: the assertions of
test_vm_matrix.sh on `stalewin vm matrix --quick --json` output (a file
of its own so it can be run on a saved or mutated matrix.json)."""
import json, os, sys
out, path = sys.argv[1:]
m = json.load(open(path))
bad = []
def check(ok, msg):
    if not ok:
        bad.append(msg)
cells = {(c["kernel_name"], c["fs"], c["vers"]): c for c in m["cells"]}
for k, rel in (("6.1", "6.1."), ("7.2", "7.2.")):
    for fs in ("ext4", "xfs", "tmpfs"):
        for v in (3, 4):
            c = cells.get((k, fs, v))
            if c is None:
                bad.append("no cell for kernel %s %s v%d" % (k, fs, v)); continue
            for key in ("kernel", "fs", "vers", "workload", "stores", "truth_p50_s", "truth_p99_s",
                        "truth_max_s", "uncovered", "updates_per_1k", "equal_stamps", "kclient_p50_s", "run"):
                check(key in c, "cell %s %s v%d lacks %s" % (k, fs, v, key))
            check(c["kernel"].startswith(rel), "cell %s %s: kernel release %r" % (k, fs, c["kernel"]))
            check((c["stores"] or 0) > 0, "cell %s %s v%d: no stores" % (k, fs, v))
            check(c["complete"], "cell %s %s v%d: report not complete" % (k, fs, v))
            check(os.path.isfile(os.path.join(out, c["run"], "report.json")), "cell %s %s: no run folder %s" % (k, fs, c["run"]))
        c3, c4 = cells.get((k, fs, 3)), cells.get((k, fs, 4))
        if not c3 or not c4:
            continue
        if fs in ("ext4", "xfs"):
            cs = c3["consistency"]
            expl = sum(n for x, n in c3["explained"].items() if x not in ("unexplained", "clock"))
            check(cs["checked"] > 0, "%s %s: the v3 probe checked no store" % (k, fs))
            check(cs["checked"] - cs["consistent"] - expl == 0,
                  "%s %s: v3 probe inconsistent with the writer's truth: %s explained %s" % (k, fs, cs, c3["explained"]))
            check(c3["first_store_truth_s"] is not None and c3["first_store_truth_s"] <= c3["resolution_s"],
                  "%s %s: not eager: first store's truth window %s s (resolution %s s)" % (k, fs, c3["first_store_truth_s"], c3["resolution_s"]))
            check(c3["updates_per_1k"] > 0, "%s %s: no timestamp update at all" % (k, fs))
        else:
            check(c3["updates_per_1k"] == 0 and c3["uncovered"] == c3["stores"],
                  "%s tmpfs: pre-mapped pages must be written silently: %s updates/1k, %s of %s uncovered"
                  % (k, c3["updates_per_1k"], c3["uncovered"], c3["stores"]))
        nochange = {mk: n for mk, n in c4["revealed_by"].items() if "change" not in mk}
        check(not nochange, "%s %s: v4 replies revealed stores without the change attribute: %s" % (k, fs, nochange))
        # (one store at the log's end may be seen by one target only)
        check(c4["observed_unseen"] <= c3["observed_unseen"] + 1,
              "%s %s: v4 (change) missed %s stores, v3 (ctime) %s" % (k, fs, c4["observed_unseen"], c3["observed_unseen"]))
check(isinstance(m["findings"], list), "findings is not a list")
for b in bad:
    print("FAIL: " + b)
if bad:
    sys.exit(1)
print("PASS: %d cells; findings: %s" % (len(m["cells"]), m["findings"]))
