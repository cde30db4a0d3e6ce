#!/usr/bin/env python3
"""What partitioning costs at set-up, on the CPU (issue 11, must-have 1): writes
docs/partition.md and docs/partition.json.

Runs hemo_partition_bench on the vessel tree of cases/bench/ at three resolutions (about
1.6 x 10^7, 5 x 10^7 and 10^8 fluid nodes) and, for each, SCOTCH for 4 to 4096 ranks:
the time to count the fluid of every brick layer by layer (pass 1, which a run shares
over its ranks; here one process does every layer), SCOTCH's time and imbalance (rank 0
of a run does it), and the voxel window each rank then holds (pass 2), with the
process's resident memory after each stage and its peak.

usage: partition.py --build DIR [--docs docs]
"""
import argparse
import datetime
import json
import os
import subprocess
import sys

from benchlib import ROOT, commit, write_json, write_page
CASE = "cases/bench/vessel_tree.toml"
# dx of the bench case (16 M nodes), then 5 x 10^7 and 10^8 nodes (nodes ~ dx^-3).
RESOLUTIONS = [1.32e-5, 1.32e-5 * (16.0 / 50.0) ** (1 / 3), 7.1e-6]
RANKS = [4, 64, 1024, 4096]


def cpu():
    with open("/proc/cpuinfo") as f:
        model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "unknown CPU")
    return f"{model}, {os.cpu_count()} cores"


def write_report(d, docs):
    L = ["# Partitioning cost at set-up", "",
         f"Measured {d['date']} at commit {d['commit']} by `tools/bench/partition.py` on {d['cpu']}, one process "
         f"(`hemo_partition_bench`). Case: `{CASE}` (a vessel tree, fluid fraction 0.2 of its box) at three "
         "resolutions, bricks of 8^3 voxels. Set-up on many ranks (docs/architecture.md, \"Many ranks\"): pass 1, "
         "each rank voxelizes its share of the layers of bricks one layer at a time and counts the fluid of each "
         "brick (here one process does all layers: the time is the sum over the ranks of a run); rank 0 alone runs "
         "SCOTCH on the graph of bricks with fluid and broadcasts the owners; pass 2, each rank voxelizes its window "
         "(the bounding box of its bricks and one layer around). Resident memory is the process's (VmRSS after the "
         "stage; peak: VmHWM). Regenerate this page from partition.json with "
         "`tools/bench/partition.py --report docs/partition.json`.",
         "", "| fluid nodes | voxels in the box | one layer of bricks | bricks with fluid | pass 1 s (all layers) | "
         "memory after pass 1 | peak memory |",
         "|---|---|---|---|---|---|---|"]
    for r in d["runs"]:
        L.append(f"| {r['fluid_voxels']:,} | {r['voxels']:,} | {r['layer_voxels']:,} | {r['bricks_with_fluid']:,} | "
                 f"{r['count_layers_seconds']:.2f} | {r['rss_after_bricks_bytes'] / 1e9:.2f} GB | "
                 f"{r['peak_rss_bytes'] / 1e9:.2f} GB |")
    L += ["", "SCOTCH (rank 0): seconds, imbalance (largest part over the mean), and the largest rank's voxel window "
          "as a share of the box (pass 2; without periodic axes):", "",
          "| fluid nodes | " + " | ".join(f"{n} ranks" for n in RANKS) + " |", "|---|" + "---|" * len(RANKS)]
    for r in d["runs"]:
        cells = {p["ranks"]: f"{p['scotch_seconds']:.2f} s, {p['imbalance']:.3f}, window {100 * p['largest_window_fraction']:.2g}%"
                 for p in r["partitions"]}
        L.append(f"| {r['fluid_voxels']:,} | " + " | ".join(cells.get(n, "-") for n in RANKS) + " |")
    L += ["", "Not measured here: each rank's mesh build that follows (its voxel -> node map, 4 B per voxel, covers the "
          "bounding box of the rank's nodes). A window is a bounding box: a part that SCOTCH makes long and thin "
          "across the tree holds many solid voxels, which the window column shows.", ""]
    write_page(docs, "partition.md", L)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--docs", default=os.path.join(ROOT, "docs"))
    ap.add_argument("--report", help="only rewrite partition.md (next to it) from this partition.json")
    a = ap.parse_args()
    if a.report:
        with open(a.report) as f:
            write_report(json.load(f), os.path.dirname(os.path.abspath(a.report)))
        return 0
    runs = []
    for dx in RESOLUTIONS:
        cmd = [os.path.join(a.build, "bin", "hemo_partition_bench"), os.path.join(ROOT, CASE), "--set",
               f"lattice.dx={dx:.6g}", "--ranks", *map(str, RANKS)]
        print("  $", " ".join(cmd), flush=True)
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            sys.stderr.write(p.stdout + p.stderr)
            return 1
        runs.append(json.loads(p.stdout))
    data = {"date": datetime.date.today().isoformat(), "commit": commit(), "cpu": cpu(), "runs": runs}
    write_json(a.docs, "partition.json", data)
    write_report(data, a.docs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
