#!/usr/bin/env python3
"""Iolet planes from the cap files of a closed surface (issue 9), on a pipe hemoflow
generates itself: tilted off the lattice axes (axis (1, 0.1, 0.05)) and tapered, radius
5 mm at its -axis end and 8 mm at its +axis end, so that the two openings differ.

`hemoflow stl-pipe --cap-files PREFIX` writes the closed pipe and each end's cap as
PREFIX_0.stl (-axis) and PREFIX_1.stl (+axis). Then `hemoflow mesh PIPE.stl
--find-iolets --caps ...` must print, as TOML that tomllib reads:

1. two iolets, the larger (+axis) end first, as the suggested velocity inlet (parabolic,
   velocity left to fill in) and the other as an outlet at pressure 0.0, each with a
   comment naming its cap file;
2. centres at +-L/2 on the axis, outward normals +-axis and the radius of the 64-gon's
   area, r sqrt(n sin(2 pi / n) / (2 pi)), all to 1e-6 relative. The STL files store
   float32 coordinates (6e-8 relative), which moves vertices by about 2e-9 m here and
   the fitted values by as much; 1e-6 leaves a factor of 30 over that and is still far
   below anything that would matter for an iolet (1e-6 of a radius);
3. the same planes (to 1e-12) for a cap wound the other way, a cap with every second
   triangle reversed, and a surface with every triangle reversed: winding is never used;
4. the same output for a quoted pattern ('PREFIX_?.stl') that hemoflow expands itself;
5. the same planes (to 1e-6) from the open version of the pipe without --caps, whose
   larger end is also the suggested inlet;
6. the printed tables pasted into a case with the velocity filled in pass `hemoflow
   check` (a normal pointing into the fluid would be refused there), which reports the
   Reynolds number on the inlet's diameter.
"""
import math
import os
import re
import struct
import subprocess
import sys
import tomllib

from common import arguments, check, run_hemoflow

AXIS = (1.0, 0.1, 0.05)
R0, R1, L, N = 0.005, 0.008, 0.068, 64


def rewind(src, dst, every=1):
    """Copies a binary STL with the winding of every `every`-th triangle reversed."""
    with open(src, "rb") as f:
        data = bytearray(f.read())
    count = struct.unpack_from("<I", data, 80)[0]
    for t in range(0, count, every):
        at = 84 + 50 * t
        n = struct.unpack_from("<3f", data, at)
        a, b, c = (data[at + 12 + 12 * k: at + 24 + 12 * k] for k in range(3))
        data[at: at + 12] = struct.pack("<3f", *(-x for x in n))
        data[at + 12: at + 48] = a + c + b
    with open(dst, "wb") as f:
        f.write(data)


def find_iolets(hemoflow, surface, caps=None):
    """Runs mesh --find-iolets; returns (stdout, the [[boundaries.iolet]] tables)."""
    args = ["mesh", surface, "--find-iolets"] + (["--caps", *caps] if caps else [])
    out = run_hemoflow(hemoflow, args).stdout
    return out, tomllib.loads(out).get("boundaries", {}).get("iolet", [])


def plane_difference(a, b):
    """Largest difference of centre (relative to L), normal and radius (relative)."""
    if len(a) != len(b):
        return math.inf
    worst = 0.0
    for x, y in zip(a, b):
        worst = max(worst, max(abs(p - q) for p, q in zip(x["center"], y["center"])) / L,
                    max(abs(p - q) for p, q in zip(x["normal"], y["normal"])), abs(x["radius"] / y["radius"] - 1))
    return worst


def main():
    a = arguments(__doc__, case=False)
    os.makedirs(a.work, exist_ok=True)
    w = lambda name: os.path.join(a.work, name)
    ok = True
    run_hemoflow(a.hemoflow, ["stl-pipe", "--output", w("pipe.stl"), "--radius", str(R0), "--end-radius", str(R1),
                              "--length", str(L), "--axis", ",".join(map(str, AXIS)), "--segments", str(N),
                              "--cap-files", w("pipe_cap")])
    caps = [w("pipe_cap_0.stl"), w("pipe_cap_1.stl")]

    # 1. two iolets, the larger first as the inlet
    out, iolets = find_iolets(a.hemoflow, w("pipe.stl"), caps)
    ok &= check(len(iolets) == 2, f"{len(iolets)} iolets from 2 caps")
    if len(iolets) != 2:
        print(out)
        return 1
    inlet, outlet = iolets
    ok &= check(inlet["name"] == "pipe_cap_1" and inlet["condition"] == "velocity" and inlet["profile"] == "parabolic"
                and "velocity" not in inlet and re.search(r"^# velocity = ", out, re.M) is not None,
                f"the larger opening ({inlet['name']}) is the suggested inlet: parabolic, velocity to fill in")
    ok &= check(outlet["name"] == "pipe_cap_0" and outlet["condition"] == "pressure" and outlet["pressure"] == 0.0,
                f"the other ({outlet['name']}) an outlet at pressure {outlet.get('pressure')}")
    comments = re.findall(r"^# from cap file (.*)$", out, re.M)
    ok &= check(comments == [caps[1], caps[0]], f"each iolet names its cap file: {comments}")

    # 2. the generated pipe's ends
    n = math.sqrt(sum(c * c for c in AXIS))
    u = [c / n for c in AXIS]
    polygon = math.sqrt(N * math.sin(2 * math.pi / N) / (2 * math.pi))
    for io, side, r in ((inlet, 1.0, R1), (outlet, -1.0, R0)):
        dc = max(abs(x - side * 0.5 * L * e) for x, e in zip(io["center"], u))
        dn = max(abs(x - side * e) for x, e in zip(io["normal"], u))
        dr = abs(io["radius"] / (r * polygon) - 1)
        ok &= check(dc < 1e-6 * L and dn < 1e-6 and dr < 1e-6,
                    f"{io['name']} at {side:+.0f} L/2: centre off by {dc:.1e} m, outward normal by {dn:.1e}, "
                    f"radius by {dr:.1e} (relative)")

    # 3. winding is never trusted
    rewind(caps[0], w("pipe_cap_0_reversed.stl"))
    rewind(caps[1], w("pipe_cap_1_mixed.stl"), every=2)
    rewind(w("pipe.stl"), w("pipe_reversed.stl"))
    for surface, cap_files, what in ((w("pipe.stl"), [w("pipe_cap_0_reversed.stl"), caps[1]], "a cap wound the other way"),
                                     (w("pipe.stl"), [caps[0], w("pipe_cap_1_mixed.stl")], "a cap of mixed winding"),
                                     (w("pipe_reversed.stl"), caps, "the surface wound the other way")):
        worst = plane_difference(find_iolets(a.hemoflow, surface, cap_files)[1], iolets)
        ok &= check(worst <= 1e-12, f"{what}: the same planes and outward normals (off by {worst:.1e})")

    # 4. a pattern the shell did not expand
    pattern = w("pipe_cap_?.stl")
    expanded = find_iolets(a.hemoflow, w("pipe.stl"), [pattern])[0]
    ok &= check(expanded == out, f"--caps '{pattern}' expanded by hemoflow gives the same output")

    # 5. the open pipe, without caps
    run_hemoflow(a.hemoflow, ["stl-pipe", "--output", w("pipe_open.stl"), "--radius", str(R0), "--end-radius", str(R1),
                              "--length", str(L), "--axis", ",".join(map(str, AXIS)), "--segments", str(N), "--open"])
    open_iolets = find_iolets(a.hemoflow, w("pipe_open.stl"))[1]
    worst = plane_difference(open_iolets, iolets)
    ok &= check(worst <= 1e-6 and open_iolets[0]["name"] == "inlet" and open_iolets[0]["condition"] == "velocity"
                and open_iolets[1]["condition"] == "pressure",
                f"open ends: the same planes (off by {worst:.1e}), the larger end the suggested inlet")

    # 6. pasted into a case
    velocity, viscosity = 0.05, 1e-4  # Mach 0.09 at dx = 1 mm, tau = 0.8
    tables = re.sub(r"^# velocity = \.\.\.", f"velocity = {velocity}", out, count=1, flags=re.M)
    case = w("pipe_caps.toml")
    with open(case, "w") as f:
        f.write(f'[fluid]\nviscosity = {viscosity}\n\n[lattice]\ndx = 1.0e-3\ntau = 0.8\n\n'
                f'[geometry]\nshape = "stl"\nfile = "pipe.stl"\n\n[output]\nevery = 0\nfinal = false\n\n{tables}')
    p = subprocess.run([a.hemoflow, "check", case], capture_output=True, text=True)
    diameter = 2 * inlet["radius"]
    reynolds = velocity * diameter / viscosity
    shown = re.search(r"L = ([0-9.e+-]+) m \(diameter of iolet 'pipe_cap_1'\).*Reynolds = ([0-9.e+-]+)", p.stderr)
    ok &= check(p.returncode == 0 and shown is not None and abs(float(shown.group(1)) / diameter - 1) < 1e-3
                and abs(float(shown.group(2)) / reynolds - 1) < 1e-3,
                f"the tables pass hemoflow check (exit {p.returncode}); Re on the inlet diameter "
                f"{shown.group(0) if shown else p.stderr.strip()[-300:]} (expected {reynolds:.4g})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
