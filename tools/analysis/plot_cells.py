#!/usr/bin/env python3
"""A picture of the red blood cells of a run (rbc plugin): the last (or a given) cell
snapshot seen along z, each cell drawn as the exact outline of its ellipsoid projected
on the x-y plane, coloured by its speed, over the vessel's fluid nodes in grey.

  tools/analysis/plot_cells.py out/rbc_bifurcation [--step N] [--png cells.png]

The projection of the ellipsoid x^T A^-1 x <= 1, A = a^2 (1 - n n^T) + c^2 n n^T (a the
radius across the symmetry axis n, c half the thickness), on the x-y plane is the
ellipse of the top-left 2 x 2 block of A."""
import argparse
import glob
import os

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.collections import EllipseCollection  # noqa: E402


def snapshot(run, step):
    files = sorted(glob.glob(os.path.join(run, "particles", "cells_*.h5")))
    if not files:
        raise SystemExit(f"{run}: no particles/cells_*.h5 (was rbc.output on and output.every > 0?)")
    if step is not None:
        files = [f for f in files if f.endswith(f"_{step:08d}.h5")]
        if not files:
            raise SystemExit(f"{run}: no cell snapshot at step {step}")
    return files[-1]


def projected_ellipses(axis, scale):
    """Widths, heights (full lengths) and angles (degrees) of the cells' outlines on x-y."""
    n = axis / np.linalg.norm(axis, axis=1)[:, None]
    a = 0.5 * scale[:, 1]  # glyph_scale: thickness, diameter, diameter
    c = 0.5 * scale[:, 0]
    nn = n[:, :2, None] * n[:, None, :2]
    A = (a**2)[:, None, None] * (np.eye(2)[None] - nn) + (c**2)[:, None, None] * nn
    w, v = np.linalg.eigh(A)  # ascending
    angle = np.degrees(np.arctan2(v[:, 1, 1], v[:, 0, 1]))
    return 2 * np.sqrt(w[:, 1]), 2 * np.sqrt(np.maximum(w[:, 0], 0)), angle


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", help="the run's output folder")
    ap.add_argument("--step", type=int, help="the snapshot's step (default: the last)")
    ap.add_argument("--png", help="where to write the picture (default: RUN/cells.png)")
    a = ap.parse_args()
    path = snapshot(a.run, a.step)
    with h5py.File(path, "r") as f:
        x = f["position"][...]
        axis = f["axis"][...]
        scale = f["glyph_scale"][...]
        speed = np.linalg.norm(f["velocity"][...], axis=1)
    um = 1e6
    fig, ax = plt.subplots(figsize=(9, 5.2), dpi=120)
    mesh = os.path.join(a.run, "fields", "mesh.h5")
    if os.path.exists(mesh):
        with h5py.File(mesh, "r") as f:
            nodes = f["coordinates"][...]
        ax.scatter(nodes[:, 0] * um, nodes[:, 1] * um, s=2, c="0.88", marker="s", linewidths=0, zorder=0)
    order = np.argsort(x[:, 2])  # nearer the viewer (larger z) drawn last
    w, h, ang = projected_ellipses(axis[order], scale[order])
    cells = EllipseCollection(w * um, h * um, ang, units="xy", offsets=x[order, :2] * um, offset_transform=ax.transData,
                              cmap="viridis", edgecolors="k", linewidths=0.2, zorder=1)
    cells.set_array(speed[order] * 1e3)
    ax.add_collection(cells)
    ax.autoscale_view()
    ax.set_aspect("equal")
    ax.set_xlabel("x (um)")
    ax.set_ylabel("y (um)")
    step = int(os.path.basename(path)[6:14])
    ax.set_title(f"{len(x)} red blood cells at step {step}, seen along z ({os.path.basename(os.path.normpath(a.run))})")
    fig.colorbar(cells, ax=ax, label="cell speed (mm/s)", shrink=0.8)
    fig.tight_layout()
    out = a.png or os.path.join(a.run, "cells.png")
    fig.savefig(out)
    print(f"wrote {out} ({len(x)} cells, {path})")


if __name__ == "__main__":
    main()
