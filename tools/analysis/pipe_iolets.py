#!/usr/bin/env python3
"""Compares a pipe driven through iolets with Hagen-Poiseuille flow.

usage: pipe_iolets.py OUTPUT_DIR [--json]

Reads the last snapshot and the resolved case. The pipe's axis, radius and length and the
iolets come from case.toml. Two kinds of case:
  - two pressure iolets: G = (p_in - p_out) / L_eff, where the prescribed pressure sits at
    the ghost nodes half a spacing beyond each plane for Nash's rule (L_eff = L + dx), at
    the boundary nodes half a spacing inside for Zou-He's (L_eff = L - dx), and on the
    planes for anti-bounce-back (L_eff = L); u_max = G R^2 / (4 mu);
  - a parabolic velocity inlet: u_max is the prescribed centre-line velocity, G = 4 mu u_max / R^2.
Reported:
  - the relative L2 error of the axial velocity over the nodes of the mid-length slab, against
    u_max above and (the shape alone) against the Poiseuille profile of the measured gradient,
  - the relative error of the pressure gradient fitted along the axis (away from the
    iolets by 10% of the length), against G,
  - the flow rates through the iolets (iolets.csv, last record) and pi R^2 u_max / 2.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hemo_output  # noqa: E402


def analyse(out_dir):
    case = hemo_output.case(out_dir)
    geo, fluid = case["geometry"], case.get("fluid", {})
    iolets = case["boundaries"]["iolet"]
    if geo["shape"] == "pipe":
        R, L = geo["radius"], geo["length"]
        axis = np.array(geo.get("axis", [1.0, 0.0, 0.0]), float)
        axis /= np.linalg.norm(axis)
        centre = np.array(geo.get("center", [0.0, 0.0, 0.0]), float)
    else:
        # A pipe from a surface (STL or voxel file): its axis runs between the two iolets.
        a, b = (np.array(i["center"], float) for i in iolets[:2])
        axis = (b - a) / np.linalg.norm(b - a)
        centre, L, R = 0.5 * (a + b), float(np.linalg.norm(b - a)), iolets[0]["radius"]
    rho0, nu = fluid.get("density", 1060.0), fluid.get("viscosity", 3.3e-6)
    mu = rho0 * nu
    dx = case["lattice"]["dx"]
    pressures = [i for i in iolets if i["condition"] == "pressure"]
    velocities = [i for i in iolets if i["condition"] == "velocity"]
    if velocities:
        umax = velocities[0]["velocity"]
        G = 4.0 * mu * umax / R**2
        kind = "velocity inlet"
    else:
        p = sorted((i.get("pressure", 0.0) for i in pressures), reverse=True)
        # Where the prescribed pressure sits: Zou-He at the boundary nodes (half a spacing
        # inside each plane), Nash at the ghost nodes (half a spacing beyond), anti-bounce-back
        # at the link midpoints (on the plane).
        models = {i.get("model", "auto") for i in pressures}
        if len(models) != 1:
            raise SystemExit(f"pipe_iolets.py: both pressure iolets must use one model, not {sorted(models)}")
        G = (p[0] - p[-1]) / {"zou_he": L - dx, "nash": L + dx}.get(models.pop(), L)
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
    flows = hemo_output.iolet_flows(out_dir)
    q_exact = np.pi * R**2 * umax / 2.0
    return {"kind": kind, "l2_error": l2, "shape_l2_error": shape_l2, "u_max_exact": umax, "u_max": float(u[slab].max()),
            "pressure_gradient_exact": G, "pressure_gradient": -slope, "pressure_gradient_error": grad_err,
            "flows": flows, "flow_exact": q_exact, "slab_nodes": int(slab.sum()), "dx": dx,
            "R": R, "L": L, "profile_r": r[slab], "profile_u": u[slab], "axis_x": along[core],
            "axis_p": data["pressure"][core], "axis_slope": slope}


def plot(results, path, title):
    """Mid-length velocity profile and centre-line pressure of each resolution (dots)
    against Hagen-Poiseuille (lines: the prescribed flow, dashed: at the measured gradient)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    for i, (label, res) in enumerate(results):
        color = plt.cm.viridis(i / max(1, len(results) - 1))
        R = res["R"]
        rr = np.linspace(0, R, 100)
        a.plot(res["profile_r"] * 1e3, res["profile_u"], ".", color=color, ms=2, label=label)
        if i == 0:
            a.plot(rr * 1e3, res["u_max_exact"] * (1 - (rr / R) ** 2), "k-", lw=1, label="Poiseuille (prescribed)")
        order = np.argsort(res["axis_x"])
        b.plot(res["axis_x"][order] * 1e3, res["axis_p"][order], ".", color=color, ms=2, label=label)
    res = results[-1][1]
    x = np.linspace(-0.4 * res["L"], 0.4 * res["L"], 2)
    p_mid = float(np.mean(res["axis_p"]))
    b.plot(x * 1e3, p_mid - res["pressure_gradient_exact"] * x, "k-", lw=1, label="exact gradient")
    a.set_xlabel("r [mm]")
    a.set_ylabel("axial velocity [m/s]")
    a.set_title("mid-length profile")
    b.set_xlabel("axial position [mm]")
    b.set_ylabel("pressure [Pa]")
    b.set_title("centre line (exact slope through the mean)")
    a.legend(fontsize=7)
    b.legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


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
