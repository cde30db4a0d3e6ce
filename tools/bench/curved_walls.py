#!/usr/bin/env python3
"""What interpolated bounce-back (boundaries.wall = "interpolated") costs a step against
halfway bounce-back on the staircase ("staircase"), on the three bench geometries
(cases/bench/box.toml, pipe.toml, vessel_tree.toml) on one GPU, fp32, the layout the
case picks (lattice.layout = "auto"). The runs alternate --repeat times and the medians
are compared. Target: at most 5% more time per step.

Each time per step is benchlib.steady_step_time: one run's steady_seconds over
steady_steps, the loop after its warm-up timed from one wait for the device to another.
Not benchlib's differenced runs: in runs this short their subtraction of the output
phase took the steps' device time away (benchlib.differenced says when).

The box has no curved wall (its walls lie on voxel faces), so both settings run the same
kernels there: its row shows the noise of the measurement.

Bytes per update are those the fused kernel moves (benchlib: 224 B on the node list in
fp32, less on bricks); the interpolated walls add, per wall link, one kernel thread that
reads three populations, its node, partner, direction and kappa (4 + 4 + 4 + 1 + 4 B) and
writes a 4-byte link value, which the fused kernel then reads: about 33 B a link more,
not counted in the per-update bytes. With --membw the device's copy bandwidth is measured
and each rate is given as a fraction of it.

usage: curved_walls.py --hemoflow .bundle/bin/hemoflow [--membw .bundle/bin/hemo_membw] [--steps 1000]
                       [--repeat 2] [--work /tmp/curved_walls_bench] [--docs docs] [--only vessel_tree ...]
Writes docs/curved_walls_cost.json and the section "Curved walls: cost of interpolated
bounce-back" of docs/performance.md (with --docs).
"""
import argparse
import datetime
import os
import statistics
import sys

from benchlib import (ROOT, brick_bytes, commit, replace_doc_section, run_json, sparse_bytes, steady_step_time,
                      write_json)

GEOMETRIES = [("vessel_tree", "vessel tree, 15 vessels"), ("pipe", "pipe D = 256, L = 320"), ("box", "dense box 256^3")]
WALLS = ("staircase", "interpolated")
TARGET = 0.05


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hemoflow", required=True)
    ap.add_argument("--membw", help="hemo_membw, to give each rate as a fraction of the copy bandwidth")
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--work", default="/tmp/curved_walls_bench")
    ap.add_argument("--docs")
    ap.add_argument("--only", action="append", choices=[g for g, _ in GEOMETRIES],
                    help="this geometry only (repeat for several); default: all three")
    a = ap.parse_args()
    bandwidth = run_json([a.membw, "--backend", "cuda"])["copy_bandwidth_gbs"] if a.membw else None

    def publish(rows, device):
        result = {"date": str(datetime.date.today()), "commit": commit(), "device": device, "steps": a.steps,
                  "repeat": a.repeat, "copy_bandwidth_gb_s": bandwidth, "target": TARGET, "rows": rows,
                  "command": " ".join(["tools/bench/curved_walls.py", *sys.argv[1:]])}
        lines = ["## Curved walls: cost of interpolated bounce-back", "",
                 f"Measured {result['date']} at `{result['commit']}` on {device}, fp32, `{result['command']}`: the time "
                 f"per step (the steps after the warm-up, median of {a.repeat} alternated runs of {a.steps} steps) with "
                 "`boundaries.wall = \"staircase\"` and `\"interpolated\"`; target: at most 5% more. The box has no curved "
                 "wall: its row is the measurement's noise.", "",
                 "| case | fluid nodes | layout | wall links | B/update | staircase ms | interpolated ms | MLUPS (stair / interp) "
                 "| of copy bandwidth | interpolated / staircase | verdict |",
                 "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            bw = (" / ".join(f"{100 * r['bandwidth_fraction'][w]:.0f}%" for w in WALLS)) if bandwidth else "-"
            lines.append(f"| {r['label']} | {r['fluid_nodes']} | {r['layout']} | {r['wall_links']} | {r['bytes_per_update']} | "
                         f"{r['median_ms']['staircase']:.4f} | {r['median_ms']['interpolated']:.4f} | "
                         f"{r['mlups']['staircase']:.0f} / {r['mlups']['interpolated']:.0f} | {bw} | "
                         f"{r['ratio']:.3f} | {r['verdict']} |")
        lines.append("")
        if a.docs:
            write_json(a.docs, "curved_walls_cost.json", result)
            replace_doc_section(a.docs, lines)
        print("\n".join(lines), flush=True)

    rows, device = [], ""
    for name, label in GEOMETRIES:
        if a.only and name not in a.only:
            continue
        case = os.path.join(ROOT, "cases", "bench", f"{name}.toml")
        times = {w: [] for w in WALLS}
        last = {}
        for r in range(a.repeat):
            for w in WALLS:
                ms, s = steady_step_time(a.hemoflow, case, a.steps, os.path.join(a.work, f"{name}_{w}_{r}"),
                                         sets=(f'boundaries.wall="{w}"',))
                times[w].append(ms)
                last[w] = s
        s = last["interpolated"]
        device = s.get("device", device)
        nodes = s["fluid_nodes"]
        layout = s.get("layout", "nodes")
        bytes_per_update = sparse_bytes("fp32") if layout == "nodes" else brick_bytes("fp32", nodes / max(1, s.get("brick_slots", nodes)))
        med = {w: statistics.median(times[w]) for w in WALLS}
        links = s.get("links", {})
        row = {"case": name, "label": label, "fluid_nodes": nodes, "layout": layout, "precision": "fp32",
               "wall_links": links.get("wall"), "bytes_per_update": bytes_per_update,
               "ms_per_step": {w: times[w] for w in WALLS}, "median_ms": med,
               "mlups": {w: nodes / (med[w] * 1e-3) / 1e6 for w in WALLS},
               "ratio": med["interpolated"] / med["staircase"]}
        if bandwidth:
            row["bandwidth_fraction"] = {w: row["mlups"][w] * 1e6 * bytes_per_update / (bandwidth * 1e9) for w in WALLS}
        row["verdict"] = "pass" if row["ratio"] - 1 <= TARGET else "FAIL"
        rows.append(row)
        print(f"{name}: staircase {med['staircase']:.4f} ms, interpolated {med['interpolated']:.4f} ms, "
              f"+{100 * (row['ratio'] - 1):.1f}% ({row['verdict']})", flush=True)
        publish(rows, device)  # after each geometry: a run cut short keeps the rows it finished
    return 0 if all(r["verdict"] == "pass" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
