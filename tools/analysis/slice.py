#!/usr/bin/env python3
"""Velocity magnitude on a plane slice through a run's last snapshot, as a PNG.

usage: slice.py OUTPUT_DIR --png FILE [--point X,Y,Z --normal X,Y,Z] [--json]

The default plane passes through the centres of the case's first three iolets (for a
bifurcation: the plane of its three ends); with fewer iolets, through the centroid of
the nodes with the normal of least spread. The nodes within half a spacing of the plane
are drawn as pixels of one spacing, so the picture shows the lattice as it is.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hemo_output  # noqa: E402


def plane_of(case, coords):
    iolets = case.get("boundaries", {}).get("iolet", [])
    if len(iolets) >= 3:
        c = np.array([i["center"] for i in iolets[:3]], float)
        n = np.cross(c[1] - c[0], c[2] - c[0])
        if np.linalg.norm(n) > 0:
            return c.mean(axis=0), n / np.linalg.norm(n)
    centre = coords.mean(axis=0)
    w, v = np.linalg.eigh(np.cov((coords - centre).T))
    return centre, v[:, 0]


def analyse(out_dir, point=None, normal=None):
    case = hemo_output.case(out_dir)
    coords, data = hemo_output.fields(out_dir)
    dx = case["lattice"]["dx"]
    if point is None:
        point, normal = plane_of(case, coords)
    normal = np.asarray(normal, float) / np.linalg.norm(normal)
    # In-plane basis: e1 along the plane's longest extent of the nodes near it.
    near = np.abs((coords - point) @ normal) < 0.5 * dx
    rel = coords[near] - point
    flat = rel - np.outer(rel @ normal, normal)
    w, v = np.linalg.eigh(np.cov(flat.T))
    e1 = v[:, 2]
    e2 = np.cross(normal, e1)
    speed = np.linalg.norm(data["velocity"][near], axis=1)
    return {"dx": dx, "u": rel @ e1, "v": rel @ e2, "speed": speed, "nodes": int(near.sum()),
            "point": point.tolist(), "normal": normal.tolist(), "max_speed": float(speed.max()) if near.any() else 0.0}


def plot(res, path, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dx = res["dx"]
    iu = np.round(res["u"] / dx).astype(int)
    iv = np.round(res["v"] / dx).astype(int)
    img = np.full((iv.max() - iv.min() + 1, iu.max() - iu.min() + 1), np.nan)
    img[iv - iv.min(), iu - iu.min()] = res["speed"]
    extent = [iu.min() * dx * 1e3, iu.max() * dx * 1e3, iv.min() * dx * 1e3, iv.max() * dx * 1e3]
    fig, ax = plt.subplots(figsize=(7, 7 * img.shape[0] / max(img.shape[1], 1) + 1))
    im = ax.imshow(img, origin="lower", extent=extent, cmap="inferno", interpolation="nearest")
    fig.colorbar(im, ax=ax, label="|u| [m/s]", shrink=0.8)
    ax.set_xlabel("in-plane position [mm]")
    ax.set_ylabel("in-plane position [mm]")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--png", required=True)
    ap.add_argument("--point")
    ap.add_argument("--normal")
    ap.add_argument("--title")
    a = ap.parse_args()
    vec = (lambda s: [float(x) for x in s.split(",")]) if a.point else None
    res = analyse(a.out_dir, vec(a.point) if a.point else None, vec(a.normal) if a.normal else None)
    title = a.title or f"{os.path.basename(os.path.normpath(a.out_dir))}: velocity magnitude on a slice"
    plot(res, a.png, title)
    print(f"{res['nodes']} nodes on the slice through {np.round(res['point'], 5).tolist()} normal "
          f"{np.round(res['normal'], 4).tolist()}; max |u| {res['max_speed']:.4g} m/s; wrote {a.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
