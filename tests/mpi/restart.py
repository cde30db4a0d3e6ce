#!/usr/bin/env python3
"""Checkpoint and restart continue a run bitwise (issue 11, must-have 5).

For a scenario of same_answer.py that runs T steps, compares with the uninterrupted
one-rank run (no launcher):

  split    T/2 steps written on --write-ranks ranks with [checkpoint] every = T/2, then
           `--restart` on --restart-ranks ranks to step T, in the same folder:
             - population checksum equal (bitwise);
             - every snapshot, before and after the restart, bitwise equal node by node;
             - fields.xmf lists the same steps; probe CSVs byte for byte; monitor CSVs
               byte for byte on one rank, to 1e-12 otherwise (sums in another order);
  kill     (with --faults) one rank, checkpoints every T/3 steps, killed (SIGKILL) halfway
           through writing its second checkpoint (HEMO_TEST_KILL_IN_CHECKPOINT=2): the
           checkpoint left is the first one, whole; a short restart that writes no
           snapshot removes the killed run's snapshots after it from fields/ and
           fields.xmf; a restart to the end gives the uninterrupted run's checksum;
  wall     (with --faults) checkpoint.wall_seconds reached at the first monitor step: the
           run checkpoints, stops with exit 0 and says so in summary.json; a restart ends
           with the same checksum;
  refused  (on --restart-ranks ranks) a restart from a checkpoint of another precision, resolution
           or geometry, from a file that is no checkpoint, or to an end step the
           checkpoint has passed: exit 2 and a message saying what differs.
Ranks of 1 run without a launcher. With --reference-ranks the uninterrupted run has that
many ranks (a case whose answer is bitwise the same on the same rank count only: Windkessel
outlets sum their outflow over the ranks). With --restart-layout bricks the restart runs on the
brick layout (lattice.layout, issue 16): a checkpoint is keyed by voxel, so a run written on
the node list continues on bricks bitwise.
"""
import argparse
import os
import subprocess
import sys

import h5py

from same_answer import MPI_ENV, SCENARIOS, CASES, fields_by_voxel, numbers, summary

import numpy as np

# Same voxel box, other fluid voxels: found by rank 0 alone while the others wait.
OTHER_GEOMETRY = {"pipe": "geometry.radius=7.9e-3", "sphere": "geometry.obstacle.0.radius=1.5e-3"}


def scenario_steps(name):
    args = SCENARIOS[name][1]
    return int(args[args.index("--steps") + 1])


def hemoflow(a, ranks, out, extra, env=None, clean=True):
    """The scenario's run with `extra` options (its own --steps left out: extra says)."""
    case, args = SCENARIOS[a.scenario]
    at = args.index("--steps")
    args = args[:at] + args[at + 2:]
    cmd = ([a.mpiexec, "-np", str(ranks)] if ranks > 1 else []) + [a.hemoflow, "run", os.path.join(CASES, case), *args]
    if clean and os.path.isdir(out):
        subprocess.run(["rm", "-rf", out], check=True)
    p = subprocess.run(cmd + extra + ["--quiet", "--output", out], capture_output=True, text=True,
                       env=dict(os.environ, **MPI_ENV, **(env or {})), timeout=600)
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hemoflow", required=True)
    ap.add_argument("--mpiexec", default="mpirun")
    ap.add_argument("--scenario", required=True, choices=sorted(SCENARIOS))
    ap.add_argument("--write-ranks", type=int, default=1)
    ap.add_argument("--restart-ranks", type=int, default=1)
    ap.add_argument("--faults", action="store_true", help="also the kill, wall-clock and refused-restart checks")
    ap.add_argument("--restart-layout", choices=["nodes", "bricks"], default="nodes")
    ap.add_argument("--write-streaming", choices=["ab", "aa"], default="ab",
                    help="lb_bgk.streaming of the first half (the uninterrupted run streams with two arrays)")
    ap.add_argument("--restart-streaming", choices=["ab", "aa"], default="ab")
    ap.add_argument("--reference-ranks", type=int, default=1, help="ranks of the uninterrupted run")
    ap.add_argument("--split-at", type=int, help="the step of the checkpoint (default: half the steps; an odd step "
                    "tests the in-place scheme's odd parity)")
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    ok = True

    def check(cond, msg):
        nonlocal ok
        print(("ok   " if cond else "FAIL ") + msg)
        ok = ok and bool(cond)

    def must(p, what):
        if p.returncode != 0:
            print(p.stdout, p.stderr)
            raise SystemExit(f"FAIL: {what} exited {p.returncode}")

    tag = f"{a.scenario}_{a.write_ranks}to{a.restart_ranks}" + ("_bricks" if a.restart_layout == "bricks" else "")
    # (bricks need partition.brick a multiple of 4: the partition changes, the answer not)
    layout = ["--set", 'lattice.layout="bricks"', "--set", "partition.brick=8"] if a.restart_layout == "bricks" else []
    layout += ["--set", f'lb_bgk.streaming="{a.restart_streaming}"']
    first = ["--set", f'lb_bgk.streaming="{a.write_streaming}"']
    if a.write_streaming != "ab" or a.restart_streaming != "ab":
        tag += f"_{a.write_streaming}_{a.restart_streaming}"
    ref_dir = os.path.join(a.work, f"{tag}_uninterrupted")
    steps = scenario_steps(a.scenario)
    p = hemoflow(a, a.reference_ranks, ref_dir, ["--steps", str(steps)])
    must(p, "the uninterrupted run")
    ref = summary(ref_dir)
    half = a.split_at or steps // 2

    # split: written on one rank count, continued on another, in the same folder
    split = os.path.join(a.work, f"{tag}_split")
    p = hemoflow(a, a.write_ranks, split, ["--steps", str(half), "--set", f"checkpoint.every={half}",
                                             "--set", "output.final=false"] + first)
    must(p, f"the first half on {a.write_ranks} rank(s)")
    with h5py.File(os.path.join(split, "checkpoint.h5")) as f:
        check(int(f.attrs["step"]) == half and int(f.attrs["ranks"]) == a.write_ranks,
              f"checkpoint after step {int(f.attrs['step'])} written by {int(f.attrs['ranks'])} rank(s)")
    p = hemoflow(a, a.restart_ranks, split, ["--steps", str(steps), "--restart", split] + layout, clean=False)
    must(p, f"the restart on {a.restart_ranks} rank(s)")
    s = summary(split)
    check(s["population_checksum"] == ref["population_checksum"],
          f"{tag}: checksum after step {s['steps']} {s['population_checksum']} (uninterrupted: {ref['population_checksum']})")
    check(s.get("first_step") == half and s["steps"] == steps, f"{tag}: summary says steps {s.get('first_step')}+1..{s['steps']}")
    want, got = fields_by_voxel(ref_dir), fields_by_voxel(split)
    check(sorted(got) == sorted(want), f"{tag}: snapshots {sorted(got)} (uninterrupted: {sorted(want)})")
    for step, fields in want.items():
        check(step in got and all(np.array_equal(fields[k], got[step][k]) for k in fields),
              f"{tag}: {step} bitwise equal")
    with open(os.path.join(ref_dir, "fields.xmf")) as f1, open(os.path.join(split, "fields.xmf")) as f2:
        check(f1.read() == f2.read(), f"{tag}: fields.xmf the same")
    for name in sorted(n for n in os.listdir(ref_dir) if n.endswith(".csv")):
        path = os.path.join(split, name)
        if not os.path.exists(path):
            check(False, f"{tag}: {name} missing")
            continue
        monitor = name.startswith(("iolets", "forces", "vlbm"))
        if monitor and (a.write_ranks > 1 or a.restart_ranks > 1 or a.reference_ranks > 1):
            h1, v1 = numbers(os.path.join(ref_dir, name))
            h2, v2 = numbers(path)
            check(h1 == h2 and v1.shape == v2.shape and np.allclose(v1, v2, rtol=1e-12, atol=1e-300),
                  f"{tag}: {name} within 1e-12, {len(v2)} rows")
        else:
            with open(os.path.join(ref_dir, name), "rb") as f1, open(path, "rb") as f2:
                check(f1.read() == f2.read(), f"{tag}: {name} byte for byte")

    if a.faults:
        # Checkpoints every third of the run, snapshots twice as often: when the kill comes
        # in the second checkpoint, the snapshot between the two is surely on disk (the
        # snapshot at that step waited for the one before).
        every = steps // 3
        killed = os.path.join(a.work, f"{tag}_killed")
        p = hemoflow(a, 1, killed, ["--steps", str(steps), "--set", f"checkpoint.every={every}", "--set",
                                    f"output.every={every // 2}"], env={"HEMO_TEST_KILL_IN_CHECKPOINT": "2"})
        check(p.returncode in (-9, 137), f"kill: the run died while writing its second checkpoint (exit {p.returncode})")
        with h5py.File(os.path.join(killed, "checkpoint.h5")) as f:
            check(int(f.attrs["step"]) == every, f"kill: checkpoint.h5 is the first one (step {int(f.attrs['step'])})")

        def snapshots():
            return sorted(int(f[5:13]) for f in os.listdir(os.path.join(killed, "fields"))
                          if f.startswith("step_") and f.endswith(".h5"))

        before = snapshots()
        # A restart that writes no snapshot still forgets the killed run's later ones.
        p = hemoflow(a, 1, killed, ["--steps", str(every + 1), "--restart", killed, "--set", "output.every=0",
                                    "--set", "output.final=false"], clean=False)
        must(p, "a short restart without snapshots")
        after = snapshots()
        with open(os.path.join(killed, "fields.xmf")) as f:
            listed = [int(x.split('"')[0]) for x in f.read().split('<Grid Name="step_')[1:]]
        check(any(s > every for s in before) and after == [s for s in before if s <= every] and listed == after,
              f"kill: snapshots {before} left by the kill; after a restart from step {every} without snapshots "
              f"{after}, fields.xmf lists {listed}")
        p = hemoflow(a, 1, killed, ["--steps", str(steps), "--restart", killed], clean=False)
        must(p, "the restart after the kill")
        check(summary(killed)["population_checksum"] == ref["population_checksum"],
              f"kill: restart from step {every} ends with the uninterrupted checksum")

        wall = os.path.join(a.work, f"{tag}_wall")
        p = hemoflow(a, 1, wall, ["--steps", str(steps), "--set", "checkpoint.wall_seconds=1e-6"])
        s = summary(wall)
        check(p.returncode == 0 and s["status"] == "ok" and "wall-clock" in s.get("stopped_early", "")
              and s["steps"] < steps and s.get("checkpoint_step") == s["steps"],
              f"wall: stopped after step {s['steps']} of {steps} with a checkpoint (exit {p.returncode}): "
              f"{s.get('stopped_early')}")
        p = hemoflow(a, 1, wall, ["--steps", str(steps), "--restart", wall], clean=False)
        must(p, "the restart after the wall-clock stop")
        check(summary(wall)["population_checksum"] == ref["population_checksum"],
              "wall: restart ends with the uninterrupted checksum")

    refused = os.path.join(a.work, f"{tag}_refused")
    with h5py.File(os.path.join(split, "checkpoint.h5")) as f:
        written = f.attrs["precision"]
    other = "fp32" if written == "fp64" else "fp64"
    args = SCENARIOS[a.scenario][1]
    storage = next((x.split("=")[1].strip('"') for x in args if x.startswith("lb_bgk.storage=")), None)
    if storage:  # 16-bit storage: another storage is refused, naming both
        other_storage = "fp16s" if storage == "e4m11" else "e4m11"
        first = ("storage", ["--set", f'lb_bgk.storage="{other_storage}"'],
                 f"holds {storage} values; this run stores {other_storage}")
    else:
        first = ("precision", ["--set", f'run.precision="{other}"'], f"the checkpoint has run.precision = {written}, this case {other}")
    for what, extra, message in [
            first,
            ("resolution", ["--set", "lattice.dx=1.25e-3"], "the checkpoint has dx = "),
            ("geometry", [], "fluid nodes, this case"),
            ("not a checkpoint", ["--restart", os.path.join(split, "case.toml")], "not an HDF5 file"),
            ("end step passed", ["--steps", str(half)], f"the checkpoint is after step {half}, and this run ends")]:
        if what == "geometry":
            if a.scenario not in OTHER_GEOMETRY:
                continue
            extra = ["--set", OTHER_GEOMETRY[a.scenario]]
        if "--restart" not in extra:
            extra = extra + ["--restart", split]
        if "--steps" not in extra:
            extra = extra + ["--steps", str(steps)]
        p = hemoflow(a, a.restart_ranks, refused, extra)
        check(p.returncode == 2 and message in p.stderr,
              f"refused ({what}): exit {p.returncode}: " + next((l for l in p.stderr.splitlines() if "error" in l), ""))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
