#!/usr/bin/env python3
"""Same answer on any rank count (issue 11, must-have 3).

Runs one scenario on one rank (no launcher) and with `mpirun -np N` for each N asked,
on the CPU, and asserts:
  1. population checksum (summary.json, keyed by global voxel, checksum.hpp): equal to
     the one-rank run's, bitwise;
  2. every field of every snapshot (fields/step_*.h5), matched node by node through the
     voxel coordinates in fields/mesh.h5: bitwise equal;
  3. probe CSVs: byte for byte equal (the owner rank's value, written by rank 0);
  4. monitor CSVs (iolets.csv, forces.csv, vlbm.csv): equal to 1e-12 relative, since
     their sums over links are added in another order on several ranks;
  5. summary.json: `ranks` is N and the ranks' nodes add up to the fluid nodes;
  6. no rank holds the whole voxel box (`voxels_held` of every rank report below
     `voxels`), in the scenarios without periodic axes (a part at a periodic face holds
     the whole axis, and in these small boxes that can be all of it).

Scenarios (small, for 2 cores oversubscribed):
  pipe      lb_bgk, walls, a Ladd velocity inlet, a Zou-He pressure outlet, probes, fields
  vlbm      lb_vlbm (solid fractions), the same iolets, fp32, Morton order
  vlbm_les  the same under the Smagorinsky eddy viscosity (the share by each node's tau_eff)
  periodic  a channel periodic in x and z (halos wrap across ranks), body force, TRT
  sphere    Zou-He velocity inlet and pressure outlet, periodic sides, an obstacle (forces.csv)
  stl       lb_vlbm on a tilted STL pipe (hemoflow stl-pipe), each rank voxelizing its window
            of the surface, iolets cutting the tube
  voxels    the same geometry from a voxel file (hemoflow mesh), read window by window
  pipe_fp16s, vlbm_e4m11, sphere_e4m11_dithered, pipe_e4m11_dithered
            pipe, vlbm and sphere with 16-bit population storage (lb_bgk.storage, issue 16),
            rounded to nearest or dithered (lb_bgk.rounding): the halo carries the codes,
            every reader of the populations decodes them

With --layout bricks (issue 16) the runs under test store the mesh as bricks of 4^3
voxels (lattice.layout) on every rank count asked, 1 included, and are compared with the
one-rank run on the node list: the same checks, so bricks on N ranks give bitwise the
node list's answer. (A scenario's partition.brick that is not a multiple of 4 becomes 8.)
With --streaming aa the runs under test stream the populations in place (lb_bgk.streaming,
one population array) and are compared with the two-array run on one rank the same way.
"""
import argparse
import csv
import glob
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "..", "..", "cases")

SCENARIOS = {
    "pipe": ("pipe_velocity.toml", ["--steps", "60", "--set", "lattice.dx=1e-3", "--set", "output.every=30",
                                    "--set", "run.check_every=20", "--set",
                                    'output.probe=[{name="axis", type="line", start=[-0.03,0.0,0.0], '
                                    'end=[0.03,0.0,0.0], points=13, every=10}, {name="centre", type="point", '
                                    'position=[0.0,0.001,0.0], every=5}]']),
    "vlbm": ("pipe_velocity.toml", ["--steps", "40", "--set", "lattice.dx=1e-3", "--set", "output.every=20",
                                    "--set", "run.check_every=20", "--set", "geometry.solid_fraction=true",
                                    "--set", 'run.plugins=["lb_bgk","lb_vlbm","boundaries"]',
                                    "--set", 'run.precision="fp32"', "--set", 'lattice.ordering="morton"']),
    # lb_vlbm under the Smagorinsky eddy viscosity: the share from each node's tau_eff,
    # which lb_bgk writes every step (relaxation_time).
    "vlbm_les": ("pipe_velocity.toml", ["--steps", "40", "--set", "lattice.dx=1e-3", "--set", "output.every=20",
                                        "--set", "run.check_every=20", "--set", "geometry.solid_fraction=true",
                                        "--set", 'run.plugins=["lb_bgk","lb_vlbm","boundaries"]',
                                        "--set", 'run.precision="fp32"', "--set", 'lattice.ordering="morton"',
                                        "--set", 'lb_bgk.collision="regularized"', "--set", "lb_bgk.smagorinsky=0.3"]),
    "periodic": ("poiseuille_channel.toml", ["--steps", "80", "--set", "geometry.size=[1.6e-3,8e-4,1.6e-3]",
                                             "--set", "partition.brick=4", "--set", "output.every=40"]),
    "stl": ("vlbm_pipe.toml", ["--steps", "30", "--set", "lattice.dx=1e-3", "--set", "lattice.dt=6.67e-4",
                               "--set", "geometry.subsamples=4", "--set", 'geometry.file="{work}/pipe.stl"',
                               "--set", "run.check_every=10", "--set", "output.every=15"]),
    "voxels": ("vlbm_pipe.toml", ["--steps", "30", "--set", "lattice.dx=1e-3", "--set", "lattice.dt=6.67e-4",
                                  "--set", 'geometry.shape="voxels"', "--set", 'geometry.file="{work}/pipe.voxels.h5"',
                                  "--set", "run.check_every=10", "--set", "output.every=15"]),
    "sphere": ("sphere_drag.toml", ["--steps", "40", "--set", "lattice.dx=5e-4", "--set", "run.check_every=10",
                                    "--set", "output.every=0", "--set", "partition.brick=6"]),
    # A Windkessel (RCR) outlet: state outside the fields (p_c, the last outflow), kept as
    # restart values. Not the same bits on another rank count (the outflow is summed over
    # the ranks in another order), so only restart.py --reference-ranks uses it.
    "windkessel": ("windkessel_pipe.toml", ["--steps", "60", "--set", "lattice.dx=4e-4", "--set", "run.check_every=10",
                                            "--set", "output.every=30", "--set", "partition.brick=4"]),
    # An absorbing outlet (the Windkessel machinery plus the last step's outflow): the pulse
    # reaches the outlet at about step 350, where restart.py splits the run.
    "absorbing": ("pulse_reflection.toml", ["--steps", "700", "--set", "lattice.dx=5e-4", "--set", "run.check_every=10",
                                            "--set", "output.every=350", "--set", "output.final=false"]),
    # A Zou-He inlet holding its flow (hold_flow): one double of state (the last step's
    # excess), summed over the ranks like a Windkessel's outflow (restart.py
    # --reference-ranks only).
    "held_flow": ("pipe_velocity.toml", ["--steps", "60", "--set", "lattice.dx=1e-3", "--set", "run.check_every=10",
                                         "--set", "output.every=30", "--set", 'boundaries.iolet.0.model="zou_he"',
                                         "--set", "boundaries.iolet.0.hold_flow=true"]),
    # An absorbing velocity inlet: three doubles more (the last step's flow at the inlet and
    # the means of flow and density); the outlet's pulse reaches it at about step 350.
    "absorbing_inlet": ("pulse_reflection_inlet.toml", ["--steps", "700", "--set", "lattice.dx=5e-4",
                                                        "--set", "run.check_every=10", "--set", "output.every=350",
                                                        "--set", "output.final=false"]),
}

# 16-bit population storage (issue 16): the same scenarios, fp32 arithmetic.
# Dithered rounding draws its noise from each value and the step, not the node: the same
# answer on any rank count too.
for _base, _storage, _rounding in (("pipe", "fp16s", "nearest"), ("vlbm", "e4m11", "nearest"),
                                   ("sphere", "e4m11", "dithered"), ("pipe", "e4m11", "dithered")):
    SCENARIOS[f"{_base}_{_storage}" + ("_dithered" if _rounding == "dithered" else "")] = (
        SCENARIOS[_base][0], SCENARIOS[_base][1] + ["--set", 'run.precision="fp32"', "--set", f'lb_bgk.storage="{_storage}"',
                                                    "--set", f'lb_bgk.rounding="{_rounding}"'])

MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1", "OMP_NUM_THREADS": "1"}


def run(cmd, out):
    if os.path.isdir(out):
        shutil.rmtree(out)
    env = dict(os.environ, **MPI_ENV)
    p = subprocess.run(cmd + ["--quiet", "--output", out], capture_output=True, text=True, env=env, timeout=600)
    if p.returncode != 0:
        print(p.stdout, p.stderr)
        raise SystemExit(f"FAIL: {' '.join(cmd)} exited {p.returncode}")


def summary(out):
    import json
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def fields_by_voxel(out):
    """{step file: {field: values ordered by voxel (k, j, i)}}"""
    files = sorted(glob.glob(os.path.join(out, "fields", "step_*.h5")))
    if not files:
        return {}
    with h5py.File(os.path.join(out, "fields", "mesh.h5")) as m:
        v = m["voxel"][:]
    order = np.lexsort((v[:, 0], v[:, 1], v[:, 2]))
    result = {}
    for path in files:
        with h5py.File(path) as f:
            result[os.path.basename(path)] = {k: f[k][:][order] for k in f.keys()}
    return result


def numbers(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    return rows[0], np.array([[float(x) for x in r] for r in rows[1:]])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hemoflow", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--scenario", required=True, choices=sorted(SCENARIOS))
    ap.add_argument("--ranks", type=int, nargs="+", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--layout", choices=["nodes", "bricks"], default="nodes")
    ap.add_argument("--streaming", choices=["ab", "aa"], default="ab")
    a = ap.parse_args()
    case, args = SCENARIOS[a.scenario]
    work = os.path.abspath(a.work)
    os.makedirs(work, exist_ok=True)
    args = [x.replace("{work}", work) for x in args]
    if a.scenario in ("stl", "voxels"):
        # vlbm_pipe.toml's surface (its comment says how), and its voxel file.
        stl = os.path.join(work, "pipe.stl")
        subprocess.run([a.hemoflow, "stl-pipe", "--output", stl, "--radius", "0.008", "--length", "0.068",
                        "--axis", "1,0.1,0.05", "--segments", "64"], check=True, capture_output=True)
        if a.scenario == "voxels":
            subprocess.run([a.hemoflow, "mesh", os.path.join(CASES, case), "--voxels", os.path.join(work, "pipe.voxels.h5"),
                            "--set", "lattice.dx=1e-3", "--set", "lattice.dt=6.67e-4", "--set", "geometry.subsamples=4",
                            "--set", f'geometry.file="{stl}"'], check=True, capture_output=True)
    base = [a.hemoflow, "run", os.path.join(CASES, case), *args]
    tested = list(base)
    if a.layout == "bricks":
        tested = [x if not (x.startswith("partition.brick=") and int(x.split("=")[1]) % 4) else "partition.brick=8"
                  for x in base] + ["--set", 'lattice.layout="bricks"']
    if a.streaming == "aa":
        tested += ["--set", 'lb_bgk.streaming="aa"']
    tag = a.scenario + ("" if a.layout == "nodes" else "_" + a.layout) + ("" if a.streaming == "ab" else "_aa")
    one = os.path.join(a.work, f"{tag}_ref")
    run(base, one)
    ref = summary(one)
    ref_fields = fields_by_voxel(one)
    monitors = [os.path.basename(p) for p in glob.glob(os.path.join(one, "*.csv"))]
    ok = True

    def check(cond, msg):
        nonlocal ok
        print(("ok   " if cond else "FAIL ") + msg)
        ok = ok and bool(cond)

    for n in a.ranks:
        out = os.path.join(a.work, f"{tag}_{n}")
        run([a.mpiexec, "-np", str(n)] + tested, out)
        s = summary(out)
        check(s.get("layout") == a.layout, f"{a.scenario}, {n} ranks: layout {s.get('layout')}")
        check(s["population_checksum"] == ref["population_checksum"],
              f"{a.scenario}, {n} ranks: checksum {s['population_checksum']} (1 rank: {ref['population_checksum']})")
        check(s["ranks"] == n and s["fluid_nodes"] == ref["fluid_nodes"]
              and (n == 1 or sum(r["nodes"] for r in s["rank_reports"]) == ref["fluid_nodes"]),
              f"{a.scenario}, {n} ranks: summary says {s['ranks']} ranks holding {s['fluid_nodes']} nodes "
              f"(imbalance {s.get('imbalance', 1.0):.3f})")
        held = [r["voxels_held"] for r in s.get("rank_reports", [])]
        if n > 1 and a.scenario.split("_")[0] in ("pipe", "vlbm", "stl", "voxels"):
            check(len(held) == n and max(held) < s["voxels"],
                  f"{a.scenario}, {n} ranks: voxels held per rank {held} of {s['voxels']} in the box")
        else:
            print(f"     {a.scenario}, {n} ranks: voxels held per rank {held} of {s['voxels']} in the box")
        got = fields_by_voxel(out)
        check(sorted(got) == sorted(ref_fields), f"{a.scenario}, {n} ranks: snapshots {sorted(got)}")
        for step, fields in ref_fields.items():
            same = step in got and all(np.array_equal(fields[k], got[step][k]) for k in fields)
            check(same, f"{a.scenario}, {n} ranks: {step} bitwise equal to one rank's")
        for name in monitors:
            path = os.path.join(out, name)
            if not os.path.exists(path):
                check(False, f"{a.scenario}, {n} ranks: {name} missing")
                continue
            if name.startswith(("iolets", "forces", "vlbm")):
                h1, v1 = numbers(os.path.join(one, name))
                h2, v2 = numbers(path)
                same = h1 == h2 and v1.shape == v2.shape and np.allclose(v1, v2, rtol=1e-12, atol=1e-300)
                check(same, f"{a.scenario}, {n} ranks: {name} within 1e-12 of one rank's")
            else:
                with open(os.path.join(one, name), "rb") as f1, open(path, "rb") as f2:
                    check(f1.read() == f2.read(), f"{a.scenario}, {n} ranks: probe {name} byte for byte")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
