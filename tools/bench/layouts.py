#!/usr/bin/env python3
"""Bytes per fluid-node update and device memory per fluid node of population layouts,
counted from the voxel geometries (issue 16, must-have 2: "show the bytes per fluid-node
update each layout moves on the three bench geometries and the patient surfaces ...
measure the fill"). Nothing here is timed: the counts are the least each layout must
move, by the convention of docs/performance.md (every population read once and written
once per update, index and flag bytes as stored, caches ignored), from the fill of the
bricks that hold fluid, which is measured on each geometry as voxelized for its case.

Layouts (D3Q19, Q = 19, pull streaming; s = bytes per stored population: 4 for FP32, 2
for a 16-bit storage such as FluidX3D's FP16S):
  node list  today's SPARSE: the fluid nodes in a list, 18 neighbour indices of 4 B per
             node: 2 Q s + 72 B per update; memory 2 Q s + 72 (A/B arrays), Q s + 72 with
             in-place streaming (AA pattern: one array)
  brick B    the boxes of B^3 voxels that hold fluid stored densely, neighbours inside a
             brick implicit, 26 neighbour-brick ids (4 B each) per brick and one flag byte
             per slot; fill f = fluid voxels / (bricks x B^3). Per fluid-node update:
             upper bound (every slot of a brick moves its populations, as a dense brick
             kernel does) (2 Q s + 1) / f + 104 / (B^3 f); lower bound (solid slots masked
             off, their memory sectors never fetched) 2 Q s + (1 + 104 / B^3) / f. Memory
             per fluid node: (2 or 1) Q s / f + (1 + 104 / B^3) / f
  dense      every voxel of the box (FluidX3D's layout): (2 Q s + 1) / q per fluid node,
             q the box's fluid fraction; for scale
"fewest (count)": the layout with the fewest upper-bound bytes per update, a projection. The
solver's `lattice.layout = "auto"` follows measured speed instead (docs/bytes_per_update.md,
section 9): the brick kernel is limited by instructions, not bytes.

  tools/bench/layouts.py --hemoflow build/bin/hemoflow --work /tmp/layouts --docs docs
(HEMO_DATA_DIR must name the folder holding vascular/ for the patient surfaces; a
geometry whose file is absent is skipped and said so.)
"""
import argparse
import datetime
import os
import subprocess
import sys
import tomllib

import numpy as np

from benchlib import ROOT, commit, publish

Q = 19
GEOMETRIES = [  # label, case
    ("dense box 256^3", "cases/bench/box.toml"),
    ("pipe D = 256, L = 320", "cases/bench/pipe.toml"),
    ("vessel tree, 15 vessels", "cases/bench/vessel_tree.toml"),
    ("aorta (patient surface)", "cases/aorta.toml"),
    ("carotid (patient surface)", "cases/carotid.toml"),
]
BRICKS = (4, 8)
STORAGE = {"fp32": 4, "16-bit": 2}


def fluid_mask(a, case, label):
    """The case's voxels as a boolean array (z, y, x); None where its surface file is absent."""
    with open(os.path.join(ROOT, case), "rb") as f:
        c = tomllib.load(f)
    g = c["geometry"]
    if g["shape"] == "box":  # all fluid: no file needed
        n = [int(round(s / c["lattice"]["dx"])) for s in g["size"]]
        return np.ones((n[2], n[1], n[0]), dtype=bool)
    if "file" in g and "$HEMO_DATA_DIR" in g["file"]:
        path = g["file"].replace("$HEMO_DATA_DIR", os.environ.get("HEMO_DATA_DIR", "\0"))
        if not os.path.exists(path):
            print(f"  {label}: skipped ({g['file']} absent; set HEMO_DATA_DIR)")
            return None
    out = os.path.join(a.work, os.path.basename(case).replace(".toml", ".voxels.h5"))
    p = subprocess.run([a.hemoflow, "mesh", os.path.join(ROOT, case), "--voxels", out], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"hemoflow mesh {case} failed:\n{p.stdout}{p.stderr}")
    import h5py
    with h5py.File(out, "r") as f:
        return np.array(f["solid_fraction"]) < 1.0  # fluid iff P < 1 (core/geometry/voxel_file.hpp)


def brick_fill(mask, b):
    """Bricks of b^3 voxels (anchored at voxel 0) holding fluid, and their fill."""
    nz, ny, nx = mask.shape
    pad = np.zeros(((nz + b - 1) // b * b, (ny + b - 1) // b * b, (nx + b - 1) // b * b), dtype=np.uint16)
    pad[:nz, :ny, :nx] = mask
    per = pad.reshape(pad.shape[0] // b, b, pad.shape[1] // b, b, pad.shape[2] // b, b).sum(axis=(1, 3, 5))
    bricks = int((per > 0).sum())
    return bricks, float(mask.sum()) / (bricks * b ** 3)


def counts(q, fills):
    """Bytes per fluid-node update and memory per fluid node, by layout and storage."""
    out = {}
    for name, s in STORAGE.items():
        row = {"node list": {"update": 2 * Q * s + 72, "memory_ab": 2 * Q * s + 72, "memory_aa": Q * s + 72}}
        for b, f in fills.items():
            index = (1 + 104 / b ** 3) / f
            row[f"brick {b}"] = {"update": (2 * Q * s + 1) / f + 104 / (b ** 3 * f), "update_masked": 2 * Q * s + index,
                                 "memory_ab": 2 * Q * s / f + index, "memory_aa": Q * s / f + index}
        row["dense"] = {"update": (2 * Q * s + 1) / q, "memory_ab": (2 * Q * s + 1) / q, "memory_aa": (Q * s + 1) / q}
        out[name] = row
    return out


def page(result, bandwidth):
    r = result
    L = ["# Population layouts: bytes per update and memory per fluid node, counted", "",
         f"Generated by `tools/bench/layouts.py` on {r['date']} at commit `{r['commit']}`. Counted from each geometry as "
         "its case voxelizes it (`hemoflow mesh`), not timed: the least each layout must move per fluid-node update "
         "(D3Q19; every population read and written once; index and flag bytes as stored), by the convention of "
         "docs/performance.md. Issue 16 asks for these numbers before choosing a layout; the brick layout, in-place "
         "streaming and 16-bit storage are not built yet. The script's docstring gives every formula.", "",
         "## Fill of the bricks that hold fluid", "",
         "| geometry | fluid nodes | fluid fraction q | bricks 4^3 | fill 4^3 | bricks 8^3 | fill 8^3 |",
         "|---|---|---|---|---|---|---|"]
    for g in r["geometries"]:
        L.append(f"| {g['label']} | {g['fluid']:,} | {g['q']:.3f} | {g['bricks']['4']:,} | {g['fill']['4']:.3f} | "
                 f"{g['bricks']['8']:,} | {g['fill']['8']:.3f} |")
    for name in STORAGE:
        L += ["", f"## Bytes per fluid-node update, {name} storage", "",
              "brick: every slot of a brick moves its populations (a brick kernel's count); in brackets, with solid "
              "slots masked off and never fetched (the least possible). dense: every voxel of the box, per fluid node.",
              "", "| geometry | node list | brick 4^3 | brick 8^3 | dense | fewest (count) |", "|---|---|---|---|---|---|"]
        for g in r["geometries"]:
            c = g["counts"][name]
            best = min(("node list", "brick 4", "brick 8"), key=lambda k: c[k]["update"])
            L.append(f"| {g['label']} | {c['node list']['update']:.0f} | {c['brick 4']['update']:.0f} "
                     f"({c['brick 4']['update_masked']:.0f}) | {c['brick 8']['update']:.0f} "
                     f"({c['brick 8']['update_masked']:.0f}) | {c['dense']['update']:.0f} | {best} |")
    L += ["", "## What the counts would give (a projection, not a measurement)", "",
          f"At {bandwidth:.0f} GB/s, what today's node-list kernel moves on the H200 (dense box, fp32, "
          "docs/performance.md), each layout's upper-bound count would give these fluid-node updates per second, "
          "against issue 16's targets: 22.7 G/s in FP32 and 36 G/s in 16-bit storage (FluidX3D on the same H200).", "",
          "| geometry | storage | node list | brick 4^3 | brick 8^3 |", "|---|---|---|---|---|"]
    for g in r["geometries"]:
        for name in STORAGE:
            c = g["counts"][name]
            L.append(f"| {g['label']} | {name} | " + " | ".join(
                f"{bandwidth / c[k]['update']:.1f} G/s" for k in ("node list", "brick 4", "brick 8")) + " |")
    L += ["", "## Memory per fluid node (populations, indices and flags; B)", "",
          "A/B: two population arrays (today); AA: one (in-place streaming).", "",
          "| geometry | storage | node list A/B | node list AA | brick 4^3 AA | brick 8^3 AA | dense A/B |",
          "|---|---|---|---|---|---|---|"]
    for g in r["geometries"]:
        for name in STORAGE:
            c = g["counts"][name]
            L.append(f"| {g['label']} | {name} | {c['node list']['memory_ab']:.0f} | {c['node list']['memory_aa']:.0f} | "
                     f"{c['brick 4']['memory_aa']:.0f} | {c['brick 8']['memory_aa']:.0f} | {c['dense']['memory_ab']:.0f} |")
    return L


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hemoflow", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--docs", help="write layouts.md and layouts.json here")
    ap.add_argument("--bandwidth", type=float, default=3758.0,
                    help="GB/s for the projection: the node-list kernel's on the H200 (docs/performance.md, dense box)")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    a.hemoflow = os.path.abspath(a.hemoflow)
    result = {"commit": commit(), "date": datetime.date.today().isoformat(), "geometries": []}
    for label, case in GEOMETRIES:
        mask = fluid_mask(a, case, label)
        if mask is None:
            continue
        fluid, q = int(mask.sum()), float(mask.mean())
        bricks, fills = {}, {}
        for b in BRICKS:
            bricks[str(b)], fills[b] = brick_fill(mask, b)
        print(f"  {label}: {fluid:,} fluid nodes, q = {q:.3f}, fill " +
              ", ".join(f"{b}^3 {f:.3f}" for b, f in fills.items()), flush=True)
        result["geometries"].append({"label": label, "case": case, "fluid": fluid, "q": q, "bricks": bricks,
                                     "fill": {str(b): f for b, f in fills.items()}, "counts": counts(q, fills)})
    publish(a.docs, "layouts", result, page(result, a.bandwidth))


if __name__ == "__main__":
    sys.exit(main())
