#!/usr/bin/env python3
"""The local speed in `check` (issue 49 item 3): the Mach number where the flow is fastest.

The FDA benchmark nozzle (tools/geometry/fda_nozzle.py, cases/fda_nozzle.toml): the throat
carries nine times the inlet's mean velocity. Its Poiseuille peak there is 2 Q / (pi R^2)
= 0.829 m/s for the 2 mm throat; `check` must find the throat (z between -40 and 0 mm,
radius within a spacing of 2 mm) and print its Mach number beside the inlet's:
- at dx 0.4 mm and tau 0.52 (the inlet's Mach 0.13) even the throat's mean speed is above
  flow.max_mach (0.3): the case is refused (exit 2) naming the passage and the lever
  (lattice.tau);
- at dx 0.2 mm only the Poiseuille peak is (Mach 0.29-0.31): a warning, the check passes;
- in a straight pipe (cases/pipe_velocity.toml) the fastest place is the pipe itself:
  within 5% of the inlet's own centre-line velocity, and no warning.
"""
import os
import re
import subprocess
import sys

from common import arguments, check

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def local_line(stderr):
    return next((l for l in stderr.splitlines() if l.startswith("local speed:")), "")


def main():
    a = arguments(__doc__, case=False)
    geometry = os.path.join(a.work, "fda_nozzle")
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "geometry", "fda_nozzle.py"), "--output", geometry,
                    "--upstream", "0.05", "--downstream", "0.12"], check=True, capture_output=True)
    case = os.path.join(ROOT, "cases", "fda_nozzle.toml")
    at = ["--set", f'geometry.file="{os.path.join(geometry, "nozzle.stl")}"']
    ok = True

    coarse = subprocess.run([a.hemoflow, "check", case, *at, "--set", "lattice.dx=4e-4", "--set", "lattice.tau=0.52"],
                            capture_output=True, text=True)
    print(local_line(coarse.stderr)[:240])
    ok &= check(coarse.returncode == 2, f"dx 0.4 mm, tau 0.52 is refused (exit {coarse.returncode})")
    ok &= check("mean speed of the flow to outlet 'outlet' through its narrowest passage" in coarse.stderr
                and "lattice.tau <=" in coarse.stderr, "the refusal names the passage and the lever")
    line = local_line(coarse.stderr)
    m = re.search(r"radius about ([0-9.]+) mm at \(([-0-9.]+), ([-0-9.]+), ([-0-9.]+)\) mm", line)
    ok &= check(m is not None and abs(float(m.group(1)) - 2.0) <= 0.4 and -40.5 <= float(m.group(4)) <= 0.5,
                "the passage is the throat: radius within a spacing of 2 mm, z in [-40, 0] mm")

    mid = subprocess.run([a.hemoflow, "check", case, *at, "--set", "lattice.dx=2e-4"], capture_output=True, text=True)
    line = local_line(mid.stderr)
    print(line[:240])
    m = re.search(r"Mach ([0-9.]+) \(the Poiseuille peak", line)
    ok &= check(mid.returncode == 0 and "warning: local speed: Mach" in mid.stderr, "dx 0.2 mm passes with a warning")
    ok &= check(m is not None and 0.28 <= float(m.group(1)) <= 0.33, "its Poiseuille peak's Mach number is 0.28-0.33")

    pipe = subprocess.run([a.hemoflow, "check", os.path.join(ROOT, "cases", "pipe_velocity.toml")],
                          capture_output=True, text=True)
    line = local_line(pipe.stderr)
    print(line[:240])
    m = re.search(r"local speed: about ([0-9.]+) m/s", line)
    ok &= check(pipe.returncode == 0 and m is not None and abs(float(m.group(1)) / 0.1 - 1) <= 0.05
                and "warning: local speed" not in pipe.stderr, "a straight pipe: the inlet's 0.1 m/s within 5%, no warning")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
