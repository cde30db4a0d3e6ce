#!/usr/bin/env python3
"""Compares a body-force-driven pipe run with Hagen-Poiseuille flow.

    u(r) = g (R^2 - r^2) / (4 nu)        (u along the pipe axis, r from the axis)

usage: poiseuille.py OUTPUT_DIR [--json]
Prints the axial velocity along the profile probe next to the analytical value, and the
relative L2 error over every fluid node of the last snapshot:
    e = sqrt( sum (u - u_exact)^2 / sum u_exact^2 ).
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hemo_output  # noqa: E402


def analytic(case, coords):
    geo = case["geometry"]
    R = geo["radius"]
    axis = np.array(geo.get("axis", [1.0, 0.0, 0.0]), dtype=float)
    axis /= np.linalg.norm(axis)
    centre = np.array(geo.get("center", [0.0, 0.0, 0.0]), dtype=float)
    g_vec = np.array(case.get("forcing", {}).get("acceleration", [0.0, 0.0, 0.0]), dtype=float)
    g = float(g_vec @ axis)
    nu = case.get("fluid", {}).get("viscosity", 3.3e-6)
    p = coords - centre
    along = p @ axis
    r = np.sqrt(np.maximum(np.sum(p * p, axis=1) - along**2, 0.0))
    return np.where(r < R, g * (R * R - r * r) / (4.0 * nu), 0.0), axis, r


def l2_error(out_dir):
    case = hemo_output.case(out_dir)
    coords, data = hemo_output.fields(out_dir)
    exact, axis, r = analytic(case, coords)
    u = data["velocity"] @ axis
    return float(np.sqrt(np.sum((u - exact) ** 2) / np.sum(exact**2))), len(u), float(exact.max()), float(u.max())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    a = ap.parse_args()
    err, n, umax_exact, umax = l2_error(a.out_dir)
    if a.json:
        print(json.dumps({"l2_error": err, "nodes": n, "u_max_exact": umax_exact, "u_max": umax}))
        return 0
    case = hemo_output.case(a.out_dir)
    try:
        prof = hemo_output.probe(a.out_dir, "profile")
        last = prof["step"] == prof["step"].max()
        coords = np.stack([prof["x"][last], prof["y"][last], prof["z"][last]], axis=1)
        exact, axis, r = analytic(case, coords)
        u = np.stack([prof["ux"][last], prof["uy"][last], prof["uz"][last]], axis=1) @ axis
        print(f"velocity across the pipe at step {int(prof['step'].max())} (probe 'profile'):")
        print(f"{'r [mm]':>9} {'u hemoflow [m/s]':>17} {'u exact [m/s]':>14} {'error':>8}")
        seen = set()
        for ri, ui, ei, yi in zip(r, u, exact, coords[:, 1]):
            if (round(ri, 12), yi) in seen:
                continue
            seen.add((round(ri, 12), yi))
            print(f"{np.sign(yi) * ri * 1e3:9.4f} {ui:17.6e} {ei:14.6e} {(ui - ei) / exact.max():8.1e}")
    except FileNotFoundError:
        pass
    print(f"relative L2 error of the axial velocity over {n} fluid nodes: {err:.3e}")
    print(f"centre-line velocity: {umax:.6e} m/s (analytical {umax_exact:.6e} m/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
