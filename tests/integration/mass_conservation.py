#!/usr/bin/env python3
"""Closed box with a sliding lid: total mass conserved to 1e-10 relative over 1000 steps.

Every boundary link is a bounce-back link, so streaming only permutes populations, BGK
conserves mass to rounding and the lid's momentum terms cancel in +/- pairs: in fp64 the
drift should sit near 1e-14. The test also checks that the lid did drive a flow (so a
frozen run cannot pass).
"""
import os
import sys

import numpy as np

from common import arguments, check, hemo_output, run_hemoflow, summary


def main():
    a = arguments(__doc__)
    out = os.path.join(a.work, "lid")
    # 24^3 nodes keeps the test short on two cores.
    run_hemoflow(a.hemoflow, ["run", a.case, "--quiet", "--steps", "1000", "--output", out,
                              "--set", "lattice.dx=4.1666666666666665e-05", "--set", "run.precision=\"fp64\"",
                              "--set", "run.check_every=10", "--set", "output.every=0"])
    s = summary(out)
    drift = abs(s["mass_relative_drift"])
    _, data = hemo_output.fields(out)
    umax = float(np.max(np.linalg.norm(data["velocity"], axis=1)))
    print(f"{s['fluid_nodes']} nodes, {s['steps']} steps, mass drift {s['mass_relative_drift']:.3e}, "
          f"max |u| {umax:.4f} m/s (lid 0.33 m/s)")
    ok = check(s["steps"] == 1000, "ran 1000 steps")
    ok &= check(drift < 1e-10, f"|mass drift| {drift:.3e} < 1e-10")
    ok &= check(umax > 0.1 * 0.33, "the lid drives the flow (max |u| > 10% of the lid speed)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
