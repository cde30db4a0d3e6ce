#!/usr/bin/env python3
"""Compares a pipe driven through iolets with Hagen-Poiseuille flow.

usage: pipe_iolets.py OUTPUT_DIR [--json]

Reads the last snapshot and the resolved case. The pipe's axis, radius and length and the
iolets come from case.toml. Two kinds of case:
  - two pressure iolets: G = (p_in - p_out) / L_eff, where the prescribed pressure sits at
    the ghost nodes half a spacing beyond each plane for Nash's rule (L_eff = L + dx) and at
    the boundary nodes half a spacing inside for Zou-He's (L_eff = L - dx); u_max = G R^2 / (4 mu);
  - a parabolic velocity inlet: u_max is the prescribed centre-line velocity, G = 4 mu u_max / R^2.
Reported:
  - the relative L2 error of the axial velocity over the nodes of the mid-length slab, against
    u_max above and (the shape alone) against the Poiseuille profile of the measured gradient,
  - the relative error of the pressure gradient fitted along the axis (away from the
    iolets by 10% of the length), against G,
  - the flow rates through the iolets (iolets.csv, last record) and pi R^2 u_max / 2.
"""
import csv
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hemo_output  # noqa: E402


def analyse(out_dir):
    case = hemo_output.case(out_dir)
    geo, fluid = case["geometry"], case.get("fluid", {})
    R, L = geo["radius"], geo["length"]
    axis = np.array(geo.get("axis", [1.0, 0.0, 0.0]), float)
    axis /= np.linalg.norm(axis)
    centre = np.array(geo.get("center", [0.0, 0.0, 0.0]), float)
    rho0, nu = fluid.get("density", 1060.0), fluid.get("viscosity", 3.3e-6)
    mu = rho0 * nu
    dx = case["lattice"]["dx"]
    iolets = case["boundaries"]["iolet"]
    pressures = [i for i in iolets if i["condition"] == "pressure"]
    velocities = [i for i in iolets if i["condition"] == "velocity"]
    if velocities:
        umax = velocities[0]["velocity"]
        G = 4.0 * mu * umax / R**2
        kind = "velocity inlet"
    else:
        p = sorted((i.get("pressure", 0.0) for i in pressures), reverse=True)
        wet = all(i.get("model", "auto") == "zou_he" for i in pressures)
        G = (p[0] - p[-1]) / (L - dx if wet else L + dx)
        umax = G * R**2 / (4.0 * mu)
        kind = "pressure iolets"

    coords, data = hemo_output.fields(out_dir)
    rel = coords - centre
    along = rel @ axis
    r = np.sqrt(np.maximum(np.sum(rel * rel, axis=1) - along**2, 0.0))
    u = data["velocity"] @ axis
    slab = np.abs(along) < 0.75 * dx
    exact = umax * (1.0 - (r[slab] / R) ** 2)
    l2 = float(np.sqrt(np.sum((u[slab] - exact) ** 2) / np.sum(exact**2)))
    core = (r < 1.01 * dx) & (np.abs(along) < 0.4 * L)
    slope = float(np.polyfit(along[core], data["pressure"][core], 1)[0])
    grad_err = (-slope - G) / G
    shape_exact = -slope * R**2 / (4.0 * mu) * (1.0 - (r[slab] / R) ** 2)
    shape_l2 = float(np.sqrt(np.sum((u[slab] - shape_exact) ** 2) / np.sum(shape_exact**2)))
    flows = {}
    with open(os.path.join(out_dir, "iolets.csv")) as f:
        rows = list(csv.DictReader(f))
    if rows:
        for k, v in rows[-1].items():
            if k.endswith("_flow_m3_per_s"):
                flows[k[: -len("_flow_m3_per_s")]] = float(v)
    q_exact = np.pi * R**2 * umax / 2.0
    return {"kind": kind, "l2_error": l2, "shape_l2_error": shape_l2, "u_max_exact": umax, "u_max": float(u[slab].max()),
            "pressure_gradient_exact": G, "pressure_gradient": -slope, "pressure_gradient_error": grad_err,
            "flows": flows, "flow_exact": q_exact, "slab_nodes": int(slab.sum()), "dx": dx}


def report(res):
    print(f"{res['kind']}: dx = {res['dx']:g} m, {res['slab_nodes']} nodes in the mid-length slab")
    print(f"  axial velocity: relative L2 error {res['l2_error']:.3e}; centre {res['u_max']:.6g} m/s "
          f"(exact {res['u_max_exact']:.6g})")
    print(f"  profile shape: relative L2 error {res['shape_l2_error']:.3e} against Poiseuille at the measured gradient")
    print(f"  pressure gradient: {res['pressure_gradient']:.6g} Pa/m (exact {res['pressure_gradient_exact']:.6g}), "
          f"error {res['pressure_gradient_error']:+.3e}")
    for name, q in res["flows"].items():
        print(f"  flow into '{name}': {q:.6g} m^3/s (exact inflow {res['flow_exact']:.6g})")

if __name__ == "__main__":
    sys.exit(hemo_output.command_line(__doc__, analyse, report))
