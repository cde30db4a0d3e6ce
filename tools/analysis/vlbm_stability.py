#!/usr/bin/env python3
"""Linear stability of lb_vlbm's partial-cell wall: the largest growth factor of one step.

The lattice of tools/analysis/vlbm_wall.py (D3Q19, a plane channel whose two walls cut
their boundary cells at solid fraction P, linearised about rest: the Stokes limit, in
which one step is a linear map of the populations), now with perturbations of any
wavevector (kx, ky) along the walls: a population of layer z is f_q(z) exp(i (kx x + ky y)),
and a pull from x - c_q carries the factor exp(-i (kx c_qx + ky c_qy)). One step is then a
matrix M(kx, ky) of size 19 n; the scheme is linearly stable where every eigenvalue has
|lambda| <= 1 (the conserved particle number gives lambda = 1 at k = 0). The growth factor
max |lambda| over a grid of (kx, ky) in [0, pi]^2 is what the table shows: above 1 + 1e-9
a mode grows, and 1 / ln(max |lambda|) is about how many steps it takes to grow e-fold.

The streaming is lb_vlbm's (plugins/lb_vlbm/kernels.hpp): a pull from a more solid cell x
into y is f_q(y) = (1 - m) f*_q(x) + m f*_opp(y), with the volume share m = phi or the
viscosity-weighted one (physics/partial_volume.hpp); with the weighted share, y gives back
R = sum over its mixed links of (phi - m)(f*_q(x) - f*_opp(y)) (the particle number), in
one of these shapes ("giveback"):
  rest         from its rest population alone (what lb_vlbm does);
  equilibrium  w_q R from each of its 19 incoming populations (tried and dropped,
               plugins/lb_vlbm/README.md);
  rest_after_collision  from its rest population after the collision instead of before
               (R of the same step; not built).
The collisions (BGK, regularized, TRT with Lambda = 3/16) are those of vlbm_wall.py.

A diagnostic of the method (no reference, no verdict). Measured beside it on the CPU
(plugins/lb_vlbm/README.md, a periodic body-force pipe at R = 10 dx, tau 0.5036): BGK with
the rest give-back diverged, regularized and TRT did not; with the equilibrium-shaped one
all three diverged; the volume share ran with BGK.

usage: vlbm_stability.py [--half-width 4] [--k 9] [--out PREFIX]   (PREFIX.md and PREFIX.json)
"""
import argparse
import json

import numpy as np

from vlbm_wall import MIXING, OPP, Q, C, W, collision, link_shares

FRACTIONS = (0.1, 0.25, 0.5, 0.75, 0.9)
TAUS = (1.0, 0.6, 0.53, 0.52, 0.515, 0.51, 0.5036)
CASES = [("bgk", "volume", None), ("bgk", "viscosity_weighted", "rest"), ("bgk", "viscosity_weighted", "equilibrium"),
         ("regularized", "volume", None), ("regularized", "viscosity_weighted", "rest"),
         ("regularized", "viscosity_weighted", "equilibrium"), ("trt", "viscosity_weighted", "rest"),
         ("trt", "viscosity_weighted", "equilibrium"), ("bgk", "viscosity_weighted", "rest_after_collision"),
         ("trt", "viscosity_weighted", "rest_after_collision")]


def streaming(P, tau, mix, kx, ky):
    """(S, R): the streaming of post-collision populations g into the next step's
    pre-collision ones, f = S g (lb_vlbm's mixed pulls), and each layer's excess R(y) as a
    row on g (zero with the volume share), for the wavevector (kx, ky); rows q * n + z."""
    n = len(P)
    row = lambda q, z: q * n + z  # noqa: E731
    S = np.zeros((Q * n, Q * n), dtype=complex)
    R = np.zeros((n, Q * n), dtype=complex)
    for q in range(Q):
        phase = np.exp(-1j * (kx * C[q, 0] + ky * C[q, 1]))
        for y in range(n):
            x, m, phi = link_shares(P, q, y, tau, mix)
            refl = np.zeros(Q * n, dtype=complex)
            refl[row(OPP[q], y)] = 1.0
            if 0 <= x < n:
                pull = np.zeros(Q * n, dtype=complex)
                pull[row(q, x)] = phase
            else:  # a solid x: halfway bounce-back
                pull = refl
            S[row(q, y)] = (1 - m) * pull + m * refl
            R[y] += (phi - m) * (pull - refl)
    return S, R


def step_matrix(P, tau, op, mix, giveback, kx, ky):
    """G with g(t + 1) = G g(t), g the post-collision populations, for (kx, ky)."""
    n = len(P)
    A, _ = collision(tau, op, 0.0)
    collide = np.kron(A, np.eye(n))  # rows q * n + z: A acts on the 19 populations of each layer
    S, R = streaming(P, tau, mix, kx, ky)
    shape = np.zeros((Q * n, n))  # how each layer's R is taken from its populations
    if giveback in ("rest", "rest_after_collision"):
        shape[:n] = np.eye(n)
    elif giveback == "equilibrium":
        shape = np.kron(W[:, None], np.eye(n))
    elif giveback is not None:
        raise ValueError(giveback)
    if giveback == "rest_after_collision":  # taken from the new post-collision rest population
        return collide @ S - shape @ R
    return collide @ (S - shape @ R)


def growth(P_wall, tau, op, mixing, giveback, half_width, ks):
    """max |lambda| over the (kx, ky) grid, and the wavevector where it is reached."""
    n = 2 * half_width
    P = np.zeros(n)
    P[0] = P[-1] = P_wall
    best = (0.0, 0.0, 0.0)
    for kx in ks:
        for ky in ks:
            if ky > kx:  # D3Q19 is symmetric under x <-> y, and so is the channel
                continue
            lam = np.abs(np.linalg.eigvals(step_matrix(P, tau, op, MIXING[mixing], giveback, kx, ky))).max()
            if lam > best[0]:
                best = (float(lam), float(kx), float(ky))
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--half-width", type=int, default=4, help="nodes per half channel (default 4)")
    ap.add_argument("--k", type=int, default=9, help="wavenumbers per axis in [0, pi] (default 9)")
    ap.add_argument("--out", help="write PREFIX.md and PREFIX.json")
    a = ap.parse_args()
    ks = np.linspace(0.0, np.pi, a.k)
    rows = []
    for op, mixing, giveback in CASES:
        for tau in TAUS:
            g = [growth(p, tau, op, mixing, giveback, a.half_width, ks) for p in FRACTIONS]
            rows.append({"collision": op, "mixing": mixing, "giveback": giveback, "tau": tau,
                         "growth": [x[0] for x in g], "k": [[x[1], x[2]] for x in g]})
            print(f"{op:11s} {mixing:18s} {str(giveback):11s} tau {tau:<7g}" +
                  " ".join(f"{x[0]:.6f}" for x in g), flush=True)
    head = "| collision | mixing | give-back | tau | " + " | ".join(f"P = {p:g}" for p in FRACTIONS) + " |"
    lines = [head, "|" + "---|" * (4 + len(FRACTIONS))]
    for r in rows:
        cells = []
        for lam in r["growth"]:
            cells.append(f"**{lam:.6f}**" if lam > 1 + 1e-9 else f"{lam:.6f}")
        lines.append(f"| {r['collision']} | {r['mixing']} | {r['giveback'] or '-'} | {r['tau']:g} | " +
                     " | ".join(cells) + " |")
    table = "\n".join(lines)
    if a.out:
        with open(a.out + ".json", "w") as fh:
            json.dump({"half_width": a.half_width, "k": a.k, "fractions": FRACTIONS, "rows": rows}, fh, indent=1)
        with open(a.out + ".md", "w") as fh:
            fh.write("# Linear stability of lb_vlbm's partial-cell wall\n\n"
                     f"Generated by `tools/analysis/vlbm_stability.py --half-width {a.half_width} --k {a.k} --out "
                     f"{a.out}` (numpy; see the script's header). A plane channel of {2 * a.half_width} nodes, both "
                     "walls cutting their boundary cells at solid fraction P, linearised about rest; each entry is "
                     "the largest |lambda| of one step over wavevectors (kx, ky) on a "
                     f"{a.k} x {a.k} grid in [0, pi]^2 (bold: above 1, a growing mode). A diagnostic, not a "
                     "check.\n\n" + table + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
