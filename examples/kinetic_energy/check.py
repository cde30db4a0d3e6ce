#!/usr/bin/env python3
"""The kinetic_energy example's test: runs pipe.toml with the plugin, then checks the last
row of kinetic_energy.csv against the same sum computed here from hemoflow's own field
snapshot (density and velocity, physical units): E = sum rho |u|^2 / 2 dx^3.

Checks (fixed before the first run): the energy is positive and the two sums agree to
1e-10 relative (fp64; they round differently: lattice units scaled once, or physical
values per node). It checks the plugin's code, not physics.

usage: check.py --hemoflow HEMOFLOW [--backend cpu|cuda] [--work DIR]
       (HEMO_PLUGIN_PATH must hold hemo_plugin_kinetic_energy.so)
"""
import argparse
import csv
import glob
import json
import os
import subprocess
import sys

import h5py
import numpy as np

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("--hemoflow", required=True)
ap.add_argument("--backend", default="cpu")
ap.add_argument("--work", default="/tmp/kinetic_energy_check")
a = ap.parse_args()

case = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pipe.toml")
subprocess.run([a.hemoflow, "run", case, "--quiet", "--backend", a.backend, "--output", a.work, "--overwrite"],
               check=True)
with open(os.path.join(a.work, "kinetic_energy.csv")) as f:
    rows = list(csv.DictReader(f))
with open(os.path.join(a.work, "summary.json")) as f:
    dx = json.load(f)["dx"]
with h5py.File(sorted(glob.glob(os.path.join(a.work, "fields", "step_*.h5")))[-1], "r") as h:
    rho, u = h["density"][()], h["velocity"][()]
plugin = float(rows[-1]["kinetic_energy_J"])
here = float(np.sum(0.5 * rho * np.sum(u * u, axis=1)) * dx ** 3)
rel = abs(plugin - here) / here
print(f"step {rows[-1]['step']}: kinetic energy {plugin:.12e} J (plugin), {here:.12e} J (snapshot), relative {rel:.1e}")
ok = plugin > 0 and rel <= 1e-10
print("kinetic_energy check:", "pass" if ok else "FAIL")
sys.exit(0 if ok else 1)
