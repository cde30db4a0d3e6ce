"""Validation checks against published or independent references: the lid-driven cavity
at Re 1000 (Albensoeder & Kuhlmann 2005) and the bifurcation's flow split at blood's
viscosity (against a converged finer run).

Each check takes the validate.py Context and returns a list of Records; ctx.reduced
selects the small CPU version the test suite runs. Every accuracy check is a study over
three resolutions (issue 10): the error at each level, the observed order from a
least-squares fit, and the check at the finest level.
"""
import math
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "analysis"))
import bifurcation as bifurcation_analysis  # noqa: E402
import cavity as cavity_analysis  # noqa: E402
import hemo_output  # noqa: E402
from iolet_checks import _plot  # noqa: E402

NAN = float("nan")

# --- lid-driven cube, Re = 1000 (cases/cavity_re1000.toml) ---------------------------------
CAVITY_L = 0.01            # m, edge of the cube
CAVITY_U = 0.33            # m/s, lid speed (Re = U L / nu = 1000 with nu = 3.3e-6)
CAVITY_U_LATTICE = 0.1     # lid speed in lattice units, the same at every level
CAVITY_PASSAGES = 40       # lid passages L / U simulated, as the case does
# Edges in nodes. Cost on an H200 (fp32, ~2.5e9 lattice updates/s), nodes x steps with
# steps = 40 N / 0.1 = 400 N: 96^3 x 38400 = 3.4e10, 128^3 x 51200 = 1.07e11,
# 152^3 x 60800 = 2.14e11; 3.55e11 updates, about 142 s per collision operator
# (160^3 as the finest would make it 161 s).
CAVITY_LEVELS = (96, 128, 152)


def _cavity_symmetry(ctx):
    """Reduced version: Re = 100 at 24^3 (cases/lid_driven_cavity.toml, 3000 steps),
    checking that the flow keeps the mirror symmetry about the mid-span plane y = L/2
    that the problem has. No published tabulated 3-D Re = 100 profile is available here,
    and a self-convergence study cannot see a viscosity or wall-rule error that is the
    same at every level, so the reduced run asserts the symmetry only; the accuracy of
    the viscosity and of the bounce-back walls is asserted at CPU size by the Poiseuille,
    pipe and Womersley checks."""
    import numpy as np

    out = os.path.join(ctx.work, "cavity_re100")
    s = ctx.run("lid_driven_cavity.toml", out, "--set", "lattice.dx=4.1666666666666665e-05", "--steps", "3000",
                "--set", "output.probe=[]")
    if s is None:
        return [ctx.failed("cavity_re100", "24^3", "cavity_re100.symmetry")]
    coords, data = hemo_output.fields(out)
    u = data["velocity"]
    mirror = coords.copy()
    mirror[:, 1] = 1e-3 - coords[:, 1]
    index = {tuple(np.round(c * 1e7).astype(int)): i for i, c in enumerate(coords)}
    partner = np.array([index[tuple(np.round(m * 1e7).astype(int))] for m in mirror])
    asym = float(np.max(np.abs(u[:, 1] + u[partner, 1])) / np.max(np.abs(u)))
    return [ctx.check("cavity_re100.symmetry", asym, f"24^3 ({s['fluid_nodes']} nodes, tau {s['tau']:.3f}, "
                      f"{s['steps']} steps)", backend=s["backend"])]


def cavity(ctx):
    """Lid-driven cube at Re = 1000 against Albensoeder & Kuhlmann (2005), Tables 5-6, at
    96^3, 128^3 and 152^3: the lattice lid speed is 0.1 at every level (so tau = 0.5 +
    3 * 0.1 * N / 1000: 0.529, 0.538, 0.546) and each level runs 40 lid passages L / U.
    Rows: the largest centre-line difference / U at each level and its observed order
    (a diagnostic: the lid's corners, where the wall velocity jumps, are singular, so the
    scheme's second order does not carry over to the flow and there is no theoretical
    order to assert), the finest level's difference against 2% of U
    (cavity.centreline_max), the finest over the coarsest difference (cavity.converges:
    the difference must fall with resolution), the RMS difference and the minimum u_x on
    the vertical line as diagnostics, and how steady each level is at the end (the
    largest change of the centre-line probes over the last 5 lid passages, / U).

    The reduced version (test suite, CPU) checks the Re = 100 flow's mirror symmetry
    only: see _cavity_symmetry."""
    if ctx.reduced:
        return _cavity_symmetry(ctx)
    records, errors, results = [], {}, {}
    for n in CAVITY_LEVELS:
        dx = CAVITY_L / n
        dt = CAVITY_U_LATTICE * dx / CAVITY_U
        steps = round(CAVITY_PASSAGES * n / CAVITY_U_LATTICE)
        every = steps // 8  # probe records every 5 lid passages
        out = os.path.join(ctx.work, f"cavity_re1000_{n}")
        s = ctx.run("cavity_re1000.toml", out, "--set", f"lattice.dx={dx!r}", "--set", f"lattice.dt={dt!r}",
                    "--steps", str(steps), "--set", f"output.probe.0.every={every}",
                    "--set", f"output.probe.1.every={every}", "--set", "run.check_every=2000")
        if s is None:
            records.append(ctx.failed("cavity_re1000", f"{n}^3", "cavity.centreline_max" if n == CAVITY_LEVELS[-1]
                                      else None))
            continue
        r = cavity_analysis.analyse(out)
        res = f"{n}^3 (tau {s['tau']:.4f}, {s['steps']} steps)"
        r["resolution"], r["backend"] = res, s["backend"]
        errors[n], results[n] = r["max_error"], r
        change, _ = cavity_analysis.steadiness(out)  # probe records 5 lid passages apart
        records.append(ctx.diagnostic("cavity_re1000", "largest change of the centre-line velocities over the last "
                                      "5 lid passages / U (steadiness)", change, res, backend=s["backend"]))
    records += ctx.study("cavity_re1000", "centre-line velocities, largest difference / U (Albensoeder & Kuhlmann)",
                         errors, unit="N")
    finest, coarsest = CAVITY_LEVELS[-1], CAVITY_LEVELS[0]
    if finest not in results:
        return records  # its failed row is in records already
    r = results[finest]
    src = "Albensoeder & Kuhlmann 2005, Tables 5-6"
    records.append(ctx.check("cavity.centreline_max", r["max_error"], r["resolution"], backend=r["backend"]))
    if coarsest in errors:
        records.append(ctx.check("cavity.converges", errors[finest] / errors[coarsest], f"N = {coarsest} -> {finest}",
                                 backend=r["backend"]))
    else:
        records.append(ctx.failed("cavity_re1000", f"N = {coarsest} -> {finest}", "cavity.converges"))
    records += [ctx.diagnostic("cavity_re1000", "centre-line velocities, RMS difference / U", r["rms_error"],
                               r["resolution"], 0.0, src, r["rms_error"], r["backend"]),
                ctx.diagnostic("cavity_re1000", "minimum u_x / U on the vertical centre line", r["u_min_vertical"],
                               r["resolution"], r["u_min_vertical_reference"], src,
                               r["u_min_vertical"] - r["u_min_vertical_reference"], r["backend"])]
    _plot(ctx, cavity_analysis.plot, r, "cavity_re1000.png", "Lid-driven cavity, Re = 1000")
    return records


# --- bifurcation (cases/bifurcation.toml) --------------------------------------------------
BIF_R = 1.0e-3             # m, parent radius
BIF_U = 0.1                # m/s, the inlet's centre-line velocity
# The tree's voxel grid starts at its bounding box, y from -H/2 to H/2 with H = 2 (L sin 30
# deg + r_branch) = 13.588 mm. Its nodes are mirror images about the bifurcation plane
# y = 0 only when H / dx is an integer M; otherwise the two branches are voxelized
# differently, and since Q_upper - Q_lower is about 5% of the inflow, a branch-conductance
# asymmetry of 0.5% moves it by 5% (at R = 5, 14% between an asymmetric and a symmetric
# lattice). So each level's dx = H / M, the parent radius being R / dx = M / 13.588 nodes.
BIF_H = 2 * (1.2e-2 * math.sin(math.radians(30.0)) + 0.794e-3)
# Full size: blood (nu = 3.3e-6, Re = U_max D / nu = 61), 0.8 s (the case's 1.5 s is five
# viscous times R^2 / nu; at R / dx = 10 the split was steady to 1e-6 by 0.5 s, CPU run of
# 2026-11-23, so 0.8 s saves 45% of the cost) and the case's ramp, its outlets 2 Pa apart, u_lattice = 0.05 (Mach u / c_s = 0.087;
# the inlet pressure, about 40 Pa, is 3% of rho c_s^2) so dt = 0.5 dx and tau = 0.5 +
# 0.0495 R/dx / 10. M = 136, 190, 272 for the study (R / dx = 10.0, 14.0, 20.0; tau 0.550,
# 0.569, 0.599) and 380 for the reference run (R / dx = 28.0, tau 0.638). Fluid nodes
# (hemoflow --steps 1 at R / dx = 10, 14, 20, 28) x steps (3000 R/dx): 84,416 x 30,000 =
# 2.5e9; 230,374 x 42,000 = 9.7e9; 672,878 x 60,000 = 4.0e10; 1,840,688 x 84,000 =
# 1.55e11. In all 2.1e11 updates, about 175 s per collision operator on an H200 in fp64
# (~1.2e9 updates/s); a reference at R = 32 (2,744,942 x 96,000 = 2.6e11) would make it
# 270 s.
BIF_FULL = dict(levels=(136, 190, 272), reference=380, viscosity=3.3e-6, dp=2.0, end_time=0.8, ramp=0.1,
                u_lattice=0.05)
# Reduced (CPU): a fluid six times as viscous (nu = 2e-5, Re = 10), the outlet pressure
# difference scaled with the viscosity (12 Pa: the branches' Poiseuille split is again 4.7%
# of the inflow), u_lattice = 0.025 (the inlet pressure, about 240 Pa, is 4% of rho c_s^2;
# at 0.05 it would be 17%) so dt = 0.25 dx and tau = 0.5 + 0.015 R/dx: 0.605, 0.628,
# 0.650 and 0.710 (reference). 0.12 s: the inflow reaches the outlets and the tree fills by
# then (imbalance below 1e-4, split steady to 1e-5 at R = 5). M = 95, 116, 136 (R / dx =
# 7.0, 8.5, 10.0) and 190 for the reference (14.0). Fluid nodes x steps (480 R/dx): 28,675 x
# 3,360; 52,030 x 4,100; 84,546 x 4,800; 229,782 x 6,710: 2.3e9 updates, 3 minutes on two
# idle cores (1.1e7 to 1.8e7 updates/s). Coarser levels do not converge to 5%: at R = 5, 6,
# 7 against R = 10 the split was 12.4%, 8.3% and 9.5% low.
BIF_REDUCED = dict(levels=(95, 116, 136), reference=190, viscosity=2.0e-5, dp=12.0, end_time=0.12, ramp=0.03,
                   u_lattice=0.025)


def bifurcation(ctx):
    """Flow split of the bifurcation against a converged finer run of the same case.

    The quantity is Q_upper - Q_lower, the difference of the two outflows that the
    outlets' pressure difference drives (tools/analysis/bifurcation.py). Its reference is
    the same case on a finer lattice (parent radius R = 28 nodes at full size), not a
    resistance network: at Re = 61 the branches' entrance and junction losses are a
    sizeable part of their resistance, and a network's entrance-length correction is an
    empirical fit whose own uncertainty is of the order of the 5% to be checked. The
    finer run still differs from the converged solution; the rows show by how much: the
    relative difference to the reference at R = 10, 14 and 20 nodes, its observed order,
    and from these the Richardson estimate of the reference run's own error. Each level
    keeps u_lattice fixed (dt proportional to dx: the physical sound speed, hence the
    compressible transient, is the same at every level), so the study converges in dx at
    a fixed Mach number, whose O(Ma^2) error is common to the levels and the reference.
    Each level's dx makes the lattice mirror-symmetric about the bifurcation plane
    (BIF_H).

    Rows: bifurcation.mass at every level and at the reference (check); the study of
    the split's relative difference to the reference (diagnostics, observed order);
    bifurcation.split at the finest study level against the reference run's value
    (check); the reference run's split against the Poiseuille network, (p_lower -
    p_upper) / R_branch with R_branch = 8 mu L / (pi r^4) (diagnostic); how steady each
    run's split is (its change over the last 10% of the run).

    The reduced version runs the same structure at R = 7, 8.5, 10 nodes with a reference
    at R = 14, for a fluid six times as viscous (Re = 10) and the pressure difference scaled
    with the viscosity (BIF_REDUCED). A self-convergence check sees errors that change
    with the resolution (e.g. a wall rule that misplaces the wall by a fraction of dx);
    an error that is the same at every level (a wrong viscosity, an outlet pressure off
    by 5%) it cannot see: the pipe and pressure-rule checks assert those."""
    p = BIF_REDUCED if ctx.reduced else BIF_FULL
    records, split, results = [], {}, {}
    nodes = {m: round(m * BIF_R / BIF_H, 2) for m in (*p["levels"], p["reference"])}  # R / dx
    for m in (*p["levels"], p["reference"]):
        dx = BIF_H / m
        dt = p["u_lattice"] * dx / BIF_U
        steps = math.ceil(p["end_time"] / dt - 1e-9)
        out = os.path.join(ctx.work, f"bifurcation_M{m}")
        s = ctx.run("bifurcation.toml", out, "--set", f"lattice.dx={dx!r}", "--set", f"lattice.dt={dt!r}",
                    "--set", f"fluid.viscosity={p['viscosity']!r}", "--set", f"run.end_time={p['end_time']!r}",
                    "--set", f"boundaries.iolet.0.ramp={p['ramp']!r}",
                    "--set", f"boundaries.iolet.2.pressure={p['dp']!r}",
                    "--set", f"run.check_every={max(1, steps // 40)}")
        n = nodes[m]
        label = "reference run, " if m == p["reference"] else ""
        if s is None:
            records.append(ctx.failed("bifurcation", f"{label}R = {n} dx", "bifurcation.mass"))
            continue
        r = bifurcation_analysis.analyse(out)
        res = (f"{label}R = {n:g} dx ({s['fluid_nodes']} nodes, tau {s['tau']:.3f}, {s['steps']} steps), "
               f"Re = {s['reynolds']:.0f}")
        r["resolution"], r["backend"] = res, s["backend"]
        split[n], results[n] = r["split_difference"], r
        records.append(ctx.check("bifurcation.mass", r["imbalance"], res, backend=s["backend"]))
        records.append(ctx.diagnostic("bifurcation", "change of Q_upper - Q_lower over the last 10% of the run "
                                      "(relative; steadiness)", bifurcation_analysis.split_change(out), res,
                                      backend=s["backend"]))
    ref_n, finest = nodes[p["reference"]], nodes[p["levels"][-1]]
    if ref_n not in split:
        records.append(ctx.failed("bifurcation", f"R = {finest:g} dx against R = {ref_n:g} dx", "bifurcation.split"))
        return records
    ref = split[ref_n]
    rel = {nodes[m]: split[nodes[m]] / ref - 1 for m in p["levels"] if nodes[m] in split}
    records += ctx.study("bifurcation", f"(Q_upper - Q_lower) / that of the reference run (R = {ref_n:g} dx) - 1",
                         rel, unit="R/dx")
    order = records[-1].value
    if finest in split:
        r = results[finest]
        records.append(ctx.check("bifurcation.split", split[finest], r["resolution"], reference=ref,
                                 backend=r["backend"],
                                 quantity=f"Q_upper - Q_lower [m^3/s] at the finest study resolution, against the "
                                          f"reference run (R = {ref_n:g} dx)"))
        # If split_N = split_exact + C N^-p, the reference's own error is
        # (split_finest - split_ref) / ((ref_n / finest)^p - 1).
        est = rel[finest] / ((ref_n / finest) ** order - 1) if order == order and order > 0 else NAN
        records.append(ctx.diagnostic("bifurcation", "estimated relative error of the reference run (Richardson, "
                                      "with the observed order)", est, f"R = {finest:g}, {ref_n:g} dx", backend=r["backend"]))
    else:
        records.append(ctx.failed("bifurcation", f"R = {finest:g} dx", "bifurcation.split"))
    r = results[ref_n]
    records.append(ctx.diagnostic("bifurcation", "Q_upper - Q_lower [m^3/s] of the reference run against the "
                                  "Poiseuille network", r["split_difference"], r["resolution"],
                                  r["split_difference_predicted"],
                                  "Poiseuille resistance of a branch, 8 mu L / (pi r^4); no entrance or junction losses",
                                  r["split_error"], r["backend"]))
    return records


CHECKS = {"cavity": cavity, "bifurcation": bifurcation}
# What each study's rows depend on besides validate.py's BASE_SOURCES (hemoflow's core, the
# lb_bgk and boundaries plugins): its cases (the reduced cavity runs the lid-driven box), this
# module, the analysis it reads and iolet_checks.py's plotting.
SOURCES = {
    "cavity": ["cases/cavity_re1000.toml", "cases/lid_driven_cavity.toml", "tools/validation/reference_cases.py",
               "tools/analysis/cavity.py", "tools/validation/iolet_checks.py"],
    "bifurcation": ["cases/bifurcation.toml", "tools/validation/reference_cases.py", "tools/analysis/bifurcation.py"],
}
