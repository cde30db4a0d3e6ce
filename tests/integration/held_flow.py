#!/usr/bin/env python3
"""A Zou-He velocity inlet that holds its flow (boundaries.iolet.hold_flow, issue 48 item 2).

The validation's tilted pipe at 8 nodes per radius (study wss_pipe_tilted's coarsest level:
radius 8 mm along (1, 0.5, 0.25), a parabolic inlet of 0.4 mm/s on the centre line, an
anti-bounce-back outlet, tau 1; 797 steps, about 14,000 nodes) with three inlets: Ladd's
rule, Zou-He's closure, and Zou-He's closure with hold_flow. The flow through the inlet at
the last check against Hagen-Poiseuille's pi R^2 U / 2: Ladd's within 1% (its link values
are the profile's flow through the links); plain Zou-He's a few percent over it (+4.6% when
this was written: the closure bounces back the populations arriving at its nodes, not those
leaving them, a second-order flux error); with hold_flow within 0.2% of Ladd's. And the key
is refused where it does not apply.
"""
import math
import os
import subprocess
import sys

import numpy as np

from common import arguments, check, run_hemoflow

R, U = 0.008, 0.0004
AXIS = np.array([1.0, 0.5, 0.25]) / math.sqrt(1.3125)


def pipe_args():
    """The tilted pipe of wss_pipe_tilted at R = 8 dx (tools/validation/wall_shear_checks.py)."""
    dx, length = R / 8, 0.072
    nu = 3.3e-6
    dt = (1.0 - 0.5) * dx * dx / (3 * nu)  # tau 1: (tau - 1/2) dx^2 / (3 nu)
    c_in, c_out = -0.5 * length * AXIS, 0.5 * length * AXIS
    vec = lambda v: "[" + ",".join(repr(float(x)) for x in v) + "]"  # noqa: E731
    return ["--set", f"lattice.dx={dx!r}", "--set", f"lattice.dt={dt!r}", "--set", f"geometry.radius={R!r}",
            "--set", f"geometry.length={length!r}", "--set", f"geometry.axis={vec(AXIS)}",
            "--set", "geometry.center=[0.0,0.0,0.0]",
            "--set", f"boundaries.iolet.0.center={vec(c_in)}", "--set", f"boundaries.iolet.0.normal={vec(-AXIS)}",
            "--set", f"boundaries.iolet.0.radius={R!r}", "--set", f"boundaries.iolet.0.velocity={U!r}",
            "--set", f"flow.reference_velocity={U!r}", "--set", "boundaries.iolet.0.ramp=1.6768",
            "--set", f"boundaries.iolet.1.center={vec(c_out)}", "--set", f"boundaries.iolet.1.normal={vec(AXIS)}",
            "--set", f"boundaries.iolet.1.radius={R!r}", "--set", 'boundaries.iolet.1.model="anti_bounce_back"',
            "--set", "output.probe=[]", "--set", "output.every=0", "--set", "output.final=false",
            "--steps", "797", "--set", "run.check_every=797"]


def inlet_flow(out):
    rows = np.genfromtxt(os.path.join(out, "iolets.csv"), delimiter=",", names=True)
    return float(np.atleast_1d(rows["inlet_flow_m3_per_s"])[-1])


def main():
    a = arguments(__doc__, case=False)
    cases = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "cases")
    case = os.path.join(cases, "pipe_velocity.toml")
    nominal = math.pi * R * R * U / 2
    flows = {}
    for name, model in (("ladd", ['--set', 'boundaries.iolet.0.model="ladd"']),
                        ("zou_he", ['--set', 'boundaries.iolet.0.model="zou_he"']),
                        ("held", ['--set', 'boundaries.iolet.0.model="zou_he"', "--set", "boundaries.iolet.0.hold_flow=true"])):
        out = os.path.join(a.work, name)
        run_hemoflow(a.hemoflow, ["run", case, "--output", out, *pipe_args(), *model])
        flows[name] = inlet_flow(out)
        print(f"{name:7} inlet flow {flows[name]:.6e} m^3/s, / Hagen-Poiseuille - 1 = {flows[name] / nominal - 1:+.5f}")
    ok = check(abs(flows["ladd"] / nominal - 1) < 0.01, "Ladd's inlet within 1% of pi R^2 U / 2")
    ok &= check(flows["zou_he"] / nominal - 1 > 0.02, "plain Zou-He sends more than 2% too much (what hold_flow is for)")
    ok &= check(abs(flows["held"] / flows["ladd"] - 1) < 0.002, "Zou-He with hold_flow within 0.2% of Ladd's flow")
    bad = subprocess.run([a.hemoflow, "check", case, "--set", "boundaries.iolet.0.hold_flow=true"],
                         capture_output=True, text=True)
    ok &= check(bad.returncode == 2 and 'applies to velocity iolets with model = "zou_he" only' in bad.stderr,
                "hold_flow refused on a Ladd inlet, with the reason")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
