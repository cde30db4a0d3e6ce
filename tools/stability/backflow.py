#!/usr/bin/env python3
"""Backflow at a pressure outlet (cases/backflow_jet.toml): a pulsatile jet into a wider
duct, whose vortices make part of the outlet flow back in. Runs it for each collision
operator with and without the outlet's backflow stabilization (physics/backflow.hpp) and
records whether the run survived all periods, the step it diverged at otherwise, how
much of the outlet flowed back (the share of outlet-line samples with u . n < 0, from
the case's probe), and the most negative net outlet flow.

Writes docs/backflow.json and docs/backflow.md.

usage: tools/stability/run-backflow [--backend cuda] [--operators ...] [--set KEY=VALUE ...]
"""
import argparse
import csv
import concurrent.futures as cf
import datetime
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "analysis"))
import hemo_output  # noqa: E402

CASE = os.path.join(ROOT, "cases", "backflow_jet.toml")


def analyse(out):
    """Share of outlet-line samples flowing back in, and the most negative net outflow."""
    line = hemo_output.probe(out, "outlet_line")
    back = float((line["ux"] < 0).mean()) if len(line["ux"]) else float("nan")
    with open(os.path.join(out, "iolets.csv")) as f:
        rows = list(csv.DictReader(f))
    inflow = max(float(r["inlet_flow_m3_per_s"]) for r in rows)
    net_back = max(float(r["outlet_flow_m3_per_s"]) for r in rows)  # > 0: net inflow through the outlet
    return back, net_back / inflow if inflow > 0 else float("nan")


def run(a, operator, beta, extra):
    name = f"{operator}_beta{beta:g}"
    out = os.path.join(a.work, name)
    cmd = [a.hemoflow, "run", CASE, "--quiet", "--progress", "never", "--output", out, "--overwrite", "--backend", a.backend,
           "--set", f'lb_bgk.collision="{operator}"', "--set", f"boundaries.iolet.1.backflow_stabilization={beta}",
           # TRT at the jet's grid Reynolds number (16.7) is past what hemoflow accepts by
           # default (docs/stability.md); this study runs it to see how it fails.
           "--set", "lb_bgk.max_grid_reynolds=1e9", *extra]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    rec = {"operator": operator, "backflow_stabilization": beta, "seconds": round(time.time() - t0, 1),
           "exit_code": p.returncode, "command": " ".join(cmd[1:])}
    s = hemo_output.summary(out) if os.path.exists(os.path.join(out, "summary.json")) else {}
    rec.update({"steps_done": s.get("steps"), "steps": s.get("steps_requested"), "tau": s.get("tau"),
                "reynolds": s.get("reynolds"), "mach": s.get("mach"), "fluid_nodes": s.get("fluid_nodes"),
                "device": s.get("device")})
    rec["outcome"] = {0: "survived", 3: "diverged"}.get(p.returncode, "error")
    if p.returncode != 0:
        rec["detail"] = (p.stderr.strip().splitlines() or [""])[-1][:300]
    try:
        rec["backflow_share"], rec["net_backflow_of_peak_inflow"] = analyse(out)
    except (OSError, KeyError, ValueError, StopIteration):
        pass
    print(f"  {operator:11s} beta {beta:g}: {rec['outcome']} after {rec['steps_done']} of {rec['steps']} steps "
          f"({rec['seconds']} s); outlet samples flowing back {100 * rec.get('backflow_share', float('nan')):.1f}%",
          flush=True)
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", choices=["cpu", "cuda"], default="cuda")
    ap.add_argument("--hemoflow", default=os.path.join(ROOT, "build", "bin", "hemoflow"))
    ap.add_argument("--operators", nargs="+", default=["bgk", "trt", "regularized"])
    ap.add_argument("--set", action="append", default=[], help="extra --set for every run (e.g. lattice.dx=2e-4)")
    ap.add_argument("--jobs", type=int, default=2, help="runs in parallel (on one GPU, more than 2 lose to time-slicing)")
    ap.add_argument("--work", default=os.path.join(ROOT, "out", "backflow"))
    ap.add_argument("--docs", default=os.path.join(ROOT, "docs"))
    a = ap.parse_args()
    extra = [x for s in a.set for x in ("--set", s)]
    os.makedirs(a.work, exist_ok=True)
    jobs = [(o, b) for o in a.operators for b in (0.0, 1.0)]
    t0 = time.time()
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        records = list(pool.map(lambda j: run(a, j[0], j[1], extra), jobs))
    commit = os.environ.get("HEMO_COMMIT") or subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT,
                                                             capture_output=True, text=True).stdout.strip()
    meta = {"date": str(datetime.date.today()), "commit": commit, "backend": a.backend, "case": "cases/backflow_jet.toml",
            "overrides": a.set, "seconds": round(time.time() - t0, 1),
            "command": "tools/stability/run-backflow " + " ".join(sys.argv[1:])}
    os.makedirs(a.docs, exist_ok=True)
    with open(os.path.join(a.docs, "backflow.json"), "w") as f:
        json.dump({"meta": meta, "runs": records}, f, indent=1)
        f.write("\n")
    r0 = records[0]
    L = ["# Backflow at a pressure outlet", "",
         f"Generated by `{meta['command']}` on {meta['date']} at commit `{commit}` ({r0.get('device')}, {a.backend}). "
         f"Case `cases/backflow_jet.toml`{' with ' + ', '.join(a.set) if a.set else ''}: {r0.get('fluid_nodes')} nodes, "
         f"tau {r0.get('tau')}, Re {r0.get('reynolds', 0):.0f} and Mach {r0.get('mach', 0):.3f} at the peak inflow, "
         f"{r0.get('steps')} steps (20 periods).", "",
         "| operator | backflow stabilization | outcome | steps done | outlet samples flowing back | "
         "largest net backflow / peak inflow |", "|---|---|---|---|---|---|"]
    for r in records:
        share = r.get("backflow_share")
        net = r.get("net_backflow_of_peak_inflow")
        L.append(f"| {r['operator']} | {r['backflow_stabilization']:g} | {r['outcome']} | {r['steps_done']} of {r['steps']} | "
                 f"{'-' if share is None else f'{100 * share:.1f}%'} | {'-' if net is None else f'{net:.3f}'} |")
    with open(os.path.join(a.docs, "backflow.md"), "w") as f:
        f.write("\n".join(L) + "\n")
    print(f"wrote {a.docs}/backflow.md and backflow.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
