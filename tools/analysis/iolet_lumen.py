#!/usr/bin/env python3
"""Where each iolet's plane cuts a case's STL surface: the distance of the crossing from
the disc's centre (min, median, max over the surface's edges that cross the plane, within
3 radii of the axis) against the disc's radius, and how far the surface runs on beyond
the plane. A lumen wider than the disc at the plane used to leave a pocket of fluid behind
it (docs/windkessel.md); since 0d87294 an iolet cuts the fluid beyond its plane up to
1.5 radii from its axis, and this says whether that reach covers the lumen.

usage: iolet_lumen.py CASE.toml   (HEMO_DATA_DIR as for the case; binary or ASCII STL)
"""
import os
import re
import struct
import sys

import numpy as np


def read_stl(path):
    """Triangles (N x 3 x 3) of a binary or ASCII STL."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) >= 84:
        n = struct.unpack("<I", data[80:84])[0]
        if 84 + 50 * n == len(data):
            rec = np.frombuffer(data[84:], dtype=np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")]))
            return rec["v"].astype(float)
    v = [float(x) for x in re.findall(rb"vertex\s+(\S+)\s+(\S+)\s+(\S+)", data) for x in x]
    return np.array(v).reshape(-1, 3, 3)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    import tomllib
    case = sys.argv[1]
    with open(case, "rb") as f:
        cfg = tomllib.load(f)
    g = cfg["geometry"]
    if g.get("shape") != "stl":
        sys.exit(f"{case}: geometry.shape is not \"stl\"")
    path = os.path.expandvars(g["file"])
    if not os.path.isabs(path):
        path = os.path.join(os.path.dirname(os.path.abspath(case)), path)
    scale = {"m": 1.0, "mm": 1e-3, "um": 1e-6}[g.get("unit", "m")]
    tri = read_stl(path) * scale
    print(f"{os.path.basename(path)}: {len(tri)} triangles")
    for io in cfg.get("boundaries", {}).get("iolet", []):
        c, n, R = np.array(io["center"], float), np.array(io["normal"], float), float(io["radius"])
        n /= np.linalg.norm(n)
        b = (tri - c) @ n  # beyond the plane (the normal points out of the fluid)
        crossings = []
        for e in range(3):
            p, q, bp, bq = tri[:, e], tri[:, (e + 1) % 3], b[:, e], b[:, (e + 1) % 3]
            cut = bp * bq < 0
            x = p[cut] + (q[cut] - p[cut]) * (bp[cut] / (bp[cut] - bq[cut]))[:, None]
            crossings.append(x)
        x = np.concatenate(crossings) - c
        r = np.linalg.norm(x - np.outer(x @ n, n), axis=1)
        r = r[r < 3 * R]
        near = np.linalg.norm((tri - c) - b[..., None] * n, axis=2) < 1.5 * R
        beyond = float(b[near].max()) if near.any() else 0.0
        if r.size == 0:
            print(f"  {io['name']}: the plane does not cut the surface within 3 radii of the axis")
            continue
        print(f"  {io['name']}: disc radius {R * 1e3:.3f} mm; the surface crosses the plane at {r.min() * 1e3:.3f} to "
              f"{r.max() * 1e3:.3f} mm from the centre (median {np.median(r) * 1e3:.3f}; {r.max() / R:.3f} radii at most), "
              f"and runs on {max(beyond, 0.0) * 1e3:.2f} mm beyond it within 1.5 radii of the axis")
    return 0


if __name__ == "__main__":
    sys.exit(main())
