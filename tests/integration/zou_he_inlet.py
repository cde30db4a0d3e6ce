#!/usr/bin/env python3
"""Zou-He velocity inlet near tau = 1/2: the sphere case (cases/sphere_drag.toml) shrunk to
8 nodes across the sphere in a 48 x 16 x 16 box, at tau 0.52, with each collision
operator. With Hecht & Harting's transverse correction at the inlet nodes, BGK diverged
here within a few hundred steps (a density pattern along the inlet plane, physics/zou_he.hpp);
the inlet now uses the non-equilibrium bounce-back without it.

Pass, for each operator: 1500 steps without divergence (exit 0), and the inflow of the
last record (iolets.csv) within 1% of U W^2, the uniform velocity over the whole face.
"""
import csv
import os
import sys

from common import arguments, check, run_hemoflow

DX, NU, U, W = 1.25e-4, 3.3e-6, 0.0696, 2.0e-3


def main():
    a = arguments(__doc__)
    dt = 0.02 * DX * DX / (3 * NU)  # tau = 0.52
    ok = True
    for collision in ("bgk", "trt", "regularized"):
        out = os.path.join(a.work, collision)
        p = run_hemoflow(a.hemoflow, ["run", a.case, "--quiet", "--output", out, "--steps", "1500",
                                      "--set", f"lattice.dx={DX!r}", "--set", f"lattice.dt={dt!r}",
                                      "--set", f"geometry.size=[6e-3,{W!r},{W!r}]",
                                      "--set", "geometry.obstacle.0.center=[2e-3,1e-3,1e-3]",
                                      "--set", "boundaries.iolet.0.center=[0,1e-3,1e-3]",
                                      "--set", "boundaries.iolet.1.center=[6e-3,1e-3,1e-3]",
                                      "--set", "boundaries.iolet.0.radius=1.5e-3",
                                      "--set", "boundaries.iolet.1.radius=1.5e-3",
                                      "--set", 'boundaries.iolet.0.model="zou_he"', "--set", "run.check_every=100",
                                      "--set", f'lb_bgk.collision="{collision}"'],
                         env={"OMP_NUM_THREADS": "1"}, expect=None)
        if not check(p.returncode == 0, f"{collision}: 1500 steps at tau 0.52 (exit code {p.returncode})"):
            print(p.stderr)
            ok = False
            continue
        with open(os.path.join(out, "iolets.csv")) as f:
            last = list(csv.DictReader(f))[-1]
        q_in = float(last["inlet_flow_m3_per_s"])
        ok &= check(abs(q_in / (U * W * W) - 1) < 0.01, f"{collision}: inflow {q_in / (U * W * W):.4f} x U W^2")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
