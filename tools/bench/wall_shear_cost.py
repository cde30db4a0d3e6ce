#!/usr/bin/env python3
"""What accumulating wall shear statistics every step costs (issue 17, item 6): the aorta
case (cases/aorta.toml, lb_bgk + lb_vlbm + boundaries) on one GPU, with and without the
wall_shear plugin sampling WSS into TAWSS/OSI/RRT every step (wall_shear.sample_every = 1,
no instantaneous files), the runs alternated --repeat times, the median time per step of
each compared. Target: at most 5% more time per step.

The time per step is the difference of hemoflow's wall time (summary.json, set-up left
out) for 2N and for N steps, over N: what a run pays once (the statistics file, the last
step's check, the device's backlog at the end) cancels. --variant KEY=VALUE[,...] adds a
run with wall_shear set otherwise (wall_shear.evaluate=node, wall_shear.sample_every=10),
a diagnostic beside the checked default.

Writes docs/wall_shear_cost.json and the section "Wall shear statistics" of
docs/performance.md (with --docs).

What sampling less often changes in the statistics (the cheaper alternative): --sampling
1,10,50 runs the aorta for --sampling-steps steps once per interval and keeps each run's
wall_shear_stats.h5 under --work; --sampling-from WORK compares them with the first
interval's (h5py needed, so it may run on another machine than the runs): the median and
the 99th percentile over the wall nodes of |TAWSS_k - TAWSS_1| / TAWSS_1 and of
|OSI_k - OSI_1|. A diagnostic: no tolerance, no verdict.

--staircase: the same without lb_vlbm (halfway bounce-back walls), where the momentum
exchange (wall_shear.method = "momentum_exchange") applies; its own JSON, a diagnostic
beside the checked lb_vlbm case.

usage: wall_shear_cost.py --hemoflow .bundle/bin/hemoflow [--steps 3000] [--repeat 3] [--variant ...] [--staircase] [--docs docs]
       wall_shear_cost.py --hemoflow ... --sampling 1,10,50 [--sampling-steps 20000] --work DIR
       wall_shear_cost.py --sampling-from DIR [--docs docs]
       (HEMO_DATA_DIR must point at the vascular data, as for the aorta case)
"""
import argparse
import datetime
import json
import os
import statistics
import sys

from benchlib import ROOT, commit, replace_doc_section, run_summary, step_time, write_json

TARGET = 0.05


def run(a, out, with_wss, sets=()):
    """The time per step of the aorta with or without wall_shear (benchlib.step_time)."""
    base = '"lb_bgk","boundaries"' if a.staircase else '"lb_bgk","lb_vlbm","boundaries"'
    plugins = f'[{base},"wall_shear"]' if with_wss else f'[{base}]'
    wss = ["wall_shear.every=0", "wall_shear.sample_every=1"] if with_wss else []
    ms, s = step_time(a.hemoflow, os.path.join(ROOT, "cases", "aorta.toml"), a.steps, out,
                      [f"run.plugins={plugins}", *wss, *sets], a.backend)  # a variant's settings last
    return {"ms_per_step": ms, "fluid_nodes": s["fluid_nodes"], "device": s.get("device", ""),
            "layout": s.get("layout", ""), "precision": s.get("precision", "")}


def run_sampling(a):
    """One run of --sampling-steps steps per sampling interval; their statistics files stay in a.work."""
    for k in [int(x) for x in a.sampling.split(",")]:
        out = f"{a.work}/sampling_{k}"
        cmd = [a.hemoflow, "run", os.path.join(ROOT, "cases", "aorta.toml"), "--quiet", "--progress", "never",
               "--backend", a.backend, "--steps", str(a.sampling_steps), "--output", out, "--overwrite",
               "--set", 'run.plugins=["lb_bgk","lb_vlbm","boundaries","wall_shear"]', "--set", "output.final=false",
               "--set", f"run.check_every={a.sampling_steps}", "--set", "wall_shear.every=0",
               "--set", f"wall_shear.sample_every={k}"]
        s = run_summary(cmd, out)
        with open(os.path.join(out, "sampling.json"), "w") as f:
            json.dump({"sample_every": k, "steps": s["steps"], "device": s.get("device", ""), "commit": commit(),
                       "wall_seconds": s["wall_seconds"]}, f)


def compare_sampling(work):
    """The statistics of each sampling interval against the first's (sorted by interval)."""
    import h5py
    import numpy as np
    runs = []
    for name in os.listdir(work):
        if name.startswith("sampling_") and os.path.exists(os.path.join(work, name, "sampling.json")):
            with open(os.path.join(work, name, "sampling.json")) as f:
                meta = json.load(f)
            with h5py.File(os.path.join(work, name, "wall_shear_stats.h5"), "r") as h:
                meta["tawss"] = np.asarray(h["tawss"][()]).ravel()
                meta["osi"] = np.asarray(h["osi"][()]).ravel()
            runs.append(meta)
    runs.sort(key=lambda r: r["sample_every"])
    ref = runs[0]
    rows = []
    for r in runs[1:]:
        dt = np.abs(r["tawss"] - ref["tawss"]) / np.maximum(ref["tawss"], 1e-300)
        do = np.abs(r["osi"] - ref["osi"])
        rows.append({"sample_every": r["sample_every"], "tawss_rel_median": float(np.median(dt)),
                     "tawss_rel_p99": float(np.percentile(dt, 99)), "osi_abs_median": float(np.median(do)),
                     "osi_abs_p99": float(np.percentile(do, 99))})
    return {"reference_sample_every": ref["sample_every"], "steps": ref["steps"], "device": ref["device"],
            "commit": ref["commit"], "wall_nodes": int(ref["tawss"].size), "rows": rows}


def sampling_lines(c):
    out = [f"What sampling less often changes (a diagnostic, no tolerance): the aorta, {c['steps']:,} steps from rest "
           f"on {c['device']} at {c['commit']} (`tools/bench/wall_shear_cost.py --sampling "
           f"{c['reference_sample_every']},{','.join(str(r['sample_every']) for r in c['rows'])} "
           f"--sampling-steps {c['steps']}`, compared by `--sampling-from`), {c['wall_nodes']:,} wall nodes, "
           f"against sampling every {c['reference_sample_every']} step:", "",
           "| sample_every | TAWSS rel. diff., median | 99th pct | OSI abs. diff., median | 99th pct |",
           "|---|---|---|---|---|"]
    for r in c["rows"]:
        out.append(f"| {r['sample_every']} | {r['tawss_rel_median']:.2e} | {r['tawss_rel_p99']:.2e} | "
                   f"{r['osi_abs_median']:.2e} | {r['osi_abs_p99']:.2e} |")
    return out + [""]


def section(d):
    rows = ["| sampling | ms per step (median) | runs | cost | target | verdict |", "|---|---|---|---|---|---|",
            f"| none (without wall_shear) | {d['without_ms']:.4f} | {', '.join(f'{x:.4f}' for x in d['without_runs'])} "
            "| | | |"]
    for v in d["variants"]:
        # The target is for sampling every step as set up by default, on the case as set up (lb_vlbm's walls).
        checked = not v["sets"] and not d.get("staircase")
        verdict = ("**PASS**" if v["overhead"] <= TARGET else "**FAIL**") if checked else "diagnostic"
        rows.append(f"| {v['name']} | {v['ms']:.4f} | {', '.join(f'{x:.4f}' for x in v['runs'])} | "
                    f"{100 * v['overhead']:+.1f}% | {f'<= {100 * TARGET:.0f}%' if checked else ''} | {verdict} |")
    cmd = " ".join([f"--steps {d['steps']} --repeat {d['repeat']}"] + (["--staircase"] if d.get("staircase") else []) +
                   [f"--variant {','.join(v['sets'])}" for v in d["variants"] if v["sets"]])
    return ["## Wall shear statistics", "",
            f"Measured {d['date']} at commit {d['commit']} on {d['device']} by `tools/bench/wall_shear_cost.py {cmd}`: "
            f"the aorta case ({d['fluid_nodes']:,} fluid nodes, {d['layout']}, {d['precision']}, walls: "
            f"{'staircase (halfway bounce-back, no lb_vlbm)' if d.get('staircase') else 'lb_vlbm partial cells'}) "
            "without the wall_shear "
            "plugin and with it sampling the wall shear stress into TAWSS, OSI and RRT (numbers in "
            "`docs/wall_shear_cost.json`). Time per step: runs of 2N and N steps differenced; the variants alternated. "
            "The target (issue 17) is for sampling every step with the defaults; the other rows are diagnostics.", ""
            ] + rows + [""] + (sampling_lines(d["sampling"]) if d.get("sampling") else [])


def update_performance(docs, d):
    if not os.path.exists(os.path.join(docs, "performance.md")):  # e.g. a fresh folder on a lent machine
        print(f"no performance.md in {docs}: its section not written; later: --report {docs}/wall_shear_cost.json "
              "with the file beside docs/performance.md")
        return
    replace_doc_section(docs, section(d))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hemoflow")
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--work", default="/tmp/hemo_wss_cost")
    ap.add_argument("--docs")
    ap.add_argument("--staircase", action="store_true",
                    help="the aorta without lb_vlbm (halfway bounce-back walls, where wall_shear.method = "
                         "\"momentum_exchange\" applies): written to wall_shear_cost_staircase.json, "
                         "performance.md left as it is")
    ap.add_argument("--variant", action="append",
                    help="KEY=VALUE[,KEY=VALUE...] for a further run with wall_shear (repeatable), e.g. "
                         "wall_shear.evaluate=node or wall_shear.sample_every=10")
    ap.add_argument("--sampling", help="comma-separated sample_every values: runs kept under --work")
    ap.add_argument("--sampling-steps", type=int, default=20000)
    ap.add_argument("--sampling-from", help="compare the --sampling runs kept in this folder")
    ap.add_argument("--report", help="only rewrite performance.md's section (next to it) from this wall_shear_cost.json")
    a = ap.parse_args()
    if a.sampling:
        run_sampling(a)
        return 0
    if a.sampling_from:
        c = compare_sampling(a.sampling_from)
        print("\n".join(sampling_lines(c)))
        if a.docs:  # into the measured cost's record and section
            path = os.path.join(a.docs, "wall_shear_cost.json")
            with open(path) as f:
                d = json.load(f)
            d["sampling"] = c
            write_json(a.docs, "wall_shear_cost.json", d)
            update_performance(a.docs, d)
        return 0
    if a.report:
        with open(a.report) as f:
            update_performance(os.path.dirname(os.path.abspath(a.report)), json.load(f))
        return 0
    variants = [("every step", [])] + [(v, v.split(",")) for v in a.variant or []]
    without, runs = [], {name: [] for name, _ in variants}
    for i in range(a.repeat):  # alternated, so drifts of the clock hit all alike
        without.append(run(a, f"{a.work}/without_{i}", False))
        for k, (name, sets) in enumerate(variants):
            runs[name].append(run(a, f"{a.work}/with{k}_{i}", True, sets))
    wo = statistics.median(x["ms_per_step"] for x in without)
    d = {"date": datetime.date.today().isoformat(), "commit": commit(), "device": without[0]["device"],
         "steps": a.steps, "repeat": a.repeat, "fluid_nodes": without[0]["fluid_nodes"], "layout": without[0]["layout"],
         "precision": without[0]["precision"], "without_ms": wo, "without_runs": [x["ms_per_step"] for x in without],
         "target": TARGET, "variants": [],
         "staircase": a.staircase}
    for name, sets in variants:
        ms = statistics.median(x["ms_per_step"] for x in runs[name])
        d["variants"].append({"name": name, "sets": sets, "ms": ms, "runs": [x["ms_per_step"] for x in runs[name]],
                              "overhead": ms / wo - 1})
    print("\n".join(section(d)))
    if a.docs and a.staircase:
        write_json(a.docs, "wall_shear_cost_staircase.json", d)
    elif a.docs:
        earlier = os.path.join(a.docs, "wall_shear_cost.json")
        if os.path.exists(earlier):  # its sampling comparison (--sampling-from) carries its own commit: kept
            with open(earlier) as f:
                if "sampling" in (e := json.load(f)):
                    d["sampling"] = e["sampling"]
        write_json(a.docs, "wall_shear_cost.json", d)
        update_performance(a.docs, d)
    else:
        write_json(a.work, "wall_shear_cost.json", d)
    return 0


if __name__ == "__main__":
    sys.exit(main())
