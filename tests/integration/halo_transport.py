#!/usr/bin/env python3
"""Halos device to device (run.halo_transport = "auto": CUDA IPC between the ranks of one
node) give the same populations as halos through the host and as one GPU, bit for bit
(label gpu; exit 77 = skipped where fewer than 2 CUDA devices are visible).

Runs pipe_velocity (dx 5e-4, 200 steps) on 1 GPU and on 2 ranks with each transport, on
the node list in fp64 and on bricks streamed in place in fp32 (the reverse exchange), and
compares the population checksums; the host transport must report no device-to-device
link, and the device transport's count is printed (it falls back to the host for GPUs
that cannot reach each other).

usage: halo_transport.py --hemoflow HEMOFLOW --mpiexec MPIEXEC --case pipe_velocity.toml --work DIR
"""
import argparse
import os
import re
import sys

from common import check, run_hemoflow, summary

SKIP = 77


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hemoflow", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--case", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    info = run_hemoflow(a.hemoflow, ["info"]).stdout
    m = re.search(r"cuda\s+built; (\d+) device", info)
    if not m or int(m.group(1)) < 2:
        print("skipped: fewer than 2 CUDA devices (or a build without CUDA)")
        return SKIP
    os.makedirs(a.work, exist_ok=True)
    env = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1"}
    base = ["--backend", "cuda", "--quiet", "--progress", "never", "--steps", "200", "--set", "lattice.dx=5e-4",
            "--set", "output.every=0", "--set", "output.final=false"]
    variants = {"node list, fp64": [],
                "bricks in place, fp32": ["--set", "lattice.layout=\"bricks\"", "--set", "lb_bgk.streaming=\"aa\"",
                                          "--set", "run.precision=\"fp32\""]}
    ok = True
    for label, extra in variants.items():
        sums = {}
        for ranks, transport in [(1, "auto"), (2, "auto"), (2, "host")]:
            out = os.path.join(a.work, f"{label.split(',')[0].replace(' ', '_')}_{ranks}_{transport}")
            launch = [] if ranks == 1 else [a.mpiexec, "-np", str(ranks)]
            args = ["run", a.case, "--output", out, *base, *extra, "--set", f'run.halo_transport="{transport}"']
            run_hemoflow(a.hemoflow, args, env=env, launch=launch)
            s = summary(out)
            sums[(ranks, transport)] = s["population_checksum"]
            if ranks > 1:
                print(f"{label}, 2 ranks, {transport}: {s.get('halo_device_links')} of {s.get('halo_links')} links device to device")
                if transport == "host":
                    ok &= check(s.get("halo_device_links") == 0, f"{label}: the host transport copied nothing device to device")
        one = sums[(1, "auto")]
        ok &= check(sums[(2, "auto")] == one, f"{label}: 2 ranks device to device = 1 GPU ({sums[(2, 'auto')]} / {one})")
        ok &= check(sums[(2, "host")] == one, f"{label}: 2 ranks through the host = 1 GPU ({sums[(2, 'host')]} / {one})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
