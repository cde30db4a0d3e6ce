#!/usr/bin/env python3
"""Mass balance and flow split of cases/bifurcation.toml (one inlet, two pressure outlets).

usage: bifurcation.py OUTPUT_DIR [--json]

From the last record of iolets.csv: the imbalance (inflow + outflows) / inflow, and the
difference of the two outflows against the Poiseuille-resistance estimate
    Q_upper - Q_lower = (p_lower - p_upper) / R_branch,  R_branch = 8 mu L_branch / (pi r^4),
which holds when the junction and end losses of the two equal branches cancel.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hemo_output  # noqa: E402


def analyse(out_dir):
    case = hemo_output.case(out_dir)
    geo, fluid = case["geometry"], case.get("fluid", {})
    mu = fluid.get("density", 1060.0) * fluid.get("viscosity", 3.3e-6)
    r = geo["radius"] * geo.get("radius_ratio", 0.794)
    length = geo["length"] * geo.get("length_ratio", 0.8)
    resistance = 8 * mu * length / (math.pi * r**4)
    iolets = {i["name"]: i for i in case["boundaries"]["iolet"]}
    flows = hemo_output.iolet_flows(out_dir)
    before = hemo_output.iolet_flows(out_dir, -2) or flows
    inflow = sum(q for q in flows.values() if q > 0)
    imbalance = sum(flows.values()) / inflow
    outlets = sorted((n for n in iolets if iolets[n]["condition"] == "pressure"), key=lambda n: iolets[n]["pressure"])
    low_p, high_p = outlets[0], outlets[-1]
    measured = -flows[low_p] + flows[high_p]  # outflows are negative: Q_low_p - Q_high_p
    predicted = (iolets[high_p]["pressure"] - iolets[low_p]["pressure"]) / resistance
    drift = max(abs(flows[k] - before[k]) / inflow for k in flows)
    return {"inflow": inflow, "imbalance": imbalance, "split_difference": measured,
            "split_difference_predicted": predicted, "split_error": (measured - predicted) / predicted,
            "outflows": {n: -flows[n] for n in outlets}, "last_change": drift}


def split_history(out_dir):
    """(time [s], Q_upper - Q_lower [m^3/s], imbalance) of every record of iolets.csv, the
    split taken as analyse() takes it (the low-pressure outlet's flow minus the other's)."""
    import csv

    case = hemo_output.case(out_dir)
    iolets = {i["name"]: i for i in case["boundaries"]["iolet"]}
    outlets = sorted((n for n in iolets if iolets[n]["condition"] == "pressure"), key=lambda n: iolets[n]["pressure"])
    low_p, high_p = outlets[0], outlets[-1]
    suffix = "_flow_m3_per_s"
    rows = []
    with open(os.path.join(out_dir, "iolets.csv")) as f:
        for row in csv.DictReader(f):
            q = {k[: -len(suffix)]: float(v) for k, v in row.items() if k.endswith(suffix)}
            inflow = sum(v for v in q.values() if v > 0)
            rows.append((float(row["time"]), -q[low_p] + q[high_p], sum(q.values()) / inflow if inflow else float("nan")))
    return rows


def split_change(out_dir, fraction=0.1):
    """How steady the split is: |split(end) - split(the record nearest `fraction` of the
    run before the end)| / |split(end)|."""
    rows = split_history(out_dir)
    if len(rows) < 2:
        return float("nan")
    t_end, s_end, _ = rows[-1]
    target = t_end * (1 - fraction)
    t, s, _ = min(rows[:-1], key=lambda r: abs(r[0] - target))
    return abs(s_end - s) / abs(s_end) if s_end else float("nan")


def report(res):
    print(f"inflow {res['inflow']:.6e} m^3/s; outflows " +
          ", ".join(f"{n} {q:.6e}" for n, q in res["outflows"].items()))
    print(f"imbalance {res['imbalance']:+.2e} of the inflow; last change between records {res['last_change']:.1e}")
    print(f"split difference {res['split_difference']:.4e} m^3/s, Poiseuille estimate {res['split_difference_predicted']:.4e} "
          f"({100 * res['split_error']:+.1f}%)")

if __name__ == "__main__":
    sys.exit(hemo_output.command_line(__doc__, analyse, report))
