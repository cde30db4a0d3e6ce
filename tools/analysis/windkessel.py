#!/usr/bin/env python3
"""Windkessel (RCR) outlets: the outlet pressure of a run against the RCR model driven by
the imposed inflow (docs/windkessel.md).

The model (Westerhof, Lankhaar and Westerhof, Med. Biol. Eng. Comput. 47, 131 (2009)):
    C dp_c/dt = Q - (p_c - p_d) / R_d,    p = p_c + R_p Q,
stepped exactly for a Q held over each sub-step (physics/windkessel.hpp, in numpy).

The reference drives it with the inflow the velocity inlet imposes: in an incompressible
fluid the outflow equals it. Ladd's inlet values depend on time only, so that inflow is
the inlet's nominal flow (centre-line value_at(t), ramp included) times one constant, the
ratio of the inlet's measured flow to its nominal flow (the discrete disc is not exactly
pi R^2). The pressure is compared where iolets.csv measures it: the mean over the
outlet's nodes. Zou-He imposes the pressure there; the link-wise rules (anti-bounce-back,
Nash) on the plane dx/2 downstream, so for them the reference adds the Poiseuille
gradient over that half spacing, 8 mu Q / (pi R^4) dx / 2.

Standard library plus numpy.
"""
import argparse
import csv
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hemo_output  # noqa: E402


def rcr_step(pc, q, dt, rp, c, rd, pd):
    """p_c after dt with the outflow q held: the exact solution (physics/windkessel.hpp)."""
    settled = pd + rd * q
    return settled + (pc - settled) * math.exp(-dt / (rd * c))


def columns(out_dir):
    with open(os.path.join(out_dir, "iolets.csv")) as f:
        rows = list(csv.DictReader(f))
    return {k: np.array([float(r[k]) for r in rows]) for k in rows[0]}


def iolet(case, name):
    return next(i for i in case["boundaries"]["iolet"] if i["name"] == name)


def nominal_value(inlet, t):
    """The inlet's centre-line value at time t (IoletSpec::value_at: constant or sinusoidal, ramp)."""
    v = inlet["velocity"]
    if inlet.get("time", "constant") == "sinusoidal":
        v = v + inlet.get("amplitude", 0.0) * np.sin(2 * np.pi * t / inlet["period"] + inlet.get("phase", 0.0))
    ramp = inlet.get("ramp", 0.0)
    if ramp > 0:
        v = v * np.where(t < ramp, 0.5 * (1 - np.cos(np.pi * np.minimum(t, ramp) / ramp)), 1.0)
    return v


def analyse(out_dir, inlet_name="inlet", outlet_name="outlet", substeps=8):
    case = hemo_output.case(out_dir)
    s = hemo_output.summary(out_dir)
    dt, dx = s["dt"], s["dx"]
    rho, nu = case["fluid"]["density"], case["fluid"]["viscosity"]
    inlet, outlet = iolet(case, inlet_name), iolet(case, outlet_name)
    rp, c, rd = outlet["resistance_proximal"], outlet["compliance"], outlet["resistance_distal"]
    pd = outlet.get("pressure_distal", 0.0)
    pc0 = outlet.get("pressure_initial", pd)
    cols = columns(out_dir)
    t = cols["time"]
    q_in = cols[f"{inlet_name}_flow_m3_per_s"]
    # The discrete inlet's flow per unit centre-line value (constant: Ladd's values are
    # the profile's shape times value_at(t)).
    nominal = nominal_value(inlet, t)
    use = np.abs(nominal) > 0.5 * np.max(np.abs(nominal))
    per_value = float(np.median(q_in[use] / nominal[use]))

    # The reference: the model stepped from t = 0 with the imposed inflow, sampled at the
    # rows' times; `substeps` exact steps per LB step with Q at each sub-step's midpoint.
    steps = int(round(t[-1] / dt))
    h = dt / substeps
    pc = pc0
    p_ref, pc_ref, k = [], [], 0
    want = {int(round(x / dt)): i for i, x in enumerate(t)}
    for n in range(steps + 1):
        if n in want:
            q = per_value * nominal_value(inlet, n * dt)
            p_ref.append(pc + rp * q)
            pc_ref.append(pc)
        for j in range(substeps):
            q = per_value * nominal_value(inlet, n * dt + (j + 0.5) * h)
            pc = rcr_step(pc, q, h, rp, c, rd, pd)
    p_ref = np.array(p_ref)
    q_ref = per_value * nominal_value(inlet, t)
    radius = outlet["radius"]
    # Link-wise rules set the pressure on the plane, dx/2 downstream of the outlet's nodes:
    # Poiseuille's gradient over dx/2. Zou-He sets it at the nodes themselves.
    behind = 0.0 if outlet.get("model") == "zou_he" else 0.5 * dx
    offset = 8 * rho * nu * q_ref / (math.pi * radius ** 4) * behind
    p_nodes = cols[f"{outlet_name}_pressure_Pa"]
    period = inlet.get("period", t[-1])
    last = t >= t[-1] - period * (1 - 1e-9)
    ref_last = p_ref[last] + offset[last]
    amplitude = 0.5 * (ref_last.max() - ref_last.min())
    err = np.abs(p_nodes[last] - ref_last)
    # The model's own pressure (what the run imposed at the plane) against the same reference.
    p_model = cols[f"{outlet_name}_windkessel_pressure_Pa"]
    return {
        "t": t, "p_nodes": p_nodes, "p_ref": p_ref + offset, "p_model": p_model, "last": last,
        "amplitude": amplitude, "max_error": float(err.max() / amplitude),
        "model_error": float(np.abs(p_model[last] - p_ref[last]).max() / amplitude),
        "mean_error": float((p_nodes[last].mean() - ref_last.mean()) / amplitude),
        "offset": float(offset[last].mean() / amplitude),
        "flow_ratio": float(np.mean(-cols[f"{outlet_name}_flow_m3_per_s"][last]) / np.mean(q_ref[last])),
        "per_value": per_value,
    }


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for label, r in results:
        m = r["last"]
        ax.plot(r["t"][m], r["p_nodes"][m], label=f"LB, {label}")
    label, r = results[-1]
    ax.plot(r["t"][r["last"]], r["p_ref"][r["last"]], "k--", label="RCR model, imposed inflow")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("outlet pressure [Pa]")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    a = ap.parse_args()
    r = analyse(a.out_dir)
    for k in ("amplitude", "max_error", "model_error", "mean_error", "offset", "flow_ratio"):
        print(f"{k:12} {r[k]:.6g}")


if __name__ == "__main__":
    main()
