#!/usr/bin/env python3
"""Red blood cells continue identically from a checkpoint written on another rank count
(issue 13, must-have 5; docs/rbc_ranks.md 4.7).

A fully periodic 40 um box with cells placed at random (haematocrit 0.25, mid-growth at
the checkpoint) and the plasma moving: one straight run of 200 steps on one rank; then
the same case on W ranks to step 150 with a checkpoint after step 100, continued on R
ranks with --restart to step 200. Asserted against the straight run:
  - the checkpoint holds every cell once, by ascending id;
  - cells.csv after the restart: every row from step 110 on, `state_checksum` (bitwise
    cells) and `cells` equal as text, and the other columns except `migrated` (rank
    dependent, counted from the start of each run) to 1e-12 of the row's momentum
    magnitude (sums over ranks are added in another order);
  - the population checksum in summary.json bitwise.
Every run checks rbc.verify_every = 10 (no cell lost or duplicated). With --case iolets:
the tube of rbc_same_answer.py's `iolets` scenario instead (cells entering at the inlet,
leaving at the outlet; their counts are restart values), the same assertions.
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from rbc import box_case  # noqa: E402

ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1", "OMPI_MCA_rmaps_base_oversubscribe": "1",
       "OMP_NUM_THREADS": "1"}
STEPS, STOP, EVERY = 200, 150, 100


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, **ENV), timeout=540)
    if p.returncode != 0:
        print("\n".join((p.stdout + p.stderr).strip().splitlines()[-15:]))
        raise SystemExit(f"FAIL: exit {p.returncode}: {' '.join(cmd)}")


def rows(out):
    with open(os.path.join(out, "cells.csv")) as f:
        return list(csv.DictReader(f))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hemoflow", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--write-ranks", type=int, required=True)
    ap.add_argument("--restart-ranks", type=int, required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--case", choices=("box", "iolets"), default="box")
    a = ap.parse_args()
    work = os.path.join(os.path.abspath(a.work), f"{a.case}_{a.write_ranks}to{a.restart_ranks}")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    if a.case == "iolets":
        from rbc_same_answer import case_iolets
        case, _ = case_iolets(work)
    else:
        case = os.path.join(work, "box.toml")
        box_case(case, [40e-6] * 3, "xyz", "[initial]\nvelocity = [0.001, 0.0005, 0.0]\n[rbc]\nhaematocrit = 0.25\n"
                 "growth_steps = 150\n")
    hemoflow = os.path.abspath(a.hemoflow)

    def launch(n):
        return [a.mpiexec, "--allow-run-as-root", "--oversubscribe", "-np", str(n), hemoflow] if n > 1 else [hemoflow]

    common = ["run", case, "--quiet", "--backend", "cpu", "--set", "run.check_every=10", "--set", "output.every=0",
              "--set", "rbc.verify_every=10"]
    straight, split = os.path.join(work, "straight"), os.path.join(work, "split")
    run([hemoflow, *common, "--steps", str(STEPS), "--output", straight])
    run([*launch(a.write_ranks), *common, "--steps", str(STOP), "--set", f"checkpoint.every={EVERY}", "--output", split])
    ok = True

    def check(cond, msg):
        nonlocal ok
        print(("ok   " if cond else "FAIL ") + msg, flush=True)
        ok = ok and bool(cond)

    with h5py.File(os.path.join(split, "checkpoint.h5"), "r") as f:
        cells = f["particles/cells"]
        ids = np.array(cells["id"]).ravel()
        check(f.attrs["step"] == EVERY and cells.attrs["count"] == len(ids) and np.all(np.diff(ids.astype(np.int64)) > 0),
              f"written on {a.write_ranks} rank(s): the checkpoint after step {f.attrs['step']} holds {len(ids)} cells "
              f"once each, by ascending id (start_size {cells.attrs['start_size']})")
    run([*launch(a.restart_ranks), *common, "--steps", str(STEPS), "--restart", split, "--output", split])
    want = {r["step"]: r for r in rows(straight)}
    got = [r for r in rows(split) if int(r["step"]) > EVERY]
    bad = []
    for r in got:
        w = want.get(r["step"])
        if w is None or w["state_checksum"] != r["state_checksum"] or w["cells"] != r["cells"]:
            bad.append(r["step"])
            continue
        for axes in (("cell_momentum_x", "cell_momentum_y", "cell_momentum_z"),
                     ("fluid_momentum_x", "fluid_momentum_y", "fluid_momentum_z")):
            scale = max(np.linalg.norm([float(w[k]) for k in axes]), 1e-30)
            if any(abs(float(w[k]) - float(r[k])) > 1e-12 * scale for k in axes):
                bad.append(r["step"])
    check(got and got[-1]["step"] == str(STEPS) and not bad,
          f"continued on {a.restart_ranks} rank(s): cells.csv rows {got[0]['step'] if got else '?'}..{STEPS} equal the "
          f"straight run (state checksum bitwise, momenta to 1e-12){'; differ at ' + ', '.join(bad[:5]) if bad else ''}")
    with open(os.path.join(straight, "summary.json")) as f1, open(os.path.join(split, "summary.json")) as f2:
        s1, s2 = json.load(f1), json.load(f2)
    check(s1["population_checksum"] == s2["population_checksum"] and s2.get("first_step") == EVERY,
          f"population checksum {s2['population_checksum']} after restarting from step {s2.get('first_step')} "
          f"(straight: {s1['population_checksum']})")
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
