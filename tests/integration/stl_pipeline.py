#!/usr/bin/env python3
"""The path from a surface to a run (issue 5), on a pipe hemoflow generates itself,
tilted off the lattice axes (axis (1, 0.1, 0.05)):

1. `hemoflow mesh OPEN.stl --find-iolets` finds the two open ends: centres at +-L/2 on
   the axis, outward normals +-axis, and the radius of the 64-gon's area,
   r sqrt(n sin(2 pi / n) / (2 pi)), all to 1e-6 relative.
2. `hemoflow mesh CASE.toml` writes the voxel file, with the signed distance whose sign
   agrees with P in every cell that is wholly fluid or solid; a run that loads it
   (geometry.shape = "voxels") gives bitwise the same populations as a run that
   voxelizes the STL itself.
3. A dx that would need more voxels than allowed is refused (exit 2) before allocating,
   with the estimate and a dx that fits; so is a voxel file used at another dx.
"""
import math
import os
import re
import subprocess
import sys

from common import arguments, check, run_hemoflow, summary

AXIS = (1.0, 0.1, 0.05)
R, L_STL, N = 0.008, 0.068, 64


def main():
    a = arguments(__doc__)
    os.makedirs(a.work, exist_ok=True)
    ok = True
    closed, opened = os.path.join(a.work, "pipe.stl"), os.path.join(a.work, "pipe_open.stl")
    for path, extra in ((closed, []), (opened, ["--open"])):
        run_hemoflow(a.hemoflow, ["stl-pipe", "--output", path, "--radius", str(R), "--length", str(L_STL),
                                  "--axis", ",".join(map(str, AXIS)), "--segments", str(N), *extra])

    # 1. open ends
    out = subprocess.run([a.hemoflow, "mesh", opened, "--find-iolets"], capture_output=True, text=True)
    ok &= check(out.returncode == 0, f"mesh --find-iolets exit code {out.returncode}")
    vec = lambda key: [[float(x) for x in m.split(",")] for m in re.findall(rf"^{key} = \[([^\]]*)\]", out.stdout, re.M)]
    centres, normals = vec("center"), vec("normal")
    radii = [float(x) for x in re.findall(r"^radius = ([0-9.eE+-]+)", out.stdout, re.M)]
    n = math.sqrt(sum(c * c for c in AXIS))
    unit = [c / n for c in AXIS]
    r_polygon = R * math.sqrt(N * math.sin(2 * math.pi / N) / (2 * math.pi))
    ok &= check(len(centres) == 2 and len(normals) == 2 and len(radii) == 2, f"{len(centres)} open ends found (2)")
    if len(centres) == 2:
        for c, nrm, r in zip(centres, normals, radii):
            s = 1.0 if sum(x * u for x, u in zip(c, unit)) > 0 else -1.0
            dc = max(abs(x - s * 0.5 * L_STL * u) for x, u in zip(c, unit))
            dn = max(abs(x - s * u) for x, u in zip(nrm, unit))
            ok &= check(dc < 1e-6 * L_STL and dn < 1e-6 and abs(r / r_polygon - 1) < 1e-6,
                        f"end at {s:+.0f} L/2: centre off by {dc:.1e} m, normal by {dn:.1e}, radius {r:.8g} "
                        f"(polygon {r_polygon:.8g})")

    # 2. voxel file round trip
    common = ["--set", "lattice.dx=1e-3", "--set", "lattice.dt=5e-4", "--set", "fluid.viscosity=2e-4",
              "--set", "boundaries.iolet.0.velocity=0.02", "--set", 'run.precision="fp64"', "--steps", "50"]
    voxels = os.path.join(a.work, "pipe.voxels.h5")
    run_hemoflow(a.hemoflow, ["mesh", a.case, "--voxels", voxels, "--set", f'geometry.file="{closed}"', *common[:2]])
    direct, loaded = os.path.join(a.work, "direct"), os.path.join(a.work, "loaded")
    run_hemoflow(a.hemoflow, ["run", a.case, "--quiet", "--output", direct, "--set", f'geometry.file="{closed}"', *common])
    run_hemoflow(a.hemoflow, ["run", a.case, "--quiet", "--output", loaded, "--set", 'geometry.shape="voxels"',
                              "--set", f'geometry.file="{voxels}"', *common])
    import h5py
    import numpy as np

    with h5py.File(voxels) as f:
        P, d = f["solid_fraction"][...], f["signed_distance"][...]
    agree = bool(np.all(d[P == 0] > 0) and np.all(d[P == 1] <= 0))
    ok &= check(agree and float(np.abs(d).max()) <= 2e-3 * (1 + 1e-6),
                f"voxel file: /signed_distance positive in every fluid cell, not positive in every solid one, "
                f"clamped at 2 dx (largest |d| {float(np.abs(d).max()):.3g} m)")
    sd, sl = summary(direct), summary(loaded)
    ok &= check(sl.get("status") == "ok" and sd["population_checksum"] == sl["population_checksum"],
                f"voxel file run: {sl.get('status')}, checksum {sl.get('population_checksum')} "
                f"== direct {sd['population_checksum']}")

    # 3. refusals
    big = subprocess.run([a.hemoflow, "check", a.case, "--set", f'geometry.file="{closed}"', "--set", "lattice.dx=1e-7"],
                         capture_output=True, text=True)
    ok &= check(big.returncode == 2 and re.search(r"voxels, more than the limit of \d+; it would need .* or coarser would fit",
                                                  big.stderr) is not None,
                f"dx = 1e-7 m refused with exit code {big.returncode}: {big.stderr.strip()[-160:]}")
    other = subprocess.run([a.hemoflow, "check", a.case, "--set", 'geometry.shape="voxels"', "--set",
                            f'geometry.file="{voxels}"', "--set", "lattice.dx=5e-4"], capture_output=True, text=True)
    ok &= check(other.returncode == 2 and "was voxelized at dx = 0.001 m but lattice.dx = 0.0005 m" in other.stderr,
                f"voxel file at another dx refused with exit code {other.returncode}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
