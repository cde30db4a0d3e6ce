#!/usr/bin/env python3
"""TAWSS and OSI maps of a run's wall nodes, as two PNG pictures.

usage: wss_maps.py OUTPUT_DIR [--out PREFIX] [--views front,back] [--log]
                   [--tawss-max PA] [--point-size S] [--title T]

Reads OUTPUT_DIR/wall_shear_stats.h5 (written by the wall_shear plugin: datasets
/points (N x 3, m), /tawss (Pa), /osi; attributes window_start, window_end, samples) and
writes PREFIX_tawss.png and PREFIX_osi.png (PREFIX defaults to OUTPUT_DIR/wss). Each
picture is a scatter of the wall nodes, one panel per view, with a colour bar.

Views use the principal axes of the wall points (e1 the direction of largest spread, e3
of least): for a bifurcation, e1-e2 is the plane the three branches lie in.
  front: the e1-e2 plane seen from +e3;  back: the same plane seen from -e3 (mirrored);
  side:  the e1-e3 plane seen from +e2.
In each view the points are drawn far to near, so the near wall covers the far one
(a painter's order, not a surface rendering: the far wall shows through gaps).
--log draws TAWSS on a logarithmic colour scale (points with TAWSS <= 0 are left out).
OSI is drawn on [0, 0.5]. Nodes whose statistics are NaN (no sample in the window) are
left out; if all are, the script stops with exit status 1.

Needs numpy, h5py and matplotlib (Debian's /usr/bin/python3 has them), e.g.
  /usr/bin/python3 tools/analysis/wss_maps.py out/carotid_pulsatile --out docs/img/carotid --log
"""
import argparse
import os
import sys

import numpy as np


def load(out_dir):
    import h5py

    path = os.path.join(out_dir, "wall_shear_stats.h5")
    with h5py.File(path, "r") as f:
        d = {k: np.asarray(f[k]) for k in ("points", "tawss", "osi")}
        d["attrs"] = {k: f.attrs[k] for k in f.attrs}
    return d


def principal_axes(points):
    """Centre and the principal axes (columns, largest spread first) of the points."""
    centre = points.mean(axis=0)
    w, v = np.linalg.eigh(np.cov((points - centre).T))
    v = v[:, ::-1]
    if np.linalg.det(v) < 0:  # right-handed, so 'front' and 'back' are well defined
        v[:, 2] = -v[:, 2]
    return centre, v


VIEWS = {
    # name: (horizontal axis, vertical axis, depth axis towards the viewer, mirror h)
    "front": (0, 1, 2, False),
    "back": (0, 1, 2, True),
    "side": (0, 2, 1, False),
}


def project(q, view):
    h, v, depth, mirror = VIEWS[view]
    x, y, z = q[:, h], q[:, v], q[:, depth]
    if mirror:  # seen from behind: depth and horizontal axis reversed
        x, z = -x, -z
    return x, y, np.argsort(z)  # far (small z) first, near last


def draw(points, values, name, label, views, out_png, norm, cmap, title, size):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    centre, axes = principal_axes(points)
    q = (points - centre) @ axes * 1e3  # mm in the principal frame
    fig, axs = plt.subplots(1, len(views), figsize=(5.0 * len(views), 6.0), squeeze=False,
                            constrained_layout=True)
    sc = None
    for ax, view in zip(axs[0], views):
        x, y, order = project(q, view)
        sc = ax.scatter(x[order], y[order], c=values[order], s=size, norm=norm, cmap=cmap,
                        linewidths=0, rasterized=True)
        ax.set_aspect("equal")
        ax.set_title(view)
        ax.set_xlabel("mm (principal axis %s)" % ("-e1" if VIEWS[view][3] else "e1"))
        ax.set_ylabel("mm (principal axis e%d)" % (VIEWS[view][1] + 1))
    fig.colorbar(sc, ax=axs[0].tolist(), label=label, shrink=0.8)
    fig.suptitle(title or name)
    fig.savefig(out_png, dpi=150)
    plt.close(fig)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("output_dir")
    p.add_argument("--out", help="prefix of the PNG files (default OUTPUT_DIR/wss)")
    p.add_argument("--views", default="front,back", help="comma-separated: front, back, side")
    p.add_argument("--log", action="store_true", help="logarithmic TAWSS colour scale")
    p.add_argument("--tawss-max", type=float, help="upper end of the TAWSS scale (Pa)")
    p.add_argument("--point-size", type=float, help="marker area (default: 3e4 / N, within 0.3-20)")
    p.add_argument("--title", default="")
    a = p.parse_args(argv)

    import matplotlib.colors as mcolors

    views = [v.strip() for v in a.views.split(",") if v.strip()]
    for v in views:
        if v not in VIEWS:
            p.error("unknown view %r (front, back, side)" % v)
    d = load(a.output_dir)
    pts, tawss, osi = d["points"], d["tawss"], d["osi"]
    ok = np.isfinite(tawss) & np.isfinite(osi)
    if not ok.any():
        print("wss_maps: no finite TAWSS/OSI in %s (no sample in the statistics window?)"
              % a.output_dir, file=sys.stderr)
        return 1
    at = d["attrs"]
    window = "window %.4g-%.4g s, %s samples" % (at.get("window_start", np.nan),
                                                 at.get("window_end", np.nan), at.get("samples", "?"))
    size = a.point_size or float(np.clip(3e4 / ok.sum(), 0.3, 20.0))
    prefix = a.out or os.path.join(a.output_dir, "wss")
    if os.path.dirname(prefix):
        os.makedirs(os.path.dirname(prefix), exist_ok=True)

    t_ok = ok & (tawss > 0) if a.log else ok
    vmax = a.tawss_max or float(np.percentile(tawss[t_ok], 99.5))
    if a.log:
        vmin = max(float(np.percentile(tawss[t_ok], 0.5)), vmax * 1e-4)
        norm = mcolors.LogNorm(vmin=vmin, vmax=vmax)
    else:
        norm = mcolors.Normalize(vmin=0.0, vmax=vmax)
    draw(pts[t_ok], tawss[t_ok], "TAWSS", "TAWSS (Pa)", views, prefix + "_tawss.png", norm,
         "viridis", (a.title + " TAWSS, " + window).strip(), size)
    draw(pts[ok], osi[ok], "OSI", "OSI", views, prefix + "_osi.png",
         mcolors.Normalize(vmin=0.0, vmax=0.5), "magma", (a.title + " OSI, " + window).strip(),
         size)
    print("wss_maps: %d wall nodes; TAWSS %.4g / %.4g / %.4g Pa (min / median / max), "
          "OSI max %.3g; wrote %s_tawss.png, %s_osi.png"
          % (ok.sum(), tawss[ok].min(), np.median(tawss[ok]), tawss[ok].max(), osi[ok].max(),
             prefix, prefix))
    return 0


if __name__ == "__main__":
    sys.exit(main())
