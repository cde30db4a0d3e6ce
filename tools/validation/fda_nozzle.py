"""Validation study fda_nozzle: the FDA benchmark nozzle (sudden-expansion orientation) at
throat Re 500 against the three laboratories' PIV (cases/fda_nozzle.toml; data and their
source in tools/validation/reference/fda_nozzle/SOURCE.md).

Levels: dx = 0.2, 0.14 and 0.1 mm at tau 0.51 (the last is the case's own), 0.6 s each
from rest (a 0.05 s ramp). Measured:
  - the centre-line axial velocity at every station the three laboratories measured,
    averaged over the last 0.1 s of the run (probe records every 5 ms), against the
    laboratories' mean: the largest |u - u_exp| / CI95 over the stations (check
    fda_nozzle.centreline: within the 95% interval means <= 1); the mean |u - u_exp| over
    the stations relative to the jet's peak is reported beside it (the issue's measure);
  - the flow rate through the 12 measured cuts (the plane of fluid nodes nearest each
    cut, in the last snapshot) against Q (check fda_nozzle.flow_rate);
  - outflow / inflow - 1 from 0.3 s on, the largest (check fda_nozzle.settled: the
    pressure waves the start sends must have left by then);
  - the pressure at the axis at the wall taps' z, relative to z = 0, against the
    laboratories' wall taps (diagnostic: the axis is not the wall, and across the jet's
    recirculation the two differ).
The radial profiles at the 12 cuts are sampled (probes cut_*) but not yet compared.
Reduced (CPU): dx = 0.5 mm at a tenth of the flow (Re 50), tau 0.52, 0.02 s: the
pipeline and the run's stability only (fda_nozzle.survives).
"""
import csv
import math
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "analysis"))
import hemo_output  # noqa: E402

NAN = float("nan")
DATA = os.path.join(ROOT, "tools", "validation", "reference", "fda_nozzle")
Q = 5.20624e-6          # m^3/s, throat Re 500 (the data files' header)
NU = 0.0035 / 1056.0    # m^2/s: the benchmark's blood
U_INLET = 2 * Q / (math.pi * 0.006 ** 2)   # m/s: the parabolic inlet's centre line (cases/fda_nozzle.toml)
UPSTREAM, DOWNSTREAM = 0.05, 0.12   # m of pipe before the cone and after the expansion (the case's)
WINDOW = 0.1            # s: the average over the run's last 0.1 s
SAMPLE = 0.005          # s between probe records
SETTLED_FROM = 0.3      # s
STATIONS = [-0.088, -0.064, -0.048, -0.02, -0.008, 0.0, 0.008, 0.016, 0.024, 0.032, 0.06, 0.08]
PIV = "Hariharan et al. 2011 PIV, three laboratories (FDA round robin 1)"

SOURCES = {"fda_nozzle": ["cases/fda_nozzle.toml", "tools/validation/fda_nozzle.py", "tools/geometry/fda_nozzle.py",
                          "tools/validation/reference/fda_nozzle/"]}


def surface(ctx):
    """The nozzle's STL, written by tools/geometry/fda_nozzle.py into the work folder."""
    out = os.path.join(ctx.work, "fda_nozzle_surface")
    cmd = [sys.executable, os.path.join(ROOT, "tools", "geometry", "fda_nozzle.py"), "--output", out,
           "--upstream", repr(UPSTREAM), "--downstream", repr(DOWNSTREAM)]
    print("  $", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return os.path.join(out, "nozzle.stl")


def reference_centreline():
    """{z: (mean, CI95 half-width)} of the stations three laboratories measured."""
    with open(os.path.join(DATA, "piv_se_re0500_centerline_interlab_derived.csv")) as f:
        rows = [r for r in csv.DictReader(f) if r["n_labs"] == "3"]
    return {round(float(r["z_m"]), 6): (float(r["u_mean_m_s"]), float(r["u_ci95_halfwidth_m_s"])) for r in rows}


def reference_pressure():
    """{z: mean over the valid trials of p - p(z = 0)} at the wall taps."""
    by_z = {}
    with open(os.path.join(DATA, "piv_se_re0500_wall_pressure.csv")) as f:
        for r in csv.DictReader(f):
            if r["status"] == "ok" and r["p_minus_p_z0_Pa"]:
                by_z.setdefault(round(float(r["z_m"]), 6), []).append(float(r["p_minus_p_z0_Pa"]))
    return {z: float(np.mean(v)) for z, v in by_z.items()}


def probe_sets(dt):
    """--set arguments that make every probe record each SAMPLE seconds."""
    every = max(1, round(SAMPLE / dt))
    names = 1 + len(STATIONS)  # the centre line, then the cuts (cases/fda_nozzle.toml)
    return [a for i in range(names) for a in ("--set", f"output.probe.{i}.every={every}")]


def time_average(out, name, t_from):
    """The probe's samples averaged over its records at t >= t_from: (z, uz, p)."""
    p = hemo_output.probe(out, name)
    keep = p["time"] >= t_from - 1e-12
    z = p["z"][keep]
    order = np.unique(z)
    uz = np.array([p["uz"][keep][z == v].mean() for v in order])
    pressure = np.array([p["pressure"][keep][z == v].mean() for v in order])
    return order, uz, pressure


def cut_flows(out, dx):
    """{z: flow rate through the layer of fluid nodes nearest the plane z} in the last snapshot."""
    coords, data = hemo_output.fields(out)
    uz = data["velocity"][:, 2]
    flows = {}
    for z in STATIONS:
        dist = np.abs(coords[:, 2] - z)
        layer = dist <= dist.min() + 1e-3 * dx
        flows[z] = float(uz[layer].sum()) * dx * dx
    return flows


def settled(out):
    """The largest |outflow / inflow - 1| over iolets.csv's records from SETTLED_FROM on."""
    with open(os.path.join(out, "iolets.csv")) as f:
        rows = [r for r in csv.DictReader(f) if float(r["time"]) >= SETTLED_FROM]
    worst = 0.0
    for r in rows:
        q_in, q_out = float(r["inlet_flow_m3_per_s"]), -float(r["outlet_flow_m3_per_s"])
        worst = max(worst, abs(q_out / q_in - 1.0))
    return worst if rows else NAN


def plan(reduced):
    """(dx, tau, end_time, share of the case's flow) of each level."""
    if reduced:  # a tenth of the flow: Re 50, lattice Mach below 0.1 in the throat at this dx
        return [(5e-4, 0.52, 0.02, 0.1)]
    return [(2e-4, 0.51, 0.6, 1.0), (1.4e-4, 0.51, 0.6, 1.0), (1e-4, 0.51, 0.6, 1.0)]


def fda_nozzle(ctx):
    stl = surface(ctx)
    records = []
    levels = plan(ctx.reduced)
    ref = reference_centreline()
    ref_p = reference_pressure()
    mean_dev = {}
    for dx, tau, end, scale in levels:
        dt = (tau - 0.5) * dx * dx / (3 * NU)
        label = f"dx = {dx * 1e3:.2g} mm"
        out = os.path.join(ctx.work, f"fda_nozzle_dx{dx * 1e6:.0f}um")
        extra = ["--set", f'geometry.file="{stl}"', "--set", f"lattice.dx={dx!r}", "--set", f"lattice.tau={tau!r}",
                 "--set", f"run.end_time={end!r}", "--set", f"run.check_every={max(1, round(SAMPLE / dt))}"]
        if scale != 1.0:
            extra += ["--set", f"boundaries.iolet.0.velocity={U_INLET * scale!r}",
                      "--set", "boundaries.iolet.0.ramp=0.005"]
        if ctx.reduced:
            extra += ["--set", "output.final=false"]
        s = ctx.run("fda_nozzle.toml", out, *extra, *probe_sets(dt))
        if s is None:
            records.append(ctx.failed("fda_nozzle", label, "fda_nozzle.survives" if ctx.reduced else
                                      "fda_nozzle.centreline"))
            continue
        res = f"{label} ({s['fluid_nodes']} nodes, tau {s['tau']:.3f}, {s['steps']} steps)"
        if ctx.reduced:
            records.append(ctx.check("fda_nozzle.survives", s["steps"] / s["steps_requested"], res))
            continue
        z, uz, pressure = time_average(out, "centreline", end - WINDOW)

        def at(zs):  # the sample nearest a station (a probe reports its node's position)
            return int(np.argmin(np.abs(z - zs)))
        ratios, diffs = [], []
        for zs, (mean, ci) in sorted(ref.items()):
            u = float(uz[at(zs)])
            ratios.append(abs(u - mean) / ci)
            diffs.append(abs(u - mean))
            records.append(ctx.diagnostic("fda_nozzle", f"centre-line u_z at z = {zs * 1e3:+.0f} mm, last 0.1 s",
                                          u, res, mean, PIV + f" (CI95 +-{ci:.3g} m/s)", u - mean))
        peak = max(m for m, _ in ref.values())
        n = 0.004 / dx  # nodes across the throat
        mean_dev[n] = sum(diffs) / len(diffs) / peak
        records.append(ctx.diagnostic("fda_nozzle", "centre line: mean |u - u_exp| over the stations / the jet's peak",
                                      mean_dev[n], res))
        p0 = float(pressure[at(0.0)])
        for zt, p_exp in sorted(ref_p.items()):
            i = at(zt)
            records.append(ctx.diagnostic("fda_nozzle", f"pressure at the axis, z = {zt * 1e3:+.1f} mm, minus z = 0 "
                                          f"(Pa; the labs' at the wall)", float(pressure[i]) - p0, res, p_exp, PIV,
                                          float(pressure[i]) - p0 - p_exp))
        worst_q = max(abs(q / (Q * scale) - 1) for q in cut_flows(out, dx).values())
        left = settled(out)
        if dx == levels[-1][0]:
            records.append(ctx.check("fda_nozzle.centreline", max(ratios), res, backend=s["backend"]))
            records.append(ctx.check("fda_nozzle.flow_rate", worst_q, res, backend=s["backend"]))
            records.append(ctx.check("fda_nozzle.settled", left, res, backend=s["backend"]))
        else:
            records.append(ctx.diagnostic("fda_nozzle", "largest |u - u_exp| / CI95 over the stations", max(ratios), res))
            records.append(ctx.diagnostic("fda_nozzle", "largest |Q_cut / Q - 1| over the 12 cuts", worst_q, res))
            records.append(ctx.diagnostic("fda_nozzle", "settling: largest |outflow / inflow - 1| from 0.3 s on",
                                          left, res))
    if not ctx.reduced:
        records += ctx.study("fda_nozzle", "centre line: mean |u - u_exp| / the jet's peak", mean_dev, None,
                             unit="throat/dx")
    return records


CHECKS = {"fda_nozzle": fda_nozzle}
