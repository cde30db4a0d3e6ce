#!/usr/bin/env python3
"""Velocity magnitude on a plane slice through a run's last snapshot, as a PNG.

usage: slice.py OUTPUT_DIR --png FILE [--point X,Y,Z --normal X,Y,Z | --plane spread|iolets] [--title T]

The default plane passes through the centroid of the nodes, across their least spread
(the plane a vessel tree extends most in); --plane iolets takes the plane of the first
three iolets' centres instead. The plane is resampled at the lattice spacing, each pixel
showing the node of the voxel it falls in; with --thickness, the largest speed across a
slab of that thickness (for a vessel that bends out of any one plane).
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hemo_output  # noqa: E402


def plane_of(case, coords, mode):
    """(point, unit normal) of the default slice: 'spread' = through the centroid of the
    nodes, normal along their least spread (the plane the vessel extends most in);
    'iolets' = through the centres of the first three iolets."""
    iolets = case.get("boundaries", {}).get("iolet", [])
    if mode == "iolets" and len(iolets) >= 3:
        c = np.array([i["center"] for i in iolets[:3]], float)
        n = np.cross(c[1] - c[0], c[2] - c[0])
        if np.linalg.norm(n) > 0:
            return c.mean(axis=0), n / np.linalg.norm(n)
    centre = coords.mean(axis=0)
    w, v = np.linalg.eigh(np.cov((coords - centre).T))
    return centre, v[:, 0]


def analyse(out_dir, point=None, normal=None, mode="spread", thickness=0.0):
    case = hemo_output.case(out_dir)
    coords, data = hemo_output.fields(out_dir)
    dx = case["lattice"]["dx"]
    if point is None:
        point, normal = plane_of(case, coords, mode)
    point = np.asarray(point, float)
    normal = np.asarray(normal, float) / np.linalg.norm(normal)
    # In-plane basis: e1 along the longest extent of the nodes near the plane.
    near = np.abs((coords - point) @ normal) < dx
    rel = coords[near] - point
    flat = rel - np.outer(rel @ normal, normal)
    w, v = np.linalg.eigh(np.cov(flat.T))
    e1 = v[:, 2]
    e2 = np.cross(normal, e1)
    # Resample the plane on a grid of spacing dx: each pixel takes the node of the voxel
    # its centre falls in (nodes sit at voxel centres), so a tilted plane has no gaps.
    origin = coords.min(axis=0) - 0.5 * dx
    key = lambda ijk: (ijk[:, 0] * 1_000_003 + ijk[:, 1]) * 1_000_003 + ijk[:, 2]
    node_of = dict(zip(key(np.floor((coords - origin) / dx).astype(np.int64)).tolist(), range(len(coords))))
    u0, u1 = (rel @ e1).min() - dx, (rel @ e1).max() + dx
    v0, v1 = (rel @ e2).min() - dx, (rel @ e2).max() + dx
    us, vs = np.arange(u0, u1, dx), np.arange(v0, v1, dx)
    uu, vv = np.meshgrid(us, vs)
    pts = point + uu[..., None] * e1 + vv[..., None] * e2
    speed = np.append(np.linalg.norm(data["velocity"], axis=1), np.nan)  # index -1: no node
    img = np.full(uu.size, np.nan)
    # A slab of +-thickness/2 shows a vessel that leaves the plane: each pixel takes the
    # largest speed along the normal through it (0: the plane alone).
    for offset in np.arange(-0.5 * thickness, 0.5 * thickness + 0.5 * dx, dx) if thickness > 0 else [0.0]:
        ijk = np.floor((pts.reshape(-1, 3) + offset * normal - origin) / dx).astype(np.int64)
        idx = np.array([node_of.get(k, -1) for k in key(ijk).tolist()])
        img = np.fmax(img, speed[idx])
    idx = np.where(np.isnan(img), -1, 0)
    img = img.reshape(uu.shape)
    return {"dx": dx, "image": img, "thickness": thickness, "extent": [u0 * 1e3, u1 * 1e3, v0 * 1e3, v1 * 1e3], "nodes": int((idx >= 0).sum()),
            "point": point.tolist(), "normal": normal.tolist(),
            "max_speed": float(np.nanmax(img)) if (idx >= 0).any() else 0.0}


def plot(res, path, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    img = res["image"]
    fig, ax = plt.subplots(figsize=(7, 7 * img.shape[0] / max(img.shape[1], 1) + 1.2))
    im = ax.imshow(img, origin="lower", extent=res["extent"], cmap="inferno", interpolation="nearest")
    fig.colorbar(im, ax=ax, label="|u| [m/s]", shrink=0.8)
    ax.set_xlabel("in-plane position [mm]")
    ax.set_ylabel("in-plane position [mm]")
    ax.set_title(title, fontsize=9)
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
    ap.add_argument("--thickness", type=float, default=0.0,
                    help="m: show the largest speed across a slab this thick around the plane (0: the plane alone)")
    ap.add_argument("--plane", choices=["spread", "iolets"], default="spread",
                    help="default plane: through the centroid across the least spread, or through three iolet centres")
    a = ap.parse_args()
    vec = (lambda s: [float(x) for x in s.split(",")]) if a.point else None
    res = analyse(a.out_dir, vec(a.point) if a.point else None, vec(a.normal) if a.normal else None, a.plane,
                  a.thickness)
    title = a.title or (f"{os.path.basename(os.path.normpath(a.out_dir))}: velocity magnitude on a slice" +
                        (f", largest over {a.thickness * 1e3:g} mm across" if a.thickness > 0 else ""))
    plot(res, a.png, title)
    print(f"{res['nodes']} nodes on the slice through {np.round(res['point'], 5).tolist()} normal "
          f"{np.round(res['normal'], 4).tolist()}; max |u| {res['max_speed']:.4g} m/s; wrote {a.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
