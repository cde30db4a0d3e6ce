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


def pipe_geometry(case):
    """R, L, the unit axis and the centre of the case's pipe: the analytic pipe's own, or
    for a pipe from a surface (STL or voxel file) the line between its first two iolets."""
    geo, iolets = case["geometry"], case["boundaries"]["iolet"]
    if geo["shape"] == "pipe":
        axis = np.array(geo.get("axis", [1.0, 0.0, 0.0]), float)
        return geo["radius"], geo["length"], axis / np.linalg.norm(axis), np.array(geo.get("center", [0.0, 0.0, 0.0]), float)
    a, b = (np.array(i["center"], float) for i in iolets[:2])
    return iolets[0]["radius"], float(np.linalg.norm(b - a)), (b - a) / np.linalg.norm(b - a), 0.5 * (a + b)


def effective_length(pressures, L, dx):
    """The distance between the places where the pressure rule of both iolets puts the
    prescribed pressures: Zou-He at the boundary nodes (half a spacing inside each plane,
    L - dx), Nash at the ghost nodes (half a spacing beyond, L + dx), anti-bounce-back at
    the link midpoints (on the planes, L). Returns (model, L_eff)."""
    models = {i.get("model", "auto") for i in pressures}
    if len(models) != 1:
        raise SystemExit(f"pipe_iolets.py: both pressure iolets must use one model, not {sorted(models)}")
    model = models.pop()
    return model, {"zou_he": L - dx, "nash": L + dx}.get(model, L)


def analyse(out_dir):
    case = hemo_output.case(out_dir)
    fluid, iolets = case.get("fluid", {}), case["boundaries"]["iolet"]
    R, L, axis, centre = pipe_geometry(case)
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
        G = (p[0] - p[-1]) / effective_length(pressures, L, dx)[1]
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


def rule_errors(out_dir, margin=None, step=None):
    """What a pressure rule does to a straight pipe with one pressure rule at both ends
    (tools/validation/pressure_rules.py). In fully developed flow the pressure falls
    linearly between the two places where the rule puts the prescribed pressures, a
    distance L_eff apart (analyse's docstring), whatever the wall does to the velocity;
    the rule's own error is what moves the interior line off them. Returned:
      - gradient_error: the least-squares slope of the cross-section mean pressure over
        the slices at least `margin` (default one diameter) from either plane, against
        G = dp / L_eff: -slope L_eff / dp - 1, the relative error of the pressure drop
        the interior flow sees;
      - offsets_in, offsets_out: that line extrapolated to the prescribed-pressure
        positions minus the prescribed pressure, over dp;
      - linearity: the slope of the upstream half of the window over the downstream
        half, minus 1 (a check that the window is fully developed);
      - flow_error: the flow through the middle slice, sum of u_x dx^2, against
        Hagen-Poiseuille pi R^4 G / (8 mu) of the prescribed drop (the rule's and the
        staircase wall's errors together), and wall_flow_error, the same against the
        measured gradient (the wall's alone);
      - u_max_lattice, the centre-line velocity in lattice units.
    `step` picks the snapshot (the last by default)."""
    case = hemo_output.case(out_dir)
    fluid = case.get("fluid", {})
    if case["geometry"]["shape"] != "pipe":
        raise SystemExit("pipe_iolets.rule_errors: an analytic pipe only")
    R, L, axis, centre = pipe_geometry(case)
    mu = fluid.get("density", 1060.0) * fluid.get("viscosity", 3.3e-6)
    dx, dt = case["lattice"]["dx"], case["lattice"].get("dt")
    pressures = [i for i in case["boundaries"]["iolet"] if i["condition"] == "pressure"]
    if len(pressures) != 2:
        raise SystemExit("pipe_iolets.rule_errors: two pressure iolets")
    model, L_eff = effective_length(pressures, L, dx)
    by_side = sorted(pressures, key=lambda i: float(np.dot(np.array(i["center"], float) - centre, axis)))
    p_up, p_down = by_side[0].get("pressure", 0.0), by_side[1].get("pressure", 0.0)
    dp = p_up - p_down
    G = dp / L_eff
    margin = 2.0 * R if margin is None else margin

    coords, data = hemo_output.fields(out_dir, step)
    along = (coords - centre) @ axis
    u = data["velocity"] @ axis
    slice_index = np.round(along / dx - 0.5).astype(int)  # node centres at (k + 1/2) dx
    ks, inverse = np.unique(slice_index, return_inverse=True)
    count = np.bincount(inverse)
    x_k = (ks + 0.5) * dx
    p_k = np.bincount(inverse, data["pressure"]) / count
    q_k = np.bincount(inverse, u) * dx * dx
    window = np.abs(x_k) <= 0.5 * L - margin
    slope, intercept = np.polyfit(x_k[window], p_k[window], 1)
    half_up = window & (x_k < 0)
    half_down = window & (x_k > 0)
    s_up = np.polyfit(x_k[half_up], p_k[half_up], 1)[0]
    s_down = np.polyfit(x_k[half_down], p_k[half_down], 1)[0]
    G_meas = -slope
    mid = np.argsort(np.abs(x_k))[:2]
    Q = float(np.mean(q_k[mid]))
    Q_exact = np.pi * R**4 * G / (8.0 * mu)
    Q_meas_grad = np.pi * R**4 * G_meas / (8.0 * mu)
    centre_line = (np.abs(along) < dx) & (np.sqrt(np.maximum(np.sum((coords - centre) ** 2, axis=1) - along**2, 0)) < 1.01 * dx)
    u_max = float(np.max(u[centre_line])) if centre_line.any() else float("nan")
    return {"model": model, "L_eff": L_eff, "dp": dp, "pressure_gradient_exact": G,
            "pressure_gradient": float(G_meas), "gradient_error": float(G_meas / G - 1.0),
            "offset_in": float((intercept + slope * (-0.5 * L_eff) - p_up) / dp),
            "offset_out": float((intercept + slope * (0.5 * L_eff) - p_down) / dp),
            "linearity": float(s_up / s_down - 1.0), "window_slices": int(window.sum()),
            "flow": Q, "flow_exact": float(Q_exact), "flow_error": float(Q / Q_exact - 1.0),
            "wall_flow_error": float(Q / Q_meas_grad - 1.0),
            "u_max": u_max, "u_max_lattice": u_max * dt / dx if dt else float("nan"),
            "slice_x": x_k, "slice_pressure": p_k, "slice_flow": q_k}


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
