"""hemoflow performance benchmark: one command, builds nothing, measures everything in one
run and writes docs/performance.md and docs/performance.json.

What it measures, in order:
  1. the copy bandwidth of the device (hemo_membw: bytes read + written per second),
  2. hemoflow (SPARSE: indirect addressing through the neighbour table) on a dense box,
     a pipe and a sparse vessel tree (cases/bench/), in lexicographic and Morton order,
     for several CUDA block sizes, in fp32 and fp64,
  3. the DENSE reference (hemo_dense_lb: full box, direct addressing) on the same voxels,
  4. the CPU backend on the same geometries (MLUPS per core),
  5. each collision operator (bgk, trt, regularized) on the three geometries, fp32 and
     fp64, best of two runs each: they move the same bytes, so any difference is arithmetic,
  6. the population storage (issue 16): the headline run (fp32 arithmetic, lexicographic,
     --storage-block 128) once per `--storages` x `--layouts` x `--streamings` (default fp32, fp16s, e4m11 rounded to nearest, and both
     -dithered: lb_bgk.storage and lb_bgk.rounding), best of
     `--storage-reps`, with the device memory per fluid node; with `--fluidx3d JSON` (what
     tools/bench/fluidx3d.sh wrote in the same device call) FluidX3D's measured rates go
     next to them, with the issue-16 targets checked. Also written alone to
     docs/performance-storage.md/.json; `--only-storage` measures just this (and the copy
     bandwidth) and writes only that page.

Bytes per fluid-node update, as counted (the minimum the update must move):
  SPARSE: 19 populations read + 19 written + 18 neighbour indices (4 B)
          = 38 s + 72 B   (224 B in fp32, 376 B in fp64, 148 B with 16-bit storage;
          s = bytes per stored population)
  DENSE:  19 read + 19 written + the node's flag (1 B) = 38 s + 1 B (153 B / 305 B);
          the neighbours' flags come from cache and are not counted (as FluidX3D does).
Moments (density, velocity) are written only on check steps (every 1000 here) and are
not counted. Effective bandwidth = MFLUPS x bytes; fraction = effective / copy bandwidth.
"""
import argparse
import datetime
import glob
import json
import os
import re
import subprocess
import sys

from benchlib import ROOT, STORAGE_BYTES, brick_bytes, commit as head_commit, run_json, sparse_bytes, write_json

GEOMETRIES = [("box", "dense box 256^3"), ("pipe", "pipe D = 256, L = 320"), ("vessel_tree", "vessel tree, 15 vessels")]
# Fastest published dense-grid code, for scale (not measured here): the single-GPU table of
# FluidX3D's README (D3Q19 SRT, FP32 arithmetic, empty 256^3 box; 153 B per cell update
# with FP32 storage, 77 B with FP16S or FP16C).
FLUIDX3D_README = ("README of ProjectPhysX/FluidX3D at commit 8986874e626e, \"Single-GPU/CPU Benchmarks\": "
                   "\"a memory capacity of 93 (FP32/FP32) or 55 (FP32/FP16) Bytes\" and \"a memory bandwidth of 153 "
                   "(FP32/FP32) or 77 (FP32/FP16) Bytes per time step\" per cell")
FLUIDX3D = [{"device": "H200 SXM5 141GB", "storage": "FP32", "mlups": 23056.0, "bytes_per_update": 153},
            {"device": "H200 SXM5 141GB", "storage": "FP16S", "mlups": 36610.0, "bytes_per_update": 77},
            {"device": "H200 SXM5 141GB", "storage": "FP16C", "mlups": 20291.0, "bytes_per_update": 77},
            {"device": "H100 SXM5 80GB", "storage": "FP32", "mlups": 17602.0, "bytes_per_update": 153},
            {"device": "H100 SXM5 80GB", "storage": "FP16S", "mlups": 29561.0, "bytes_per_update": 77},
            {"device": "H100 SXM5 80GB", "storage": "FP16C", "mlups": 20227.0, "bytes_per_update": 77}]
FLUIDX3D_BYTES = {"FP32": 153, "FP16S": 77, "FP16C": 77}        # per cell update (README)
FLUIDX3D_MEMORY = {"FP32": 93, "FP16S": 55, "FP16C": 55}        # per cell (README)
# hemoflow's storage -> FluidX3D's of the same width (FP16C is FluidX3D's 1-4-11 format, as e4m11).
FLUIDX3D_PAIR = {"fp32": "FP32", "fp64": "FP32", "fp16s": "FP16S", "e4m11": "FP16C",
                 "fp16s-dithered": "FP16S", "e4m11-dithered": "FP16C"}
STORAGE_TYPE = {"fp32": "float32", "fp64": "float64", "fp16s": "fp16s", "e4m11": "e4m11",  # summary's population_storage
                "fp16s-dithered": "fp16s", "e4m11-dithered": "e4m11"}
# Issue 16: MFLUPS on the box and the vessel tree (FP32 storage; 16-bit storage), and the
# vessel tree's device memory against a dense code's (per fluid node).
SPEED_TARGETS = {"fp32": 22700.0, "16-bit": 36000.0}
MEMORY_TARGET = 0.35


def run_hemoflow(a, geometry, out, backend, steps, precision="fp32", ordering="lexicographic", block=256, scale=1.0,
                 collision="bgk", storage=None, layout="nodes", streaming="ab"):
    case = os.path.join(ROOT, "cases", "bench", f"{geometry}.toml")
    dx = base_dx(case) * scale
    cmd = [a.hemoflow, "run", case, "--quiet", "--progress", "never", "--backend", backend, "--steps", str(steps),
           "--output", out, "--overwrite", "--set", f'run.precision="{precision}"', "--set", f'lattice.ordering="{ordering}"',
           "--set", f"lattice.dx={dx!r}", "--set", f"lb_bgk.block_size={block}",
           "--set", f'lb_bgk.collision="{collision}"', "--set", f'lattice.layout="{layout}"',
           "--set", f'lb_bgk.streaming="{streaming}"']
    if storage:  # "e4m11-dithered": lb_bgk.rounding too; a plain 16-bit name rounds to nearest
        name, _, rounding = storage.partition("-")
        cmd += ["--set", f'lb_bgk.storage="{name}"']
        if name in ("fp16s", "e4m11"):
            cmd += ["--set", f'lb_bgk.rounding="{rounding or "nearest"}"']
    print("  $", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    if storage and s.get("population_storage") != STORAGE_TYPE[storage]:
        raise SystemExit(f"{out}: asked for storage {storage}, the run reports {s.get('population_storage')!r}")
    return s


def base_dx(case):
    with open(case) as f:
        return float(re.search(r"^dx\s*=\s*([0-9.eE+-]+)", f.read(), re.M).group(1))


def dense_bytes(precision):
    return 38 * (4 if precision == "fp32" else 8) + 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="build folder with bin/hemoflow")
    ap.add_argument("--backend", choices=["cuda", "cpu"], default="cuda")
    ap.add_argument("--steps", type=int, default=500, help="time steps per GPU measurement")
    ap.add_argument("--cpu-steps", type=int, default=50, help="time steps per CPU measurement")
    ap.add_argument("--cpu-scale", type=float, default=2.0, help="dx factor for CPU runs (2: 8x fewer nodes)")
    ap.add_argument("--work", default=os.path.join(ROOT, "out", "bench"))
    ap.add_argument("--docs", default=os.path.join(ROOT, "docs"))
    ap.add_argument("--quick", action="store_true", help="fewer variants (one block size, no fp64)")
    ap.add_argument("--no-collisions", action="store_true", help="skip the collision-operator comparison")
    ap.add_argument("--geometries", nargs="+", choices=[g for g, _ in GEOMETRIES],
                    help="with --collisions-only: only these geometries (the others' collision rows are kept); "
                         "with --only-storage: only these geometries")
    ap.add_argument("--collision-reps", type=int, default=2, help="runs per operator in the comparison (best kept)")
    ap.add_argument("--collisions-only", metavar="PERFORMANCE_JSON",
                    help="run only the collision-operator comparison and merge it into the records of this earlier "
                         "performance.json (replacing its collision rows), then write both docs")
    ap.add_argument("--ncu", help="an Nsight Compute report of the fused kernel to summarise (device_session.sh makes one)")
    ap.add_argument("--storages", nargs="+", choices=list(STORAGE_BYTES), default=["fp32", "fp16s", "e4m11", "fp16s-dithered", "e4m11-dithered"],
                    help="population storages (lb_bgk.storage) of the storage comparison; fp64 runs in fp64, the "
                         "others in fp32 arithmetic")
    ap.add_argument("--layouts", nargs="+", choices=["nodes", "bricks"], default=["nodes", "bricks"],
                    help="mesh layouts (lattice.layout) of the storage comparison; each storage runs on each")
    ap.add_argument("--streamings", nargs="+", choices=["ab", "aa"], default=["ab", "aa"],
                    help="lb_bgk.streaming of the storage comparison: two population arrays, or one in place")
    ap.add_argument("--storage-block", type=int, default=128,
                    help="lb_bgk.block_size of the storage comparison (128, lb_bgk's default since 2026-11-26)")
    ap.add_argument("--storage-reps", type=int, help="runs per storage in the comparison, best kept (default 2, "
                                                     "1 with --quick)")
    ap.add_argument("--only-storage", action="store_true",
                    help="run only the copy bandwidth and the storage comparison (with --fluidx3d: side by side) "
                         "and write docs/performance-storage.md/.json; performance.md is left alone")
    ap.add_argument("--fluidx3d", metavar="JSON",
                    help="FluidX3D's results of the same device call (tools/bench/fluidx3d.sh): the side-by-side table")
    a = ap.parse_args()
    if a.storage_reps is None:
        a.storage_reps = 1 if a.quick else 2
    if a.only_storage and a.collisions_only:
        raise SystemExit("--only-storage and --collisions-only exclude each other")
    a.hemoflow = os.path.join(a.build, "bin", "hemoflow")
    membw = os.path.join(a.build, "bin", "hemo_membw")
    dense = os.path.join(a.build, "bin", "hemo_dense_lb")
    commit = head_commit()
    date = datetime.date.today().isoformat()
    records, notes = [], []

    fx = read_fluidx3d(a.fluidx3d)
    cpu_bw = None if a.only_storage and a.backend == "cuda" else run_json([membw, "--backend", "cpu"])
    gpu_bw = run_json([membw, "--backend", "cuda"]) if a.backend == "cuda" else None
    device = gpu_bw["device"] if gpu_bw else "CPU"
    copy_bw = gpu_bw["copy_bandwidth_gbs"] if gpu_bw else cpu_bw["copy_bandwidth_gbs"]
    if a.collisions_only:
        with open(a.collisions_only) as f:
            labels = {label for g, label in GEOMETRIES if not a.geometries or g in a.geometries}
            records[:] = [r for r in json.load(f) if r.get("study") != "collision" or r["geometry"] not in labels]
        for r in records:
            r.setdefault("storage", r["precision"])

    def record(geometry, s_or_d, layout, backend, precision, ordering, block, mlups, bpu, mem, bw, dev, extra=None):
        eff = mlups * 1e6 * bpu / 1e9
        r = {"device": dev, "geometry": geometry, "fluid_fraction": round(s_or_d["fluid_fraction"], 4),
             "fluid_nodes": s_or_d["fluid_nodes"], "precision": precision, "layout": layout, "ordering": ordering,
             "backend": backend, "block_size": block, "mlups": round(mlups, 1), "bytes_per_update": bpu,
             "effective_gbs": round(eff, 1), "bandwidth_fraction": round(eff / bw, 4), "device_memory_bytes": mem,
             "copy_bandwidth_gbs": bw, "collision": "bgk", "storage": precision, "commit": commit, "date": date}
        r.update(extra or {})
        records.append(r)
        print(f"    -> {geometry:12} {layout:6} {ordering:13} {precision} {r['storage']} block {block}: "
              f"{mlups:9.1f} MFLUPS, {eff:7.1f} GB/s, {100 * eff / bw:5.1f}% of copy", flush=True)
        return r

    if a.only_storage:
        storage_study(a, a.backend, copy_bw, device, record)
        os.makedirs(a.docs, exist_ok=True)
        write_storage_page(a, records, fx, gpu_bw or cpu_bw, commit, date)
        print_table(records)
        return 0

    if a.backend == "cuda" and not a.collisions_only:
        blocks = [256] if a.quick else [128, 256, 512]
        for geometry, label in GEOMETRIES:
            for ordering in ("lexicographic", "morton"):
                for block in blocks if ordering == "lexicographic" else [256]:
                    out = os.path.join(a.work, f"{geometry}_{ordering}_{block}")
                    s = run_hemoflow(a, geometry, out, "cuda", a.steps, ordering=ordering, block=block)
                    s["fluid_fraction"] = s["fluid_nodes"] / s["voxels"]
                    record(label, s, "sparse", "cuda", "fp32", ordering, block, s["mlups"], sparse_bytes("fp32"),
                           s["device_memory_bytes"], copy_bw, device)
            if not a.quick:
                out = os.path.join(a.work, f"{geometry}_fp64")
                s = run_hemoflow(a, geometry, out, "cuda", a.steps, precision="fp64")
                s["fluid_fraction"] = s["fluid_nodes"] / s["voxels"]
                record(label, s, "sparse", "cuda", "fp64", "lexicographic", 256, s["mlups"], sparse_bytes("fp64"),
                       s["device_memory_bytes"], copy_bw, device)
            for precision in ["fp32"] if a.quick else ["fp32", "fp64"]:
                d = run_json([dense, os.path.join(ROOT, "cases", "bench", f"{geometry}.toml"), "--backend", "cuda",
                              "--steps", str(a.steps), "--precision", precision])
                record(label, d, "dense", "cuda", precision, "lexicographic", d["block_size"], d["mlups"],
                       d["bytes_per_update"], d["device_memory_bytes"], copy_bw, device)

    if not a.collisions_only:
        storage_study(a, a.backend, copy_bw, device, record)

    if a.backend == "cuda" and not a.no_collisions:
        # Collision operators: same kernel, same bytes; best of two runs of each, BGK again
        # in the same sequence so the comparison shares the machine's state.
        for geometry, label in [g for g in GEOMETRIES if not a.geometries or g[0] in a.geometries]:
            for precision in ("fp32", "fp64"):
                for collision in ("bgk", "trt", "regularized"):
                    best = None
                    for rep in range(a.collision_reps):
                        out = os.path.join(a.work, f"{geometry}_{collision}_{precision}_{rep}")
                        s = run_hemoflow(a, geometry, out, "cuda", a.steps, precision=precision, collision=collision)
                        if best is None or s["mlups"] > best["mlups"]:
                            best = s
                    best["fluid_fraction"] = best["fluid_nodes"] / best["voxels"]
                    record(label, best, "sparse", "cuda", precision, "lexicographic", 256, best["mlups"],
                           sparse_bytes(precision), best["device_memory_bytes"], copy_bw, device,
                           {"collision": collision, "study": "collision"})

    # CPU: same geometries at a coarser dx (the GPU sizes would take minutes per step).
    for geometry, label in [] if a.collisions_only else GEOMETRIES:
        out = os.path.join(a.work, f"{geometry}_cpu")
        s = run_hemoflow(a, geometry, out, "cpu", a.cpu_steps, scale=a.cpu_scale)
        s["fluid_fraction"] = s["fluid_nodes"] / s["voxels"]
        record(label + f" (dx x{a.cpu_scale:g})", s, "sparse", "cpu", "fp32", "lexicographic", 0, s["mlups"],
               sparse_bytes("fp32"), s["device_memory_bytes"], cpu_bw["copy_bandwidth_gbs"],
               s["device"], {"threads": s["cpu_threads"], "mlups_per_core": round(s["mlups"] / s["cpu_threads"], 2)})

    os.makedirs(a.docs, exist_ok=True)
    write_json(a.docs, "performance.json", records)
    write_markdown(a, records, gpu_bw, cpu_bw, commit, date, read_ncu(a.ncu), fx)
    if not a.collisions_only:
        write_storage_page(a, records, fx, gpu_bw or cpu_bw, commit, date)
    print_table(records)
    return 0


def storage_study(a, backend, copy_bw, device, record):
    """The headline run (fp32 arithmetic, lexicographic, --storage-block, 128) once per population
    storage, one geometry after the other, best of --storage-reps. On the CPU at the CPU
    scale and steps."""
    gpu = backend == "cuda"
    steps, scale = (a.steps, 1.0) if gpu else (a.cpu_steps, a.cpu_scale)
    for geometry, label in GEOMETRIES:
        if a.only_storage and a.geometries and geometry not in a.geometries:
            continue
        for storage in a.storages:
          for layout, streaming in [(lay, st) for lay in a.layouts for st in a.streamings]:
            precision = "fp64" if storage == "fp64" else "fp32"
            best = None
            for rep in range(a.storage_reps):
                out = os.path.join(a.work, f"{geometry}_{backend}_storage_{storage}_{layout}_{streaming}_{rep}")
                s = run_hemoflow(a, geometry, out, backend, steps, precision=precision, scale=scale, storage=storage,
                                 layout=layout, streaming=streaming, block=a.storage_block)
                if best is None or s["mlups"] > best["mlups"]:
                    best = s
            best["fluid_fraction"] = best["fluid_nodes"] / best["voxels"]
            n = best["fluid_nodes"]
            fill = n / best["brick_slots"] if layout == "bricks" else 1.0
            record(label if gpu else label + f" (dx x{a.cpu_scale:g})", best, "sparse" if layout == "nodes" else "bricks",
                   backend, precision, "lexicographic", a.storage_block if gpu else 0, best["mlups"],
                   sparse_bytes(storage) if layout == "nodes" else brick_bytes(storage, fill),
                   best["device_memory_bytes"], copy_bw, device if gpu else best["device"],
                   {"storage": storage, "study": "storage", "case": geometry, "voxels": best["voxels"],
                    "mesh_layout": layout, "brick_fill": round(fill, 4), "streaming": streaming,
                    "steps": steps, "reps": a.storage_reps, "field_bytes": best["field_bytes"],
                    "mesh_bytes": best["mesh_bytes"],
                    "device_bytes_per_fluid_node": round(best["device_memory_bytes"] / n, 1),
                    "field_bytes_per_fluid_node": round(best["field_bytes"] / n, 1)})


def read_fluidx3d(path):
    """FluidX3D's rows from tools/bench/fluidx3d.sh; a missing or unreadable file is one
    row with the error, so the page says the measurement failed."""
    if not path:
        return None
    try:
        with open(path) as f:
            rows = json.load(f)
    except (OSError, ValueError) as e:
        return [{"code": "FluidX3D", "storage": "?", "error": f"{path}: {e}"}]
    rows = rows if isinstance(rows, list) else [rows]
    for r in rows:
        r.setdefault("bytes_per_cell_update", FLUIDX3D_BYTES.get(r.get("storage")))
    return rows


def fmt_bytes(b):
    return f"{b / 2**30:.2f} GiB"


def print_table(records):
    print(f"\n{'geometry':34} {'q':>5} {'layout':6} {'order':6} {'prec':4} {'store':5} {'blk':>4} {'MFLUPS':>9} "
          f"{'B/upd':>5} {'GB/s':>7} {'of copy':>7} {'memory':>10}")
    for r in records:
        print(f"{r['geometry'][:34]:34} {r['fluid_fraction']:5.3f} {r['layout']:6} {r['ordering'][:6]:6} "
              f"{r['precision']:4} {r.get('storage', r['precision']):5} {r['block_size']:4d} {r['mlups']:9.1f} "
              f"{r['bytes_per_update']:5d} "
              f"{r['effective_gbs']:7.1f} {100 * r['bandwidth_fraction']:6.1f}% {fmt_bytes(r['device_memory_bytes']):>10}")


NCU_METRICS = ["Duration", "DRAM Throughput", "Memory Throughput", "L1/TEX Hit Rate", "L2 Hit Rate",
               "Theoretical Occupancy", "Achieved Occupancy", "Registers Per Thread", "Warp Cycles Per Issued Instruction"]


def read_ncu(path):
    """Metric name -> "value unit" from an ncu --section report (first occurrence)."""
    if not path or not os.path.exists(path):
        return {}
    found = {}
    for line in open(path):
        for name in NCU_METRICS:
            m = re.match(rf"\s+{re.escape(name)}\s+(\S+)?\s+([0-9.,]+)\s*$", line)
            if m:
                value = f"{m.group(2)} {m.group(1) or ''}".strip()
                if value not in found.setdefault(name, []):
                    found[name].append(value)
    return {k: ", ".join(v) for k, v in found.items()}


TARGETS = {"dense box 256^3": 0.85, "pipe D = 256, L = 320": 0.85, "vessel tree, 15 vessels": 0.80}


def dram_per_update(ncu, gpu):
    """DRAM bytes per update from the profile: throughput x duration / nodes of the box."""
    try:
        tbs = [float(v.split()[0]) for v in ncu["Memory Throughput"].split(", ") if "byte/s" in v][0]
        unit = 1e12 if "Tbyte" in ncu["Memory Throughput"] else 1e9
        dur = ncu["Duration"].split()
        seconds = float(dur[0]) * {"ms": 1e-3, "us": 1e-6, "s": 1.0}.get(dur[1], 1e-3)
        nodes = [r["fluid_nodes"] for r in gpu if r["geometry"] == "dense box 256^3"][0]
    except (KeyError, IndexError, ValueError):
        return []
    per = tbs * unit * seconds / nodes
    return [f"DRAM traffic per update in the profiled launch: {per:.0f} B (throughput x duration / {nodes} nodes), "
            "against 224 B counted: the gathers of neighbouring populations cost no extra DRAM traffic; "
            "their misaligned reads are served by L2."]


def findings(gpu, ncu, fx, storage):
    """Targets, SPARSE vs DENSE, the profile and the published reference, from the records."""
    L = ["## Targets (issue 3): fused kernel, FP32, fraction of the copy bandwidth", "",
         "| geometry | best SPARSE fp32 | block, ordering | target | met |", "|---|---|---|---|---|"]
    for geometry, target in TARGETS.items():
        rs = [r for r in gpu if r["geometry"] == geometry and r["layout"] == "sparse" and r["precision"] == "fp32"]
        if not rs:
            continue
        b = max(rs, key=lambda r: r["mlups"])
        L.append(f"| {geometry} | {100 * b['bandwidth_fraction']:.1f}% ({b['mlups']:.0f} MFLUPS) | {b['block_size']}, "
                 f"{b['ordering']} | {100 * target:.0f}% | {'yes' if b['bandwidth_fraction'] >= target else '**no**'} |")
    L += ["", "## SPARSE against DENSE (fp32, block 256, lexicographic)", "",
          "| geometry | q | SPARSE MFLUPS | DENSE MFLUPS | SPARSE / DENSE speed | SPARSE / DENSE memory |",
          "|---|---|---|---|---|---|"]
    labels = []
    for r in gpu:
        if r["geometry"] not in labels:
            labels.append(r["geometry"])
    for label in labels:
        sp = [r for r in gpu if r["geometry"] == label and r["layout"] == "sparse" and r["precision"] == "fp32"
              and r["block_size"] == 256 and r["ordering"] == "lexicographic"]
        de = [r for r in gpu if r["geometry"] == label and r["layout"] == "dense" and r["precision"] == "fp32"]
        if sp and de:
            L.append(f"| {label} | {sp[0]['fluid_fraction']:.3f} | {sp[0]['mlups']:.0f} | {de[0]['mlups']:.0f} | "
                     f"{sp[0]['mlups'] / de[0]['mlups']:.2f} | {sp[0]['device_memory_bytes'] / de[0]['device_memory_bytes']:.2f} |")
    morton = []
    for label in labels:
        lex = [r for r in gpu if r["geometry"] == label and r["layout"] == "sparse" and r["precision"] == "fp32"
               and r["block_size"] == 256 and r["ordering"] == "lexicographic"]
        mor = [r for r in gpu if r["geometry"] == label and r["layout"] == "sparse" and r["ordering"] == "morton"]
        if lex and mor:
            morton.append(f"{label} {mor[0]['mlups'] / lex[0]['mlups']:.3f}")
    if morton:
        L += ["", "Morton against lexicographic node order (MFLUPS ratio, fp32, block 256): " + "; ".join(morton) + ". "
              "With every load of a node in flight at once, the L2 cache already catches the reuse of neighbouring "
              "rows, and Morton order gains nothing on this device; it stays selectable (`lattice.ordering`)."]
    L += ["", "DENSE moves fewer bytes per fluid update (153 B against 224 B) and wins where nearly every voxel is "
          "fluid; it spends threads and memory on solid voxels, so SPARSE wins on the vessel tree (q = 0.2) in "
          "speed and by about 3x in memory. The VLBM paper reports the same trend on a V100 (SPARSE up to 2.2x "
          "faster at q = 0.19-0.27).", ""]
    if ncu:
        L += ["## Profile of the fused kernel", "",
              "Nsight Compute, one launch of `lb_bgk::collide_stream` on the 256^3 box (fp32, block 256, "
              "lexicographic), under ncu's default clock control:", "",
              "| metric | value |", "|---|---|"] + [f"| {k} | {v} |" for k, v in ncu.items()] + [
              ""] + dram_per_update(ncu, gpu) + [
              "The kernel is limited by how many loads it keeps in flight. It loads the 18 neighbour indices first "
              "and computes every population address without a branch, so all loads of a node are in flight at once; "
              "at commit 9038f87d77a1, where it branched on the link kind before each load, this script measured 50% "
              "of the copy bandwidth on the box.", ""]
    h200 = [f for f in FLUIDX3D if f["device"].startswith("H200") and f["storage"] == "FP32"][0]
    box = [r for r in gpu if r["geometry"] == "dense box 256^3" and r["layout"] == "sparse" and r["precision"] == "fp32"]
    tree = [r for r in gpu if r["geometry"].startswith("vessel tree") and r["layout"] == "sparse" and r["precision"] == "fp32"]
    L += ["## For scale: FluidX3D", "",
          f"FluidX3D, the fastest published dense-grid LB code, lists {h200['mlups']:.0f} MLUPS on an H200 SXM5 with "
          f"FP32 storage at {h200['bytes_per_update']} B per cell update ({h200['mlups'] * h200['bytes_per_update'] / 1e3:.0f} GB/s; "
          "README of ProjectPhysX/FluidX3D, single-GPU table, FP32/FP32; not measured here)."]
    if box and gpu:
        best = max(box, key=lambda r: r["mlups"])
        L += [f"hemoflow's SPARSE kernel on the 256^3 box reaches {best['mlups']:.0f} MFLUPS "
              f"({100 * best['mlups'] / h200['mlups']:.0f}% of that rate) while moving "
              f"{best['effective_gbs']:.0f} GB/s, because it also reads the neighbour table (224 B against 153 B)."]
    if tree:
        bt = max(tree, key=lambda r: r["mlups"])
        q = bt["fluid_fraction"]
        L += [f"On the vessel tree (q = {q:.2f}) a dense code updates every voxel of the box, so at FluidX3D's rate it "
              f"would deliver at most {h200['mlups'] * q:.0f} MFLUPS (million fluid-node updates per second), against "
              f"hemoflow's {bt['mlups']:.0f}."]
    if fx is None:
        L += ["No FluidX3D run accompanied this benchmark run (no `--fluidx3d`): these are FluidX3D's published "
              "figures, not a side-by-side measurement."]
    elif not storage:
        L += ["FluidX3D's results were given (`--fluidx3d`), but this run has no storage records to set them beside: "
              "these are FluidX3D's published figures, not a side-by-side measurement."]
    else:
        L += ["FluidX3D was also run on this machine in the same call: see \"Side by side with FluidX3D\" below."]
    L += ["Both codes offer 16-bit population storage (FluidX3D FP16S/FP16C, hemoflow `lb_bgk.storage` fp16s/e4m11)"
          + (": see \"Population storage\" below." if storage else "; this run did not measure hemoflow's."), ""]
    return L


def scaling_section(docs):
    """The "Several GPUs" section: the newest measurement of each case in docs/scaling*.json
    (tools/bench/scaling.py --index, which also writes this section), else where to find it."""
    paths = sorted(glob.glob(os.path.join(docs, "scaling*.json")))
    if paths:
        from scaling import index, index_lines
        return index_lines(index(paths))
    return ["Strong and weak scaling on several GPUs (one MPI rank per GPU), with the share of the step time spent "
            "waiting on the halo exchange, are measured by `tools/bench/scaling.py` and written to "
            "[scaling.md](scaling.md) (numbers in `docs/scaling.json`)."]


def wall_shear_section(docs):
    """The "Wall shear statistics" section from docs/wall_shear_cost.json
    (tools/bench/wall_shear_cost.py, which also writes it when it measures); none without."""
    path = os.path.join(docs, "wall_shear_cost.json")
    if not os.path.exists(path):
        return []
    from wall_shear_cost import section
    with open(path) as f:
        return section(json.load(f))


def write_markdown(a, records, gpu_bw, cpu_bw, commit, date, ncu, fx):
    collisions = [r for r in records if r.get("study") == "collision"]
    storage = [r for r in records if r.get("study") == "storage"]
    gpu = [r for r in records if r["backend"] == "cuda" and not r.get("study")]
    cpu = [r for r in records if r["backend"] == "cpu" and not r.get("study")]
    L = ["# Performance", "",
         f"Measured by `tools/bench/run` on {', '.join(dict.fromkeys(r['date'] for r in records))} at commit "
         f"{', '.join('`' + c + '`' for c in dict.fromkeys(r['commit'] for r in records))} (each record in "
         "`docs/performance.json` names its own). Every number here comes from that",
         "script. MFLUPS counts fluid-node updates per second.", ""]
    if gpu_bw:
        L += [f"**Device:** {gpu_bw['device']}. **Copy bandwidth** (device-to-device, bytes read + written, best of 20, "
              f"{gpu_bw['buffer_mib']} MiB buffers): cudaMemcpy {gpu_bw['memcpy_bandwidth_gbs']:.0f} GB/s, copy kernel "
              f"{gpu_bw['kernel_bandwidth_gbs']:.0f} GB/s; the larger, {gpu_bw['copy_bandwidth_gbs']:.0f} GB/s, is the "
              "ceiling used below.", ""]
    L += ["**Bytes per fluid-node update, as counted** (the least the update must move): SPARSE (hemoflow) "
          "19 populations read + 19 written + 18 neighbour indices of 4 B = 224 B in fp32, 376 B in fp64, 148 B "
          "with 16-bit population storage (`lb_bgk.storage` fp16s or e4m11); "
          "DENSE (direct addressing, `hemo_dense_lb`) 19 + 19 populations + the node's 1-byte flag = 153 B / 305 B "
          "(neighbour flags come from cache and are not counted, as FluidX3D counts). Density and velocity are "
          "written only on check and output steps and are not counted.", ""]
    if gpu:
        L += ["## GPU", "",
              "| geometry | fluid fraction | layout | ordering | precision | block | MFLUPS | B/update | GB/s | of copy BW | device memory |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in gpu:
            L.append(f"| {r['geometry']} | {r['fluid_fraction']:.3f} | {r['layout']} | {r['ordering']} | {r['precision']} | "
                     f"{r['block_size']} | {r['mlups']:.0f} | {r['bytes_per_update']} | {r['effective_gbs']:.0f} | "
                     f"{100 * r['bandwidth_fraction']:.1f}% | {fmt_bytes(r['device_memory_bytes'])} |")
        for f in FLUIDX3D:
            if f["storage"] == "FP32":
                L.append(f"| *FluidX3D on an {f['device']} (published, not measured here)* | 1 | dense | | fp32 | | "
                         f"{f['mlups']:.0f} | {f['bytes_per_update']} | {f['mlups'] * f['bytes_per_update'] / 1e3:.0f} | | |")
        L.append("")
        L += memory_section(gpu)
        L += findings(gpu, ncu, fx, storage)
    if storage:
        L += storage_section(storage, fx, a.cpu_scale)
    if collisions:
        L += collision_section(collisions)
    if cpu:
        L += ["## CPU", "", f"Copy bandwidth {cpu_bw['copy_bandwidth_gbs']:.0f} GB/s ({cpu_bw['threads']} threads).", "",
              "| geometry | fluid nodes | threads | MFLUPS | MFLUPS per core | GB/s | of copy BW |", "|---|---|---|---|---|---|---|"]
        for r in cpu:
            L.append(f"| {r['geometry']} | {r['fluid_nodes']} | {r['threads']} | {r['mlups']:.1f} | {r['mlups_per_core']:.2f} | "
                     f"{r['effective_gbs']:.1f} | {100 * r['bandwidth_fraction']:.1f}% |")
        L += ["", f"CPU: {cpu[0]['device']}. The CPU kernel is the same functor compiled for the host: scalar, "
              "not vectorised across nodes, so it is bound by arithmetic, not by memory (a fraction of the copy "
              "bandwidth well under 50%). CPU runs use a coarser dx (fewer nodes), so they finish in seconds.", ""]
    L += ["## VLBM against BGK", "",
          "`tools/bench/vlbm.py` measures lb_vlbm against lb_bgk alone on the vessel tree and the patient aorta: "
          "see [performance-vlbm.md](performance-vlbm.md).", ""]
    L += ["## Red blood cells", "",
          "Red blood cells (the rbc plugin) at MUPHY's benchmark size, with the time per step split into the LB, the "
          "map update, forces, coupling and integration, and the CPU/GPU agreement of the cells: `tools/bench/rbc.py`, "
          "written to [rbc_performance.md](rbc_performance.md); on several GPUs (strong scaling by phase, and the "
          "cells bitwise equal on one CPU rank, one GPU and two): `tools/bench/rbc.py --ranks 1,2`, written to "
          "[rbc_scaling.md](rbc_scaling.md).", ""]
    L += ["## Fewer bytes per update (issue 16)", "",
          'What other population layouts would move per fluid-node update, counted from the bench geometries '
          'and the patient surfaces as voxelized (the fill of 4^3 and 8^3 bricks measured, nothing timed): '
          '`tools/bench/layouts.py`, written to [layouts.md](layouts.md). What one rounding of the populations '
          'to a 16-bit format does to density and velocity on four developed flows: '
          '`tools/bench/fp16_storage.py`, written to [fp16_storage.md](fp16_storage.md). Built since: 16-bit '
          'storage (`lb_bgk.storage`), bricks of 4^3 (`lattice.layout`) and in-place streaming '
          '(`lb_bgk.streaming`); their speed and memory beside FluidX3D of the same device call are in '
          '[performance-storage.md](performance-storage.md) (`tools/bench/bench.py --only-storage`), the '
          'design, the history of the measurements and where the issue stands in '
          '[bytes_per_update.md](bytes_per_update.md).', ""]
    L += ["## Several GPUs", ""] + scaling_section(a.docs) + [""] + wall_shear_section(a.docs) + [
          "## Reproduce", "",
          "On a machine with the GPU (or, without one, `--backend cpu`):", "",
          "```sh", "tools/build                  # Release, CUDA for sm_90", "tools/bench/run              # this page and docs/performance.json",
          "tools/bench/run --only-storage [--fluidx3d fluidx3d.json]   # only docs/performance-storage.md/.json",
          "```", "",
          "On a lent GPU machine that lacks the libraries: build here, bundle "
          "(`../shared/tools/bundle-with-deps .bundle build/bin/{hemoflow,hemo_membw,hemo_dense_lb,hemo_unit_tests} "
          "build/lib/*.so`), then run `tools/bench/device_session.sh .bundle OUT` there: it also runs the unit tests, "
          "the CPU/GPU agreement test and the profile.", ""]
    with open(os.path.join(a.docs, "performance.md"), "w") as f:
        f.write("\n".join(L) + "\n")


COLLISION_TARGETS = {"trt": 0.03, "regularized": 0.10}  # issue 9: at most this much slower than BGK


def collision_section(rows):
    """MFLUPS of each collision operator against BGK, same geometry and precision."""
    L = ["## Collision operators", "",
         "The fused kernel with each collision operator (`lb_bgk.collision`), fp32 and fp64, block 256, lexicographic "
         "order, the best of `--collision-reps` runs each, measured one after the other in the same call. All three read and write the "
         "same 19 populations and 18 indices (224 B per update in fp32, 376 B in fp64), so a difference in speed is "
         "arithmetic the memory system cannot hide. Targets: TRT within 3% of BGK, regularized within 10%.", "",
         "| geometry | precision | operator | MFLUPS | of BGK | GB/s | of copy BW | target | met |",
         "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        bgk = [b for b in rows if b["geometry"] == r["geometry"] and b["precision"] == r["precision"]
               and b["collision"] == "bgk"]
        ratio = r["mlups"] / bgk[0]["mlups"] if bgk else float("nan")
        tol = COLLISION_TARGETS.get(r["collision"])
        target = f">= {100 * (1 - tol):.0f}% of BGK" if tol else "-"
        met = "-" if not tol else ("yes" if ratio >= 1 - tol else "**no**")
        L.append(f"| {r['geometry']} | {r['precision']} | {r['collision']} | {r['mlups']:.0f} | {100 * ratio:.1f}% | "
                 f"{r['effective_gbs']:.0f} | {100 * r['bandwidth_fraction']:.1f}% | {target} | {met} |")
    return L + [""]


def memory_section(gpu):
    """SPARSE / DENSE device memory per geometry, against the VLBM paper's estimate."""
    L = ["## Memory: SPARSE against DENSE", "",
         "Measured device memory of the fp32 runs. The VLBM paper (seeds/000, sec. 2.3.4) estimates SPARSE/DENSE = "
         "46q/43 + 1/43 for its layout (43 arrays per cell; 3 coordinate arrays per fluid cell and one index per "
         "voxel). hemoflow's SPARSE keeps 42 values + 18 neighbour indices per fluid node and no per-voxel array, "
         "so its model ratio is q (42 s + 72) / (42 s + 1) with s = 4 B: the neighbour table costs memory, and "
         "SPARSE pays off below q of about 0.7.", "",
         "| geometry | q | SPARSE | DENSE | measured ratio | hemoflow model | VLBM estimate 46q/43 + 1/43 |", "|---|---|---|---|---|---|---|"]
    for geometry, label in GEOMETRIES:
        sp = [r for r in gpu if r["geometry"] == label and r["layout"] == "sparse" and r["precision"] == "fp32"]
        de = [r for r in gpu if r["geometry"] == label and r["layout"] == "dense" and r["precision"] == "fp32"]
        if not sp or not de:
            continue
        q = sp[0]["fluid_fraction"]
        ratio = sp[0]["device_memory_bytes"] / de[0]["device_memory_bytes"]
        L.append(f"| {label} | {q:.3f} | {fmt_bytes(sp[0]['device_memory_bytes'])} | {fmt_bytes(de[0]['device_memory_bytes'])} | "
                 f"{ratio:.3f} | {q * (42 * 4 + 72) / (42 * 4 + 1):.3f} | {46 * q / 43 + 1 / 43:.3f} |")
    return L + [""]


def storage_row(recs, case, storage):
    """The fastest record of this case and storage over the mesh layouts measured."""
    rs = [r for r in recs if r.get("case") == case and r.get("storage") == storage]
    return max(rs, key=lambda r: r["mlups"]) if rs else None


def fluidx3d_row(fx, storage):
    """The measured FluidX3D row of this storage (FP32, FP16S, FP16C), or None."""
    rs = [r for r in fx or [] if r.get("storage") == storage and r.get("mlups")]
    return rs[0] if rs else None


def fluidx3d_memory(row, storage):
    """FluidX3D's bytes per cell: as its run reported them, else its README's figure."""
    if row and row.get("memory_bytes_per_cell"):
        return row["memory_bytes_per_cell"], "reported by the run"
    return FLUIDX3D_MEMORY[storage], "README"


def storage_checks(recs, fx):
    """Issue 16's targets from the storage records: MFLUPS on the box and the vessel tree
    (FP32 storage; each 16-bit storage), and the vessel tree's device memory per fluid node
    against a dense code's (FluidX3D's bytes per cell / fluid fraction). A target without a
    measurement is not met."""
    tree = [r for r in recs if r.get("case") == "vessel_tree"]
    q = tree[0]["fluid_fraction"] if tree else None
    sixteen = [st for st in ("fp16s", "e4m11", "fp16s-dithered", "e4m11-dithered")
               if any(r.get("storage") == st for r in recs)] or ["16-bit"]
    checks = []
    for storage in ["fp32"] + sixteen:
        target = SPEED_TARGETS["fp32" if storage == "fp32" else "16-bit"]
        pair = FLUIDX3D_PAIR.get(storage, "FP16S")
        for case in ("box", "vessel_tree"):
            r = storage_row(recs, case, storage)
            f = fluidx3d_row(fx, pair)
            per_fluid = q if case == "vessel_tree" else 1.0
            checks.append({"check": "speed", "case": case, "storage": storage, "target_mflups": target,
                           "mflups": r["mlups"] if r else None, "met": bool(r and r["mlups"] >= target),
                           "fluidx3d_storage": pair,
                           "fluidx3d_mflups": round(f["mlups"] * per_fluid, 1) if f and per_fluid else None})
    for storage in [st for st in ("fp32", "fp16s", "e4m11", "fp64") if storage_row(recs, "vessel_tree", st)] or ["fp32"]:
        # the least device memory over the layouts and streaming schemes measured
        rs = [x for x in recs if x.get("case") == "vessel_tree" and x.get("storage") == storage]
        r = min(rs, key=lambda x: x["device_bytes_per_fluid_node"]) if rs else None
        if not r:
            checks.append({"check": "memory", "case": "vessel_tree", "storage": storage, "ratio": None,
                           "target_ratio": MEMORY_TARGET, "met": False})
            continue
        pair = FLUIDX3D_PAIR[storage]
        per_cell, source = fluidx3d_memory(fluidx3d_row(fx, pair), pair)
        per_cell32, _ = fluidx3d_memory(fluidx3d_row(fx, "FP32"), "FP32")
        ratio = r["device_bytes_per_fluid_node"] * q / per_cell
        checks.append({"check": "memory", "case": "vessel_tree", "storage": storage, "fluid_fraction": round(q, 4),
                       "layout": r.get("mesh_layout", "nodes"), "streaming": r.get("streaming", "ab"),
                       "bytes_per_fluid_node": r["device_bytes_per_fluid_node"], "dense_storage": pair,
                       "dense_bytes_per_cell": per_cell, "dense_bytes_source": source,
                       "dense_bytes_per_fluid_node": round(per_cell / q, 1), "ratio": round(ratio, 3),
                       "ratio_against_dense_fp32": round(r["device_bytes_per_fluid_node"] * q / per_cell32, 3),
                       "target_ratio": MEMORY_TARGET, "met": ratio <= MEMORY_TARGET})
    return checks


def cell(text, n=300):
    """Free text (an error message, FluidX3D's log) as one Markdown table cell."""
    text = " ".join(str(text).split()).replace("|", "/")
    return text if len(text) <= n else text[:n] + " ..."


def verdict(met):
    return "PASS" if met else "**FAIL**"


def storage_section(recs, fx, cpu_scale):
    """The storage comparison, FluidX3D side by side (measured with --fluidx3d, else its
    published figures), and issue 16's targets."""
    r0 = recs[0]
    gpu = r0["backend"] == "cuda"
    label = {"box": "dense box 256^3", "pipe": "pipe D = 256, L = 320", "vessel_tree": "vessel tree, 15 vessels"}
    mem = ("the measured drop in free device memory over the set-up (all of the run's device allocations, with "
           "padding) divided by the fluid nodes" if gpu else
           "on the CPU backend the summary's device_memory_bytes are the field bytes, so both columns agree")
    L = ["## Population storage (issue 16): fp32 against 16-bit", "",
         f"**Device:** {r0['device']}; copy bandwidth {r0['copy_bandwidth_gbs']:.0f} GB/s (hemo_membw, the same run). "
         f"hemoflow on `cases/bench/{{box,pipe,vessel_tree}}.toml`{'' if gpu else f' at dx x{cpu_scale:g}'}, "
         "`run.precision = \"fp32\"` (the arithmetic; an fp64 storage row runs in fp64), `lb_bgk.storage` as listed, "
         f"BGK, lexicographic order, block {r0['block_size'] if gpu else '-'}, {r0['steps']} steps, best of {r0['reps']} "
         "run(s) of each storage, layout and streaming scheme, one after the other per geometry. Bytes per fluid-node update, "
         "counted: on the node list 19 populations read + 19 written + 18 neighbour indices of 4 B = 38 s + 72 (fp32 224 B, "
         "16-bit 148 B); on bricks (`lattice.layout`) 38 s + 128 / (64 fill), the brick's table and masks shared by its "
         "fluid slots (`benchlib.brick_bytes`); in place (`lb_bgk.streaming = \"aa\"`, one population array) the same "
         f"bytes as two arrays. Device memory per fluid node: {mem}; \"counted\" is the bytes of the arrays the run keeps on the "
         "device (both population sets, density, velocity, the neighbour table, the link tables: the summary's "
         "field_bytes) per fluid node. The host's mesh arrays (mesh_bytes: coordinates, a host copy of the "
         "neighbour table, sort keys) are not on the device and are not added.", "",
         "| geometry | fluid fraction | storage | layout | MFLUPS | of fp32 node list | B/update | GB/s | of copy BW | "
         "device memory per fluid node | counted |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in recs:
        base = [b for b in recs if b["case"] == r["case"] and b["storage"] == "fp32" and b.get("mesh_layout", "nodes") == "nodes"
                and b.get("streaming", "ab") == "ab"]
        rel = f"{100 * r['mlups'] / base[0]['mlups']:.0f}%" if base else "-"
        lay = r.get("mesh_layout", "nodes")
        lay = (f"bricks (fill {r['brick_fill']:.3f})" if lay == "bricks" else lay) + (", in place" if r.get("streaming") == "aa" else "")
        L.append(f"| {r['geometry']} | {r['fluid_fraction']:.3f} | {r['storage']} | {lay} | {r['mlups']:.0f} | {rel} | "
                 f"{r['bytes_per_update']} | {r['effective_gbs']:.0f} | {100 * r['bandwidth_fraction']:.1f}% | "
                 f"{r['device_bytes_per_fluid_node']:.0f} B | {r['field_bytes_per_fluid_node']:.0f} B |")
    L.append("")
    tree = [r for r in recs if r.get("case") == "vessel_tree"]
    q = tree[0]["fluid_fraction"] if tree else None
    bw = r0["copy_bandwidth_gbs"]
    if fx is not None:
        commits = ", ".join(dict.fromkeys(f"`{f['commit']}`" for f in fx if f.get("commit"))) or "(commit not given)"
        devices = list(dict.fromkeys(f["device"] for f in fx if f.get("device")))
        boxes = list(dict.fromkeys("x".join(str(n) for n in f["box"]) for f in fx if f.get("box")))
        L += ["## Side by side with FluidX3D (measured in the same run)", "",
              f"FluidX3D at commit {commits}, built and run by `tools/bench/fluidx3d.sh` in the same device call as "
              f"this script, on {', '.join(devices) or 'a device it did not name'}: its own benchmark (D3Q19 SRT, FP32 "
              f"arithmetic, the storage listed, an empty box of {', '.join(boxes) or '?'} cells, every cell fluid). "
              "Its bytes per cell update are its own count (153 B with FP32 storage, 77 B with FP16S or FP16C: "
              f"{FLUIDX3D_README}); hemoflow's are counted as above. Effective GB/s = rate x bytes per update; "
              f"fraction = effective / the copy bandwidth measured by hemo_membw in this run ({bw:.0f} GB/s). "
              "Memory of FluidX3D: its bytes per cell (93 B FP32, 55 B FP16S/FP16C, from the same README, unless its "
              "run reported them) / fluid fraction. The FluidX3D vessel-tree rows are derived, not run: a dense code "
              "updates every voxel of the tree's bounding box, so its rate per fluid node is its box rate x q, with "
              f"q = fluid nodes / voxels of hemoflow's run{f' = {q:.3f}' if q else ''}, at bytes per cell / q per "
              "fluid-node update.", ""]
        if not any(f.get("mlups") for f in fx):
            L += ["**No FluidX3D rate was measured in this run** (see the errors in the table): there is no "
                  "side-by-side measurement, and the FluidX3D columns below are empty.", ""]
        if devices and not any(d.lower() in r0["device"].lower() or r0["device"].lower() in d.lower()
                               or d.split()[-1].lower() in r0["device"].lower() for d in devices):
            L += [f"**Warning:** FluidX3D names its device {', '.join(devices)}, hemoflow {r0['device']}: check that "
                  "both ran on the same machine.", ""]
        L += ["| code | storage | geometry | M fluid-node updates/s | B per update | GB/s | of copy BW | "
              "device memory per fluid node | device |", "|---|---|---|---|---|---|---|---|---|"]
        for r in recs:
            if r.get("case") in ("box", "vessel_tree"):
                L.append(f"| hemoflow {r.get('mesh_layout', 'nodes')}{' aa' if r.get('streaming') == 'aa' else ''} | {r['storage']} | {r['geometry']} | {r['mlups']:.0f} | {r['bytes_per_update']} | "
                         f"{r['effective_gbs']:.0f} | {100 * r['bandwidth_fraction']:.1f}% | "
                         f"{r['device_bytes_per_fluid_node']:.0f} B (measured) | {r['device']} |")
        for f in fx:
            st = f.get("storage", "?")
            if not f.get("mlups"):
                L.append(f"| FluidX3D | {cell(st)} | empty box | **not measured**: {cell(f.get('error', 'no rate in its output'))} "
                         f"| | | | | {cell(f.get('device', ''))} |")
                continue
            b = f.get("bytes_per_cell_update") or FLUIDX3D_BYTES.get(st)
            eff = f["mlups"] * b / 1e3
            mem, source = fluidx3d_memory(f, st) if st in FLUIDX3D_MEMORY else (None, "")
            L.append(f"| FluidX3D | {cell(st)} | empty box {'x'.join(str(n) for n in f.get('box', []))} | {f['mlups']:.0f} | "
                     f"{b} | {eff:.0f} | {100 * eff / bw:.1f}% | {f'{mem} B ({source})' if mem else '?'} | "
                     f"{cell(f.get('device', ''))} |")
            if q:
                L.append(f"| *FluidX3D, derived* | {cell(st)} | vessel tree (box rate x q) | {f['mlups'] * q:.0f} | "
                         f"{b / q:.0f} | {eff:.0f} | {100 * eff / bw:.1f}% | {f'{mem / q:.0f} B' if mem else '?'} | |")
        L.append("")
    else:
        L += ["## FluidX3D: published, not measured here", "",
              "No FluidX3D run accompanied this benchmark run (no `--fluidx3d`): there is **no side-by-side "
              f"measurement**. FluidX3D's own published figures, for scale only ({FLUIDX3D_README}; D3Q19 SRT, FP32 "
              "arithmetic, empty 256^3 box):", "",
              "| device | storage | MLUPS (published) | B per cell update | GB/s | memory per cell |", "|---|---|---|---|---|---|"]
        for f in FLUIDX3D:
            L.append(f"| *{f['device']} (published, not measured here)* | {f['storage']} | {f['mlups']:.0f} | "
                     f"{f['bytes_per_update']} | {f['mlups'] * f['bytes_per_update'] / 1e3:.0f} | "
                     f"{FLUIDX3D_MEMORY[f['storage']]} B |")
        L.append("")
    checks = storage_checks(recs, fx)
    L += ["## Issue 16 targets", "",
          f"Speed: hemoflow >= {SPEED_TARGETS['fp32']:.0f} MFLUPS with FP32 storage and >= {SPEED_TARGETS['16-bit']:.0f} "
          "MFLUPS with 16-bit storage (each 16-bit format checked on its own), on the box and on the vessel tree, "
          "as measured above. Next to it, FluidX3D with the storage of the same width "
          + ("measured in this run (on the tree: its box rate x q, per fluid node)." if fx is not None else
             "was not run (no `--fluidx3d`)."), "",
          "| hemoflow storage | geometry | hemoflow MFLUPS | FluidX3D, same width | target | verdict |",
          "|---|---|---|---|---|---|"]
    for c in [c for c in checks if c["check"] == "speed"]:
        got = f"{c['mflups']:.0f}" if c["mflups"] is not None else "not measured"
        if fx is None:
            other = "not run"
        elif c["fluidx3d_mflups"] is None:
            other = f"{c['fluidx3d_storage']}: not measured"
        else:
            other = f"{c['fluidx3d_storage']}: {c['fluidx3d_mflups']:.0f}"
        L.append(f"| {c['storage']} | {label[c['case']]} | {got} | {other} | >= {c['target_mflups']:.0f} | "
                 f"{verdict(c['met'])} |")
    L += ["", f"Memory on the vessel tree: hemoflow's device memory per fluid node <= {MEMORY_TARGET:.2f}x a dense "
          "code's, whose bytes per fluid node are its bytes per cell / q (it stores every voxel of the bounding box). "
          "The check pairs each hemoflow storage with FluidX3D's of the same width (fp32 with FP32 at 93 B per cell, "
          "16-bit with FP16S/FP16C at 55 B; FluidX3D's README); the last column is the ratio against FluidX3D with "
          "FP32 storage, for reference.", "",
          "| hemoflow storage | layout, streaming (the least memory measured) | hemoflow B per fluid node | "
          "dense code (same width) | its B per fluid node | ratio | target | verdict | ratio against dense FP32 |",
          "|---|---|---|---|---|---|---|---|---|"]
    for c in [c for c in checks if c["check"] == "memory"]:
        if c["ratio"] is None:
            L.append(f"| {c['storage']} | | not measured | | | | <= {MEMORY_TARGET:.2f} | {verdict(False)} | |")
            continue
        L.append(f"| {c['storage']} | {c.get('layout', 'nodes')}, {c.get('streaming', 'ab')} | "
                 f"{c['bytes_per_fluid_node']:.0f} | FluidX3D {c['dense_storage']}, "
                 f"{c['dense_bytes_per_cell']} B per cell ({c['dense_bytes_source']}) / q = {c['fluid_fraction']:.3f} | "
                 f"{c['dense_bytes_per_cell'] / c['fluid_fraction']:.0f} | {c['ratio']:.3f} | <= {MEMORY_TARGET:.2f} | "
                 f"{verdict(c['met'])} | {c['ratio_against_dense_fp32']:.3f} |")
    return L + [""]


def write_storage_page(a, records, fx, bw, commit, date):
    """docs/performance-storage.md and .json: the storage comparison alone."""
    recs = [r for r in records if r.get("study") == "storage"]
    if not recs:
        return
    L = ["# Performance: population storage (issue 16)", "",
         f"Measured by `tools/bench/bench.py{' --only-storage' if a.only_storage else ''}` on {date} at commit "
         f"`{commit}`. Every number here comes from that script; a FluidX3D rate, from the file that "
         "`tools/bench/fluidx3d.sh` wrote in the same device call (`--fluidx3d`), or from FluidX3D's README where "
         "marked published. MFLUPS counts fluid-node updates per second.", ""]
    L += storage_section(recs, fx, a.cpu_scale)
    L += ["## Reproduce", "",
          "```sh", "tools/bench/run --only-storage                         # hemoflow only",
          "tools/bench/run --only-storage --fluidx3d fluidx3d.json  # with FluidX3D's rows of the same call",
          "```", "", "The full `tools/bench/run` measures this too and writes this page as well as "
          "[performance.md](performance.md).", ""]
    write_json(a.docs, "performance-storage.json",
               {"date": date, "commit": commit, "copy_bandwidth": bw, "records": recs, "fluidx3d": fx,
                "fluidx3d_published": None if fx is not None else FLUIDX3D, "checks": storage_checks(recs, fx)})
    with open(os.path.join(a.docs, "performance-storage.md"), "w") as f:
        f.write("\n".join(L) + "\n")


if __name__ == "__main__":
    sys.exit(main())
