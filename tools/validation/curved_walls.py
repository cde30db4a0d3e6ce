"""Validation of the interpolated bounce-back on curved walls (boundaries.wall =
"interpolated"): pipes tilted off every lattice axis, where a staircase wall cannot
converge at second order.

    curved_pipe_tilted    steady Poiseuille flow in a pipe along (1, 0.5, 0.25), parabolic
                          velocity inlet (Ladd) and anti-bounce-back pressure outlet: the
                          velocity's relative L2 error over the middle third and its order,
                          and the mean wall shear stress there (wall_shear, extrapolated to
                          the wall) and its order
    womersley_tilted      the same pipe with a Womersley velocity inlet (alpha = 6): the
                          axial velocity over the middle third at 8 phases of the last
                          period against Womersley's profile, the worst phase's error
                          relative to that phase's peak. A full-size study only: at the
                          CPU's 6-10 nodes per radius the Stokes layer (0.24 R) spans
                          1.4-2.4 nodes (18% at 10 nodes per radius, 2026-12-06)

References and tolerances: references.toml's curved_pipe.* and womersley_tilted.*.
`python3 tools/validation/curved_walls.py` prints each level's size without running it.
"""
import cmath
import math
import os
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "analysis"))
import hemo_output  # noqa: E402
import womersley as womersley_analysis  # noqa: E402

NAN = float("nan")
NU, RHO = 3.3e-6, 1060.0
R = 0.008                                         # m (cases/pipe_velocity.toml)
AXIS = np.array([1.0, 0.5, 0.25]) / np.linalg.norm([1.0, 0.5, 0.25])
E_FOLD = R ** 2 / (5.783 * NU)                     # slowest viscous mode, s

# The files a study's rows depend on besides the shared core (validate.py's SOURCES).
SOURCES = {
    "curved_pipe_tilted": ["cases/pipe_velocity.toml", "plugins/boundaries/", "plugins/wall_shear/",
                           "tools/validation/curved_walls.py"],
    "womersley_tilted": ["cases/pipe_velocity.toml", "plugins/boundaries/", "tools/validation/curved_walls.py",
                         "tools/analysis/womersley.py"],
}


def _vec(v):
    return "[" + ",".join(repr(float(x)) for x in v) + "]"


def _pipe_args(length, dx, dt, inlet):
    """--set arguments for a pipe of this length along AXIS, centred at the origin, with
    cases/pipe_velocity.toml's inlet (its keys replaced by `inlet`) and an anti-bounce-back
    pressure outlet, both on planes normal to the axis."""
    cin, cout = -0.5 * length * AXIS, 0.5 * length * AXIS
    args = ["--set", f"lattice.dx={dx!r}", "--set", f"lattice.dt={dt!r}",
            "--set", f"geometry.radius={R!r}", "--set", f"geometry.length={length!r}",
            "--set", f"geometry.axis={_vec(AXIS)}", "--set", "geometry.center=[0.0,0.0,0.0]",
            "--set", f"boundaries.iolet.0.center={_vec(cin)}", "--set", f"boundaries.iolet.0.normal={_vec(-AXIS)}",
            "--set", f"boundaries.iolet.0.radius={R!r}", "--set", 'boundaries.iolet.0.model="ladd"',
            "--set", f"boundaries.iolet.1.center={_vec(cout)}", "--set", f"boundaries.iolet.1.normal={_vec(AXIS)}",
            "--set", f"boundaries.iolet.1.radius={R!r}", "--set", 'boundaries.iolet.1.model="anti_bounce_back"',
            "--set", "output.probe=[]", "--set", 'boundaries.wall="interpolated"']
    for key, value in inlet.items():
        args += ["--set", f"boundaries.iolet.0.{key}={value}"]
    return args


def _axial_radial(coords):
    along = coords @ AXIS
    radial = np.linalg.norm(coords - np.outer(along, AXIS), axis=1)
    return along, radial


# --- steady Poiseuille flow and its wall shear stress -------------------------------------
LEN_PIPE = 9 * R          # the middle third is 3 R long, 3 R from each end
U_PIPE = 1.0e-4           # m/s, centre-line (Re 0.24): the lattice's density drop along the
                          # pipe, which raises the velocity as 1/rho, is 0.6% at R = 8 dx
TAU_PIPE = 1.0


def pipe_plan(reduced):
    """(nodes per radius, dx, dt, steps): tau = 1 (dt ~ dx^2), 12 e-folding times from rest
    (the inlet ramps over the first half of one)."""
    plan = []
    for n in ((6, 8, 10) if reduced else (8, 12, 16, 24, 32)):
        dx = R / n
        dt = (TAU_PIPE - 0.5) * dx * dx / (3 * NU)
        plan.append((n, dx, dt, math.ceil(12 * E_FOLD / dt)))
    return plan


def curved_pipe_tilted(ctx):
    """Asserted at the finest level: the relative L2 error of the velocity (all three
    components against U_max (1 - r^2/R^2) along the axis) over the fluid nodes of the
    middle third, and the mean of the time-averaged |WSS| over the wall nodes there against
    tau_w = 2 mu U_max / R; over all levels: the observed order of both."""
    records, l2, wss = [], {}, {}
    plan = pipe_plan(ctx.reduced)
    tau_w = 2 * RHO * NU * U_PIPE / R
    for n, dx, dt, steps in plan:
        out = os.path.join(ctx.work, f"curved_pipe_tilted_R{n}")
        print(f"  R = {n} dx: ~{math.pi * n * n * 9 * n:.3g} nodes x {steps} steps", flush=True)
        t_end = steps * dt
        inlet = {"velocity": repr(U_PIPE), "profile": '"parabolic"', "ramp": repr(0.5 * E_FOLD)}
        s = ctx.run("pipe_velocity.toml", out, *_pipe_args(LEN_PIPE, dx, dt, inlet),
                    "--set", f"flow.reference_velocity={U_PIPE!r}", "--set", 'run.precision="fp64"',
                    "--set", f"run.end_time={t_end!r}", "--steps", str(steps),
                    "--set", f"run.check_every={max(1, steps // 20)}",
                    "--set", 'run.plugins=["lb_bgk","boundaries","wall_shear"]',
                    "--set", "output.every=0", "--set", "output.final=true", "--set", 'output.fields=["velocity"]',
                    "--set", f"wall_shear.window_start={0.75 * t_end!r}", "--set", "wall_shear.every=0",
                    "--set", f"wall_shear.sample_every={max(1, steps // 200)}")
        res = f"R = {n} dx"
        if s is None:
            records.append(ctx.failed("curved_pipe_tilted", res, "curved_pipe.velocity_l2_finest"))
            continue
        coords, data = hemo_output.fields(out)
        along, radial = _axial_radial(coords)
        middle = np.abs(along) <= LEN_PIPE / 6
        exact = np.outer(U_PIPE * (1 - (radial[middle] / R) ** 2), AXIS)
        diff = data["velocity"][middle] - exact
        err = math.sqrt(float(np.sum(diff * diff)) / float(np.sum(exact * exact)))
        l2[n] = err
        import h5py

        with h5py.File(os.path.join(out, "wall_shear_stats.h5"), "r") as f:
            points, tawss = f["points"][()], f["tawss"][()]
        w_along, w_radial = _axial_radial(points)
        w_middle = np.abs(w_along) <= LEN_PIPE / 6
        werr = float(tawss[w_middle].mean() / tau_w - 1)
        wss[n] = werr
        res = (f"R = {n} dx ({s['fluid_nodes']} nodes, {middle.sum()} in the middle third, {w_middle.sum()} wall "
               f"nodes there, tau {s['tau']:.3f}, {s['steps']} steps)")
        records.append(ctx.diagnostic("curved_pipe_tilted", "middle third: largest |u - u_exact| / U_max",
                                      float(np.max(np.linalg.norm(diff, axis=1)) / U_PIPE), res))
        records.append(ctx.diagnostic("curved_pipe_tilted", "mass drift (relative)", s.get("mass_relative_drift", NAN),
                                      res))
        if n == plan[-1][0]:
            records.append(ctx.check("curved_pipe.velocity_l2_finest", err, res, backend=s["backend"]))
            records.append(ctx.check("curved_pipe.wss_finest", werr, res, backend=s["backend"]))
    records += ctx.study("curved_pipe_tilted", "middle third: relative L2 error of the velocity", l2,
                         "curved_pipe.velocity_order", unit="R/dx")
    records += ctx.study("curved_pipe_tilted", "middle third: mean TAWSS / tau_w - 1", wss,
                         "curved_pipe.wss_order", unit="R/dx")
    return records


# --- Womersley flow -------------------------------------------------------------------
# The lattice's sound crosses the pipe in L sqrt(3) dt / dx, and its compressibility
# changes the oscillation by about (omega L / c_s)^2: 4% at tau 0.52 and 12 nodes per
# radius (c_s = 0.43 m/s there), falling as dx^2 at fixed tau (0.6% at 32); at tau 0.6 the
# 12-node pipe's error is 198%, so tau stays at 0.52. The middle third starts 2 R from
# the inlet, whose Womersley profile is the developed one at alpha 6.
LEN_WOM = 6 * R
PERIOD = 3.3848809735647603    # s: alpha = R sqrt(omega / nu) = 6 (cases/womersley.toml)
U_MEAN = 2.5e-4                # m/s: the steady part's centre-line velocity
U_OSC = 0.018                  # m/s: the oscillation, as the centre-line velocity its pressure
                               # gradient would drive in steady flow (g1 = 3.7e-3 m/s^2, an
                               # oscillating centre-line velocity of about 2 mm/s)
TAU_WOM = 0.52
PERIODS = 3


def womersley_plan(reduced):
    """(nodes per radius, dx, dt, steps per period): tau about TAU_WOM, steps per period a
    multiple of 8 (8 phases)."""
    plan = []
    for n in ((6, 8, 10) if reduced else (12, 16, 24, 32)):
        dx = R / n
        per = 8 * math.ceil(PERIOD / ((TAU_WOM - 0.5) * dx * dx / (3 * NU)) / 8)
        plan.append((n, dx, PERIOD / per, per))
    return plan


def womersley_tilted(ctx):
    """Asserted at the finest level: over the 8 phases of the last of 3 periods, the worst
    phase's largest |u_axial - u_exact| over the middle third's fluid nodes relative to
    that phase's peak |u_exact| (the measure of womersley.phase_error); the order over all
    levels is reported."""
    records, errors = [], {}
    plan = womersley_plan(ctx.reduced)
    omega = 2 * math.pi / PERIOD
    g0, g1 = 4 * NU * U_MEAN / R ** 2, 4 * NU * U_OSC / R ** 2
    for n, dx, dt, per in plan:
        out = os.path.join(ctx.work, f"womersley_tilted_R{n}")
        steps = PERIODS * per
        print(f"  R = {n} dx: ~{math.pi * n * n * 6 * n:.3g} nodes x {steps} steps", flush=True)
        inlet = {"velocity": repr(U_MEAN), "profile": '"womersley"', "amplitude": repr(U_OSC),
                 "period": repr(PERIOD), "ramp": "0.0"}
        s = ctx.run("pipe_velocity.toml", out, *_pipe_args(LEN_WOM, dx, dt, inlet),
                    "--set", f"flow.reference_velocity={0.0025!r}", "--set", 'run.precision="fp64"',
                    "--set", f"run.end_time={steps * dt!r}", "--steps", str(steps),
                    "--set", f"run.check_every={per // 8}", "--set", f"output.every={per // 8}",
                    "--set", 'output.fields=["velocity"]')
        res = f"R = {n} dx, {per} steps per period"
        if s is None:
            records.append(ctx.failed("womersley_tilted", res, "womersley_tilted.phase_error"))
            continue
        all_steps = hemo_output.field_steps(out)
        phases = [k for k in all_steps if k > all_steps[-1] - per]
        coords, _ = hemo_output.fields(out, phases[0])
        along, radial = _axial_radial(coords)
        middle = np.abs(along) <= LEN_WOM / 6
        worst = 0.0
        for k in phases:
            _, data = hemo_output.fields(out, k)
            u = data["velocity"][middle] @ AXIS
            exact = womersley_analysis.womersley(radial[middle], R, NU, g0, g1, omega, k * dt)
            worst = max(worst, float(np.max(np.abs(u - exact)) / np.max(np.abs(exact))))
        errors[n] = worst
        res = f"R = {n} dx ({s['fluid_nodes']} nodes, {middle.sum()} in the middle third, tau {s['tau']:.3f}, {per} steps per period)"
        if n == plan[-1][0]:
            records.append(ctx.check("womersley_tilted.phase_error", worst, res, backend=s["backend"]))
    records += ctx.study("womersley_tilted", "worst phase's largest error / its own peak", errors, None, unit="R/dx")
    return records


CHECKS = {"curved_pipe_tilted": curved_pipe_tilted, "womersley_tilted": womersley_tilted}


if __name__ == "__main__":
    for name, plan in (("curved_pipe_tilted", pipe_plan), ("womersley_tilted", womersley_plan)):
        for reduced in (False, True):
            for row in plan(reduced):
                n, steps = row[0], row[3] * (PERIODS if name == "womersley_tilted" else 1)
                length = 9 if name == "curved_pipe_tilted" else 6
                nodes = math.pi * n * n * length * n
                print(f"{name:20} {'reduced' if reduced else 'full':8} R = {n:3} dx: {nodes:.3g} nodes x {steps} "
                      f"steps = {nodes * steps:.3g} updates")
