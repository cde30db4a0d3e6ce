#!/usr/bin/env python3
"""How a case's wall shear maps depend on a model constant or the resolution: several runs
of the same surface (each run's wall_shear_surface.vtk: TAWSS and OSI on the input STL's
triangles, from the wall node nearest each triangle) compared triangle by triangle with one
of them, the reference. Every number is area weighted. A diagnostic: no tolerance, no
verdict (docs/hemodynamics.md, "How the maps depend on C and dx"). The caps of a capped
surface (triangles in an iolet's disc, from the reference run's case.toml) are left out:
they are not vessel wall.

Per run: its dx, Smagorinsky constant, steps, status (a run that stopped early has no
statistics and is listed as such), the mean TAWSS and OSI over the surface, per region
(a slab along an axis, in mm) the median TAWSS and the mean OSI; against the reference:
the relative L1 difference of TAWSS, sum A |T - T_ref| / sum A T_ref, the mean |OSI -
OSI_ref|, and the correlation coefficients of TAWSS and of OSI over the triangles.

usage: wss_sensitivity.py --run LABEL=DIR [--run ...] --reference LABEL
                          [--region NAME:AXIS:FROM:TO ...] [--out PREFIX] [--title TEXT]
                          [--command TEXT]
writes PREFIX.md and PREFIX.json (default: print the table only).
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hemo_output import surface_statistics, triangle_areas_centroids  # noqa: E402

# The carotid demo's slabs (docs/hemodynamics.md): the common carotid above the internal
# carotid's outlet, the bifurcation, the widened proximal external carotid.
DEFAULT_REGIONS = ["cca:z:64:82", "bifurcation:z:46:52", "eca_widened:z:28:40"]


def weighted_median(values, weights):
    order = np.argsort(values)
    c = np.cumsum(weights[order])
    return float(values[order][np.searchsorted(c, 0.5 * c[-1])])


def iolet_caps(case_toml, centroids, tolerance):
    """Triangles whose centroid lies in an iolet's disc (within `tolerance` m of its plane
    and 1.05 radii of its centre), from a run's case.toml."""
    import tomllib
    cap = np.zeros(len(centroids), bool)
    for io in tomllib.load(open(case_toml, "rb")).get("boundaries", {}).get("iolet", []):
        c, n = np.array(io["center"], float), np.array(io["normal"], float)
        n /= np.linalg.norm(n)
        d = centroids - c
        along = d @ n
        radial = np.linalg.norm(d - np.outer(along, n), axis=1)
        cap |= (np.abs(along) < tolerance) & (radial < 1.05 * io["radius"])
    return cap


def run_info(directory):
    info = {"dir": directory}
    summary = os.path.join(directory, "summary.json")
    if os.path.exists(summary):
        s = json.load(open(summary))
        info.update(status=s.get("status"), steps=s.get("steps"), steps_requested=s.get("steps_requested"),
                    dx=s.get("dx"), dt=s.get("dt"), mach=s.get("mach"), fluid_nodes=s.get("fluid_nodes"),
                    wall_seconds=s.get("wall_seconds"), device=s.get("device"), commit=s.get("hemoflow_commit"))
    case = os.path.join(directory, "case.toml")
    if os.path.exists(case):
        import tomllib
        c = tomllib.load(open(case, "rb"))
        info["smagorinsky"] = c.get("lb_bgk", {}).get("smagorinsky", 0.0)
    return info


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", action="append", required=True, metavar="LABEL=DIR")
    ap.add_argument("--reference", required=True, help="the label of the run the others are compared with")
    ap.add_argument("--region", action="append", metavar="NAME:AXIS:FROM:TO", help="a slab in mm (default: the carotid's)")
    ap.add_argument("--out", help="write PREFIX.md and PREFIX.json")
    ap.add_argument("--title", default="How the wall shear maps depend on C and dx")
    ap.add_argument("--command", default="", help="the command that made the runs, for the page")
    a = ap.parse_args()

    runs = {}
    for r in a.run:
        label, _, directory = r.partition("=")
        if not directory:
            ap.error(f"--run {r}: expected LABEL=DIR")
        runs[label] = run_info(directory)
    if a.reference not in runs:
        ap.error(f"--reference {a.reference}: not one of the runs' labels")
    regions = []
    for r in a.region or DEFAULT_REGIONS:
        name, axis, lo, hi = r.split(":")
        regions.append((name, "xyz".index(axis), float(lo), float(hi)))

    surfaces = {}
    for label, info in runs.items():
        vtk = os.path.join(info["dir"], "wall_shear_surface.vtk")
        done = info.get("status") == "ok" and info.get("steps") == info.get("steps_requested")
        if not done or not os.path.exists(vtk):
            info["maps"] = False
            continue
        info["maps"] = True
        surfaces[label] = surface_statistics(info["dir"])
    if a.reference not in surfaces:
        sys.exit(f"the reference run '{a.reference}' has no statistics ({runs[a.reference]['dir']})")
    points, tris, _ = surfaces[a.reference]
    area, centroid = triangle_areas_centroids(points, tris)
    centroid_mm = centroid * 1e3
    case_toml = os.path.join(runs[a.reference]["dir"], "case.toml")
    caps = iolet_caps(case_toml, centroid, 0.5 * (runs[a.reference].get("dx") or 0.0) + 1e-9) \
        if os.path.exists(case_toml) else np.zeros(len(tris), bool)
    cap_area = float(area[caps].sum())
    area = np.where(caps, 0.0, area)  # weight 0: left out of every sum and median
    ref = surfaces[a.reference][2]
    for label, (p, t, s) in surfaces.items():
        if len(t) != len(tris) or not np.array_equal(t, tris):
            sys.exit(f"run '{label}': its surface is not the reference's (different triangles)")
        T, O = s["tawss"], s["osi"]
        info = runs[label]
        info["tawss_mean_pa"] = float(np.sum(area * T) / area.sum())
        info["osi_mean"] = float(np.sum(area * O) / area.sum())
        info["regions"] = {}
        for name, k, lo, hi in regions:
            m = (centroid_mm[:, k] >= lo) & (centroid_mm[:, k] < hi) & ~caps
            info["regions"][name] = {"triangles": int(m.sum()),
                                     "tawss_median_pa": weighted_median(T[m], area[m]) if m.any() else None,
                                     "osi_mean": float(np.sum(area[m] * O[m]) / area[m].sum()) if m.any() else None}
        if label != a.reference:
            info["tawss_l1_rel"] = float(np.sum(area * np.abs(T - ref["tawss"])) / np.sum(area * ref["tawss"]))
            info["osi_abs_mean"] = float(np.sum(area * np.abs(O - ref["osi"])) / area.sum())
            wall = ~caps
            info["tawss_corr"] = float(np.corrcoef(T[wall], ref["tawss"][wall])[0, 1])
            info["osi_corr"] = float(np.corrcoef(O[wall], ref["osi"][wall])[0, 1])

    def g(x, f="{:.3g}"):
        return "-" if x is None else f.format(x)

    lines = [f"# {a.title}", ""]
    if a.command:
        lines += ["Made by:", "", "```sh", a.command, "```", ""]
    lines += [f"Compared with the run '{a.reference}', triangle by triangle over the input surface "
              f"({int((~caps).sum()):,} triangles, {area.sum() * 1e6:.1f} mm^2; {int(caps.sum())} triangles of the iolet caps, "
              f"{cap_area * 1e6:.1f} mm^2, left out), area weighted. A diagnostic: no tolerance.", "",
              "| run | dx (mm) | C | fluid nodes | steps | Mach | status | mean TAWSS (Pa) | mean OSI | "
              "TAWSS rel. L1 diff. | mean abs. OSI diff. | corr. TAWSS | corr. OSI |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for label, i in runs.items():
        status = "ok" if i.get("maps") else f"{i.get('status')} at step {i.get('steps')} of {i.get('steps_requested')}"
        lines.append(f"| {label} | {g(i.get('dx') and i['dx'] * 1e3)} | {g(i.get('smagorinsky'))} | "
                     f"{g(i.get('fluid_nodes'), '{:,}')} | {g(i.get('steps'), '{:,}')} | {g(i.get('mach'), '{:.3f}')} | "
                     f"{status} | {g(i.get('tawss_mean_pa'))} | {g(i.get('osi_mean'))} | "
                     f"{'(reference)' if label == a.reference else g(i.get('tawss_l1_rel'), '{:.1%}')} | "
                     f"{g(i.get('osi_abs_mean'))} | {g(i.get('tawss_corr'), '{:.3f}')} | {g(i.get('osi_corr'), '{:.3f}')} |")
    lines += ["", "Per region (a slab in mm): median TAWSS (Pa) / mean OSI.", "",
              "| run | " + " | ".join(f"{n} ({'xyz'[k]} {lo:g}-{hi:g} mm)" for n, k, lo, hi in regions) + " |",
              "|---|" + "---|" * len(regions)]
    for label, i in runs.items():
        if not i.get("maps"):
            continue
        cells = [f"{g(r['tawss_median_pa'])} / {g(r['osi_mean'], '{:.3f}')}" for r in i["regions"].values()]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    devices = sorted({i.get("device") for i in runs.values() if i.get("device")})
    commits = sorted({i.get("commit") for i in runs.values() if i.get("commit")})
    lines += ["", f"Device: {', '.join(devices)}; commit: {', '.join(commits)}.", ""]
    text = "\n".join(lines)
    print(text)
    if a.out:
        open(a.out + ".md", "w").write(text)
        json.dump({"reference": a.reference, "regions": [r for r in (a.region or DEFAULT_REGIONS)],
                   "command": a.command, "runs": runs}, open(a.out + ".json", "w"), indent=1)


if __name__ == "__main__":
    main()
