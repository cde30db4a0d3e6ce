#!/usr/bin/env python3
"""Where lb_vlbm's partial-cell wall sits, by tau, solid fraction and mixing rule.

Plane Poiseuille flow between two walls that cut their boundary cells at solid fraction P
(the wall at z = -1/2 + P of node 0, cells [z - 1/2, z + 1/2]), driven by a body force
along x, on D3Q19 reduced to one dimension (every node of a layer alike). In the Stokes
limit (no u u terms, rho ~ 1 in the momentum) one step is an affine map of the
populations, so the steady state is solved exactly as a linear system, with the particle
number sum (1 - P) sum_q f fixed. The streaming is lb_vlbm's (plugins/lb_vlbm/kernels.hpp):
a pull from a more solid cell x into y is f_q(y) = (1 - m) f*_q(x) + m f*_opp(y), with m
from physics/partial_volume.hpp: 'volume' m = phi = (P_x - P_y)/(1 - P_y) (the VLBM paper)
or 'viscosity_weighted' m = phi (tau - 1/2) / ((1 - phi) + (tau - 1/2)) (Noble and
Torczynski's weight), whose excess (phi - m)(f*_q(x) - f*_opp(y)) y's rest population
gives back (kernels.hpp). The collision is BGK, regularized (Latt and Chopard, as
physics/regularized.hpp) or TRT (Lambda = 3/16), each with Guo's force.

The lattice's flow is a parabola u = g/(2 nu) (h_eff^2 - (z - z_c)^2) in the interior;
h_eff from the nodes two or more away from the walls, and the wall offset h_true - h_eff
in lattice spacings (> 0: the lattice's wall lies inside the true one) is what the table
shows. A diagnostic of the method, not a check.

usage: vlbm_wall.py [--half-width 6] [--out PREFIX]   (PREFIX.md and PREFIX.json)
"""
import argparse
import json

import numpy as np

C = np.array([[0, 0, 0], [1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1], [1, 1, 0], [-1, -1, 0],
              [1, -1, 0], [-1, 1, 0], [1, 0, 1], [-1, 0, -1], [1, 0, -1], [-1, 0, 1], [0, 1, 1], [0, -1, -1],
              [0, 1, -1], [0, -1, 1]])
W = np.array([1 / 3] + [1 / 18] * 6 + [1 / 36] * 12)
Q = 19
OPP = np.array([int(np.where((C == -C[q]).all(1))[0][0]) for q in range(Q)])
TAUS = (1.0, 0.8, 0.6, 0.52, 0.5036)
FRACTIONS = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95)


def volume_mix(p_from, p_to, tau):
    return (p_from - p_to) / (1.0 - p_to)


def viscosity_weighted_mix(p_from, p_to, tau):
    phi = volume_mix(p_from, p_to, tau)
    return phi * (tau - 0.5) / ((1.0 - phi) + (tau - 0.5))


MIXING = {"volume": volume_mix, "viscosity_weighted": viscosity_weighted_mix}


def collision(tau, op, g):
    """(A, b): f* = A f + b on one node, linearised (Stokes limit), force g along x."""
    force = np.array([g, 0.0, 0.0])
    cf = C @ force
    # linear equilibrium w (rho + 3 c.(j + F/2)) as a matrix on f, and its force part
    E = W[:, None] * (1.0 + 3.0 * (C @ C.T))
    eq_force = W * 1.5 * cf
    identity = np.eye(Q)
    if op == "bgk":
        return identity - (identity - E) / tau, eq_force / tau + W * (1 - 0.5 / tau) * 3 * cf
    if op == "regularized":  # feq + (1 - 1/tau) w 9/2 (c.Pi1.c - tr Pi1 / 3), Pi1 = sum c c f - rho/3 I
        cc = (C @ C.T) ** 2
        c2 = (C * C).sum(1)
        H = cc - c2[:, None] / 3 - c2[None, :] / 3 + 1 / 3
        return E + (1 - 1 / tau) * W[:, None] * 4.5 * H, W * 3 * cf
    if op == "trt":  # even part relaxed with tau, odd part with tau_minus from Lambda = 3/16
        tau_minus = 0.5 + (3 / 16) / (tau - 0.5)
        even = 0.5 * (identity + identity[OPP])
        odd = 0.5 * (identity - identity[OPP])
        A = identity - even @ (identity - E) / tau - odd @ (identity - E) / tau_minus
        return A, even @ eq_force / tau + odd @ eq_force / tau_minus + W * 3 * cf * (1 - 0.5 / tau_minus)
    raise ValueError(op)


def link_shares(P, q, y, tau, mix):
    """The pull into layer y along q: the layer x = y - c_q it comes from (outside the
    layers: solid), the mixing share m and the VLBM share phi (both 0 unless x is the more
    solid)."""
    x = y - C[q, 2]
    p_x = P[x] if 0 <= x < len(P) else 1.0
    if C[q, 2] == 0 or p_x <= P[y]:
        return x, 0.0, 0.0
    return x, mix(p_x, P[y], tau), volume_mix(p_x, P[y], tau)


def steady_velocity(P, tau, op, mix, g=1e-6):
    """Steady u_x per layer for solid fractions P (layers beyond both ends solid)."""
    n = len(P)
    A, b = collision(tau, op, g)
    row = lambda q, z: q * n + z  # noqa: E731
    M = np.zeros((Q * n, Q * n))
    rhs = np.zeros(Q * n)
    rest = np.zeros((n, Q * n))  # what y's rest population gives back, as rows on f
    rest_rhs = np.zeros(n)
    for q in range(Q):
        for y in range(n):
            x, m, phi = link_shares(P, q, y, tau, mix)
            # post-collision rows: f*_opp(y) (the reflection) and f*_q(x) (the pull; a solid x reflects)
            refl = np.zeros(Q * n)
            refl[[row(p, y) for p in range(Q)]] = A[OPP[q]]
            pull = np.zeros(Q * n)
            if 0 <= x < n:
                pull[[row(p, x) for p in range(Q)]] = A[q]
                b_pull = b[q]
            else:
                pull, b_pull = refl, b[OPP[q]]
            M[row(q, y)] = (1 - m) * pull + m * refl
            rhs[row(q, y)] = (1 - m) * b_pull + m * b[OPP[q]]
            rest[y] += (phi - m) * (pull - refl)
            rest_rhs[y] += (phi - m) * (b_pull - b[OPP[q]])
    for y in range(n):  # the rest population (q = 0) pulls from its own node, then gives back
        M[row(0, y)] -= rest[y]
        rhs[row(0, y)] -= rest_rhs[y]
    system = np.vstack([np.eye(Q * n) - M, np.tile(1.0 - P, Q)])
    f = np.linalg.lstsq(system, np.concatenate([rhs, [np.sum(1.0 - P)]]), rcond=None)[0].reshape(Q, n)
    return (C[:, 0] @ f + g / 2) / f.sum(0)


def wall_offset(P_wall, tau, op, mixing, half_width=6):
    n = 2 * half_width
    P = np.zeros(n)
    P[0] = P[-1] = P_wall
    g = 1e-6
    u = steady_velocity(P, tau, op, MIXING[mixing], g)
    z = np.arange(n)
    centre = (n - 1) / 2
    curvature = g / (2 * (tau - 0.5) / 3)
    inner = slice(2, n - 2)
    top = np.mean(u[inner] + curvature * (z[inner] - centre) ** 2)
    return (centre + 0.5 - P_wall) - np.sqrt(top / curvature)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--half-width", type=int, default=6, help="nodes per half channel (default 6)")
    ap.add_argument("--out", help="write PREFIX.md and PREFIX.json")
    a = ap.parse_args()
    rows = []
    for op in ("bgk", "regularized", "trt"):
        for mixing in MIXING:
            for tau in TAUS:
                offsets = [float(wall_offset(p, tau, op, mixing, a.half_width)) for p in FRACTIONS]
                rows.append({"collision": op, "mixing": mixing, "tau": tau, "offsets": offsets})
    head = "| collision | mixing | tau | " + " | ".join(f"P = {p:g}" for p in FRACTIONS) + " |"
    lines = [head, "|" + "---|" * (3 + len(FRACTIONS))]
    for r in rows:
        lines.append(f"| {r['collision']} | {r['mixing']} | {r['tau']:g} | " +
                     " | ".join(f"{o:+.3f}" for o in r["offsets"]) + " |")
    table = "\n".join(lines)
    print(table)
    if a.out:
        with open(a.out + ".json", "w") as fh:
            json.dump({"half_width": a.half_width, "fractions": FRACTIONS, "rows": rows}, fh, indent=1)
        with open(a.out + ".md", "w") as fh:
            fh.write("# Where lb_vlbm's partial-cell wall sits\n\n"
                     f"Generated by `tools/analysis/vlbm_wall.py --half-width {a.half_width} --out {a.out}` (numpy, "
                     "exact steady state of the linearised lattice; see the script's header). Plane Poiseuille "
                     f"flow, {2 * a.half_width} nodes across, both walls cutting their boundary cells at solid "
                     "fraction P. Each entry: the wall offset h_true - h_eff in lattice spacings (> 0: the "
                     "lattice's wall lies inside the true one), from the parabola the interior nodes follow. "
                     "P = 0 is halfway bounce-back. A diagnostic, not a check.\n\n" + table + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
