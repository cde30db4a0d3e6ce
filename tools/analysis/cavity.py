#!/usr/bin/env python3
"""Centre-line profiles of the lid-driven cubic cavity (lid at z = L moving in +x)
against Albensoeder & Kuhlmann (2005), Re = 1000.

usage: cavity.py OUTPUT_DIR [--json] [--plot FILE.png]

Profiles come from the last snapshot: u_x on the vertical centre line (x = y = L/2) and
u_z on the horizontal one (y = z = L/2), taken at the nodes nearest the two lines
(averaging the two or four nearest when L/2 falls between nodes) and interpolated linearly
to the reference points. Errors are in units of the lid speed U: the largest difference,
and the RMS difference, over the reference points of both lines.
"""
import csv
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hemo_output  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "..", "validation", "reference", "albensoeder_kuhlmann_2005_re1000.csv")


def reference():
    rows = [r for r in csv.reader(line for line in open(REFERENCE) if not line.startswith("#"))][1:]
    t5 = sorted((0.5 - float(c), float(v)) for t, c, v in rows if t == "5")   # (z/L, u_x/U)
    t6 = sorted((float(c) + 0.5, -float(v)) for t, c, v in rows if t == "6")  # (x/L, u_z/U)
    return np.array(t5), np.array(t6)


def centre_line(coords, values, along, across, L, dx):
    """Values on the line through the centre along axis `along`, averaging the nodes
    nearest to x_across = L/2 for both other axes."""
    mask = np.ones(len(coords), bool)
    for a in across:
        d = np.abs(coords[:, a] - L / 2)
        mask &= d <= d.min() + 1e-3 * dx
    s = coords[mask, along]
    v = values[mask]
    keys = np.unique(np.round(s / dx * 2).astype(int))
    pos = np.array([s[np.round(s / dx * 2).astype(int) == k].mean() for k in keys])
    val = np.array([v[np.round(s / dx * 2).astype(int) == k].mean() for k in keys])
    return pos / L, val


def analyse(out_dir):
    case = hemo_output.case(out_dir)
    L = case["geometry"]["size"][0]
    U = case["boundaries"]["moving_wall"][0]["velocity"][0]
    dx = case["lattice"]["dx"]
    coords, data = hemo_output.fields(out_dir)
    coords = coords - np.array(case["geometry"].get("origin", [0.0, 0.0, 0.0]))
    vel = data["velocity"] / U
    z, ux = centre_line(coords, vel[:, 0], 2, (0, 1), L, dx)
    x, uz = centre_line(coords, vel[:, 2], 0, (1, 2), L, dx)
    # Walls sit halfway between the last node and the solid: add them to the profiles.
    z, ux = np.concatenate([[0.0], z, [1.0]]), np.concatenate([[0.0], ux, [1.0]])
    x, uz = np.concatenate([[0.0], x, [1.0]]), np.concatenate([[0.0], uz, [0.0]])
    t5, t6 = reference()
    d5 = np.interp(t5[:, 0], z, ux) - t5[:, 1]
    d6 = np.interp(t6[:, 0], x, uz) - t6[:, 1]
    diffs = np.concatenate([d5[1:-1], d6[1:-1]])  # the wall points are exact by construction
    return {"max_error": float(np.max(np.abs(diffs))), "rms_error": float(np.sqrt(np.mean(diffs**2))),
            "u_min_vertical": float(ux.min()), "u_min_vertical_reference": float(t5[:, 1].min()),
            "w_max_horizontal": float(uz.max()), "w_max_horizontal_reference": float(t6[:, 1].max()),
            "profiles": {"z": z.tolist(), "ux": ux.tolist(), "x": x.tolist(), "uz": uz.tolist()},
            "reference": {"t5": t5.tolist(), "t6": t6.tolist()}, "nodes_per_edge": round(L / dx)}


def steadiness(out_dir, probes=(("vertical", "ux"), ("horizontal", "uz"))):
    """How steady the flow is at the end: the largest change, in units of the lid speed,
    of the centre-line probes' velocities (u_x on the vertical line, u_z on the
    horizontal one) between their last two records, and the time between those records
    in lid passages L / U. (nan, nan) when a probe has fewer than two records."""
    case = hemo_output.case(out_dir)
    L = case["geometry"]["size"][0]
    U = case["boundaries"]["moving_wall"][0]["velocity"][0]
    change, span = 0.0, float("nan")
    for name, column in probes:
        try:
            p = hemo_output.probe(out_dir, name)
        except (OSError, IndexError):  # no probe file, or no record in it
            return float("nan"), float("nan")
        steps = np.unique(p["step"])
        if len(steps) < 2:
            return float("nan"), float("nan")
        last, before = p["step"] == steps[-1], p["step"] == steps[-2]
        change = max(change, float(np.max(np.abs(p[column][last] - p[column][before]))) / U)
        span = (p["time"][last][0] - p["time"][before][0]) * U / L
    return change, span


def plot(res, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    p, r = res["profiles"], res["reference"]
    t5, t6 = np.array(r["t5"]), np.array(r["t6"])
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4.2))
    a1.plot(p["ux"], p["z"], "-", label=f"hemoflow, {res['nodes_per_edge']}^3")
    a1.plot(t5[:, 1], t5[:, 0], "ko", ms=4, label="Albensoeder & Kuhlmann 2005")
    a1.set_xlabel("u_x / U")
    a1.set_ylabel("z / L")
    a1.set_title("vertical centre line")
    a1.legend(fontsize=8)
    a2.plot(p["x"], p["uz"], "-", label="hemoflow")
    a2.plot(t6[:, 0], t6[:, 1], "ko", ms=4, label="Albensoeder & Kuhlmann 2005")
    a2.set_xlabel("x / L")
    a2.set_ylabel("u_z / U")
    a2.set_title("horizontal centre line")
    fig.suptitle("Lid-driven cubic cavity, Re = 1000")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def report(res):
    print(f"{res['nodes_per_edge']}^3 nodes: largest difference {res['max_error']:.4f} U, RMS {res['rms_error']:.4f} U")
    print(f"  min u_x on the vertical line {res['u_min_vertical']:.4f} (reference {res['u_min_vertical_reference']:.4f})")
    print(f"  max u_z on the horizontal line {res['w_max_horizontal']:.4f} (reference {res['w_max_horizontal_reference']:.4f})")

if __name__ == "__main__":
    sys.exit(hemo_output.command_line(__doc__, analyse, report, plot=plot, hide=('profiles', 'reference')))
