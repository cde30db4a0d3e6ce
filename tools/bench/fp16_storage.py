#!/usr/bin/env python3
"""How much one rounding of the populations to a 16-bit storage format moves the moments
(issue 16, must-have 1: "FP16 with a range shift ... and a custom 16-bit format if it is
more accurate"). A diagnostic, not a validation: it rounds the populations of one
developed flow state once and measures what that does to density and velocity; it says
nothing about how rounding errors grow over a run, which only the built storage, with
the validation studies rerun in it, can show.

For each case: run it on the CPU in fp64 for the steps listed (flows under way, not all
steady) with a checkpoint at the end, read the stored populations h_q = f_q - w_q (fields/f), then for
each format encode and decode every h_q (scaled by S first, divided by S after):
  fp32        IEEE single (the reference the kernels store today)
  half S=1    IEEE half, round to nearest even (numpy float16): 1 sign, 5 exponent, 10
              mantissa bits, normal from 6.1e-5, subnormal below
  half S=2^k  the same after scaling by S, k the largest that keeps max |h| S below 2^15:
              the shift that moves the small h_q out of the subnormal range
  e4m11 S     a 16-bit format of 1 sign, 4 exponent and 11 mantissa bits (one bit more
              precision, half the exponent range of IEEE half), its 16 binades placed so
              that the largest |h| S fits, subnormal below them; S as for half
and compare density rho = 1 + sum h and velocity u = sum c h / rho with those of the
fp64 state: max |d rho|, and max |d u| over max |u| (the flow's scale).

  tools/bench/fp16_storage.py --hemoflow build/bin/hemoflow --work /tmp/fp16 --docs docs
"""
import argparse
import datetime
import os
import subprocess
import sys

import numpy as np

from benchlib import ROOT, commit, publish

CASES = [  # label, case, extra arguments (coarse enough for the CPU)
    ("Poiseuille pipe, 1500 steps", "cases/poiseuille_pipe.toml", ["--steps", "1500"]),
    ("Womersley pipe, 1.5 periods", "cases/womersley.toml", ["--steps", "672"]),
    ("pipe with a velocity inlet, dx 1 mm, 3000 steps", "cases/pipe_velocity.toml", ["--steps", "3000", "--set", "lattice.dx=1e-3"]),
    ("lid-driven cavity Re 1000, 32^3, 3000 steps", "cases/cavity_re1000.toml",
     ["--steps", "3000", "--set", "lattice.dx=3.125e-4"]),
]


def d3q19():
    """The velocity set c (3 x 19) in the order of the stored populations, read from
    physics/d3q19.hpp's cx, cy and cz tables."""
    path = os.path.join(ROOT, "physics", "d3q19.hpp")
    text = open(path).read()
    rows = []
    for axis in ("cx", "cy", "cz"):
        body = text[text.index(f"HEMO_HD constexpr int {axis}(int q)"):]
        body = body[body.index("v[Q] = {") + len("v[Q] = {"):]
        rows.append([int(v) for v in body[:body.index("}")].split(",")])
    c = np.array(rows, dtype=np.float64)
    if c.shape != (3, 19) or np.any(c.sum(axis=1) != 0):
        raise SystemExit(f"{path}: could not read the D3Q19 velocities; update tools/bench/fp16_storage.py")
    return c


def e4m11(x):
    """Round to 1 sign, 4 exponent, 11 mantissa bits with 16 binades [2^(e0), 2^(e0+16)) chosen
    so that max |x| < 2^(e0+16); subnormal (fixed spacing 2^(e0-11)) below; round half to even."""
    top = np.ceil(np.log2(np.max(np.abs(x)) * (1 + 2.0 ** -12)))
    e0 = top - 16
    e = np.floor(np.log2(np.maximum(np.abs(x), 2.0 ** e0)))
    step = 2.0 ** (e - 11)
    return np.round(x / step) * step  # numpy rounds half to even


def formats(h):
    big = np.max(np.abs(h))
    k = int(np.floor(np.log2(2.0 ** 15 / big)))
    s = 2.0 ** k
    return {
        "fp32": h.astype(np.float32).astype(np.float64),
        "half S=1": h.astype(np.float16).astype(np.float64),
        f"half S=2^{k}": (h * s).astype(np.float16).astype(np.float64) / s,
        "e4m11": e4m11(h),
    }


def moments(h, c):
    rho = 1.0 + h.sum(axis=0)
    return rho, (c @ h) / rho


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hemoflow", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--docs", help="write fp16_storage.md and .json here")
    a = ap.parse_args()
    import h5py

    os.makedirs(a.work, exist_ok=True)
    c = d3q19()
    result = {"commit": commit(), "date": datetime.date.today().isoformat(), "cases": []}
    for label, case, extra in CASES:
        out = os.path.join(a.work, os.path.basename(case).replace(".toml", ""))
        steps = extra[extra.index("--steps") + 1]
        cmd = [os.path.abspath(a.hemoflow), "run", os.path.join(ROOT, case), "--quiet", "--backend", "cpu", *extra,
               "--set", 'run.precision="fp64"', "--set", f"checkpoint.every={steps}", "--set", "output.every=0",
               "--output", out, "--overwrite"]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"failed: {' '.join(cmd)}\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
        with h5py.File(os.path.join(out, "checkpoint.h5"), "r") as f:
            h = np.array(f["fields/f"], dtype=np.float64)
        if h.shape[0] != 19:
            h = h.T
        rho, u = moments(h, c)
        umax = np.max(np.linalg.norm(u, axis=0))
        row = {"label": label, "case": case, "args": " ".join(extra), "nodes": int(h.shape[1]),
               "max_h": float(np.max(np.abs(h))), "median_h": float(np.median(np.abs(h))),
               "subnormal_half": float(np.mean((np.abs(h) < 6.1035e-5) & (h != 0))), "u_max": float(umax),
               "formats": {}}
        for name, hq in formats(h).items():
            r2, u2 = moments(hq, c)
            row["formats"][name] = {"rho_max": float(np.max(np.abs(r2 - rho))),
                                    "u_max_rel": float(np.max(np.linalg.norm(u2 - u, axis=0)) / umax),
                                    "u_rms_rel": float(np.sqrt(np.mean(np.sum((u2 - u) ** 2, axis=0))) / umax)}
        print(label, {k: f"{v['u_max_rel']:.1e}" for k, v in row["formats"].items()}, flush=True)
        result["cases"].append(row)
    L = ["# 16-bit population storage: the error of one rounding, measured on flow states", "",
         f"Generated by `tools/bench/fp16_storage.py` on {result['date']} at commit `{result['commit']}`, on the CPU. "
         "Each case runs in fp64 for the steps in its name (flows under way, not all steady); its populations h_q = f_q - w_q are rounded once to each "
         "format and back, and density and velocity recomputed. A diagnostic of the formats, not a validation: how the "
         "error grows over a run needs the storage built and the validation studies rerun in it (issue 16). The "
         "script's docstring defines every format.", "",
         "| case | nodes | max abs h | median abs h | h below half's normal range | format | max abs d rho | "
         "max abs d u / max u | rms abs d u / max u |", "|---|---|---|---|---|---|---|---|---|"]
    for r in result["cases"]:
        for name, m in r["formats"].items():
            L.append(f"| {r['label']} | {r['nodes']:,} | {r['max_h']:.2e} | {r['median_h']:.2e} | "
                     f"{100 * r['subnormal_half']:.0f}% | {name} | {m['rho_max']:.1e} | {m['u_max_rel']:.1e} | "
                     f"{m['u_rms_rel']:.1e} |")
    publish(a.docs, "fp16_storage", result, L)


if __name__ == "__main__":
    sys.exit(main())
