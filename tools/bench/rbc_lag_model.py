#!/usr/bin/env python3
"""The drag coupling's instability in a model small enough to read (docs/rbc.md, "An
instability of the drag coupling"): D3Q19 BGK on a periodic 16^3 box with Guo forcing,
and the smeared drag of heavy red blood cells at haematocrit 0.33 acting as a static
friction, F = -gamma P^T P u, with P the cells' normalized kernel weights (1 - d^2)^2 on
supports A = 2.6, C = 1.5 spacings (the rbc plugin's defaults at 2.5 um) and gamma =
6 pi mu R (Stokes of the equal-volume sphere). The plasma starts at rest plus 1e-10 of
noise; the largest speed is printed every 1000 steps. The velocity the friction reads:

  lag       the moments of the last step's collision, (p + F/2) / rho of the populations
            before they streamed: what the plugin read before 2026-11-25 (grows)
  post      the last step's post-collision momentum at the node, no streaming (grows)
  streamed  the momentum of the populations that stream into the node at the start of
            the step, before this step's force: what lb_bgk's streamed_velocity gives
  implicit  (p + F/2) / rho with F = -K u solved (conjugate gradients)

  tools/bench/rbc_lag_model.py --tau 1.5 --mode lag --steps 6000     (about a minute)
"""
import argparse

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tau", type=float, default=1.5)
    ap.add_argument("--mode", choices=["lag", "post", "streamed", "implicit"], default="lag")
    ap.add_argument("--steps", type=int, default=6000)
    a = ap.parse_args()
    rng = np.random.default_rng(1)
    L, A, C = 16, 2.6, 1.5
    nu = (a.tau - 0.5) / 3
    gamma = 6 * np.pi * nu * np.cbrt(1.6**2 * 0.5)
    c = np.array([[0, 0, 0]] + [[s * (k == 0), s * (k == 1), s * (k == 2)] for k in range(3) for s in (1, -1)] +
                 [[x, y, 0] for x in (1, -1) for y in (1, -1)] + [[x, 0, z] for x in (1, -1) for z in (1, -1)] +
                 [[0, y, z] for y in (1, -1) for z in (1, -1)])
    w = np.array([1 / 3] + [1 / 18] * 6 + [1 / 36] * 12)
    grid = np.stack(np.meshgrid(*[np.arange(L)] * 3, indexing="ij"), -1).reshape(-1, 3).astype(float)
    P = []
    for _ in range(int(0.33 * L**3 / 5.36)):
        X = rng.uniform(0, L, 3)
        n = rng.normal(size=3)
        n /= np.linalg.norm(n)
        r = grid - X
        r -= L * np.round(r / L)
        rn, r2 = r @ n, (r * r).sum(1)
        d2 = (r2 - rn**2) / A**2 + rn**2 / C**2
        weight = np.where(d2 < 1, (1 - d2) ** 2, 0.0)
        P.append(weight / weight.sum())
    P = np.array(P)

    def friction(u):
        return -gamma * (P.T @ (P @ u))

    def feq(rho, u):
        cu, uu = u @ c.T, (u * u).sum(1)[:, None]
        return w * rho[:, None] * (1 + 3 * cu + 4.5 * cu**2 - 1.5 * uu)

    N = L**3
    f = feq(np.ones(N), 1e-10 * rng.normal(size=(N, 3)))
    idx = np.arange(N).reshape(L, L, L)
    source = [np.roll(idx, shift=tuple(ci), axis=(0, 1, 2)).reshape(-1) for ci in c]  # pull from x - c_q
    u_last, F_last, omega = np.zeros((N, 3)), np.zeros((N, 3)), 1 / a.tau
    print(f"tau {a.tau}, gamma {gamma:.3f} (lattice units), {len(P)} cells, mode {a.mode}")
    for step in range(a.steps + 1):
        rho, p = f.sum(1), f @ c
        if a.mode == "lag":
            F = friction(u_last)
        elif a.mode == "post":
            F = friction(u_last + F_last / 2)
        elif a.mode == "streamed":
            F = friction(p / rho[:, None])
        else:  # (1 + K/2) u = p / rho, K = gamma P^T P, by conjugate gradients
            b, x = p / rho[:, None], u_last.copy()
            apply = lambda v: v - 0.5 * friction(v)  # noqa: E731
            res = b - apply(x)
            d, rr = res.copy(), (res * res).sum()
            for _ in range(50):
                Ad = apply(d)
                alpha = rr / (d * Ad).sum()
                x, res = x + alpha * d, res - alpha * Ad
                rr_new = (res * res).sum()
                if rr_new < 1e-30:
                    break
                d, rr = res + (rr_new / rr) * d, rr_new
            F = friction(x)
        u = (p + F / 2) / rho[:, None]
        u_last, F_last = u, F
        cu, Fc = c @ u.T, c @ F.T
        source_term = (1 - omega / 2) * w[:, None] * (3 * (Fc - (u * F).sum(1)[None, :]) + 9 * cu * Fc)
        f = f - omega * (f - feq(rho, u)) + source_term.T
        f = np.stack([f[source[q], q] for q in range(19)], 1)
        if step % 1000 == 0:
            print(f"step {step:6d}  largest speed {np.abs(u).max():.3e}", flush=True)


if __name__ == "__main__":
    main()
