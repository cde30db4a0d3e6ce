#!/usr/bin/env python3
"""Cap files of a patient surface (issue 9): the carotid bifurcation of the external data
set, $HEMO_DATA_DIR/vascular/carotid_gmsh/ (skipped, exit code 77, where it is absent; its
licence keeps it out of the repository, so the caps are extracted into the work folder).

carotid.stl is the open surface (CCA, ICA and ECA cut by planes); carotid_capped.stl the
same surface closed by one flat fan per opening. The caps are the triangles of the
closed surface that the open one lacks, split into connected pieces and written as
carotid_cap_<k>.stl. Then `hemoflow mesh carotid_capped.stl --find-iolets --caps
'carotid_cap_*.stl'` must give three iolets that agree with `hemoflow mesh carotid.stl
--find-iolets` (which fits the rims of the open ends): the same order (by area), the
same suggested inlet (the CCA), and centres, normals and radii within 1e-4 (centres
relative to the radius). The two fits take different routes to the same plane: the rim
polyline (length-weighted, shoelace area) against the cap's triangles (area-weighted),
and the ends are flat to about 3e-7 m, 1e-4 of the smallest radius.
"""
import math
import os
import struct
import sys
import tomllib

from common import arguments, check, run_hemoflow

TOLERANCE = 1e-4


def read_stl(path):
    """The triangles of a binary or ASCII STL, each a tuple of three (x, y, z) tuples."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) >= 84 and 84 + 50 * struct.unpack_from("<I", data, 80)[0] == len(data):
        count = struct.unpack_from("<I", data, 80)[0]
        return [tuple(struct.unpack_from("<3f", data, 84 + 50 * t + 12 + 12 * k) for k in range(3))
                for t in range(count)]
    words = data.decode("ascii", "replace").split()
    vertices = [tuple(struct.unpack("<3f", struct.pack("<3f", *map(float, words[i + 1: i + 4]))))
                for i, w in enumerate(words) if w.lower() == "vertex"]
    return [tuple(vertices[3 * t: 3 * t + 3]) for t in range(len(vertices) // 3)]


def write_stl(path, triangles):
    out = bytearray(b"cap extracted by stl_caps_carotid.py".ljust(80, b" "))
    out += struct.pack("<I", len(triangles))
    for tri in triangles:
        out += struct.pack("<3f", 0.0, 0.0, 0.0)
        for v in tri:
            out += struct.pack("<3f", *v)
        out += b"\0\0"
    with open(path, "wb") as f:
        f.write(out)


def pieces(triangles):
    """The triangles split into pieces connected through shared vertices."""
    parent = list(range(len(triangles)))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first = {}
    for t, tri in enumerate(triangles):
        for v in tri:
            parent[root(t)] = root(first.setdefault(v, t))
    groups = {}
    for t in range(len(triangles)):
        groups.setdefault(root(t), []).append(triangles[t])
    return list(groups.values())


def iolets(hemoflow, args):
    out = run_hemoflow(hemoflow, ["mesh", *args, "--find-iolets"]).stdout
    return tomllib.loads(out)["boundaries"]["iolet"]


def main():
    a = arguments(__doc__, case=False)
    root = os.environ.get("HEMO_DATA_DIR", "")
    folder = os.path.join(root, "vascular", "carotid_gmsh")
    if not root or not os.path.isdir(folder):
        print("skipped: set HEMO_DATA_DIR to the folder holding vascular/carotid_gmsh/")
        return 77
    os.makedirs(a.work, exist_ok=True)
    capped, opened = os.path.join(folder, "carotid_capped.stl"), os.path.join(folder, "carotid.stl")

    key = lambda tri: frozenset(tri)
    in_open = {key(t) for t in read_stl(opened)}
    caps = pieces([t for t in read_stl(capped) if key(t) not in in_open])
    ok = check(len(caps) == 3, f"{len(caps)} caps in carotid_capped.stl that carotid.stl lacks (3)")
    for k, cap in enumerate(caps):
        write_stl(os.path.join(a.work, f"carotid_cap_{k}.stl"), cap)

    from_caps = iolets(a.hemoflow, [capped, "--caps", os.path.join(a.work, "carotid_cap_*.stl")])
    from_ends = iolets(a.hemoflow, [opened])
    ok &= check(len(from_caps) == 3 and len(from_ends) == 3,
                f"{len(from_caps)} iolets from the caps, {len(from_ends)} from the open ends (3 each)")
    for c, e in zip(from_caps, from_ends):
        dc = math.dist(c["center"], e["center"]) / e["radius"]
        dn = math.dist(c["normal"], e["normal"])
        dr = abs(c["radius"] / e["radius"] - 1)
        ok &= check(max(dc, dn, dr) < TOLERANCE and c["condition"] == e["condition"],
                    f"{c['name']} ({c['condition']}) against the open end {e['name']} ({e['condition']}): centre "
                    f"{dc:.1e} of the radius, normal {dn:.1e}, radius {dr:.1e} apart (radius {1e3 * c['radius']:.3f} mm)")
    if from_caps:
        ok &= check(from_caps[0]["condition"] == "velocity" and abs(2e3 * from_caps[0]["radius"] - 5.0) < 0.1,
                    f"the suggested inlet is the CCA (diameter {2e3 * from_caps[0]['radius']:.2f} mm)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
