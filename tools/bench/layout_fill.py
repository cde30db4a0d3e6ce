#!/usr/bin/env python3
"""Where the brick layout beats the node list, by how full its bricks are (issue 16,
must-have 2: "pick the default per geometry automatically"). `lattice.layout = "auto"`
chooses bricks on the GPU where 4^3 bricks fill to a threshold (core/sim/simulation.cpp,
choose_layout); the fill of a vessel falls as the lattice coarsens (more of its bricks
straddle the wall), so one geometry at several dx gives the speed of both layouts over a
range of fills, the patient surfaces' included (fill 0.81 at the aorta's own 0.3 mm).

For each geometry and dx: the fill that `hemoflow check --backend cuda` reports, then
the time per step of the node list and of bricks (lb_bgk.streaming = "ab") in each
storage, alternated, from runs of 2N and N steps (benchlib.step_time), and their ratio.
A measurement, no verdict: the threshold it suggests is for the reader (and
docs/bytes_per_update.md) to take.

Geometries: aorta (cases/bench/aorta.toml: the patient aorta's surface, closed, driven
by a body force; no iolets, no lb_vlbm: the update kernel alone) and vessel_tree
(cases/bench/vessel_tree.toml).

usage: layout_fill.py --hemoflow .bundle/bin/hemoflow [--geometry aorta] [--dx 2e-4,1.5e-4,1e-4]
                      [--storages fp32 fp16s] [--steps 500] [--repeat 1] [--docs docs]
       layout_fill.py --report docs/layout_fill.json
       (HEMO_DATA_DIR must point at the vascular data for the aorta)
"""
import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys

from benchlib import ROOT, commit, publish, step_time

CASES = {"aorta": "cases/bench/aorta.toml", "vessel_tree": "cases/bench/vessel_tree.toml"}
# lb_bgk.storage and lb_bgk.rounding of each storage name (as bench.py: plain 16-bit names round to nearest).
STORAGE_SETS = {"fp32": [], "fp16s": ["lb_bgk.storage=fp16s", "lb_bgk.rounding=nearest"],
                "e4m11-dithered": ["lb_bgk.storage=e4m11", "lb_bgk.rounding=dithered"]}


def fill_of(hemoflow, case, dx):
    """(fill of 4^3 bricks, fluid nodes) from `hemoflow check --backend cuda` at this dx."""
    cmd = [hemoflow, "check", case, "--backend", "cuda", "--set", f"lattice.dx={dx}"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    text = p.stdout + p.stderr
    fill = re.search(r"bricks of 4\^3 would be filled to ([0-9.]+)", text)
    nodes = re.search(r"mesh: (\d+) fluid nodes", text)
    if p.returncode != 0 or not fill or not nodes:
        sys.stderr.write(text[-3000:])
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return float(fill.group(1)), int(nodes.group(1))


def page(d):
    L = ["# Bricks against the node list, by fill", "",
         f"Measured {d['date']} at commit {d['commit']} on {d['device']} by `tools/bench/layout_fill.py "
         f"{d['args']}` (numbers in `docs/layout_fill.json`). Each row: one geometry at one dx, the fill of its "
         "4^3 bricks (fluid voxels / 64 per brick holding fluid, from `hemoflow check --backend cuda`), the time per "
         "step of each layout with two population arrays (lb_bgk.streaming = \"ab\", BGK, fp32 arithmetic), from "
         f"runs of 2N and N steps (N = {d['steps']}; median of {d['repeat']}), the layouts alternated. G/s: fluid-node "
         "updates per second. `lattice.layout = \"auto\"` chooses bricks at a fill of at least "
         f"{d['threshold']} (at this commit).", "",
         "| geometry | dx (m) | fluid nodes | fill | storage | node list (G/s) | bricks (G/s) | bricks / node list |",
         "|---|---|---|---|---|---|---|---|"]
    for r in d["rows"]:
        L.append(f"| {r['geometry']} | {r['dx']:g} | {r['nodes']:,} | {r['fill']:.3f} | {r['storage']} | "
                 f"{r['nodes_gups']:.2f} | {r['bricks_gups']:.2f} | {r['ratio']:.3f} |")
    L += ["", "A measurement without a tolerance: no verdict. Regenerate the page with "
          "`tools/bench/layout_fill.py --report docs/layout_fill.json`."]
    return L


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hemoflow")
    ap.add_argument("--geometry", action="append", choices=sorted(CASES))
    ap.add_argument("--dx", default="2e-4,1.5e-4,1e-4", help="comma-separated lattice spacings (m)")
    ap.add_argument("--storages", nargs="+", default=["fp32", "fp16s"], choices=sorted(STORAGE_SETS))
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--threshold", type=float, default=0.81, help="the auto rule's fill threshold at this commit")
    ap.add_argument("--backend", default="cuda", help="cpu: to try the script (the layouts' speeds there say nothing)")
    ap.add_argument("--work", default="/tmp/hemo_layout_fill")
    ap.add_argument("--docs")
    ap.add_argument("--report", help="only rewrite layout_fill.md (next to it) from this layout_fill.json")
    a = ap.parse_args()
    if a.report:
        with open(a.report) as f:
            d = json.load(f)
        publish(os.path.dirname(os.path.abspath(a.report)), "layout_fill", d, page(d))
        return 0
    if not a.hemoflow:
        ap.error("--hemoflow is required (or --report)")
    rows, device = [], ""
    for geometry in a.geometry or ["aorta"]:
        case = os.path.join(ROOT, CASES[geometry])
        for dx in [float(x) for x in a.dx.split(",")]:
            fill, nodes = fill_of(a.hemoflow, case, dx)
            print(f"== {geometry} dx {dx:g}: {nodes} fluid nodes, fill {fill:.3f}", flush=True)
            for storage in a.storages:
                ms = {"nodes": [], "bricks": []}
                for i in range(a.repeat):
                    for layout in ("nodes", "bricks"):
                        t, s = step_time(a.hemoflow, case, a.steps, f"{a.work}/{geometry}_{dx:g}_{storage}_{layout}_{i}",
                                         [f"lattice.dx={dx}", f"lattice.layout={layout}", "lb_bgk.collision=bgk",
                                          "lb_bgk.streaming=ab", *STORAGE_SETS[storage]], a.backend)
                        ms[layout].append(t)
                        device = s.get("device", device)
                med = {k: statistics.median(v) for k, v in ms.items()}
                row = {"geometry": geometry, "dx": dx, "nodes": nodes, "fill": fill, "storage": storage,
                       "nodes_ms": med["nodes"], "bricks_ms": med["bricks"], "runs_ms": ms,
                       "nodes_gups": nodes / med["nodes"] / 1e6, "bricks_gups": nodes / med["bricks"] / 1e6,
                       "ratio": med["nodes"] / med["bricks"]}
                print(f"   {storage}: node list {row['nodes_gups']:.2f} G/s, bricks {row['bricks_gups']:.2f} G/s "
                      f"({row['ratio']:.3f}x)", flush=True)
                rows.append(row)
    d = {"date": datetime.date.today().isoformat(), "commit": commit(), "device": device, "steps": a.steps,
         "repeat": a.repeat, "threshold": a.threshold,
         "args": " ".join(["--geometry " + g for g in a.geometry or ["aorta"]] +
                          [f"--dx {a.dx}", "--storages " + " ".join(a.storages), f"--steps {a.steps}",
                           f"--repeat {a.repeat}"]),
         "rows": rows}
    publish(a.docs, "layout_fill", d, page(d))
    return 0


if __name__ == "__main__":
    sys.exit(main())
