#!/usr/bin/env python3
"""TRT with the magic parameter 3/16 solves plane Poiseuille flow exactly (Ginzburg et
al., Commun. Comput. Phys. 3, 427 (2008)): halfway bounce-back walls sit exactly halfway
for every tau, so the steady lattice profile equals u(y) = g y (H - y) / (2 nu) to
rounding.

Pass: relative L2 error of u_x below 1e-11 (fp64) for TRT at tau = 0.51, 0.55, 0.8, 1.5
and 3; and, so that the test can tell a wrong operator from a right one, BGK at tau = 1.5
(where its walls move by a tau-dependent amount) off by more than 1%. The regularized
operator is reported. Each run lasts 30 e-folding times H^2 / (pi^2 nu) of the slowest
mode, so the transient has decayed below rounding.
"""
import os
import sys

from common import arguments, check, run_hemoflow

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "analysis"))
import channel  # noqa: E402

NODES_ACROSS = 8


def run(a, collision, tau):
    steps = int(30 * NODES_ACROSS ** 2 / (9.8696 * (tau - 0.5) / 3.0)) + 100
    out = os.path.join(a.work, f"{collision}_tau{tau}")
    # 32 nodes: one thread (OpenMP's start-up per step costs more than the work).
    run_hemoflow(a.hemoflow, ["run", a.case, "--quiet", "--output", out, "--steps", str(steps),
                              "--set", f"lattice.tau={tau}", "--set", f'lb_bgk.collision="{collision}"'],
                 env={"OMP_NUM_THREADS": "1"})
    err, _ = channel.l2_error(out)
    print(f"{collision:12s} tau = {tau:5.2f}: {steps:6d} steps, relative L2 error {err:.3e}")
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
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
