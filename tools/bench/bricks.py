"""The BRICK prototype (hemo_brick_lb, tools/bench/brick_lb/) measured on the three bench
geometries in each population storage, against the copy bandwidth and, when given, the
FluidX3D results of the same device call (tools/bench/fluidx3d.sh): what the brick-sparse
layout gives before the mesh and every plugin move to it (issue 16, must-haves 2 and 5).
Writes docs/bricks.md and docs/bricks.json.

The prototype runs the lb_bgk update (BGK, Guo force, halfway bounce-back; no iolets, which
the bench cases do not have) on bricks of 4^3 voxels that hold fluid, with neighbours inside
a brick implicit, one table of 27 brick ids per brick and one 64-bit fluid mask per brick:
no per-node index. Its --check-steps compares every fluid voxel's populations after a few
steps with the DENSE reference (hemo_dense_lb's kernel), bitwise; this script asks for that
check on every geometry in fp32 and fails if it does not hold.

Bytes per fluid-node update, as counted (the upper bound of docs/layouts.md: every slot of
a brick moves its populations): (38 s 64 + 8 + 108) / (64 fill), s = bytes per stored value.
Effective bandwidth = MFLUPS x bytes; fraction = effective / copy bandwidth.

  python3 tools/bench/bricks.py --build BUILD [--docs docs] [--fluidx3d fluidx3d.json]
"""
import argparse
import datetime
import json
import os
import subprocess

from benchlib import ROOT, commit, publish, run_json

GEOMETRIES = [("box", "dense box 256^3"), ("pipe", "pipe D = 256, L = 320"), ("vessel_tree", "vessel tree, 15 vessels")]
STORAGES = ["fp32", "fp16s", "e4m11"]
STREAMING = ["ab", "aa"]  # two population arrays (A-B), or one (in place, the AA pattern)
TARGETS = {"fp32": 22700.0, "fp16s": 36000.0, "e4m11": 36000.0}  # issue 16, MFLUPS on an H200


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="folder with bin/hemo_brick_lb and bin/hemo_membw")
    ap.add_argument("--docs", help="write bricks.md and bricks.json here (default: print)")
    ap.add_argument("--backend", choices=["cuda", "cpu"], default="cuda")
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--check-steps", type=int, default=20, help="steps of the bitwise check against DENSE (fp32)")
    ap.add_argument("--blocks", type=int, nargs="+", default=[128, 256, 512])
    ap.add_argument("--reps", type=int, default=2, help="runs per variant, best kept")
    ap.add_argument("--set", action="append", default=[], help="extra --set for every run (CPU smoke tests)")
    ap.add_argument("--geometries", nargs="+", default=[g for g, _ in GEOMETRIES])
    ap.add_argument("--fluidx3d", help="the JSON tools/bench/fluidx3d.sh wrote in the same device call")
    ap.add_argument("--fmad", action="store_true",
                    help="also hemo_brick_lb_fmad (nvcc contracting into FMA), A-B: what the bitwise contract costs")
    a = ap.parse_args()
    exe = os.path.join(a.build, "bin", "hemo_brick_lb")
    bw = run_json([os.path.join(a.build, "bin", "hemo_membw"), "--backend", a.backend])
    copy_gbs = bw["copy_bandwidth_gbs"]
    sets = [x for s in a.set for x in ("--set", s)]
    records, device = [], None
    for geometry, label in GEOMETRIES:
        if geometry not in a.geometries:
            continue
        case = os.path.join(ROOT, "cases", "bench", f"{geometry}.toml")
        for streaming in STREAMING:
            chk = run_json([exe, case, "--backend", a.backend, "--storage", "fp32", "--streaming", streaming,
                            "--steps", "1", "--check-steps", str(a.check_steps), *sets])
            if " 0 differ" not in chk["check"]:
                raise SystemExit(f"{geometry} {streaming}: brick populations differ from DENSE: {chk['check']}")
            for storage in STORAGES:
                best = None
                for block in a.blocks:
                    for _ in range(a.reps):
                        r = run_json([exe, case, "--backend", a.backend, "--storage", storage, "--streaming", streaming,
                                      "--steps", str(a.steps), "--block-size", str(block), *sets])
                        if best is None or r["mlups"] > best["mlups"]:
                            best = r
                best.update(geometry=geometry, label=label, check=chk["check"],
                            gbs=best["mlups"] * best["bytes_per_update"] / 1e3,
                            memory_per_fluid_node=best["device_memory_bytes"] / best["fluid_nodes"])
                best["fraction"] = best["gbs"] / copy_gbs
                best["fmad"] = False
                records.append(best)
                if a.fmad and streaming == "ab":
                    r = max((run_json([exe + "_fmad", case, "--backend", a.backend, "--storage", storage, "--streaming",
                                       streaming, "--steps", str(a.steps), "--block-size", str(block), *sets])
                             for block in a.blocks), key=lambda x: x["mlups"])
                    r.update(geometry=geometry, label=label, check="not run (FMA: not bitwise equal to DENSE)", fmad=True,
                             gbs=r["mlups"] * r["bytes_per_update"] / 1e3,
                             memory_per_fluid_node=r["device_memory_bytes"] / r["fluid_nodes"])
                    r["fraction"] = r["gbs"] / copy_gbs
                    records.append(r)
    fx = None
    if a.fluidx3d:
        try:
            with open(a.fluidx3d) as f:
                fx = json.load(f)
        except (OSError, ValueError) as e:
            fx = [{"code": "FluidX3D", "storage": "?", "error": f"could not read {a.fluidx3d}: {e}"}]
    try:
        device = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                                text=True).stdout.strip().splitlines()[0] if a.backend == "cuda" else "CPU"
    except (OSError, IndexError):
        device = "unknown"
    result = {"date": datetime.date.today().isoformat(), "commit": commit(), "device": device, "backend": a.backend,
              "copy_bandwidth_gbs": copy_gbs, "steps": a.steps, "records": records, "fluidx3d": fx}
    publish(a.docs, "bricks", result, page(result))


def page(r):
    L = ["# Brick layout prototype: measured (issue 16)", "",
         f"Generated by `tools/bench/bricks.py` on {r['date']} at commit `{r['commit']}`, {r['device']} "
         f"({r['backend']}), copy bandwidth {r['copy_bandwidth_gbs']:.0f} GB/s (hemo_membw). {r['steps']} steps per run, "
         "best of the block sizes and repetitions. The prototype (`hemo_brick_lb`, tools/bench/brick_lb/) runs the lb_bgk "
         "update (BGK, Guo force, halfway bounce-back), with two population arrays (ab) or in place (aa: the AA pattern, "
         "one array), on bricks of 4^3 voxels with implicit neighbours inside a brick, one "
         "table of 27 brick ids and one 64-bit fluid mask per brick: no per-node index. It is not hemoflow's solver yet "
         "(no iolets, halos, plugins): it measures what the layout gives before the mesh moves to it. Before timing, every "
         "geometry's populations after a few steps were compared with the DENSE reference kernel, bitwise (column check).",
         "",
         "| geometry | storage | streaming | fill 4^3 | MFLUPS | bytes / update (counted) | GB/s | fraction of copy | memory / fluid node | "
         "FluidX3D, same width and call | ratio | issue 16 target | verdict | check (fp32, against DENSE) |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    same_width = {"fp32": "FP32", "fp16s": "FP16S", "e4m11": "FP16C"}  # FP16C: FluidX3D's 1-4-11 format
    fx = {f.get("storage"): f.get("mlups") for f in (r.get("fluidx3d") or []) if f.get("mlups")}
    for x in r["records"]:
        ref = fx.get(same_width[x["storage"]])
        versus = f"{same_width[x['storage']]} {ref:.0f} | {x['mlups'] / ref:.2f}" if ref else "not measured | "
        target = TARGETS[x["storage"]] if x["geometry"] in ("box", "vessel_tree") else None
        verdict = "" if target is None else ("pass" if x["mlups"] >= target else "**FAIL**")
        L.append(f"| {x['label']} | {x['storage']}{' FMA' if x.get('fmad') else ''} | {x['streaming']} | {x['fill']:.3f} | {x['mlups']:.0f} | {x['bytes_per_update']:.1f} | "
                 f"{x['gbs']:.0f} | {x['fraction']:.2f} | {x['memory_per_fluid_node']:.0f} B | {versus} | "
                 f"{'' if target is None else f'>= {target:.0f}'} | {verdict} | {x['check']} |")
    L += ["", "Targets (issue 16): FP32 storage >= 22,700 and 16-bit storage >= 36,000 million fluid-node updates per "
          "second on the box and the vessel tree, on an H200, measured in the same run as FluidX3D (its H200 rates). Only the "
          "rows on an H200 count for them; on another card the ratio to FluidX3D's rate in the same call is the comparison "
          "that carries over. FluidX3D's box rate is per cell of a full box; on the vessel tree a dense code updates every "
          "voxel of the bounding box, so per fluid node it delivers its rate times the fluid fraction. The prototype is not yet the solver, so a pass here says the layout can reach the target, "
          "not that hemoflow does.", ""]
    if any(x.get("fmad") for x in r["records"]):
        L += ["Rows marked FMA: the same kernel compiled with `-fmad=true` (hemo_brick_lb_fmad), so that nvcc contracts "
              "a*b+c into fused multiply-adds. hemoflow builds with `-fmad=false` (HEMO_CUDA_FMAD=OFF) to keep the GPU "
              "bitwise equal to the CPU; these rows show what that contract costs.", ""]
    if r.get("fluidx3d"):
        L += ["## FluidX3D in the same device call", "", "| code | storage | box | MLUPS | bytes / cell update | device | note |",
              "|---|---|---|---|---|---|---|"]
        for f in r["fluidx3d"]:
            L.append(f"| FluidX3D {f.get('commit', '')[:12]} | {f.get('storage', '?')} | {f.get('box', '')} | "
                     f"{f['mlups']:.0f} | {f.get('bytes_per_cell_update', '')} | {f.get('device', '')} | |"
                     if f.get("mlups") else
                     f"| FluidX3D | {f.get('storage', '?')} | | not measured | | | {str(f.get('error', '')).splitlines()[0][:120]} |")
    else:
        L += ["No FluidX3D run in this call (--fluidx3d not given)."]
    return L


if __name__ == "__main__":
    main()
