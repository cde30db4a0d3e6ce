#!/usr/bin/env python3
"""The CPU backend gives bitwise identical results for 1 and 2 OpenMP threads, and for
lexicographic and Morton node ordering (each node's update does the same arithmetic in
the same order whatever the thread or the node's place in memory)."""
import os
import sys

import numpy as np

from common import arguments, check, hemo_output, run_hemoflow, summary


def fields_by_voxel(out):
    import h5py

    with h5py.File(os.path.join(out, "fields", "mesh.h5"), "r") as m:
        voxel = m["voxel"][...]
    _, data = hemo_output.fields(out)
    order = np.lexsort((voxel[:, 0], voxel[:, 1], voxel[:, 2]))
    return {k: v[order] for k, v in data.items()}


def main():
    a = arguments(__doc__)
    common = ["run", a.case, "--quiet", "--steps", "200", "--set", "lattice.dx=5e-05", "--set", "output.every=0"]
    runs = {
        "1 thread": ({"OMP_NUM_THREADS": "1"}, []),
        "2 threads": ({"OMP_NUM_THREADS": "2"}, []),
        "2 threads, morton": ({"OMP_NUM_THREADS": "2"}, ["--set", "lattice.ordering=\"morton\""]),
    }
    outs = {}
    for name, (env, extra) in runs.items():
        out = os.path.join(a.work, name.replace(" ", "_").replace(",", ""))
        run_hemoflow(a.hemoflow, common + extra + ["--output", out], env=env)
        outs[name] = out
        print(f"{name}: checksum {summary(out)['population_checksum']}, device {summary(out)['device']}")
    ok = check(summary(outs["1 thread"])["population_checksum"] == summary(outs["2 threads"])["population_checksum"],
               "population checksums equal for 1 and 2 threads")
    lex, mor = fields_by_voxel(outs["2 threads"]), fields_by_voxel(outs["2 threads, morton"])
    ok &= check(all(np.array_equal(lex[k], mor[k]) for k in lex), "fields bitwise equal for lexicographic and Morton order")
    ok &= check(summary(outs["2 threads"])["population_checksum"] == summary(outs["2 threads, morton"])["population_checksum"],
                "population checksums equal for lexicographic and Morton order (keyed by voxel, not by storage)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
