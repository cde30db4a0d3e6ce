#!/usr/bin/env python3
"""passive_scalar against theory: a Gaussian blob (gaussian.toml) in two settings,

  flow:  the periodic box of gaussian.toml, uniform flow u;
  walls: the same box closed by walls on all six faces (boundaries.periodic = []), fluid
         at rest, the blob centred on the edge x = y = 0: zero flux through the walls
         makes the solution the free Gaussian (a mirror image of itself in both walls),
         a quarter of which lies in the box;

each run by hemoflow at N nodes per box edge for each N of --resolutions, with
lattice.tau fixed, so dt ~ dx^2 (diffusive scaling), to the same physical time T. The
checks, with tolerances fixed before the first run from the analysis in README.md
("Validation", where the numbers it prints are pasted):

  1. mass: |M(t) / M(0) - 1| <= 1e-12 on every row of passive_scalar.csv (fp64);
  2. (flow) centre of mass: |x_c(T) - x_c(0) - u T| <= 1e-3 s0 along each axis;
  3. (flow) variance growth along each axis a, G_a = var_a(T) - var_a(0):
     a. the scheme's exact moment equation (README.md): G_a = 2 D T R_a with
        R_a = (1 - u_a^2 / c_s^2) (1 - (tau - 1) tau (1 - (1 - 1/tau)^n) / ((tau - 1/2) n)),
        u_a in lattice units, n steps: to 1e-4 relative;
     b. theory, G_a = 2 D T: |G_a / (2 D T) - 1| <= 2% (32 / N)^2;
  4. L2 error of C at T against the exact solution (with its nearest periodic or mirror
     images), sqrt(sum (C - C_exact)^2 / sum C_exact^2) <= 1.2% (32 / N)^2;
  5. observed order log2(e(N) / e(2N)) of the L2 error between successive resolutions
     (N doubling): in [1.8, 2.2];
  6. implementation (N <= --reference-max, default 64): C equals the same scheme run
     in numpy (np.roll streaming, bounce-back at the walls; below) to 1e-11 of the
     peak. This checks the code, not the physics.

Exits 1 naming every check that failed. Needs numpy.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tomllib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CASE = os.path.join(HERE, "gaussian.toml")
CS2 = 0.25
C = np.array([[0, 0, 0], [1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]])
W = np.array([0.25] + [0.125] * 6)
OPPOSITE = [0, 2, 1, 4, 3, 6, 5]

with open(CASE, "rb") as f:
    case = tomllib.load(f)
L = case["geometry"]["size"][0]
NU, TAU_F = case["fluid"]["viscosity"], case["lattice"]["tau"]
PS = case["passive_scalar"]
D, S0, PEAK = PS["diffusivity"], PS["width"], PS["peak"]
N0, STEPS0 = round(L / case["lattice"]["dx"]), case["run"]["steps"]
# Each setting: (walls, flow velocity (m/s), blob centre (m), hemoflow --set overrides).
SETTINGS = {
    "flow": (False, np.array(case["initial"]["velocity"]), np.array(PS["centre"]), []),
    "walls": (True, np.zeros(3), np.array([0.0, 0.0, L / 2]),
              ["boundaries.periodic=[]", "initial.velocity=[0.0,0.0,0.0]", f"passive_scalar.centre=[0.0,0.0,{L / 2!r}]"]),
}


def run(hemoflow, n, out, overrides):
    """Runs the case at n nodes per edge; returns (monitor rows, field (n, n, n), dt, steps)."""
    steps = STEPS0 * (n // N0) ** 2  # dt ~ dx^2: the same physical time
    shutil.rmtree(out, ignore_errors=True)
    sets = [f"lattice.dx={L / n!r}", f"run.check_every={steps // 5}"] + overrides
    cmd = [hemoflow, "run", CASE, "--quiet", "--output", out, "--steps", str(steps)] + [a for s in sets for a in ("--set", s)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode}\n{p.stdout}{p.stderr}")
    rows = np.genfromtxt(os.path.join(out, "passive_scalar.csv"), delimiter=",", names=True)
    data = np.loadtxt(os.path.join(out, f"concentration_{steps}.csv"), delimiter=",", skiprows=1)
    field = np.zeros((n, n, n))
    ijk = data[:, :3].astype(int)
    field[ijk[:, 0], ijk[:, 1], ijk[:, 2]] = data[:, 6]
    dx = L / n
    dt = (TAU_F - 0.5) * dx * dx / (3.0 * NU)  # as hemoflow derives it (core/sim/units.cpp)
    if abs(rows["time"][-1] / (steps * dt) - 1) > 1e-9:
        sys.exit(f"FAIL: the monitor's last time {rows['time'][-1]} s is not {steps} x dt = {steps * dt} s")
    return rows, field, dt, steps


def exact(n, t, walls, u, x0):
    """C(x, t) at the voxel centres: the free Gaussian and its images nearest the box,
    periodic (x0 + m L) or, between walls at 0 and L, mirror (2 m L +- x0)."""
    x = (np.arange(n) + 0.5) * (L / n)
    s2 = S0**2 + 2 * D * t
    total = PEAK * (S0**2 / s2) ** 1.5
    for a in range(3):
        centres = {2 * m * L + sign * x0[a] for m in (-1, 0, 1) for sign in (1, -1)} if walls else {x0[a] + m * L for m in (-1, 0, 1)}
        total = np.multiply.outer(total, sum(np.exp(-(x - c - u[a] * t) ** 2 / (2 * s2)) for c in centres))
    return total


def scheme_in_numpy(n, steps, walls, u, x0, tau):
    """The D3Q7 scheme of advection_diffusion.hpp on a box, periodic or walled, in numpy."""
    x = (np.arange(n) + 0.5) * (L / n)
    X = np.meshgrid(x, x, x, indexing="ij")
    d = [X[a] - x0[a] if walls else (X[a] - x0[a]) - L * np.round((X[a] - x0[a]) / L) for a in range(3)]  # as the plugin
    conc = PEAK * np.exp(-(d[0] ** 2 + d[1] ** 2 + d[2] ** 2) / (2 * S0**2))
    feq = lambda c: np.array([W[q] * c * (1 + (C[q] @ u) / CS2) for q in range(7)])
    g = feq(conc)
    for _ in range(steps):
        pulled = []
        for q in range(7):
            gq = np.roll(g[q], shift=tuple(C[q]), axis=(0, 1, 2))  # g_q(x) <- g*_q(x - c_q)
            for a in range(3):
                if walls and C[q][a] != 0:  # x - c_q beyond the wall: bounce-back, g_q(x) <- g*_opp(q)(x)
                    face = tuple(slice(None) if b != a else (0 if C[q][a] > 0 else -1) for b in range(3))
                    gq[face] = g[OPPOSITE[q]][face]
            pulled.append(gq)
        g = np.array(pulled)
        conc = g.sum(axis=0)
        g = g - (g - feq(conc)) / tau
    return conc


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hemoflow", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--resolutions", type=int, nargs="+", default=[32, 64, 128])
    ap.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    ap.add_argument("--reference-max", type=int, default=64, help="largest N checked against the numpy scheme")
    ap.add_argument("--set", action="append", default=[], help="a further --set for hemoflow (lattice.layout=\"bricks\")")
    ap.add_argument("--backend", default="cpu")
    args = ap.parse_args()
    failures = []

    def check(ok, what):
        print(("ok    " if ok else "FAIL  ") + what)
        if not ok:
            failures.append(what)

    for setting in args.settings:
        walls, u, x0, overrides = SETTINGS[setting]
        l2 = []
        for n in args.resolutions:
            out = os.path.join(args.work, f"{setting}_{n}")
            rows, field, dt, steps = run(args.hemoflow, n, out, overrides + args.set + [f'run.backend="{args.backend}"'])
            dx, T = L / n, steps * dt
            tau = 0.5 + D * dt / dx**2 / CS2
            ul = u * dt / dx
            print(f"{setting}, N = {n}: dx = {dx:.4g} m, dt = {dt:.4g} s, {steps} steps to T = {T:.6g} s, tau = {tau:.6g}, "
                  f"lattice u = {np.array2string(ul, precision=4)}")
            mass = rows["mass"]
            drift = max(abs(mass / mass[0] - 1))
            check(drift <= 1e-12, f"{setting} N={n} mass: max |M(t)/M(0) - 1| = {drift:.2e} <= 1e-12")
            # The moments of the flow setting (those of a quarter Gaussian in a corner: not checked).
            for a, axis in [] if walls else enumerate("xyz"):
                centre, var = rows[f"centre_{axis}"], rows[f"variance_{axis}"]
                err = centre[-1] - centre[0] - u[a] * T
                check(abs(err) <= 1e-3 * S0, f"{setting} N={n} centre_{axis}: x_c(T) - x_c(0) - u T = {err:.2e} m "
                      f"({err / S0:.1e} s0) within 1e-3 s0")
                ratio = (var[-1] - var[0]) / (2 * D * T)
                r_scheme = (1 - ul[a] ** 2 / CS2) * (1 - (tau - 1) * tau * (1 - (1 - 1 / tau) ** steps) / ((tau - 0.5) * steps))
                check(abs(ratio / r_scheme - 1) <= 1e-4, f"{setting} N={n} variance_{axis}: growth / 2DT = {ratio:.8f}, the "
                      f"scheme's moment equation {r_scheme:.8f} (to {abs(ratio / r_scheme - 1):.1e} <= 1e-4)")
                bound = 0.02 * (32 / n) ** 2
                check(abs(ratio - 1) <= bound,
                      f"{setting} N={n} variance_{axis}: |growth / 2DT - 1| = {abs(ratio - 1):.3e} <= {bound:.3e}")
            ref = exact(n, T, walls, u, x0)
            e = np.sqrt(((field - ref) ** 2).sum() / (ref**2).sum())
            l2.append(e)
            bound = 0.012 * (32 / n) ** 2
            check(e <= bound, f"{setting} N={n} L2 error vs exact = {e:.4e} <= {bound:.4e}")
            if n <= args.reference_max:
                diff = abs(field - scheme_in_numpy(n, steps, walls, ul, x0, tau)).max() / PEAK
                check(diff <= 1e-11, f"{setting} N={n} implementation: max |C - C_numpy| = {diff:.1e} of the peak <= 1e-11")
        for (n1, e1), (n2, e2) in zip(zip(args.resolutions, l2), zip(args.resolutions[1:], l2[1:])):
            order = np.log(e1 / e2) / np.log(n2 / n1)
            check(1.8 <= order <= 2.2, f"{setting}: observed order of the L2 error, N={n1} -> {n2}: {order:.3f} in [1.8, 2.2]")
    if failures:
        sys.exit(f"{len(failures)} check(s) failed")
    print("all checks passed")


if __name__ == "__main__":
    main()
