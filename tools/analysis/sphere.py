#!/usr/bin/env python3
"""Drag coefficient of the sphere in cases/sphere_drag.toml against the standard drag curve.

usage: sphere.py OUTPUT_DIR [--json]

Cd = 2 F_x / (rho U^2 pi D^2 / 4), F_x averaged over the last quarter of forces.csv;
the reference is Schiller & Naumann's fit, Cd = 24/Re (1 + 0.15 Re^0.687). The change of
F_x over that quarter says whether the run reached a steady state.
"""
import csv
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hemo_output  # noqa: E402


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
    ref = 24 / re * (1 + 0.15 * re**0.687)
    return {"reynolds": re, "cd": cd, "cd_reference": ref, "error": (cd - ref) / ref,
            "steadiness": (max(tail) - min(tail)) / abs(F) if F else float("nan"), "records": len(fx)}


def report(res):
    print(f"Re = {res['reynolds']:.2f}: Cd = {res['cd']:.4f} (Schiller-Naumann {res['cd_reference']:.4f}), "
          f"error {100 * res['error']:+.2f}%; F_x varies by {100 * res['steadiness']:.2f}% over the last quarter")

if __name__ == "__main__":
    sys.exit(hemo_output.command_line(__doc__, analyse, report))
