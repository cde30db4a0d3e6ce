#!/usr/bin/env python3
"""passive_scalar gives the same answer on any layout, rank count and after a restart.

Runs gaussian.toml (32^3 nodes, 25 steps) on one rank with the node list (the reference)
and then as the variants below, and asserts for each:
  1. concentration_25.csv byte for byte equal to the reference's: every voxel's C
     bitwise equal (the file lists voxels in global order, each value in its shortest
     round-trip form);
  2. passive_scalar.csv: the same steps and times, and mass, centre and variance equal to
     the reference's to 1e-12 relative (they are sums over the nodes, added in another
     order on another layout or rank count); byte for byte after a restart;
  3. summary.json: `ranks` is the rank count asked (a hemoflow built without MPI runs
     every rank as a separate one-rank run, and fails here).
Variants: bricks (lattice.layout = "bricks") on 1 rank; node list and bricks on 2 ranks
(with --mpiexec); a run stopped at step 12 with a checkpoint and restarted to step 25.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CASE = os.path.join(HERE, "gaussian.toml")
STEPS = 25
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1", "OMP_NUM_THREADS": "1"}


def hemoflow(cmd, out, launcher=(), clean=True, steps=STEPS):
    if clean:
        shutil.rmtree(out, ignore_errors=True)
    full = list(launcher) + cmd + ["--quiet", "--output", out, "--steps", str(steps)]
    env = dict(os.environ, **(MPI_ENV if launcher else {}))
    p = subprocess.run(full, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(full)} exited {p.returncode}\n{p.stdout}{p.stderr}")


def read(out, name):
    with open(os.path.join(out, name), "rb") as f:
        return f.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hemoflow", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--mpiexec", help="mpirun or mpiexec: adds the 2-rank variants")
    ap.add_argument("--backend", default="cpu")
    args = ap.parse_args()
    run = [args.hemoflow, "run", CASE, "--backend", args.backend]
    nodes, bricks = run + ["--set", 'lattice.layout="nodes"'], run + ["--set", 'lattice.layout="bricks"']
    field = f"concentration_{STEPS}.csv"

    reference = os.path.join(args.work, "reference")
    hemoflow(nodes, reference)
    variants = {"bricks": (bricks, 1)}
    if args.mpiexec:
        variants["2 ranks"] = (nodes, 2)
        variants["2 ranks, bricks"] = (bricks, 2)
    failures = []
    for name, (cmd, ranks) in variants.items():
        out = os.path.join(args.work, name.replace(" ", "_").replace(",", ""))
        hemoflow(cmd, out, [args.mpiexec, "-np", str(ranks)] if ranks > 1 else [])
        with open(os.path.join(out, "summary.json")) as f:
            got_ranks = json.load(f).get("ranks")
        problems = []
        if got_ranks != ranks:
            problems.append(f"summary.json says ranks = {got_ranks}" + (
                " (a hemoflow built without MPI runs each rank alone; without --mpiexec the 2-rank variants are skipped)"
                if got_ranks == 1 else ""))
        if read(out, field) != read(reference, field):
            problems.append(f"{field} differs from the one-rank node-list run's")
        a = np.genfromtxt(os.path.join(reference, "passive_scalar.csv"), delimiter=",", names=True)
        b = np.genfromtxt(os.path.join(out, "passive_scalar.csv"), delimiter=",", names=True)
        if a.shape != b.shape or any(not np.array_equal(a[k], b[k]) for k in ("step", "time")):
            problems.append("passive_scalar.csv has other steps or times")
        else:
            for k in a.dtype.names[2:]:
                rel = abs(b[k] - a[k]).max() / abs(a[k]).max()
                if rel > 1e-12:
                    problems.append(f"passive_scalar.csv column {k} differs by {rel:.1e} relative (> 1e-12)")
        print(("FAIL  " if problems else "ok    ") + f"{name}: " + ("; ".join(problems) or "concentration bitwise, monitor to 1e-12"))
        failures += problems

    # Stopped after step 12 with a checkpoint, then continued from it in the same folder.
    out = os.path.join(args.work, "restart")
    hemoflow(nodes + ["--set", "checkpoint.final=true"], out, steps=12)
    hemoflow(nodes + ["--restart", out], out, clean=False)
    problems = [f"{name} differs from the uninterrupted run's" for name in (field, "passive_scalar.csv")
                if read(out, name) != read(reference, name)]
    print(("FAIL  " if problems else "ok    ") + "restart at step 12: " + ("; ".join(problems) or "both files byte for byte"))
    failures += problems
    if failures:
        sys.exit(f"{len(failures)} check(s) failed")
    print("all checks passed")


if __name__ == "__main__":
    main()
