#!/usr/bin/env python3
"""TRT with the magic parameter 3/16 solves plane Poiseuille flow exactly (Ginzburg et
al., Commun. Comput. Phys. 3, 427 (2008)): halfway bounce-back walls sit exactly halfway
for every tau, so the steady lattice profile equals u(y) = g y (H - y) / (2 nu) to
rounding.

Pass: relative L2 error of u_x below 1e-11 (fp64) for TRT at tau = 0.51, 0.55, 0.8, 1.5
and 3; and, so that the test can tell a wrong operator from a right one, BGK at tau = 1.5
(where its walls move by a tau-dependent amount) off by more than 1%. The regularized
operator is reported.

The same channel with its y+ wall sliding (a moving wall, bounce-back with Ladd's momentum
term, physics/bounce_back.hpp) adds plane Couette flow u = U y / H. A linear profile has
no second derivative, so halfway bounce-back is exact for it with any operator at any tau:
pure Couette flow with BGK at tau = 0.55 and 1.5, and Couette-Poiseuille flow with TRT at
tau = 0.55, must both be within 1e-11. A wall velocity off by 5% is off by 5% here. Each run lasts 30 e-folding times H^2 / (pi^2 nu) of the slowest
mode, so the transient has decayed below rounding.
"""
import os
import sys

from common import arguments, check, run_hemoflow

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "analysis"))
import channel  # noqa: E402

NODES_ACROSS = 8


# The y+ wall slides at the Poiseuille profile's centre-line velocity (8e-5 m/s).
SLIDING_WALL = """
[[boundaries.moving_wall]]
name = "top"
face = "y+"
velocity = [8.0e-5, 0.0, 0.0]
"""


def run(a, collision, tau, couette="", *extra):
    steps = int(30 * NODES_ACROSS ** 2 / (9.8696 * (tau - 0.5) / 3.0)) + 100
    out = os.path.join(a.work, f"{collision}_tau{tau}{couette}")
    case = a.case
    if couette:
        os.makedirs(a.work, exist_ok=True)
        case = os.path.join(a.work, "couette_channel.toml")
        with open(a.case) as f, open(case, "w") as g:
            g.write(f.read() + SLIDING_WALL)
    # 32 nodes: one thread (OpenMP's start-up per step costs more than the work).
    run_hemoflow(a.hemoflow, ["run", case, "--quiet", "--output", out, "--steps", str(steps),
                              "--set", f"lattice.tau={tau}", "--set", f'lb_bgk.collision="{collision}"', *extra],
                 env={"OMP_NUM_THREADS": "1"})
    err, _ = channel.l2_error(out)
    print(f"{collision:12s} tau = {tau:5.2f}{couette}: {steps:6d} steps, relative L2 error {err:.3e}")
    return err


def main():
    a = arguments(__doc__)
    ok = True
    for tau in (0.51, 0.55, 0.8, 1.5, 3.0):
        err = run(a, "trt", tau)
        ok &= check(err < 1e-11, f"TRT (magic 3/16), tau = {tau}: error {err:.2e} < 1e-11")
    err = run(a, "bgk", 1.5)
    ok &= check(err > 1e-2, f"BGK, tau = 1.5: error {err:.2e} > 1e-2 (its walls are not halfway)")
    run(a, "regularized", 1.5)
    for tau in (0.55, 1.5):
        err = run(a, "bgk", tau, "_couette", "--set", "forcing.acceleration=[0.0, 0.0, 0.0]")
        ok &= check(err < 1e-11, f"BGK, plane Couette flow, tau = {tau}: error {err:.2e} < 1e-11")
    err = run(a, "trt", 0.55, "_couette_poiseuille")
    ok &= check(err < 1e-11, f"TRT (magic 3/16), Couette-Poiseuille flow, tau = 0.55: error {err:.2e} < 1e-11")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
