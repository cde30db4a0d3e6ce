#!/usr/bin/env python3
"""Red blood cells on many ranks fail loudly (issue 13, must-have 7; docs/rbc_ranks.md 4.8).

Each fault must end the run with its exit code and a message naming what went wrong:
  too_fast   one cell from a seed file at 20 m/s (about 7 lattice spacings per step, more
             than the tile of 4), with almost no drag so that it keeps it: exit 3, "cell id 0 ... moved ... more than a tile", on
             1 rank and on 2 ranks
  misrouted  HEMO_TEST_RBC_MISROUTE=5 makes rank 0 send a copy of one of its cells to a
             peer at step 5: exit 1, "rank 1 received cell id N at (...) m from rank 0, but
             its tile belongs to rank 0" (never a silent drop or a duplicate)
  ghost      HEMO_TEST_RBC_MISROUTE_GHOST=5 makes rank 0 add one of its internal cells to
             the ghosts it sends at step 5: exit 1, "rank 1 received cell id N at (...) m
             from rank 0 as a neighbour, but its tile belongs to rank 0 and is not next to
             this rank's tiles"
  brick      partition.brick = 6 with tiles of 4 on 2 ranks (a tile would straddle two
             bricks, so two ranks): exit 2 naming partition.brick and the fix
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from rbc import box_case, seed_file  # noqa: E402

MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1", "OMP_NUM_THREADS": "1"}


def expect(cmd, code, pattern, label, extra_env=None):
    env = dict(os.environ, **MPI_ENV, **(extra_env or {}))
    cmd = [*cmd, "--overwrite"]  # reruns into its own folders
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    out = p.stderr + p.stdout
    ok = p.returncode == code and re.search(pattern, out) is not None
    print(("ok   " if ok else "FAIL ") + f"{label}: exit {p.returncode} (expected {code}), /{pattern}/ "
          f"{'found' if re.search(pattern, out) else 'NOT found'}")
    if not ok:
        print("\n".join(out.strip().splitlines()[-12:]))
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hemoflow", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    hemoflow = os.path.abspath(a.hemoflow)
    mpi = [a.mpiexec, "--allow-run-as-root", "--oversubscribe", "-np", "2"]
    ok = True

    fast_seed, fast = os.path.join(a.work, "fast_cell.h5"), os.path.join(a.work, "fast.toml")
    seed_file(fast_seed, [[20e-6, 20e-6, 20e-6]], velocities=[[20.0, 0.0, 0.0]])
    # Almost no drag, so that the plasma does not stop the cell in its first kick.
    box_case(fast, [40e-6] * 3, "xyz", f"[rbc]\nseed_file = \"{fast_seed}\"\ndrag_translational = 1e-20\n"
             "drag_rotational = 1e-30\nstrain_coupling = false\n")
    run = ["run", fast, "--quiet", "--backend", "cpu", "--steps", "5"]
    too_fast = r"rbc: cell id 0, now at \(.*\) m, moved [0-9.]+ lattice spacings along an axis in step 1, more than a tile \(4\)"
    ok &= expect([hemoflow, *run, "--output", os.path.join(a.work, "fast1")], 3, too_fast, "too_fast, 1 rank")
    ok &= expect([*mpi, hemoflow, *run, "--output", os.path.join(a.work, "fast2")], 3, too_fast, "too_fast, 2 ranks")

    box = os.path.join(a.work, "box.toml")
    box_case(box, [40e-6] * 3, "xyz", "[rbc]\nhaematocrit = 0.2\n")
    run = ["run", box, "--quiet", "--backend", "cpu", "--steps", "10"]
    ok &= expect([*mpi, hemoflow, *run, "--output", os.path.join(a.work, "misrouted")], 1,
                 r"rbc: rank 1 received cell id [0-9]+ at \(.*\) m from rank 0, but its tile belongs to rank 0",
                 "misrouted, 2 ranks", {"HEMO_TEST_RBC_MISROUTE": "5"})
    # Twice as long along x, so that each rank has internal tiles (those of no neighbour).
    long_box = os.path.join(a.work, "long_box.toml")
    box_case(long_box, [80e-6, 40e-6, 40e-6], "xyz", "[rbc]\nhaematocrit = 0.2\n")
    ok &= expect([*mpi, hemoflow, "run", long_box, "--quiet", "--backend", "cpu", "--steps", "10", "--output",
                  os.path.join(a.work, "ghost")], 1,
                 r"rbc: rank 1 received cell id [0-9]+ at \(.*\) m from rank 0 as a neighbour, but its tile belongs "
                 r"to rank 0 and is not next to this rank's tiles", "ghost in no tile near its receiver, 2 ranks",
                 {"HEMO_TEST_RBC_MISROUTE_GHOST": "5"})
    ok &= expect([*mpi, hemoflow, *run, "--set", "partition.brick=6", "--output", os.path.join(a.work, "brick")], 2,
                 r"partition\.brick.*= 6 is not a multiple of the cells' tile, 4 lattice spacings.*use partition\.brick = 8",
                 "brick not a multiple of the tile, 2 ranks")
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
