#!/usr/bin/env python3
"""The density monitor and the compressibility estimate (issue 48 item 4).

A pipe driven by two Zou-He pressure iolets 1.4 Pa apart (cases/pipe_pressure.toml,
coarsened to 16 nodes across, dt 2 ms, no ramp): that difference is 1.58% of rho c_s^2,
the density spread the flow needs (physics/compressibility.hpp). `check` must say so and
warn (above 1%); the run's summary.json must report a largest density variation of at
least that (the iolets impose it from the first step), and not far more (the start-up
wave adds to it: 2.13% measured when this was written), at a step, with the density range
around 1; and the run must warn with the lever. A periodic pipe driven by a body force
(no pressure differences) must report a spread below 1% and no warning.
"""
import os
import subprocess
import sys

from common import arguments, check, run_hemoflow, summary


def main():
    a = arguments(__doc__, case=False)
    cases = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "cases")
    coarse = ["--set", "lattice.dx=1e-3", "--set", "lattice.dt=2e-3", "--set", "boundaries.iolet.0.ramp=0.0",
              "--set", "run.check_every=10", "--set", "output.every=0", "--set", "output.probe=[]"]
    pipe = os.path.join(cases, "pipe_pressure.toml")
    ok = True
    est = subprocess.run([a.hemoflow, "check", pipe, *coarse], capture_output=True, text=True)
    ok &= check(est.returncode == 0, "check runs")
    line = next((l for l in est.stderr.splitlines() if "compressibility:" in l), "")
    print(line[:200])
    ok &= check("warning" in line and "1.58% for the 1.4 Pa between imposed pressures" in line,
                "check estimates 1.58% from the imposed pressures and warns")
    out = os.path.join(a.work, "pipe")
    r = run_hemoflow(a.hemoflow, ["run", pipe, "--output", out, "--steps", "200", *coarse])
    s = summary(out)
    v, at, rng = s["largest_density_variation"], s["largest_density_variation_step"], s["density_range"]
    print(f"pipe: largest density variation {v:.4f} at step {at}, range {rng}")
    ok &= check(0.0158 * 0.98 <= v <= 0.0158 * 1.5, "the spread is at least the imposed 1.58% and under 1.5 times it")
    ok &= check(0 < at <= 200 and rng[0] < 1.0 < rng[1], "a step and a range around the mean")
    ok &= check("lattice density varied by" in r.stderr and "lattice.tau nearer 0.5" in r.stderr,
                "the run warns with the lever")
    quiet = os.path.join(a.work, "body_force_pipe")
    r = run_hemoflow(a.hemoflow, ["run", os.path.join(cases, "poiseuille_pipe.toml"), "--output", quiet, "--steps", "200",
                                  "--set", "run.check_every=10", "--set", "output.every=0", "--set", "output.probe=[]"])
    s = summary(quiet)
    print(f"body-force pipe: largest density variation {s['largest_density_variation']:.2e}")
    ok &= check(0 <= s["largest_density_variation"] < 0.01 and "lattice density varied" not in r.stderr,
                "the periodic body-force pipe's spread is below 1% and not warned")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
