#!/usr/bin/env python3
"""A pressure outlet through which flow partly turns back survives 20 periods
(cases/backflow_jet.toml at a third of its resolution: a pulsatile jet, Re 400 at the
peak, into a duct whose outlet partly flows back in; tau 0.5033, Mach 0.095, 12800
nodes).

Pass, with the default collision operator and backflow_stabilization = 1 on the outlet:
the run survives all 20 periods (exit 0); the case really has backflow (at least 10% of
the samples on a line across the outlet have u . n < 0); and the stabilization acts
(the final populations differ from those of the same run with it off, which is reported).
tools/stability/run-backflow runs the full case on the GPU for each operator, with and
without the stabilization (docs/backflow.md).
"""
import os
import sys

from common import arguments, check, run_hemoflow, summary

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "stability"))
import backflow  # noqa: E402

REDUCED = ["--set", "lattice.dx=3e-4", "--set", "lattice.tau=0.5033",
           "--set", "output.probe.0.start=[9.45e-3,0.15e-3,3.0e-3]",
           "--set", "output.probe.0.end=[9.45e-3,5.85e-3,3.0e-3]", "--set", "output.probe.0.points=20"]


def main():
    a = arguments(__doc__)
    outs = {}
    for beta in (1, 0):
        out = os.path.join(a.work, f"beta{beta}")
        p = run_hemoflow(a.hemoflow, ["run", a.case, "--quiet", "--output", out, *REDUCED,
                                      "--set", f"boundaries.iolet.1.backflow_stabilization={beta}"],
                         expect=None)
        outs[beta] = (out, p.returncode)
    out, code = outs[1]
    s = summary(out)
    ok = check(code == 0 and s["steps"] == s["steps_requested"],
               f"stabilized outlet: {s['steps']} of {s['steps_requested']} steps (20 periods), exit {code}")
    share, net = backflow.analyse(out)
    ok &= check(share >= 0.1, f"outlet samples flowing back in: {100 * share:.1f}% >= 10% "
                              f"(largest net backflow {net:.3f} of the peak inflow)")
    off_out, off_code = outs[0]
    off = summary(off_out)
    print(f"without the stabilization: exit {off_code}, {off['steps']} of {off['steps_requested']} steps")
    ok &= check(off["population_checksum"] != s["population_checksum"],
                "the stabilization changes the solution (population checksums differ)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
