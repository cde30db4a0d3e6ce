#!/usr/bin/env python3
"""Body-force-driven Poiseuille pipe at radius 8 and 16 nodes against the analytical
profile u(r) = g (R^2 - r^2) / (4 nu).

Pass: relative L2 error of the axial velocity below 2% at R = 16 nodes, and observed
order of convergence log2(e_8 / e_16) of at least 1.8 (BGK with halfway bounce-back is
second order; the staircase wall makes the order erratic beyond these resolutions, see
docs/validation.md).

The pipe is periodic and only 4 (8) nodes long: the flow is fully developed, so the
length does not change the profile, and the test stays within CI's two cores.
"""
import math
import os
import sys

from common import arguments, check, run_hemoflow, summary

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "analysis"))
import poiseuille  # noqa: E402


def main():
    a = arguments(__doc__)
    R = 5.0e-4
    errors = {}
    for nodes in (8, 16):
        dx = R / nodes
        out = os.path.join(a.work, f"R{nodes}")
        run_hemoflow(a.hemoflow, ["run", a.case, "--quiet", "--output", out, "--set", f"lattice.dx={dx!r}",
                                  "--set", f"geometry.length={R / 2!r}",
                                  "--set", "output.probe=[]"])
        err, n, umax_exact, umax = poiseuille.l2_error(out)
        s = summary(out)
        errors[nodes] = err
        print(f"R = {nodes:2d} nodes: {n:6d} fluid nodes, {s['steps']:6d} steps, L2 error {err:.4e}, "
              f"u_max {umax:.6e} (exact {umax_exact:.6e}), mass drift {s['mass_relative_drift']:.1e}")
    order = math.log2(errors[8] / errors[16])
    print(f"observed order of convergence: {order:.3f}")
    ok = check(errors[16] < 0.02, f"L2 error at R = 16 is {errors[16]:.4e} < 2e-2")
    ok &= check(order >= 1.8, f"order {order:.3f} >= 1.8")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
