#!/usr/bin/env python3
"""TAWSS and OSI of a run's wall nodes per slab along an axis (docs/hemodynamics.md's
carotid numbers): the wall_shear statistics file cut into slabs of --width mm along
--axis, each slab split in two along its largest in-plane spread where that spread is
more than --split times the next (two branches side by side), with per part the node
count, the mean in-plane position, the median TAWSS and the mean OSI.

usage: wss_slabs.py OUTPUT_DIR [--axis z] [--width 6] [--from 10] [--to 82] [--split 3]
"""
import argparse
import os

import h5py
import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("output_dir")
    ap.add_argument("--axis", default="z", choices="xyz")
    ap.add_argument("--width", type=float, default=6.0, help="slab width, mm")
    ap.add_argument("--from", dest="start", type=float, default=10.0, help="first slab's start, mm")
    ap.add_argument("--to", type=float, default=82.0, help="end, mm")
    ap.add_argument("--split", type=float, default=3.0, help="split a slab where its spreads differ this much")
    a = ap.parse_args()
    with h5py.File(os.path.join(a.output_dir, "wall_shear_stats.h5")) as f:
        p, tawss, osi = f["points"][:] * 1e3, f["tawss"][:], f["osi"][:]
    k = "xyz".index(a.axis)
    plane = [d for d in range(3) if d != k]
    print(f"{len(tawss)} wall nodes, median TAWSS {np.median(tawss):.3f} Pa")
    lo = a.start
    while lo < a.to:
        m = (p[:, k] >= lo) & (p[:, k] < lo + a.width)
        if m.sum() >= 10:
            xy = p[m][:, plane]
            d = xy - xy.mean(0)
            _, s, vt = np.linalg.svd(d, full_matrices=False)
            along = d @ vt[0]
            parts = [along < 0, along >= 0] if s[0] > a.split * max(s[1], 1e-12) else [np.ones(len(along), bool)]
            text = [f"n={g.sum()} {'xyz'[plane[0]]}={xy[g, 0].mean():.1f} mm: TAWSS median {np.median(tawss[m][g]):.2f} Pa, "
                    f"OSI mean {osi[m][g].mean():.3f}" for g in parts]
            print(f"{a.axis} {lo:g}-{lo + a.width:g} mm: " + " | ".join(text))
        lo += a.width


if __name__ == "__main__":
    main()
