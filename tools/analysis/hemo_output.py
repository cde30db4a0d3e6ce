"""Reading a hemoflow output folder: summary.json, the resolved case (case.toml), the
field snapshots (HDF5) and probe CSVs. Standard library plus numpy and h5py (Debian:
python3-numpy, python3-h5py)."""
import csv
import json
import os
import re
import tomllib

import numpy as np


def summary(out_dir):
    with open(os.path.join(out_dir, "summary.json")) as f:
        return json.load(f)


def case(out_dir):
    """The case as it ran: the case file with every --set override applied."""
    with open(os.path.join(out_dir, "case.toml"), "rb") as f:
        return tomllib.load(f)


def field_steps(out_dir):
    """Steps with a field snapshot, ascending."""
    names = os.listdir(os.path.join(out_dir, "fields"))
    return sorted(int(m.group(1)) for n in names if (m := re.fullmatch(r"step_(\d+)\.h5", n)))


def fields(out_dir, step=None):
    """(coordinates N x 3 in m, {name: array}) of one snapshot (the last by default)."""
    import h5py

    if step is None:
        step = field_steps(out_dir)[-1]
    with h5py.File(os.path.join(out_dir, "fields", "mesh.h5"), "r") as m:
        coords = m["coordinates"][...]
    with h5py.File(os.path.join(out_dir, "fields", f"step_{step:08d}.h5"), "r") as f:
        data = {k: f[k][...] for k in f.keys()}
    return coords, data


def iolet_flows(out_dir, record=-1):
    """{iolet name: flow rate in m^3/s (positive into the domain)} of one record of
    iolets.csv (the last by default); {} if there is none."""
    with open(os.path.join(out_dir, "iolets.csv")) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return {}
    suffix = "_flow_m3_per_s"
    return {k[: -len(suffix)]: float(v) for k, v in rows[record].items() if k.endswith(suffix)}


def probe(out_dir, name):
    """Rows of a probe CSV as a dict of numpy columns, keyed by the columns' names without
    their units (time_s -> time, ux_m_per_s -> ux, pressure_Pa -> pressure)."""
    with open(os.path.join(out_dir, f"{name}.csv")) as f:
        rows = list(csv.DictReader(f))
    bare = lambda k: re.sub(r"_(m_per_s|kg_m3|Pa|m|s)$", "", k)  # noqa: E731
    return {bare(k): np.array([float(r[k]) for r in rows]) for k in rows[0]}


def surface_statistics(out_dir):
    """wall_shear_surface.vtk, the legacy binary POLYDATA that the wall_shear plugin writes:
    the vertices (m), the triangles (vertex indices) and the cell data by name (big-endian
    doubles: tawss, osi, rrt, mean_wss)."""
    path = os.path.join(out_dir, "wall_shear_surface.vtk")
    data = open(path, "rb").read()
    pos = 0

    def line():
        nonlocal pos
        end = data.index(b"\n", pos)
        text = data[pos:end].decode()
        pos = end + 1
        return text

    for _ in range(4):
        line()
    head = line().split()
    assert head[0] == "POINTS", head
    n = int(head[1])
    points = np.frombuffer(data, ">f8", 3 * n, pos).reshape(n, 3)
    pos += 24 * n
    while True:
        head = line().split()
        if head:
            break
    assert head[0] == "POLYGONS", head
    m = int(head[1])
    cells = np.frombuffer(data, ">i4", 4 * m, pos).reshape(m, 4)
    pos += 16 * m
    if not (cells[:, 0] == 3).all():
        raise ValueError(f"{path}: a polygon that is not a triangle")
    scalars = {}
    while pos < len(data):
        head = line().split()
        if not head or head[0] == "CELL_DATA":
            continue
        if head[0] == "SCALARS":
            line()  # LOOKUP_TABLE
            scalars[head[1]] = np.frombuffer(data, ">f8", m, pos).astype(float)
            pos += 8 * m
        elif head[0] == "VECTORS":
            scalars[head[1]] = np.frombuffer(data, ">f8", 3 * m, pos).reshape(m, 3).astype(float)
            pos += 24 * m
        else:
            raise ValueError(f"{path}: unexpected {head[0]!r}")
    return points, cells[:, 1:].astype(np.int64), scalars


def triangle_areas_centroids(points, triangles):
    """Area (m^2) and centroid (m) of each triangle of a surface (surface_statistics's points
    and triangles)."""
    v = points[triangles]
    area = 0.5 * np.linalg.norm(np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0]), axis=1)
    return area, v.mean(axis=1)


def command_line(doc, analyse, report, plot=None, hide=()):
    """The shared command line of the analysis scripts: OUTPUT_DIR [--json] [--plot FILE].
    `report(result)` prints the human-readable summary; `hide` names result keys too
    bulky for --json."""
    import argparse
    import json

    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of the summary")
    if plot:
        ap.add_argument("--plot", help="also draw the comparison into this PNG file")
    a = ap.parse_args()
    res = analyse(a.out_dir)
    if plot and a.plot:
        plot(res, a.plot)
    if a.json:
        print(json.dumps({k: v for k, v in res.items() if k not in hide}, default=float))
    else:
        report(res)
    return 0
