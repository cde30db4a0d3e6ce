#!/usr/bin/env python3
"""The wall_shear plugin gives the CPU's bits on the GPU (label gpu; exit 77 = skipped
where there is no CUDA device): wall_shear_stats.h5 (every dataset: wss, tawss, osi, rrt,
mean_wss, normals, points) compared array by array, bit for bit, for the stress and the
momentum-exchange methods, in fp64 and fp32, on the node list and on bricks in place (AA),
with TRT and an oscillating body force (so OSI is not trivially 0).

The case: cases/poiseuille_pipe.toml at 8 nodes per radius, 8 voxels long, 400 steps,
every step sampled, an instantaneous file at step 200.
"""
import argparse
import os
import sys

import h5py
import numpy as np

from common import check, has_cuda_device, run_hemoflow

SKIP = 77
DATASETS = ["points", "voxel", "normal", "wss", "wss_magnitude", "tawss", "osi", "rrt", "mean_wss"]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hemoflow", required=True)
    ap.add_argument("--case", required=True, help="cases/poiseuille_pipe.toml")
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    if not has_cuda_device(a.hemoflow):
        print("skipped: no CUDA device (or a build without CUDA)")
        return SKIP
    base = ["--steps", "400", "--set", "lattice.dx=6.25e-5", "--set", "geometry.length=5e-4", "--set", "output.probe=[]",
            "--set", "output.final=false", "--set", 'run.plugins=["lb_bgk","boundaries","wall_shear"]',
            "--set", "wall_shear.every=200", "--set", 'lb_bgk.collision="trt"',
            "--set", "forcing.amplitude=[0.5,0.0,0.0]", "--set", "forcing.period=0.05"]
    variants = [
        ("stress fp64", ["--set", 'run.precision="fp64"']),
        ("momentum exchange fp64", ["--set", 'run.precision="fp64"', "--set", 'wall_shear.method="momentum_exchange"']),
        ("stress fp32 bricks in place", ["--set", 'run.precision="fp32"', "--set", 'lattice.layout="bricks"',
                                         "--set", 'lb_bgk.streaming="aa"']),
        ("momentum exchange fp32 bricks in place", ["--set", 'run.precision="fp32"', "--set", 'lattice.layout="bricks"',
                                                    "--set", 'lb_bgk.streaming="aa"',
                                                    "--set", 'wall_shear.method="momentum_exchange"']),
    ]
    ok = True
    for name, extra in variants:
        outs = {}
        for backend in ("cpu", "cuda"):
            out = os.path.join(a.work, f"{name.replace(' ', '_')}_{backend}")
            run_hemoflow(a.hemoflow, ["run", a.case, "--quiet", "--backend", backend, "--output", out, *base, *extra])
            outs[backend] = out
        for stem in ("wall_shear_stats.h5", "wall_shear_00000200.h5"):
            with h5py.File(os.path.join(outs["cpu"], stem), "r") as c, h5py.File(os.path.join(outs["cuda"], stem), "r") as g:
                names = [d for d in DATASETS if d in c]
                same = all(np.array_equal(c[d][...], g[d][...]) for d in names)
                worst = max(float(np.max(np.abs(c[d][...].astype(float) - g[d][...].astype(float)), initial=0.0))
                            for d in names)
                osi = float(np.max(c["osi"][...])) if "osi" in c else float("nan")
                ok &= check(same and len(names) >= 5,
                            f"{name}: {stem}: {len(names)} datasets bitwise equal on CPU and GPU "
                            f"(largest difference {worst:.3g}; max OSI {osi:.3g})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
