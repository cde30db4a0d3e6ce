"""Validation checks of issue 17 item 3: the wall_shear plugin's wall shear stress (WSS)
and its time statistics (OSI) against exact pipe flows.

Each check takes the validate.py Context and returns a list of Records; the references
and tolerances are references.toml's wss_pipe.*, wss_osi.* and wss_womersley.* entries.
With ctx.reduced it runs the small version the test suite runs on two CPU cores
(coarser lattices; the same physics, step counts set the same way); otherwise the
full-size resolutions the entries name, meant for a GPU.

    wss_pipe_axis     body-force periodic pipe along x: mean |WSS| / (rho g R / 2) - 1,
                      its order, and the steady OSI
    wss_pipe_tilted   pipe along (1, 0.5, 0.25), parabolic velocity inlet (Ladd) and
                      pressure outlet (anti-bounce-back): mean |WSS| over the middle
                      third / (2 mu U_max / R) - 1, and its order
    wss_pipe_tilted_vlbm  the same with lb_vlbm's partial cells (geometry.solid_fraction)
    wss_pipe_tilted_vlbm_low_tau  the same at the carotid demo's tau = 0.5036 (Re 333,
                      lattice centre-line velocity 0.05 at the coarsest level): also the
                      surface map's mean (wall_shear_surface.vtk on the pipe's cylinder)
    wss_womersley     periodic pipe, purely oscillating body force (alpha = 6): mean axial
                      WSS at 8 phases against Womersley's tau_w(t), its order, and the
                      OSI (0.5 for a zero-mean WSS)

`python3 tools/validation/wall_shear_checks.py` prints every run's step count and
estimated node updates (full and reduced) without running anything.
"""
import cmath
import math
import os
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "analysis"))
import hemo_output  # noqa: E402

NAN = float("nan")
PLUGINS = ["--set", 'run.plugins=["lb_bgk","boundaries","wall_shear"]']
# The same with lb_vlbm's partial cells (the geometry's solid fractions kept).
VLBM_PLUGINS = ["--set", 'run.plugins=["lb_bgk","lb_vlbm","boundaries","wall_shear"]', "--set",
                "geometry.solid_fraction=true"]


def _stats(out):
    import h5py

    with h5py.File(os.path.join(out, "wall_shear_stats.h5"), "r") as f:
        return {k: f[k][()] for k in f.keys()}, dict(f.attrs)


def _instant(out, step):
    import h5py

    with h5py.File(os.path.join(out, f"wall_shear_{step:08d}.h5"), "r") as f:
        return {k: f[k][()] for k in f.keys()}, dict(f.attrs)


def _announce(label, nodes, steps):
    """Prints a run's size before it starts: the estimated fluid nodes times the steps."""
    print(f"  {label}: ~{nodes:.3g} fluid nodes x {steps} steps = {nodes * steps:.3g} node updates", flush=True)
    return nodes * steps


# --- 1. body-force pipe along x --------------------------------------------------------
# cases/poiseuille_pipe.toml with g / 4 (U_max = 5 mm/s, Re = 1.5): at tau = 1 the case's own
# g gives a lattice Mach number of 0.15 at R = 6 dx (hemoflow warns above 0.1); a quarter of
# it keeps Mach <= 0.04 at every level. Stokes flow (u . grad u = 0 here): the relative WSS
# error does not depend on g otherwise.
R_AXIS, G_AXIS, NU, RHO = 5.0e-4, 1.056 / 4, 3.3e-6, 1060.0
TAU_AXIS = 1.0
E_FOLD_AXIS = R_AXIS ** 2 / (5.783 * NU)   # slowest mode's e-folding time, j_{0,1}^2 = 5.783


def axis_plan(reduced, tau=TAU_AXIS):
    """(nodes per radius, dx, dt, steps, pipe length) per level. tau = 1 at every level (the
    10-node run behind references.toml's tolerance used tau = 1) unless given; dt = (tau -
    1/2) dx^2 / (3 nu); 10 e-folding times from rest (steady to e^-10 = 5e-5); the pipe is
    4 voxels long (periodic: the flow does not vary along it)."""
    plan = []
    for n in ((6, 8, 12) if reduced else (10, 20, 40)):
        dx = R_AXIS / n
        dt = (tau - 0.5) * dx * dx / (3 * NU)
        steps = math.ceil(10 * E_FOLD_AXIS / dt)
        plan.append((n, dx, dt, steps, 4 * dx))
    return plan


def wss_pipe_axis(ctx, vlbm_low_tau=False):
    """Body-force-driven periodic pipe along x (cases/poiseuille_pipe.toml), tau = 1, run 10
    e-folding times R^2 / (5.78 nu) from rest; the statistics window is the last 30%. The
    exact WSS is tau_w = rho g R / 2 (force balance on a cylinder of fluid). Asserted: the
    mean over the wall nodes of the time-averaged |WSS| (TAWSS) / tau_w - 1 at the finest
    level, its observed order over all levels, and the largest OSI (steady flow: 0).
    vlbm_low_tau: the same with lb_vlbm and the pipe's solid fractions at the carotid demo's
    tau = 0.5036 (study wss_pipe_axis_vlbm_low_tau; Stokes flow, Re below 1): a developed
    low-tau flow whose reference holds at any Re; the OSI is not asserted there."""
    study = "wss_pipe_axis_vlbm_low_tau" if vlbm_low_tau else "wss_pipe_axis"
    key = "wss_pipe.axis_vlbm_low_tau" if vlbm_low_tau else "wss_pipe.axis"
    tau = TAU_LOW if vlbm_low_tau else TAU_AXIS
    plugins = VLBM_PLUGINS if vlbm_low_tau else PLUGINS
    records, errors = [], {}
    tau_w = RHO * G_AXIS * R_AXIS / 2
    plan = axis_plan(ctx.reduced, tau)
    for n, dx, dt, steps, length in plan:
        out = os.path.join(ctx.work, f"{study}_R{n}")
        _announce(f"R = {n} dx", math.pi * n * n * 4, steps)
        t_end = steps * dt
        s = ctx.run("poiseuille_pipe.toml", out, "--set", f"lattice.dx={dx!r}", "--set", f"lattice.tau={tau!r}",
                    "--set", f"geometry.length={length!r}", "--set", "output.probe=[]", "--set", "output.final=false",
                    "--set", f"forcing.acceleration=[{G_AXIS!r},0.0,0.0]", "--set", f"run.end_time={t_end!r}", "--steps", str(steps), *plugins,
                    "--set", f"wall_shear.window_start={0.7 * t_end!r}", "--set", "wall_shear.every=0",
                    "--set", f"wall_shear.sample_every={max(1, steps // 200)}")
        res = f"R = {n} dx"
        if s is None:
            records.append(ctx.failed(study, res, f"{key}_finest"))
            continue
        d, attrs = _stats(out)
        res = f"R = {n} dx ({s['fluid_nodes']} nodes, {d['tawss'].size} wall nodes, tau {s['tau']:.3f}, {s['steps']} steps)"
        err = float(d["tawss"].mean() / tau_w - 1)
        errors[n] = err
        records.append(ctx.diagnostic(study, "mean |WSS| at the last step / tau_w - 1 (the window's drift)",
                                      float(d["wss_magnitude"].mean() / tau_w - 1), res))
        records.append(ctx.diagnostic(study, "mean r of the wall nodes / R (their depth inside the wall)",
                                      float(np.mean(np.hypot(d["points"][:, 1], d["points"][:, 2])) / R_AXIS), res))
        if n == plan[-1][0]:
            records.append(ctx.check(f"{key}_finest", err, res, backend=s["backend"]))
            if not vlbm_low_tau:
                records.append(ctx.check("wss_osi.steady", float(d["osi"].max()), res + f", {attrs['samples']} samples",
                                         backend=s["backend"]))
    records += ctx.study(study, "mean |WSS| / tau_w - 1", errors, f"{key}_order", unit="R/dx")
    return records


def wss_pipe_axis_vlbm_low_tau(ctx):
    """wss_pipe_axis with lb_vlbm's partial cells at the carotid demo's tau."""
    return wss_pipe_axis(ctx, vlbm_low_tau=True)


# --- 2. tilted pipe with a velocity inlet and a pressure outlet ----------------------------
R_TILT = 0.008                     # m (cases/pipe_velocity.toml)
AXIS_TILT = np.array([1.0, 0.5, 0.25]) / np.linalg.norm([1.0, 0.5, 0.25])
LEN_TILT = 9 * R_TILT              # the middle third is 3 R long, 3 R from each end
U_TILT = 4.0e-4                    # m/s, centre-line: Re = U_mean D / nu = 0.97; lattice Mach 0.056 at R = 5 dx, tau = 1
TAU_TILT = 1.0
E_FOLD_TILT = R_TILT ** 2 / (5.783 * NU)


# The carotid demo's tau (cases/carotid_pulsatile.toml), where patient runs live: the
# velocity gives the demo's lattice centre-line velocity 0.05 at the coarsest full level
# (R = 8 dx, dt = 3.64e-4 s): Re = U_mean D / nu = 333; lattice velocity ~ dx at fixed tau.
TAU_LOW = 0.5036
U_LOW = 0.05 * (R_TILT / 8) / ((TAU_LOW - 0.5) * (R_TILT / 8) ** 2 / (3 * NU))


def tilted_plan(reduced, tau=TAU_TILT):
    """(nodes per radius, dx, dt, steps) per level: tau fixed (dt ~ dx^2), 12 e-folding
    times R^2 / (5.78 nu) (the inlet ramps over the first 0.5 of one)."""
    plan = []
    for n in ((5, 6, 8) if reduced else (8, 12, 24)):
        dx = R_TILT / n
        dt = (tau - 0.5) * dx * dx / (3 * NU)
        plan.append((n, dx, dt, math.ceil(12 * E_FOLD_TILT / dt)))
    return plan


def _surface_middle_mean(out, a, length):
    """Area-weighted mean TAWSS of the surface map's triangles whose centroid lies in the
    middle third along the axis a (wall_shear_surface.vtk)."""
    points, tris, cells = hemo_output.surface_statistics(out)
    area, centroid = hemo_output.triangle_areas_centroids(points, tris)
    middle = np.abs(centroid @ a) <= length / 6
    return float(np.sum(area[middle] * cells["tawss"][middle]) / area[middle].sum())


def wss_pipe_tilted(ctx, vlbm=False, low_tau=False):
    """A pipe 9 R long along (1, 0.5, 0.25) (geometry.shape = "pipe", geometry.axis), with
    the parabolic velocity inlet of cases/pipe_velocity.toml (Ladd, U_max = 0.4 mm/s, Re 1)
    and an anti-bounce-back pressure outlet, both on planes normal to the tilted axis.
    tau = 1 at every level, 12 e-folding times from rest; statistics window the last 25%.
    The exact WSS of the imposed flow is tau_w = 2 mu U_max / R (U_max as imposed at the
    inlet's link midpoints). Asserted: the mean TAWSS over the wall nodes whose axial
    position is in the middle third / tau_w - 1 at the finest level, and its order.
    vlbm: the same with lb_vlbm and the pipe's solid fractions (study wss_pipe_tilted_vlbm).
    low_tau: with lb_vlbm at tau = 0.5036 and U_max = U_LOW (Re 333; study
    wss_pipe_tilted_vlbm_low_tau), where a wall node's stress depends on its depth below
    the surface (plugins/wall_shear/README.md); also asserted there: the surface map's
    area-weighted mean TAWSS over the middle third / tau_w - 1 at the finest level."""
    study = "wss_pipe_tilted_vlbm" if vlbm else "wss_pipe_tilted"
    key = "wss_pipe.tilted_vlbm" if vlbm else "wss_pipe.tilted"
    tau, u_max = (TAU_LOW, U_LOW) if low_tau else (TAU_TILT, U_TILT)
    if low_tau:
        study, key = study + "_low_tau", key + "_low_tau"
    plugins = VLBM_PLUGINS if vlbm else PLUGINS
    records, errors = [], {}
    mu = RHO * NU
    tau_w = 2 * mu * u_max / R_TILT
    plan = tilted_plan(ctx.reduced, tau)
    a = AXIS_TILT
    cin, cout = -0.5 * LEN_TILT * a, 0.5 * LEN_TILT * a

    def vec(v):
        return "[" + ",".join(repr(float(x)) for x in v) + "]"

    for n, dx, dt, steps in plan:
        out = os.path.join(ctx.work, f"{study}_R{n}")
        _announce(f"R = {n} dx", math.pi * n * n * 9 * n, steps)
        t_end = steps * dt
        s = ctx.run("pipe_velocity.toml", out, "--set", f"lattice.dx={dx!r}", "--set", f"lattice.dt={dt!r}",
                    "--set", f"geometry.radius={R_TILT!r}", "--set", f"geometry.length={LEN_TILT!r}",
                    "--set", "geometry.axis=[1.0,0.5,0.25]", "--set", "geometry.center=[0.0,0.0,0.0]",
                    "--set", f"boundaries.iolet.0.center={vec(cin)}", "--set", f"boundaries.iolet.0.normal={vec(-a)}",
                    "--set", f"boundaries.iolet.0.radius={R_TILT!r}", "--set", f"boundaries.iolet.0.velocity={u_max!r}",
                    "--set", f"flow.reference_velocity={u_max!r}",
                    "--set", 'boundaries.iolet.0.model="ladd"', "--set", f"boundaries.iolet.0.ramp={0.5 * E_FOLD_TILT!r}",
                    "--set", f"boundaries.iolet.1.center={vec(cout)}", "--set", f"boundaries.iolet.1.normal={vec(a)}",
                    "--set", f"boundaries.iolet.1.radius={R_TILT!r}", "--set", 'boundaries.iolet.1.model="anti_bounce_back"',
                    "--set", "output.probe=[]", "--set", f"run.end_time={t_end!r}", "--steps", str(steps),
                    "--set", f"run.check_every={max(1, steps // 20)}", *plugins,
                    "--set", f"wall_shear.window_start={0.75 * t_end!r}", "--set", "wall_shear.every=0",
                    "--set", f"wall_shear.sample_every={max(1, steps // 200)}")
        res = f"R = {n} dx"
        if s is None:
            records.append(ctx.failed(study, res, key + "_finest"))
            continue
        d, attrs = _stats(out)
        p = d["points"]
        along = p @ a
        radial = np.linalg.norm(p - np.outer(along, a), axis=1)
        middle = np.abs(along) <= LEN_TILT / 6
        res = (f"R = {n} dx ({s['fluid_nodes']} nodes, {middle.sum()} of {middle.size} wall nodes in the middle third, "
               f"tau {s['tau']:.3f}, {s['steps']} steps)")
        err = float(d["tawss"][middle].mean() / tau_w - 1)
        errors[n] = err
        records.append(ctx.diagnostic(study, "middle third: mean |WSS| at the last step / tau_w - 1",
                                      float(d["wss_magnitude"][middle].mean() / tau_w - 1), res))
        records.append(ctx.diagnostic(study, "middle third: mean r of the wall nodes / R",
                                      float(radial[middle].mean() / R_TILT), res))
        # How a node's TAWSS depends on its depth below the surface: the deepest third of
        # the middle third's wall nodes against the shallowest third.
        depth = R_TILT - radial[middle]
        thirds = np.array_split(np.argsort(depth), 3)
        records.append(ctx.diagnostic(study, "middle third: mean TAWSS of the deepest third of the wall nodes / of "
                                             "the shallowest third", float(d["tawss"][middle][thirds[2]].mean() /
                                                                           d["tawss"][middle][thirds[0]].mean()), res))
        if low_tau:
            surface = _surface_middle_mean(out, a, LEN_TILT) / tau_w - 1
            records.append(ctx.diagnostic(study, "surface map: area-weighted mean TAWSS over the middle third / tau_w - 1",
                                          surface, res))
            if n == plan[-1][0]:
                records.append(ctx.check(key + "_surface_finest", surface, res, backend=s["backend"]))
        flow = d["mean_wss"][middle] @ a / np.maximum(np.linalg.norm(d["mean_wss"][middle], axis=1), 1e-300)
        records.append(ctx.diagnostic(study, "middle third: smallest cosine of the mean WSS with the axis",
                                      float(flow.min()), res))
        if n == plan[-1][0]:
            records.append(ctx.check(key + "_finest", err, res, backend=s["backend"]))
            if ctx.reduced and not vlbm:  # references.toml [wss_pipe.tilted_reduced]: the test suite's check
                records.append(ctx.check("wss_pipe.tilted_reduced", err, res, backend=s["backend"]))
    records += ctx.study(study, "middle third: mean |WSS| / tau_w - 1", errors, key + "_order", unit="R/dx")
    return records


# --- 3. Womersley: purely oscillating body force -----------------------------------------
R_WOM = 0.008                       # m (cases/womersley.toml)
G1_WOM = 3.7125e-3                  # m/s^2: the drive's amplitude, g(t) = g1 cos(2 pi t / T)
T_WOM = 3.3848809735647603          # s: alpha = R sqrt(2 pi / (T nu)) = 6
PERIODS_WOM, WINDOW_WOM = 8, 2      # run 8 periods (the start-up decays as e^{-t / 3.36 s}), window the last 2


def womersley_wall_shear(t, R=R_WOM, nu=NU, rho=RHO, g1=G1_WOM, period=T_WOM):
    """Exact WSS (Pa, along the axis) of Womersley flow driven by g1 cos(omega t).
    Womersley (J. Physiol. 127, 553 (1955)); physics/womersley.hpp: u = Re[A(r) e^{i omega t}],
    A(r) = (g1 / (i omega)) [1 - J0(k r) / J0(k R)], k = i^{3/2} sqrt(omega / nu). With
    J0' = -J1, A'(R) = (g1 / (i omega)) k J1(kR) / J0(kR), and the stress the fluid exerts on
    the wall along the axis is tau_w = -mu du/dr at r = R:
        tau_w(t) = Re[-mu (g1 / (i omega)) k J1(kR) / J0(kR) e^{i omega t}].
    (omega -> 0 gives rho g1 R / 2, the Poiseuille value.) J0 and J1 by their power series
    (as physics/womersley.hpp; |kR| = 6 needs ~20 terms). Returns (tau_w(t), its complex
    amplitude)."""
    omega = 2 * math.pi / period
    k = cmath.exp(0.75j * math.pi) * math.sqrt(omega / nu)
    z = k * R
    s = z * z / 4
    j0, j1, t0, t1 = 0j, 0j, 1 + 0j, 1 + 0j
    for m in range(80):
        if m:
            t0 *= -s / (m * m)
            t1 *= -s / (m * (m + 1))
        j0 += t0
        j1 += t1
    j1 *= z / 2
    amp = -rho * nu * (g1 / (1j * omega)) * k * j1 / j0
    return np.real(amp * np.exp(1j * omega * np.asarray(t))), amp


def womersley_plan(reduced):
    """(nodes per radius, dx, dt, steps per period) per level: steps per period a multiple
    of 8 (8 phases on whole steps) near 448 (R / 16 dx)^2, which keeps tau near 0.8
    (dt ~ dx^2) as cases/womersley.toml does at 16 nodes per radius."""
    plan = []
    for n in ((6, 8, 12) if reduced else (8, 16, 32)):
        per = 8 * max(1, round(448 * (n / 16) ** 2 / 8))
        plan.append((n, R_WOM / n, T_WOM / per, per))
    return plan


def wss_womersley(ctx):
    """cases/womersley.toml (alpha = 6, R = 8 mm, a periodic pipe 2 mm long) with the mean
    drive removed (forcing.acceleration = 0): g(t) = g1 cos(2 pi t / T). 8 periods; the
    slowest start-up mode decays as e^{-t / 3.36 s}, about e^-1 per period. Every T/8 steps
    the instantaneous WSS is written: at the 8 phases of the last period, the mean axial WSS
    over the wall nodes against Womersley's tau_w(t) (womersley_wall_shear), the largest
    difference / the period's peak |tau_w|. The statistics window is the last 2 periods
    (whole periods of samples, every step). Asserted: the finest level's error, its order,
    and the largest |OSI - 0.5| at the finest level."""
    records, errors = [], {}
    plan = womersley_plan(ctx.reduced)
    _, amp = womersley_wall_shear(0.0)
    peak = abs(amp)
    for n, dx, dt, per in plan:
        out = os.path.join(ctx.work, f"wss_womersley_R{n}")
        steps = PERIODS_WOM * per
        length = max(4 * dx, 0.002)
        _announce(f"R = {n} dx", math.pi * n * n * length / dx, steps)
        # Samples at steps > steps - WINDOW_WOM * per: exactly WINDOW_WOM whole periods (the
        # window opens half a step after the step before them).
        start = (steps - WINDOW_WOM * per + 0.5) * dt
        s = ctx.run("womersley.toml", out, "--set", f"lattice.dx={dx!r}", "--set", f"lattice.dt={dt!r}",
                    "--set", f"geometry.length={length!r}", "--set", "forcing.acceleration=[0.0,0.0,0.0]",
                    "--steps", str(steps), "--set", "output.every=0", "--set", f"run.check_every={per // 8}", *PLUGINS,
                    "--set", f"wall_shear.every={per // 8}", "--set", f"wall_shear.window_start={start!r}",
                    "--set", "wall_shear.sample_every=1")
        res = f"R = {n} dx, {per} steps per period"
        if s is None:
            records.append(ctx.failed("wss_womersley", res, "wss_womersley.phase_error"))
            continue
        res = f"R = {n} dx ({s['fluid_nodes']} nodes, {per} steps per period, tau {s['tau']:.3f})"
        worst = 0.0
        phases = [steps - per + k * per // 8 for k in range(1, 9)]
        if not all(os.path.exists(os.path.join(out, f"wall_shear_{p:08d}.h5")) for p in phases):
            records.append(ctx.failed("wss_womersley", res + ": the last period's wall_shear files are missing",
                                      "wss_womersley.phase_error"))
            continue
        for step in phases:
            d, attrs = _instant(out, step)
            exact, _ = womersley_wall_shear(float(attrs["time"]))
            worst = max(worst, abs(float(d["wss"][:, 0].mean()) - float(exact)))
        errors[n] = worst / peak
        d, attrs = _stats(out)
        osi = float(np.max(np.abs(d["osi"] - 0.5)))
        records.append(ctx.diagnostic("wss_womersley", "largest |OSI - 0.5| over the wall nodes", osi,
                                      res + f", {attrs['samples']} samples"))
        if n == plan[-1][0]:
            records.append(ctx.check("wss_womersley.phase_error", errors[n], res, backend=s["backend"]))
            records.append(ctx.check("wss_osi.oscillating", float(d["osi"][np.argmax(np.abs(d["osi"] - 0.5))]),
                                     res + f", {attrs['samples']} samples", backend=s["backend"]))
    records += ctx.study("wss_womersley", "worst phase's mean axial WSS error / peak tau_w", errors,
                         "wss_womersley.order", unit="R/dx")
    return records


def wss_pipe_tilted_vlbm(ctx):
    """wss_pipe_tilted with lb_vlbm's partial cells."""
    return wss_pipe_tilted(ctx, vlbm=True)


def wss_pipe_tilted_vlbm_low_tau(ctx):
    """wss_pipe_tilted with lb_vlbm's partial cells at the carotid demo's tau."""
    return wss_pipe_tilted(ctx, vlbm=True, low_tau=True)


CHECKS = {"wss_pipe_axis": wss_pipe_axis, "wss_pipe_axis_vlbm_low_tau": wss_pipe_axis_vlbm_low_tau,
          "wss_pipe_tilted": wss_pipe_tilted, "wss_pipe_tilted_vlbm": wss_pipe_tilted_vlbm,
          "wss_pipe_tilted_vlbm_low_tau": wss_pipe_tilted_vlbm_low_tau, "wss_womersley": wss_womersley}
# What each study's rows depend on besides validate.py's BASE_SOURCES (hemoflow's core, the
# lb_bgk and boundaries plugins): its case, the plugins its runs add, this module.
SOURCES = {
    "wss_pipe_axis": ["cases/poiseuille_pipe.toml", "plugins/wall_shear/", "tools/validation/wall_shear_checks.py"],
    "wss_pipe_axis_vlbm_low_tau": ["cases/poiseuille_pipe.toml", "plugins/wall_shear/", "plugins/lb_vlbm/",
                                   "tools/validation/wall_shear_checks.py"],
    "wss_pipe_tilted": ["cases/pipe_velocity.toml", "plugins/wall_shear/", "tools/validation/wall_shear_checks.py"],
    "wss_pipe_tilted_vlbm": ["cases/pipe_velocity.toml", "plugins/wall_shear/", "plugins/lb_vlbm/",
                             "tools/validation/wall_shear_checks.py"],
    "wss_pipe_tilted_vlbm_low_tau": ["cases/pipe_velocity.toml", "plugins/wall_shear/", "plugins/lb_vlbm/",
                                     "tools/validation/wall_shear_checks.py"],
    "wss_womersley": ["cases/womersley.toml", "plugins/wall_shear/", "tools/validation/wall_shear_checks.py"],
}


def estimate():
    """Steps and node updates of every run, full and reduced (nothing runs)."""
    for reduced in (False, True):
        total = 0.0
        print("reduced (CPU)" if reduced else "full (GPU)")
        for n, dx, dt, steps, length in axis_plan(reduced):
            total += _announce(f"wss_pipe_axis   R = {n:2d} dx", math.pi * n * n * 4, steps)
        for n, dx, dt, steps, length in axis_plan(reduced, TAU_LOW):
            total += _announce(f"wss_pipe_axis_vlbm_low_tau R = {n:2d} dx", math.pi * n * n * 4, steps)
        for n, dx, dt, steps in tilted_plan(reduced):
            total += _announce(f"wss_pipe_tilted R = {n:2d} dx", math.pi * n * n * 9 * n, steps)
        for n, dx, dt, steps in tilted_plan(reduced, TAU_LOW):
            total += _announce(f"wss_pipe_tilted_vlbm_low_tau R = {n:2d} dx", math.pi * n * n * 9 * n, steps)
        for n, dx, dt, per in womersley_plan(reduced):
            total += _announce(f"wss_womersley   R = {n:2d} dx", math.pi * n * n * max(4 * dx, 0.002) / dx,
                               PERIODS_WOM * per)
        print(f"  total {total:.3g} node updates ({total / 16e9:.2g} s at 16 G node updates/s)")


if __name__ == "__main__":
    sys.exit(estimate())
