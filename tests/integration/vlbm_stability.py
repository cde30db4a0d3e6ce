#!/usr/bin/env python3
"""What plugins/lb_vlbm/README.md says the linear stability analysis of lb_vlbm's wall finds
(tools/analysis/vlbm_stability.py), on a small grid (8-node channel, 5 x 5 wavevectors), at
tau 0.5036: it reproduces the CPU runs (the volume share stable with BGK; the weighted share
with the rest give-back growing with BGK, stable with TRT; the equilibrium-shaped give-back
growing with every operator), and TRT with the rest give-back has no growing mode at
P = 0.25-0.95."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "analysis"))
from vlbm_stability import growth  # noqa: E402

TAU, KS, STABLE = 0.5036, np.linspace(0.0, np.pi, 5), 1.0 + 1e-9


def main():
    ok = True

    def expect(op, mixing, giveback, p, grows):
        nonlocal ok
        lam = growth(p, TAU, op, mixing, giveback, 4, KS)[0]
        good = (lam > STABLE) == grows
        ok &= good
        print(f"{'ok  ' if good else 'FAIL'} {op}, {mixing}, give-back {giveback}, P = {p}: max |lambda| = {lam:.6f} "
              f"({'grows' if lam > STABLE else 'stable'}; expected {'grows' if grows else 'stable'})")

    for p in (0.25, 0.75, 0.9):
        expect("bgk", "volume", None, p, False)
    expect("bgk", "viscosity_weighted", "rest", 0.75, True)
    for p in (0.25, 0.5, 0.75, 0.9, 0.95):
        expect("trt", "viscosity_weighted", "rest", p, False)
    for op in ("bgk", "regularized", "trt"):
        expect(op, "viscosity_weighted", "equilibrium", 0.25, True)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
