#!/usr/bin/env python3
"""Interpolated bounce-back (boundaries.wall, physics/interpolated_bounce_back.hpp) in the
body-force-driven periodic pipe (cases/poiseuille_pipe.toml) on the CPU:

1. it is on by default for a pipe, and at R = 8 nodes its L2 error is below the
   staircase's and below 1% (second order with the wall where the surface is);
2. a wall that passes 1e-7 dx beyond a node (a tiny cut fraction: the rule's weak spot
   for interpolations that divide by it) runs as steadily and as accurately;
3. a sphere one node away from a wall of its box (sphere_drag.toml, periodic along z
   only): the node in the gap has the sphere on one side and the box's wall on the other,
   so its links to the sphere that are cut nearer than halfway have no second fluid node
   to interpolate with; they fall back to halfway bounce-back (the log counts them) and
   the flow stays finite.
"""
import math
import os
import re
import sys

from common import arguments, check, run_hemoflow, summary

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "analysis"))
import poiseuille  # noqa: E402

R = 5.0e-4


def run(a, name, nodes, radius=R, wall=None, steps=None):
    dx = R / nodes
    out = os.path.join(a.work, name)
    args = ["run", a.case, "--output", out, "--set", f"lattice.dx={dx!r}", "--set", f"geometry.radius={radius!r}",
            "--set", f"geometry.length={4 * dx!r}", "--set", "output.probe=[]"]
    if wall:
        args += ["--set", f'boundaries.wall="{wall}"']
    if steps:
        args += ["--steps", str(steps)]
    p = run_hemoflow(a.hemoflow, args)
    return out, p.stdout + p.stderr


def main():
    a = arguments(__doc__)
    ok = True

    out, log = run(a, "interpolated_R8", 8)
    e_interp = poiseuille.l2_error(out)[0]
    m = re.search(r"interpolated bounce-back \(Bouzidi et al\. 2001\) on (\d+) links, (\d+) of them", log)
    ok &= check(m is not None and int(m.group(1)) > 0, "interpolated walls are on by default for a pipe: "
                + (m.group(0) if m else "no log line"))
    out, _ = run(a, "staircase_R8", 8, wall="staircase")
    e_stair = poiseuille.l2_error(out)[0]
    print(f"R = 8: L2 error interpolated {e_interp:.4e}, staircase {e_stair:.4e}")
    ok &= check(e_interp < 0.01, f"interpolated L2 error {e_interp:.3e} < 1%")
    ok &= check(e_interp < e_stair, f"interpolated {e_interp:.3e} below the staircase's {e_stair:.3e}")

    # The node at (0.5, 7.5) dx from the axis lies 1e-7 dx inside the wall: its link
    # outwards along y is cut at a fraction of about 1e-7.
    tiny = math.hypot(0.5, 7.5) * (R / 8) * (1 + 1e-7 / math.hypot(0.5, 7.5))
    out, log = run(a, "tiny_fraction", 8, radius=tiny)
    s = summary(out)
    e_tiny = poiseuille.l2_error(out)[0]
    ok &= check(s["status"] == "ok" and math.isfinite(e_tiny), f"a cut 1e-7 dx from a node: run ok, L2 error {e_tiny:.3e}")
    ok &= check(e_tiny < 0.02, f"L2 error with the tiny cut {e_tiny:.3e} < 2%")
    ok &= check(abs(s["mass_relative_drift"]) < 1e-3, f"mass drift {s['mass_relative_drift']:.2e} below 1e-3")

    # dx = 0.5 mm, the sphere 4.5 dx in radius with its surface 0.9 dx above the y = 0
    # face: one layer of nodes between them (at 0.5 dx), whose links up to the sphere are
    # cut at 0.4 below its centre; tau 0.8, the inflow at a lattice velocity of 0.076.
    dx, radius = 5e-4, 2.25e-3
    sphere = os.path.join(os.path.dirname(a.case), "sphere_drag.toml")
    out = os.path.join(a.work, "gap")
    p = run_hemoflow(a.hemoflow, ["run", sphere, "--output", out, "--steps", "400", "--set", f"lattice.dx={dx!r}",
                                  "--set", f"lattice.dt={0.3 * dx * dx / (3 * 3.3e-6)!r}",
                                  "--set", 'boundaries.periodic=["z"]',
                                  "--set", f"geometry.obstacle.0.center=[0.008,{radius + 0.9 * dx!r},0.006]",
                                  "--set", f"geometry.obstacle.0.radius={radius!r}",
                                  "--set", "boundaries.iolet.0.velocity=0.005", "--set", "initial.velocity=[0.005,0,0]",
                                  "--set", "output.every=0"])
    log = p.stdout + p.stderr
    s = summary(out)
    m = re.search(r"halfway bounce-back on (\d+) links the surface does not cut and (\d+) near links without a "
                  r"second fluid node", log)
    ok &= check(m is not None and int(m.group(2)) > 0,
                "a node between the sphere and the wall: near links without a second node fall back to halfway: "
                + (m.group(0) if m else "no log line"))
    ok &= check(s["status"] == "ok" and math.isfinite(s["mass_relative_drift"]),
                f"the gap case runs {s['steps']} steps (status {s['status']})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
