#!/usr/bin/env python3
"""Multi-GPU scaling of hemoflow (issue 11, must-have 6): writes docs/scaling.md and
docs/scaling.json.

On a machine with N >= 2 GPUs and an MPI launcher, one rank per GPU (hemoflow picks the
device from the node-local rank):
  * same answer: a small pipe (walls, velocity and pressure iolets) on 1 and on N GPUs,
    population checksums compared (they must be equal: bitwise); and the same run
    checkpointed half-way on N GPUs and restarted on one (--restart): equal checksum;
  * strong scaling: the dense box 256^3 (16.8 M nodes), the box N x 256^3 (16.8 M nodes
    per GPU on N GPUs) and the vessel tree (cases/bench/) on 1 and N GPUs;
  * weak scaling: the box with 256^3 nodes per GPU (the box N times longer on N GPUs);
  * the share of the run's time each rank waits on the halo with nothing left to
    compute (summary.json's rank_reports: halo_wait_seconds over wall_seconds).
Bytes per update as in tools/bench/bench.py (SPARSE: 38 values + 18 indices of 4 B);
the fraction is of the device-to-device copy bandwidth measured by hemo_membw.

Each timed run is repeated --repeat times (default 3); the table gives the median MLUPS
and the range, and efficiencies are of the medians.

usage: scaling.py --build DIR --mpiexec orterun [--gpus 2] [--steps 1000] [--repeat 3] [--docs docs]
"""
import argparse
import datetime
import json
import os
import subprocess
import sys

from benchlib import ROOT, commit, sparse_bytes, write_json, write_page


def run(a, ranks, case, out, steps, extra=()):
    cmd = [os.path.join(a.build, "bin", "hemoflow"), "run", os.path.join(ROOT, case), "--quiet", "--progress", "never",
           "--backend", "cuda", "--steps", str(steps), "--output", out, *extra]
    if ranks > 1:
        cmd = [a.mpiexec, "--allow-run-as-root", "--oversubscribe", "-np", str(ranks), *cmd]
    print("  $", " ".join(cmd), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stdout + p.stderr)
        raise SystemExit(f"failed ({p.returncode}): {' '.join(cmd)}")
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def comm_share(s):
    """Largest share, over the ranks, of the run's wall time spent waiting on the halo
    exchange with nothing left to compute (HaloExchange::wait_seconds: after the GPU
    finished the interior, plus the upload of the halo)."""
    wall = s["wall_seconds"]
    return max((r.get("halo_wait_seconds", 0.0) / wall for r in s.get("rank_reports", [])), default=0.0) if wall else 0.0


def write_report(d, docs):
    """docs/scaling.md from the numbers of one measurement (scaling.json)."""
    n, checks, rows = d["gpus"], d["checks"], d["runs"]
    L = ["# Scaling on several GPUs", "",
         f"Measured {d['date']} at commit {d['commit']} by `tools/bench/scaling.py --gpus {n} --steps {d['steps']} --repeat {d.get('repeat', 1)}` on "
         f"{n} x {d['device']}, one MPI rank per GPU (Open MPI from the bundle, no CUDA-aware MPI: halos are packed on "
         f"the GPU, downloaded to pinned host memory while the interior updates, and sent by MPI). Copy bandwidth of one "
         f"GPU (hemo_membw): {d['copy_bandwidth_gbs']:.0f} GB/s. Bytes per update: 38 populations + 18 neighbour "
         "indices (224 B in fp32); the fraction is of the copy bandwidth of all GPUs used. "
         "Regenerate this page from scaling.json with `tools/bench/scaling.py --report docs/scaling.json`.", "",
         "## Same answer", ""]
    for c in checks:
        L.append(f"- {c['what']}: {c['one']} and {c['many']}: **{'equal' if c['equal'] else 'DIFFERENT'}**")
    L += ["", "## Runs", "",
          "| kind | case | GPUs | fluid nodes | precision | MLUPS (median) | MLUPS range | efficiency | bandwidth fraction | exposed halo wait (worst rank) | halo MB/step (all ranks) | imbalance |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        eff = f"{100 * r['efficiency']:.1f}%" if "efficiency" in r else "-"
        runs = r.get("mlups_runs", [r["mlups"]])
        spread = f"{min(runs):.0f}-{max(runs):.0f} ({len(runs)} runs)"
        L.append(f"| {r['kind']} | {r['case']} | {r['ranks']} | {r['nodes']:,} | {r['precision']} | {r['mlups']:.0f} | {spread} | {eff} | "
                 f"{100 * r['bandwidth_fraction']:.1f}% | {100 * r['comm_share']:.1f}% | "
                 f"{r['halo_bytes_per_step'] / 1e6:.2f} | {r['imbalance']:.3f} |")
    L += ["", "Efficiency: MLUPS on N GPUs over N times MLUPS on one (weak: one GPU with the same nodes per GPU).",
          "Exposed halo wait: the time a rank waited for its messages after the GPU had finished the interior, plus "
          "the upload of the halo, over the run's wall time (summary.json rank_reports). Only the populations that "
          "cross an interface travel (5 of 19 across a plane).", ""]
    write_page(docs, "scaling.md", L)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build")
    ap.add_argument("--mpiexec", default="mpirun")
    ap.add_argument("--gpus", type=int, default=2)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each timed case (median reported)")
    ap.add_argument("--work", default="/tmp/hemo_scaling")
    ap.add_argument("--docs", default=os.path.join(ROOT, "docs"))
    ap.add_argument("--report", help="only rewrite scaling.md (next to it) from this scaling.json")
    a = ap.parse_args()
    if a.report:
        with open(a.report) as f:
            write_report(json.load(f), os.path.dirname(os.path.abspath(a.report)))
        return 0
    n = a.gpus
    bw = json.loads(subprocess.run([os.path.join(a.build, "bin", "hemo_membw"), "--backend", "cuda"],
                                   capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1])
    device, copy_bw = bw["device"], bw["copy_bandwidth_gbs"]
    rows, checks = [], []

    # 1. Same answer on 1 and N GPUs.
    small = ["--set", "lattice.dx=5e-4", "--set", "output.every=0", "--set", "output.final=false"]
    s1 = run(a, 1, "cases/pipe_velocity.toml", f"{a.work}/same_1", 200, small)
    sn = run(a, n, "cases/pipe_velocity.toml", f"{a.work}/same_{n}", 200, small)
    checks.append({"what": f"pipe_velocity (dx 5e-4, {s1['fluid_nodes']} nodes, 200 steps, fp64): checksum on 1 and {n} GPUs",
                   "one": s1["population_checksum"], "many": sn["population_checksum"],
                   "equal": s1["population_checksum"] == sn["population_checksum"]})
    split = f"{a.work}/restart_{n}to1"
    run(a, n, "cases/pipe_velocity.toml", split, 100, small + ["--set", "checkpoint.every=100"])
    sr = run(a, 1, "cases/pipe_velocity.toml", split, 200, small + ["--restart", split])
    checks.append({"what": f"the same, checkpointed after step 100 on {n} GPUs and restarted on 1 GPU: checksum "
                           "uninterrupted and restarted",
                   "one": s1["population_checksum"], "many": sr["population_checksum"],
                   "equal": s1["population_checksum"] == sr["population_checksum"]})

    # 2. Strong and weak scaling.
    def record(kind, label, case, ranks, extra=(), per_gpu=None):
        runs = [run(a, ranks, case, f"{a.work}/{kind}_{label}_{ranks}", a.steps, extra) for _ in range(a.repeat)]
        runs.sort(key=lambda x: x["mlups"])
        s = runs[len(runs) // 2]  # the median run
        b = sparse_bytes(s["precision"])
        r = {"kind": kind, "case": label, "ranks": ranks, "nodes": s["fluid_nodes"], "precision": s["precision"],
             "mlups": s["mlups"], "mlups_runs": [x["mlups"] for x in runs], "wall_seconds": s["wall_seconds"],
             "bytes_per_update": b,
             "bandwidth_fraction": s["mlups"] * 1e6 * b / (copy_bw * 1e9 * ranks),
             "comm_share": comm_share(s), "imbalance": s.get("imbalance", 1.0),
             "halo_bytes_per_step": sum(x["halo_bytes_per_step"] for x in s.get("rank_reports", [])),
             "device": s["device"]}
        rows.append(r)
        return r

    longer = ["--set", f"geometry.size=[{n}.0e-3,1.0e-3,1.0e-3]"]  # 256^3 nodes per GPU on N GPUs
    for label, case, extra in (("box 256^3", "cases/bench/box.toml", []),
                               (f"box {n} x 256^3", "cases/bench/box.toml", longer),
                               ("vessel tree", "cases/bench/vessel_tree.toml", [])):
        one = record("strong", label, case, 1, extra)
        many = record("strong", label, case, n, extra)
        many["efficiency"] = many["mlups"] / (n * one["mlups"])
    # Weak: the N-GPU run of the longer box against one GPU holding 256^3 (the same run,
    # measured once, compared with another baseline).
    one = next(r for r in rows if r["case"] == "box 256^3" and r["ranks"] == 1)
    w = dict(next(r for r in rows if r["case"] == f"box {n} x 256^3" and r["ranks"] == n))
    w.update(kind="weak", case="box 256^3 per GPU", efficiency=w["mlups"] / (n * one["mlups"]))
    rows.append(w)

    data = {"date": datetime.date.today().isoformat(), "commit": commit(), "device": device, "copy_bandwidth_gbs": copy_bw,
            "gpus": n, "steps": a.steps, "repeat": a.repeat, "checks": checks, "runs": rows}
    write_json(a.docs, "scaling.json", data)
    write_report(data, a.docs)
    return 0 if all(c["equal"] for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
