#!/usr/bin/env python3
"""Open surfaces and caps (issue 49 item 2).

- `hemoflow mesh OPEN.stl --cap CLOSED.stl` on an open pipe (hemoflow stl-pipe --open, the
  tilted pipe of cases/vlbm_pipe.toml): writes the closed surface and one cap file per
  opening, and prints an inlet and an outlet for them; a run on the capped surface gives
  bit for bit the populations of the pipe that stl-pipe closes itself (the same fans);
- a run on the open surface exits 2 and says how to close it;
- a seam whose vertices differ in the last bit of one coordinate (the closed pipe with one
  vertex doubled a float step away on half of its triangles) is welded when the STL is
  read: the run goes, and says how many vertices it welded.
"""
import os
import re
import struct
import subprocess
import sys

from common import arguments, check, summary

PIPE = ["--radius", "0.008", "--length", "0.068", "--axis", "1,0.1,0.05", "--segments", "64"]
RUN = ["--overwrite", "--steps", "30", "--set", "lattice.dx=1e-3", "--set", "lattice.dt=6.67e-4",
       "--set", "geometry.subsamples=4"]


def split_seam(src, dst):
    """The binary STL `src` with its first vertex moved one float step in x on every
    second triangle that uses it."""
    with open(src, "rb") as f:
        data = bytearray(f.read())
    count = struct.unpack_from("<I", data, 80)[0]
    first = struct.unpack_from("<3f", data, 84 + 12)
    seen = 0
    for t in range(count):
        for c in range(3):
            at = 84 + 50 * t + 12 + 12 * c
            if struct.unpack_from("<3f", data, at) == first:
                if seen % 2 == 0:
                    x = struct.unpack_from("<I", struct.pack("<f", first[0]))[0] + 1
                    struct.pack_into("<f", data, at, struct.unpack("<f", struct.pack("<I", x))[0])
                seen += 1
    with open(dst, "wb") as f:
        f.write(data)
    return seen


def main():
    a = arguments(__doc__)
    os.makedirs(a.work, exist_ok=True)
    h = a.hemoflow
    closed, opened, capped = (os.path.join(a.work, n) for n in ("closed.stl", "open.stl", "capped.stl"))
    subprocess.run([h, "stl-pipe", "--output", closed, *PIPE], check=True, capture_output=True)
    subprocess.run([h, "stl-pipe", "--output", opened, "--open", *PIPE], check=True, capture_output=True)

    p = subprocess.run([h, "mesh", opened, "--cap", capped], capture_output=True, text=True)
    caps = [os.path.join(a.work, f"capped_cap{i}.stl") for i in (1, 2)]
    ok = check(p.returncode == 0 and "2 openings closed by flat caps" in p.stdout and all(map(os.path.exists, caps))
               and re.search(r'name = "inlet"\n# from cap file .*capped_cap[12].stl', p.stdout) is not None
               and 'name = "outlet1"' in p.stdout, "mesh --cap: the closed surface, two cap files, an inlet and an outlet")

    runs = {}
    for name, stl in (("closed", closed), ("capped", capped)):
        out = os.path.join(a.work, "run_" + name)
        r = subprocess.run([h, "run", a.case, *RUN, "--quiet", "--set", f'geometry.file="{stl}"', "--output", out],
                           capture_output=True, text=True)
        runs[name] = summary(out)["population_checksum"] if r.returncode == 0 else None
    ok &= check(runs["closed"] is not None and runs["closed"] == runs["capped"],
                f"the capped pipe runs as stl-pipe's closed one, bit for bit ({runs})")

    out = os.path.join(a.work, "run_open")
    r = subprocess.run([h, "run", a.case, *RUN, "--set", f'geometry.file="{opened}"', "--output", out],
                       capture_output=True, text=True)
    ok &= check(r.returncode == 2 and "the surface is not closed: 128 boundary edges" in r.stderr
                and "hemoflow mesh FILE.stl --cap CLOSED.stl" in r.stderr, "a run on the open surface says how to close it")

    seam = os.path.join(a.work, "seam.stl")
    moved = split_seam(closed, seam)
    out = os.path.join(a.work, "run_seam")
    r = subprocess.run([h, "run", a.case, *RUN, "--set", f'geometry.file="{seam}"', "--output", out],
                       capture_output=True, text=True)
    ok &= check(moved >= 4 and r.returncode == 0 and re.search(r"1 rim vertices welded within [0-9.e-]+ m", r.stdout + r.stderr),
                f"a seam a float step apart ({moved} corners, half moved) is welded and runs"
                + ("" if r.returncode == 0 else f": {r.stderr[-300:]}"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
