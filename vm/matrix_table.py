#!/usr/bin/env python3
"""vm/matrix_table.py - the tables and findings of `stalewin vm matrix`.

Reads OUT/<kernel>/<run>/{meta.json,report.json,report.csv,
server/nfsd-states.txt} and OUT/<kernel>/vm/kernel-release.txt; every
figure comes from stalewin-report's output except three small ones noted
below (first store's truth window from report.csv, the delegation count
from the server's nfsd states, updates per 1000 stores = cost.updates /
truth.stores).  Writes OUT/matrix.json and prints the text tables (or,
with --json, the JSON object) on stdout.

Cell definitions (one per kernel, fs, NFS version, workload):
  vers 3: truth_* = the writer's truth (store -> first ctime/mtime change
          the writer's own stat saw on the server: exact), observed_* = the
          probe's v3 target (ctime/mtime over GETATTR).
  vers 4: truth_* = the probe's v4 target (the change attribute knfsd
          serves: nothing local can read i_version, so the probe at its
          resolution is the reference), observed_* = the same target.
  uncovered = stores with no end in the logs (no update / never seen).
"""
import argparse, csv, glob, json, os, sys

ap = argparse.ArgumentParser()
ap.add_argument("--out", required=True)
ap.add_argument("--kernels", required=True)
ap.add_argument("--fs", required=True)
ap.add_argument("--workloads", required=True)
ap.add_argument("--sysctls", default="")
ap.add_argument("--writer-args", default="")
ap.add_argument("--duration", default="")
ap.add_argument("--wall", default="")
ap.add_argument("--json", action="store_true")
a = ap.parse_args()


def load(p):
    try:
        with open(p) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def s(ns):
    return None if ns is None else ns / 1e9


cells, missing, problems = [], [], []
for k in a.kernels.split(","):
    kdir = os.path.join(a.out, k)
    rel = None
    try:
        rel = open(os.path.join(kdir, "vm", "kernel-release.txt")).read().split()[0].split("=", 1)[1]
    except (OSError, IndexError):
        pass
    runs = {}
    for mj in glob.glob(os.path.join(kdir, "*", "meta.json")) + [os.path.join(kdir, "meta.json")]:
        m = load(mj)
        if not m or "fs" not in m:
            continue
        runs[(m["fs"], m["workload"])] = (os.path.dirname(mj), m)
    for fs in a.fs.split(","):
        for wl in a.workloads.split(","):
            if (fs, wl) not in runs:
                missing.append("%s %s %s" % (k, fs, wl))
                continue
            d, m = runs[(fs, wl)]
            r = load(os.path.join(d, "report.json"))
            if not r:
                missing.append("%s %s %s (no report.json in %s)" % (k, fs, wl, d))
                continue
            res = r["results"]
            figs = {f["name"]: f for f in res["figures"]}
            truth = figs.get("truth", {})
            if not r["end"].get("complete"):
                problems.append("%s: report partial (%s)" % (d, "; ".join(p.get("message", str(p)) if isinstance(p, dict) else str(p) for p in r["end"].get("problems", [])[:2])))
            cost = res.get("cost", {})
            stores = truth.get("stores") or 0
            first = None
            try:
                with open(os.path.join(d, "report.csv")) as f:
                    row = next(csv.DictReader(f))
                    first = int(row["w_truth_ns"]) if row["w_truth_ns"] else None
            except (OSError, StopIteration, KeyError, ValueError):
                pass
            # server/nfsd-states.txt: "UPTIME - STATEID: { type: ..., filename: ... }"
            # sampled every ~1 s during the writer run
            deleg = None
            try:
                samples, with_d = [], []
                fname = "/f-%d" % m["experiment"]
                for line in open(os.path.join(d, "server", "nfsd-states.txt")):
                    t = line.split(" ", 1)[0]
                    if not samples or samples[-1] != t:
                        samples.append(t)
                    if "type: deleg" in line and '"%s"' % fname in line and (not with_d or with_d[-1] != t):
                        with_d.append(t)
                deleg = {"samples": len(samples), "with_delegation": len(with_d),
                         "first_uptime_s": float(with_d[0]) if with_d else None,
                         "last_uptime_s": float(with_d[-1]) if with_d else None,
                         "next_sample_without_s": next((float(x) for x in samples if with_d and float(x) > float(with_d[-1])), None)}
            except (OSError, ValueError):
                pass
            kreads = {}
            for i, kr in enumerate(res.get("kread") or []):
                v = 4 if "vers=4" in kr.get("mount_options", "") else 3
                f = figs.get("kread-%d %s" % (i, "kept" if kr.get("mode") == "kept-open" else "cto"))
                if f:
                    kreads[v] = f
            for ob in res.get("observers", []):
                v = ob["vers"]
                of = figs.get(ob["name"], {})
                tf = truth if v == 3 else of
                c = ob.get("consistency", {})
                cells.append({
                    "kernel": rel or k, "kernel_name": k, "fs": fs, "vers": v, "workload": wl,
                    "stores": tf.get("stores"),
                    "truth_p50_s": s(tf.get("p50_ns")), "truth_p99_s": s(tf.get("p99_ns")),
                    "truth_max_s": s(tf.get("max_ns")), "uncovered": tf.get("unresolved"),
                    "truth_source": "writer stat (ctime/mtime)" if v == 3 else "probe v4 target (change attribute)",
                    "observed_p50_s": s(of.get("p50_ns")), "observed_unseen": of.get("unresolved"),
                    "resolution_s": s(ob.get("resolution_ns")),
                    "consistency": {x: c.get(x) for x in ("checked", "consistent", "early", "late")},
                    "explained": c.get("explained", {}),
                    "revealed_by": ob.get("revealed_by", {}),
                    "updates_per_1k": round(cost.get("updates", 0) * 1000.0 / stores, 1) if stores else None,
                    "equal_stamps": cost.get("equal_timestamp_pairs"),
                    "first_store_truth_s": s(first),
                    "kclient_p50_s": s(kreads.get(v, {}).get("p50_ns")),
                    "kclient_unresolved": kreads.get(v, {}).get("unresolved"),
                    "delegations_seen": deleg if v == 4 else None,
                    "run": os.path.relpath(d, a.out),
                    "complete": bool(r["end"].get("complete")),
                })

# ------------------------------------------------------------- findings
# Each is computed from the cells and printed only when its figure is
# outside the resolution of the measurement that makes it.
findings = []
deleg = {}
by = {}
for c in cells:
    by[(c["kernel_name"], c["fs"], c["workload"], c["vers"])] = c
for (k, fs, wl, v), c in sorted(by.items()):
    res = c["resolution_s"] or 0
    if v == 3 and c["first_store_truth_s"] is not None and c["first_store_truth_s"] > res:
        findings.append("%s %s %s: the first store's timestamp update came %.3f s after it (not eager: "
                        "resolution %.3f s)" % (c["kernel"], fs, wl, c["first_store_truth_s"], res))
    if v == 4:
        alone = sum(n for m, n in c["revealed_by"].items() if "change" in m and "ctime" not in m)
        tot = sum(c["revealed_by"].values())
        if alone:
            findings.append("%s %s %s, v4: the change attribute alone (ctime unchanged) revealed %d of %d "
                            "revealed stores" % (c["kernel"], fs, wl, alone, tot))
        nochange = sum(n for m, n in c["revealed_by"].items() if "change" not in m)
        if nochange:
            findings.append("%s %s %s, v4: %d stores revealed without the change attribute moving "
                            "(ctime/mtime only)" % (c["kernel"], fs, wl, nochange))
        c3 = by.get((k, fs, wl, 3))
        if c3 and c3["observed_unseen"] is not None and c["observed_unseen"] is not None \
                and abs(c["observed_unseen"] - c3["observed_unseen"]) > 1:
            # (one store at the log's end may be seen by one target only)
            findings.append("%s %s %s: stores never seen changed: v3 (ctime) %d, v4 (change) %d of %d"
                            % (c["kernel"], fs, wl, c3["observed_unseen"], c["observed_unseen"], c["stores"]))
        if c3 and c["kclient_p50_s"] is not None and c3["kclient_p50_s"] is not None \
                and abs(c["kclient_p50_s"] - c3["kclient_p50_s"]) > 1.0:
            # the client's 3 s attribute-cache timeout, in whatever phase
            # it meets the stores, spreads a short run's p50 by up to ~1 s
            # (seen between repeated identical runs): only more counts
            findings.append("%s %s %s: kernel client p50 vers=3 %.2f s, vers=4.2 %.2f s"
                            % (c["kernel"], fs, wl, c3["kclient_p50_s"], c["kclient_p50_s"]))
        dg = c["delegations_seen"]
        if dg and dg["with_delegation"]:
            gone = dg["next_sample_without_s"] is not None and dg["with_delegation"] < dg["samples"]
            deleg.setdefault(c["kernel"], []).append(
                (fs + " " + wl, dg["next_sample_without_s"] - dg["first_uptime_s"] if gone else None,
                 dg["with_delegation"], dg["samples"]))
    cs = c["consistency"]
    # outside resolution and not explained by a known cause (race, gap...)
    expl = sum(n for x, n in (c.get("explained") or {}).items() if x not in ("unexplained", "clock"))
    bad = (cs.get("checked") or 0) - (cs.get("consistent") or 0) - expl
    if bad > 0:
        findings.append("%s %s %s, v%d probe: %d of %d checked stores outside resolution of the writer's "
                        "truth, unexplained" % (c["kernel"], fs, wl, v, bad, cs.get("checked")))
    if v == 3 and c["equal_stamps"]:
        findings.append("%s %s %s: %d updates left ctime and mtime equal to the previous update's "
                        "(invisible to a v3 client)" % (c["kernel"], fs, wl, c["equal_stamps"]))
# delegations, one line per kernel (sampled ~1 s apart in the server guest)
for kern, lst in sorted(deleg.items()):
    held = [x for x in lst if x[1] is None]
    broke = [x for x in lst if x[1] is not None]
    nruns = len([1 for (k2, f2, w2, v2) in by if v2 == 4 and by[(k2, f2, w2, v2)]["kernel"] == kern])
    if broke:
        findings.append("%s: the v4.2 client held a read delegation on the file when the writer started in %d "
                        "of %d runs (%s); it was gone by the next sample, <= %.1f s later (the writer's open "
                        "for write breaks it)" % (kern, len(broke), nruns, ", ".join(x[0] for x in broke),
                                                  max(x[1] for x in broke)))
    for x in held:
        findings.append("%s %s: the v4.2 client held a read delegation in %d of %d samples while the local "
                        "mmap writer ran" % (kern, x[0], x[2], x[3]))
# per kernel+workload: update rate of each fs against ext4's
for (k, fs, wl, v), c in sorted(by.items()):
    e = by.get((k, "ext4", wl, 3))
    if v != 3 or fs == "ext4" or not e or c["updates_per_1k"] is None or e["updates_per_1k"] is None:
        continue
    # counts of updates: a difference within 3 sqrt(n1 + n2) (count noise)
    # is no finding
    n1 = c["updates_per_1k"] * (c["stores"] or 0) / 1000.0
    n2 = e["updates_per_1k"] * (e["stores"] or 0) / 1000.0
    if abs(n1 - n2) > max(1.0, 3 * (n1 + n2) ** 0.5):
        findings.append("%s %s: %s %.1f timestamp updates per 1000 stores, ext4 %.1f"
                        % (c["kernel"], wl, fs, c["updates_per_1k"], e["updates_per_1k"]))

# per fs+workload: each kernel's update rate against the first kernel's.
# The writer stats the file right after every store (native mode): that
# is a query, so from 6.13 on (multigrain) every faulting store gets a
# stamp of its own, where 6.1/6.12 give the stores of one 4 ms jiffy the
# same (coarse) stamp: an update no NFSv3 client can see.
klist = a.kernels.split(",")
for fs in a.fs.split(","):
    for wl in a.workloads.split(","):
        base = by.get((klist[0], fs, wl, 3))
        if not base or base["updates_per_1k"] is None:
            continue
        for k in klist[1:]:
            c = by.get((k, fs, wl, 3))
            if not c or c["updates_per_1k"] is None:
                continue
            n1 = c["updates_per_1k"] * (c["stores"] or 0) / 1000.0
            n2 = base["updates_per_1k"] * (base["stores"] or 0) / 1000.0
            if abs(n1 - n2) > max(1.0, 3 * (n1 + n2) ** 0.5):
                why = ""
                try:
                    mg = tuple(int(x) for x in c["kernel"].split("-")[0].split("+")[0].split(".")[:2]) >= (6, 13)
                    mg0 = tuple(int(x) for x in base["kernel"].split("-")[0].split(".")[:2]) >= (6, 13)
                except ValueError:
                    mg = mg0 = False
                if mg and not mg0 and n1 > n2:
                    why = (" (multigrain: the writer stats after every store, a query, so each faulting "
                           "store gets a stamp of its own; %s gives one 4 ms jiffy's stores one stamp)" % base["kernel"])
                findings.append("%s %s: %s %.1f timestamp updates per 1000 stores, %s %.1f%s"
                                % (fs, wl, c["kernel"], c["updates_per_1k"], base["kernel"], base["updates_per_1k"], why))

out = {"tool": "stalewin vm matrix", "kernels": a.kernels.split(","), "fs": a.fs.split(","),
       "workloads": a.workloads.split(","), "sysctls_guests": a.sysctls.split(), "writer_args": a.writer_args,
       "duration_s": int(a.duration) if a.duration else None, "wall_s": float(a.wall) if a.wall else None,
       "cells": cells, "findings": findings, "missing": missing, "problems": problems}
with open(os.path.join(a.out, "matrix.json"), "w") as f:
    json.dump(out, f, indent=1)
if a.json:
    json.dump(out, sys.stdout, indent=1)
    print()
else:
    def f3(x):
        return "-" if x is None else ("%.3f" % x if x < 10 else "%.1f" % x)

    def fp(x, unc):
        return ">end" if x is None and unc else f3(x)
    print("stalewin vm matrix: native policy (writer %s), guests' writeback pinned (%s), %s s per run, wall %s s"
          % (a.writer_args or "-", a.sysctls, a.duration, a.wall))
    print("v3 truth = the writer's stat on the server (ctime); v4 truth = the probe's v4 target "
          "(change attribute); seconds; kcl = the kernel client's p50 (kept-open reader, vers=3 / 4.2)")
    for wl in a.workloads.split(","):
        print("\nworkload %s" % wl)
        hdr = ("kernel", "fs", "stores", "v3 p50", "p99", "max", "unc", "v4 p50", "p99", "max", "unc",
               "upd/1k", "eq", "kcl v3", "kcl v4", "run")
        fmt = "%-20s %-5s %6s %7s %7s %7s %4s %7s %7s %7s %4s %6s %3s %6s %6s  %s"
        print(fmt % hdr)
        for k in a.kernels.split(","):
            for fs in a.fs.split(","):
                c3, c4 = by.get((k, fs, wl, 3)), by.get((k, fs, wl, 4))
                if not c3 or not c4:
                    print("%-20s %-5s (no cell: the run failed or was cut short)" % (k, fs))
                    continue
                print(fmt % (c3["kernel"][:20], fs, c3["stores"],
                             fp(c3["truth_p50_s"], c3["uncovered"]), fp(c3["truth_p99_s"], c3["uncovered"]),
                             fp(c3["truth_max_s"], c3["uncovered"]), c3["uncovered"],
                             fp(c4["truth_p50_s"], c4["uncovered"]), fp(c4["truth_p99_s"], c4["uncovered"]),
                             fp(c4["truth_max_s"], c4["uncovered"]), c4["uncovered"],
                             f3(c3["updates_per_1k"]), c3["equal_stamps"],
                             fp(c3["kclient_p50_s"], c3["kclient_unresolved"]),
                             fp(c4["kclient_p50_s"], c4["kclient_unresolved"]), c3["run"]))
    print("\nfindings:" if findings else "\nfindings: none outside resolution")
    for x in findings:
        print("- " + x)
    for x in problems:
        print("problem: " + x)
    if missing:
        print("missing cells: " + "; ".join(missing))
sys.exit(1 if missing or problems else 0)
