#!/usr/bin/env python3
"""Velocity iolets in a flow (the pipe of cases/pipe_velocity.toml, reduced as in
validation.pipe_velocity: 16 nodes across, nu = 2e-4 m^2/s, tau 0.8; fp64, no ramp; the
case file is written here with the inlet each part needs): what the iolet imposes over
time and space, each against a reference fixed here before the runs.

1. CSV time series (time = "csv", periodic, 2.5 periods): a Ladd inlet's flow per step is
   the sum of its link values, value(t) times a constant, so the recorded inflow divided
   by the CSV's value at that time, interpolated linearly and wrapped periodically (numpy
   here), must be one constant: spread below 5e-9 relative (iolets.csv prints 10
   significant digits, so each record is rounded by up to 5e-10), and the constant within 2% of
   pi R^2 / 2 (the disc's Poiseuille flow per unit centre-line velocity; the staircase
   disc is the difference).
2. Womersley profile (alpha = 3.2): the recorded inflow must be exactly a constant plus a
   harmonic at the profile's frequency (least-squares residual below 5e-9 of its size),
   and within 3% of the analytic Womersley flow rate (tools/analysis/womersley.py,
   integrated over the disc) at every record.
3. Zou-He velocity inlet (parabolic, constant): the velocity at mid-length within 5% (L2)
   of Hagen-Poiseuille at the prescribed U_max, the outflow within 1e-3 of the inflow,
   and the inflow within 2% of pi R^2 U_max / 2.
4. Womersley profile from a CSV (profile = "womersley", time = "csv", 4 harmonics; the CSV
   a mean, a first and a second harmonic of the centre-line velocity, sampled at 41
   points, flow reversing; alpha 3.2 to 6.3): the recorded inflow must be exactly a
   constant plus the first 4 harmonics of the period (least-squares residual below 5e-9
   of its size), and within 3% of the CSV's flow pi R^2 csv(t) / 2 (its peak) at every
   record (fixed 2026-11-26, before the first run; the staircase disc alone is 2%, part 1).
"""
import csv
import math
import os
import sys

import numpy as np

from common import arguments, check, run_hemoflow

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "analysis"))
import pipe_iolets  # noqa: E402
import womersley  # noqa: E402

R, NU, DT = 0.008, 2e-4, 5e-4
CASE = """[run]
end_time = {end_time}
precision = "fp64"
check_every = 20
[fluid]
density = 1060.0
viscosity = {nu}
[lattice]
dx = 0.001
dt = {dt}
[geometry]
shape = "pipe"
radius = {R}
length = 0.064
axis = [1.0, 0.0, 0.0]
[[boundaries.iolet]]
name = "inlet"
center = [-0.032, 0.0, 0.0]
normal = [-1.0, 0.0, 0.0]
radius = {R}
condition = "velocity"
{inlet}
[[boundaries.iolet]]
name = "outlet"
center = [0.032, 0.0, 0.0]
normal = [1.0, 0.0, 0.0]
radius = {R}
condition = "pressure"
pressure = 0.0
[output]
every = 0
"""


def run_case(a, name, end_time, inlet):
    """Writes the case with this inlet (TOML lines), runs it; returns its output folder."""
    os.makedirs(a.work, exist_ok=True)
    path = os.path.join(a.work, f"{name}.toml")
    with open(path, "w") as f:
        f.write(CASE.format(end_time=end_time, nu=NU, dt=DT, R=R, inlet=inlet))
    out = os.path.join(a.work, name)
    run_hemoflow(a.hemoflow, ["run", path, "--quiet", "--output", out])
    return out


def inflow(out):
    """(time, inflow m^3/s) of every record of iolets.csv."""
    with open(os.path.join(out, "iolets.csv")) as f:
        rows = list(csv.DictReader(f))
    return np.array([float(r["time"]) for r in rows]), np.array([float(r["inlet_flow_m3_per_s"]) for r in rows])


def csv_series(a):
    series = os.path.join(a.work, "inflow.csv")
    os.makedirs(a.work, exist_ok=True)
    t_pts, v_pts = [0.0, 0.1, 0.25, 0.4], [0.0, 0.02, 0.005, 0.0]
    with open(series, "w") as f:
        f.write("time_s,velocity_m_per_s\n" + "".join(f"{t},{v}\n" for t, v in zip(t_pts, v_pts)))
    out = run_case(a, "csv", 1.0, f'profile = "parabolic"\ntime = "csv"\ncsv = "{series}"\nperiodic = true')
    t, q = inflow(out)
    period = t_pts[-1] - t_pts[0]
    v = np.interp(np.mod(t - t_pts[0], period) + t_pts[0], t_pts, v_pts)
    keep = v > 1e-3 * max(v_pts)
    ratio = q[keep] / v[keep]
    spread = float((ratio.max() - ratio.min()) / abs(ratio.mean()))
    ok = check(spread < 5e-9 and t.max() > 2 * period,
               f"CSV inlet: inflow / interpolated value constant over {keep.sum()} records up to t = {t.max():.2f} s "
               f"({t.max() / period:.1f} periods): spread {spread:.1e} < 5e-9")
    disc = float(ratio.mean()) / (math.pi * R * R / 2)
    ok &= check(abs(disc - 1) < 0.02, f"CSV inlet: flow per unit velocity {disc:.4f} x pi R^2 / 2 (within 2%)")
    return ok


def womersley_profile(a):
    period, u0, amp = 0.2, 0.01, 0.01
    out = run_case(a, "womersley", 0.5, f'profile = "womersley"\nvelocity = {u0}\namplitude = {amp}\nperiod = {period}')
    t, q = inflow(out)
    w = 2 * math.pi / period
    basis = np.column_stack([np.ones_like(t), np.cos(w * t), np.sin(w * t)])
    coef, *_ = np.linalg.lstsq(basis, q, rcond=None)
    residual = float(np.max(np.abs(basis @ coef - q)) / np.max(np.abs(q)))
    ok = check(residual < 5e-9, f"Womersley inlet: inflow is a constant plus one harmonic, residual {residual:.1e} < 5e-9")
    # Analytic: steady Poiseuille for U0 (g0 = 4 nu U0 / R^2) plus the oscillating part of
    # the gradient g1 = 4 nu amp / R^2 (plugins/boundaries/iolets.cpp), over the disc.
    r = np.linspace(0.0, R, 2001)
    g0, g1 = 4 * NU * u0 / R ** 2, 4 * NU * amp / R ** 2
    exact = np.array([np.trapz(2 * np.pi * r * womersley.womersley(r, R, NU, g0, g1, w, ti), r) for ti in t])
    err = float(np.max(np.abs(q - exact)) / np.max(np.abs(exact)))
    ok &= check(err < 0.03, f"Womersley inlet (alpha {R * math.sqrt(w / NU):.1f}): largest difference from the "
                            f"analytic flow rate {err:.2%} < 3%")
    return ok


def zou_he_velocity(a):
    u = 0.02
    out = run_case(a, "zou_he", 1.0, f'profile = "parabolic"\nmodel = "zou_he"\nvelocity = {u}\nramp = 0.1')
    r = pipe_iolets.analyse(out)
    q_in, q_out = r["flows"]["inlet"], -r["flows"]["outlet"]
    ok = check(r["l2_error"] < 0.05, f"Zou-He velocity inlet: velocity L2 error at mid-length {r['l2_error']:.2%} < 5%")
    ok &= check(abs(q_out / q_in - 1) < 1e-3, f"Zou-He velocity inlet: outflow / inflow - 1 = {q_out / q_in - 1:.1e}")
    expected = math.pi * R * R * u / 2
    ok &= check(abs(q_in / expected - 1) < 0.02, f"Zou-He velocity inlet: inflow {q_in / expected:.4f} x pi R^2 U / 2")
    return ok


def womersley_csv(a):
    period, harmonics = 0.2, 4
    w = 2 * math.pi / period
    t_pts = np.linspace(0.0, period, 41)
    v_pts = 0.01 + 0.012 * np.cos(w * t_pts) + 0.006 * np.sin(2 * w * t_pts - 0.5)  # reverses near t = T/2
    series = os.path.join(a.work, "womersley_inflow.csv")
    os.makedirs(a.work, exist_ok=True)
    with open(series, "w") as f:
        f.write("time_s,centreline_velocity_m_per_s\n" + "".join(f"{t!r},{v!r}\n" for t, v in zip(t_pts, v_pts)))
    out = run_case(a, "womersley_csv", 0.5, f'profile = "womersley"\ntime = "csv"\ncsv = "{series}"\n'
                                            f'harmonics = {harmonics}')
    t, q = inflow(out)
    basis = np.column_stack([np.ones_like(t)] + [f(n * w * t) for n in range(1, harmonics + 1) for f in (np.cos, np.sin)])
    coef, *_ = np.linalg.lstsq(basis, q, rcond=None)
    residual = float(np.max(np.abs(basis @ coef - q)) / np.max(np.abs(q)))
    ok = check(residual < 5e-9, f"Womersley inlet from a CSV: inflow is a constant plus {harmonics} harmonics, "
                                f"residual {residual:.1e} < 5e-9")
    expected = math.pi * R * R / 2 * np.interp(np.mod(t, period), t_pts, v_pts)
    err = float(np.max(np.abs(q - expected)) / np.max(np.abs(expected)))
    ok &= check(err < 0.03 and q.min() < 0, f"Womersley inlet from a CSV: largest difference from the CSV's flow "
                                            f"{err:.2%} of its peak < 3% (the flow reverses: {q.min() < 0})")
    return ok


def main():
    a = arguments(__doc__, case=False)
    ok = csv_series(a)
    ok &= womersley_profile(a)
    ok &= zou_he_velocity(a)
    ok &= womersley_csv(a)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
