#!/usr/bin/env python3
"""Drag coefficient of the sphere in cases/sphere_drag.toml against the standard drag curve.

usage: sphere.py OUTPUT_DIR [--json]

Cd = 2 F_x / (rho U^2 pi D^2 / 4), F_x averaged over the last quarter of forces.csv. The
change of F_x over that quarter says whether the run reached a steady state.

References. The Morton paper (seeds/002) validates against the measurements of Roos &
Willmarth, AIAA J. 9, 285 (1971). Their data are represented here by the rational fit of
Mikhailov & Silva Freire, Powder Technol. 237, 432 (2013), whose coefficients were fitted
to those measurements (cd_reference). Two widely used fits of the standard drag curve are
reported beside it, to show how far such fits scatter at this Reynolds number:
Clift, Grace & Weber (Bubbles, Drops and Particles, 1978; 20 < Re < 260 branch),
Cd = 24/Re (1 + 0.1935 Re^0.6305), and Schiller & Naumann (1933), Cd = 24/Re (1 + 0.15 Re^0.687).
"""
import csv
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hemo_output  # noqa: E402


def mikhailov_freire(re):
    """Mikhailov & Silva Freire (2013), fitted to Roos & Willmarth (1971)."""
    num = 3808.0 * (1617933.0 / 2030.0 + 178861.0 / 1063.0 * re + 1219.0 / 1084.0 * re**2)
    den = 681.0 * re * (77531.0 / 422.0 + 13529.0 / 976.0 * re - re**2 / 71154.0)
    return num / den


def clift(re):
    """Clift, Grace & Weber (1978), their branch for 20 < Re < 260."""
    assert 20 <= re <= 260, "the Clift-Grace-Weber branch used here covers 20 < Re < 260"
    return 24.0 / re * (1.0 + 0.1935 * re**0.6305)


def schiller_naumann(re):
    return 24.0 / re * (1.0 + 0.15 * re**0.687)


def analyse(out_dir):
    case = hemo_output.case(out_dir)
    rho = case.get("fluid", {}).get("density", 1060.0)
    nu = case.get("fluid", {}).get("viscosity", 3.3e-6)
    D = 2 * case["geometry"]["obstacle"][0]["radius"]
    U = [i for i in case["boundaries"]["iolet"] if i["condition"] == "velocity"][0]["velocity"]
    rows = list(csv.DictReader(open(os.path.join(out_dir, "forces.csv"))))
    fx = [float(r["obstacle0_Fx_N"]) for r in rows]
    tail = fx[-max(1, len(fx) // 4):]
    F = sum(tail) / len(tail)
    re = U * D / nu
    cd = 2 * F / (rho * U * U * math.pi * D * D / 4)
    ref = mikhailov_freire(re)
    return {"reynolds": re, "cd": cd, "cd_reference": ref, "error": (cd - ref) / ref,
            "cd_clift": clift(re), "cd_schiller_naumann": schiller_naumann(re),
            "steadiness": (max(tail) - min(tail)) / abs(F) if F else float("nan"), "records": len(fx)}


def report(res):
    print(f"Re = {res['reynolds']:.2f}: Cd = {res['cd']:.4f}; Roos & Willmarth (Mikhailov-Freire fit) "
          f"{res['cd_reference']:.4f}, error {100 * res['error']:+.2f}%; F_x varies by {100 * res['steadiness']:.2f}% "
          f"over the last quarter")
    print(f"  other fits: Clift-Grace-Weber {res['cd_clift']:.4f}, Schiller-Naumann {res['cd_schiller_naumann']:.4f}")

if __name__ == "__main__":
    sys.exit(hemo_output.command_line(__doc__, analyse, report))
