#!/usr/bin/env python3
"""Red blood cells coupled to the plasma (rbc plugin, docs/rbc.md), one scenario per run:

momentum    cells at haematocrit 0.2 in a fully periodic box whose plasma starts moving:
            the momentum of plasma + cells (cells.csv: m V of the cells, sum of c_q h_q of
            the populations) stays constant to 1e-6 of itself (issue 12; rounding gives
            ~1e-14 in fp64).
relaxation  one cell at rest in plasma moving uniformly (a periodic box), with
            gamma_T = m / (50 dt): its velocity approaches the plasma's as
            exp(-t gamma_T / m). Fitted time constant within 5% of m / gamma_T. The 5%,
            fixed before the run: the cell's own drag slows the plasma around it, which
            lengthens the time constant by about gamma_T / (6 pi mu a) ~ 2% here (a
            Stokeslet of the smeared force over a support of radius a ~ 2 spacings).
shear       one cell at the centre of a Couette flow (walls at z- and z+ sliding at -U
            and +U, periodic x and y), coupled by drag and torque only (the MUPHY
            paper's model, rbc.strain_coupling = false): once the flow is steady (three
            viscous times H^2 / nu) the cell turns at half the vorticity, Omega_y = G / 2
            with G = 2U / H, within 3% (LB's Couette profile is exact, and the kernel's
            fit of the velocity gradient is exact for a linear field; the 3% is for the
            flow's remaining unsteadiness). With the stresslet (the default) the cell
            resists the strain and the flow around it is no longer the imposed shear: a
            rigid disc then turns on a Jeffery orbit, not at G / 2 (0.85 G / 2 at the
            end of this run, 2026-11-25), and the test asserts nothing about it.
threads     the rbc_pipe case for 300 steps with 1 and 2 OpenMP threads: population
            checksum and every cell array written bitwise equal (the per-node gather of
            the drag adds in a fixed order; the placement tries its sizes one at a time
            on one thread and two at a time on two: the same cells).
cpu_cuda    (label gpu) cases/rbc_pipe.toml in fp64 for 300 steps on both backends: the
            cells' state checksum (cells.csv, every 100 steps) and the population
            checksum bitwise equal; exit 77 (skipped) without a CUDA device.
bad_seed    a seed file with two overlapping cells and one outside the fluid: exit 2, and
            the message names both problems with positions.
restart     cells at haematocrit 0.3 (placed shrunk, growing over 150 steps) in a periodic
            box, 200 steps straight through and again in two halves: steps 1-150 with a
            checkpoint after step 100 (mid-growth), then `--restart` from it to step 200
            in the same folder. cells.csv (its last state checksum included) and the
            population checksum bitwise equal; cells.xmf lists the snapshots of both
            halves once each (the first half's step 150 forgotten and written again) and
            reads as the straight run's. Refused (exit 2, the message naming file, table
            and column): the cells' checkpoint restored into a case without rbc, a fluid
            checkpoint into a case with rbc, and checkpoints edited to lack a column of the
            cells or to hold one with other components or of another type. A fluid checkpoint of format_version 1 (no
            /particles) still restores into a case without particle tables, bitwise.
stability   the drag coupling alone (Gay-Berne off, 1e-27 J) in a periodic box at
            haematocrit 0.33 and tau 1.5, at rest, 6000 steps: the cells' mean speed stays
            below 1e-9 m/s (it starts near 1e-12). Until 2026-11-25 the kick read the
            plasma's velocity of the last step's collision, a streaming step old, and this
            case grew a mode from rounding to NaN within 6000 steps (docs/rbc.md).
iolets      cells at haematocrit 0.2 in a 30 um tube with a velocity inlet that feeds
            cells (rbc.inflow) and a pressure outlet, 1500 steps (the plasma crosses the
            tube about three times): cells = seeded + entered - left at every cells.csv
            record (nothing lost, nothing made); cells entered at the inlet and left at the
            outlet; none left through the inlet (none is seeded in a sink, none flows
            back). The haematocrit is kept: in the tube's middle, |x| < 16 um (clear of
            the sink zones, about 9.3 um deep at each end, by one cell radius), the cells
            whose centres lie there, over the snapshots of the second half of the run
            (steps 800-1500, every 100), hold 0.8-1.2 of the target's volume. Fixed on
            2026-11-25 before the first run: the feed slab lags its target between
            top-ups, and about 40 cells in the region give ~15% counting noise per
            snapshot, less in the mean. (The first version asserted [0.8, 1.1] of the
            target over the whole tube, 0.848 measured; once the sinks reached one
            spacing further (faces cut at a slant, 2026-11-25) it measured 0.728 and
            failed, because the sink zones, about 30% of this tube, hold no cell centre
            by construction: the wrong quantity, removed then; this replaces it.)
"""
import argparse
import csv
import math
import os
import shutil
import sys

import numpy as np

from common import check, run_hemoflow, summary

DX, NU, RHO, TAU = 2.5e-6, 1.17e-6, 1025.0, 1.0
DT = (TAU - 0.5) * DX * DX / (3 * NU)
DIAMETER, THICKNESS, CELL_RHO = 8e-6, 2.5e-6, 1100.0
MASS = CELL_RHO * 4.0 / 3.0 * math.pi * (DIAMETER / 2) ** 2 * (THICKNESS / 2)


def write_case(path, geometry, extra="", plugins=("lb_bgk", "boundaries", "rbc")):
    """A CPU fp64 case at the plasma's properties; `geometry`: the [geometry] table and
    whatever boundaries it needs, as TOML."""
    with open(path, "w") as f:
        f.write(f"""[run]
precision = "fp64"
backend = "cpu"
plugins = [{", ".join(f'"{p}"' for p in plugins)}]
check_every = 1
[fluid]
density = {RHO}
viscosity = {NU}
[lattice]
dx = {DX}
tau = {TAU}
{geometry}
[output]
every = 0
{extra}
""")


def box_case(path, size, periodic, extra="", plugins=("lb_bgk", "boundaries", "rbc")):
    write_case(path, f"""[geometry]
shape = "box"
size = [{size[0]}, {size[1]}, {size[2]}]
[boundaries]
periodic = [{", ".join(f'"{a}"' for a in periodic)}]""", extra, plugins)


def seed_file(path, positions, axes=None, velocities=None):
    import h5py

    with h5py.File(path, "w") as f:
        f["position"] = np.asarray(positions, dtype=float)
        if axes is not None:
            f["axis"] = np.asarray(axes, dtype=float)
        if velocities is not None:
            f["velocity"] = np.asarray(velocities, dtype=float)


def rows(out):
    with open(os.path.join(out, "cells.csv")) as f:
        return list(csv.DictReader(f))


def momentum(a):
    case = os.path.join(a.work, "box.toml")
    box_case(case, [60e-6] * 3, "xyz", "[initial]\nvelocity = [0.01, 0.005, 0.002]\n[rbc]\nhaematocrit = 0.2\n")
    out = os.path.join(a.work, "momentum")
    run_hemoflow(a.hemoflow, ["run", case, "--quiet", "--steps", "300", "--set", "run.check_every=10", "--output", out])
    r = rows(out)
    total = np.array([[float(x[f"cell_momentum_{c}"]) + float(x[f"fluid_momentum_{c}"]) for c in "xyz"] for x in r])
    drift = np.abs(total - total[0]).max() / np.linalg.norm(total[0])
    print(f"{r[0]['cells']} cells; momentum of plasma + cells {total[0]} kg m/s; largest change over "
          f"{len(r)} records: {drift:.3e} of it")
    cells_share = np.linalg.norm([float(r[-1][f"cell_momentum_{c}"]) for c in "xyz"]) / np.linalg.norm(total[-1])
    ok = check(cells_share > 1e-3, f"the cells carry a share of the momentum ({cells_share:.3e})")
    return ok & check(drift < 1e-6, f"momentum of plasma + cells conserved to {drift:.2e} < 1e-6")


def relaxation(a):
    u0 = 2e-3  # m/s
    gamma = MASS / (50 * DT)
    case = os.path.join(a.work, "relax.toml")
    seed = os.path.join(a.work, "one_cell.h5")
    L = 60e-6
    seed_file(seed, [[L / 2, L / 2, L / 2]], axes=[[0.3, 0.2, 0.9]], velocities=[[0.0, 0.0, 0.0]])
    box_case(case, [L] * 3, "xyz",
             f"[initial]\nvelocity = [{u0}, 0.0, 0.0]\n[rbc]\nseed_file = \"{seed}\"\ndrag_translational = {gamma}\n")
    out = os.path.join(a.work, "relaxation")
    run_hemoflow(a.hemoflow, ["run", case, "--quiet", "--steps", "300", "--output", out])
    r = rows(out)
    steps = np.array([int(x["step"]) for x in r])
    v = np.array([float(x["cell_momentum_x"]) for x in r]) / MASS
    p = np.array([float(x["cell_momentum_x"]) + float(x["fluid_momentum_x"]) for x in r])
    fluid_mass = RHO * DX**3 * (round(L / DX) ** 3)
    u_final = p[-1] / (fluid_mass + MASS)
    # V(t) = u_f (1 - exp(-t / T)): fit log(1 - V / u_f) over V up to 95% of u_f.
    use = v < 0.95 * u_final
    slope = np.polyfit(steps[use] * DT, np.log(1 - v[use] / u_final), 1)[0]
    T, expected = -1.0 / slope, MASS / gamma
    print(f"m / gamma_T = {expected:.4e} s ({expected / DT:.1f} steps); fitted time constant {T:.4e} s "
          f"({T / DT:.2f} steps) over {use.sum()} records; plasma {u_final:.6e} m/s, cell {v[-1]:.6e} m/s at the end")
    ok = check(abs(T / expected - 1) < 0.05, f"time constant {T / expected:.4f} of m / gamma_T (within 5%)")
    return ok & check(abs(v[-1] / u_final - 1) < 0.01, "the cell moves with the plasma at the end (within 1%)")


def shear(a):
    import h5py

    U, H = 2e-3, 40e-6
    G = 2 * U / H
    case = os.path.join(a.work, "shear.toml")
    seed = os.path.join(a.work, "centre_cell.h5")
    seed_file(seed, [[30e-6, 30e-6, H / 2]], axes=[[0.0, 0.0, 1.0]], velocities=[[0.0, 0.0, 0.0]])
    walls = "".join(f"[[boundaries.moving_wall]]\nname = \"{n}\"\nface = \"{f}\"\nvelocity = [{v}, 0.0, 0.0]\n"
                    for n, f, v in (("bottom", "z-", -U), ("top", "z+", U)))
    box_case(case, [60e-6, 60e-6, H], "xy", walls + f"[rbc]\nseed_file = \"{seed}\"\nstrain_coupling = false\n")
    steps = int(3 * H * H / NU / DT)
    out = os.path.join(a.work, "shear")
    run_hemoflow(a.hemoflow, ["run", case, "--quiet", "--steps", str(steps), "--set", "output.final=true",
                              "--set", "run.check_every=100", "--output", out])
    last = sorted(f for f in os.listdir(os.path.join(out, "particles")) if f.endswith(".h5"))[-1]
    with h5py.File(os.path.join(out, "particles", last), "r") as f:
        omega = f["angular_velocity"][0]
        x = f["position"][0]
    print(f"shear rate G = {G:.4g} 1/s after {steps} steps; cell at {x} m turns at {omega} 1/s; G / 2 = {G / 2:.4g}")
    ok = check(abs(omega[1] / (G / 2) - 1) < 0.03, f"Omega_y = {omega[1] / (G / 2):.4f} of G / 2 (within 3%)")
    return ok & check(abs(omega[0]) + abs(omega[2]) < 0.03 * G / 2, "no turn about x or z")


def threads(a):
    import h5py

    outs = {}
    for t in ("1", "2"):
        out = os.path.join(a.work, f"threads_{t}")
        run_hemoflow(a.hemoflow, ["run", a.case, "--quiet", "--steps", "300", "--set", "output.every=300",
                                  "--set", "rbc.growth_steps=200", "--backend", "cpu", "--output", out],
                     env={"OMP_NUM_THREADS": t})
        outs[t] = out
    ok = check(summary(outs["1"])["population_checksum"] == summary(outs["2"])["population_checksum"],
               f"population checksum {summary(outs['1'])['population_checksum']} equal for 1 and 2 threads")
    name = "cells_00000300.h5"
    with h5py.File(os.path.join(outs["1"], "particles", name), "r") as f1, \
            h5py.File(os.path.join(outs["2"], "particles", name), "r") as f2:
        for k in f1:
            ok &= check(np.array_equal(f1[k][...], f2[k][...]), f"cells' {k} bitwise equal")
    return ok


def cpu_cuda(a):
    from cpu_cuda_agreement import has_cuda_device

    if not has_cuda_device(a.hemoflow):
        print("skipped: no CUDA device (or a build without CUDA)")
        sys.exit(77)
    got = {}
    for backend in ("cpu", "cuda"):
        out = os.path.join(a.work, backend)
        run_hemoflow(a.hemoflow, ["run", a.case, "--quiet", "--backend", backend, "--steps", "300", "--set",
                                  "run.precision=\"fp64\"", "--set", "run.check_every=100", "--set", "output.every=0",
                                  "--output", out])
        got[backend] = ([(r["step"], r["state_checksum"]) for r in rows(out)], summary(out)["population_checksum"])
        print(f"{backend}: cells {got[backend][0]}, populations {got[backend][1]}")
    ok = check(got["cpu"][0] == got["cuda"][0], "cells' state checksums bitwise equal on CPU and GPU")
    return ok & check(got["cpu"][1] == got["cuda"][1], "population checksums bitwise equal on CPU and GPU")


def bad_seed(a):
    case = os.path.join(a.work, "bad_seed.toml")
    seed = os.path.join(a.work, "bad_seed.h5")
    seed_file(seed, [[30e-6, 30e-6, 20e-6], [30.5e-6, 30e-6, 20e-6], [30e-6, 30e-6, 55e-6]])
    box_case(case, [60e-6, 60e-6, 40e-6], "xy", f"[rbc]\nseed_file = \"{seed}\"\n")
    p = run_hemoflow(a.hemoflow, ["run", case, "--quiet", "--steps", "1", "--output", os.path.join(a.work, "bad")],
                     expect=None)
    print(p.stderr.strip())
    ok = check(p.returncode == 2, f"exit code {p.returncode} (2: bad input)")
    ok &= check("2 problem(s) with its 3 cells" in p.stderr, "counts the problems and the cells")
    ok &= check("cell 1 at (3.05e-05, 3e-05, 2e-05) m overlaps an earlier cell at (3e-05, 3e-05, 2e-05) m" in p.stderr,
                "names the overlapping pair with positions")
    return ok & check("cell 2 at (3e-05, 3e-05, 5.5e-05) m is not in the fluid" in p.stderr,
                      "names the cell outside the fluid with its position")


def restart(a):
    import h5py

    steps, stop, every = 200, 150, 100
    case, fluid_case = os.path.join(a.work, "restart.toml"), os.path.join(a.work, "restart_fluid.toml")
    flow = "[initial]\nvelocity = [0.01, 0.005, 0.002]\n"
    box_case(case, [60e-6] * 3, "xyz", flow + "[rbc]\nhaematocrit = 0.3\ngrowth_steps = 150\n")
    box_case(fluid_case, [60e-6] * 3, "xyz", flow, plugins=("lb_bgk", "boundaries"))
    out = ["--quiet", "--set", "run.check_every=50", "--set", "output.every=50", "--output"]

    straight = os.path.join(a.work, "restart_straight")
    run_hemoflow(a.hemoflow, ["run", case, "--steps", str(steps), *out, straight])
    # The first half runs on past its checkpoint, like a job stopped later: the restart
    # forgets its snapshot and records after the checkpoint.
    split = os.path.join(a.work, "restart_split")
    run_hemoflow(a.hemoflow, ["run", case, "--steps", str(stop), "--set", f"checkpoint.every={every}", *out, split])
    checkpoint = os.path.join(split, "checkpoint.h5")
    with h5py.File(checkpoint, "r") as f:
        cells = f["particles/cells"]
        print(f"checkpoint after step {f.attrs['step']}, format_version {f.attrs['format_version']}: "
              f"{cells.attrs['count']} cells, start_size {cells.attrs['start_size']}, columns {sorted(cells)}")
        ok = check(f.attrs["step"] == every and cells.attrs["count"] == int(rows(split)[0]["cells"]) and
                   0 < cells.attrs["start_size"] < 1, f"the checkpoint after step {every} holds the cells, mid-growth")
    run_hemoflow(a.hemoflow, ["run", case, "--steps", str(steps), "--restart", split, *out, split])
    want, got = rows(straight), rows(split)
    print(f"last state checksum: straight {want[-1]['state_checksum']}, restarted {got[-1]['state_checksum']}")
    ok &= check(got[-1]["step"] == str(steps) and got[-1]["state_checksum"] == want[-1]["state_checksum"],
                f"the cells' state checksum after step {steps} bitwise equal")
    with open(os.path.join(straight, "cells.csv"), "rb") as f1, open(os.path.join(split, "cells.csv"), "rb") as f2:
        ok &= check(f1.read() == f2.read(), f"cells.csv byte for byte ({len(got)} records)")
    s1, s2 = summary(straight), summary(split)
    ok &= check(s1["population_checksum"] == s2["population_checksum"] and s2.get("first_step") == every,
                f"population checksum {s2['population_checksum']} after restarting from step {s2.get('first_step')} "
                f"(straight through: {s1['population_checksum']})")

    def listed(folder):
        with open(os.path.join(folder, "cells.xmf")) as f:
            text = f.read()
        return text, [int(g.split('"')[0]) for g in text.split('<Grid Name="cells_')[1:]]

    (xmf1, steps1), (xmf2, steps2) = listed(straight), listed(split)
    files = sorted(os.listdir(os.path.join(split, "particles")))
    ok &= check(steps2 == [50, 100, 150, 200] and xmf2 == xmf1 and files == [f"cells_{s:08d}.h5" for s in steps2],
                f"cells.xmf lists steps {steps2} (straight through: {steps1}), particles/ holds {files}")

    # Refused: the cells into a case without them, and a fluid checkpoint into one with them.
    p = run_hemoflow(a.hemoflow, ["run", fluid_case, "--steps", str(steps), "--restart", split, *out,
                                  os.path.join(a.work, "restart_refused")], expect=None)
    print(p.stderr.strip())
    ok &= check(p.returncode == 2 and f"{checkpoint}: the checkpoint holds particle table 'cells' of plugin rbc" in p.stderr
                and 'add "rbc" to run.plugins' in p.stderr, f"cells into a case without rbc: exit {p.returncode}")
    # Refused: a checkpoint whose cells lack a column, or hold one of other components or type.
    for what, edit, message in [
            ("no column", lambda g: g.__delitem__("velocity"), "particle table 'cells' has no column 'velocity'"),
            ("components", lambda g: (g.__delitem__("velocity"), g.create_dataset("velocity", data=g["position"][:2])),
             "particle table 'cells', column 'velocity': the checkpoint has 64-bit floating point x 2 components of"),
            ("type", lambda g: (g.create_dataset("narrow", data=g["position"][...].astype("float32")),
                                g.__delitem__("position"), g.move("narrow", "position")),
             "particle table 'cells', column 'position': the checkpoint has 32-bit floating point x 3 components")]:
        edited = os.path.join(a.work, "restart_edited.h5")
        shutil.copy(checkpoint, edited)
        with h5py.File(edited, "a") as f:
            edit(f["particles/cells"])
        unseal(edited)
        p = run_hemoflow(a.hemoflow, ["run", case, "--steps", str(steps), "--restart", edited, *out,
                                      os.path.join(a.work, "restart_refused")], expect=None)
        ok &= check(p.returncode == 2 and f"{edited}: {message}" in p.stderr,
                    f"refused ({what}): exit {p.returncode}: " + p.stderr.strip().splitlines()[-1])
    fluid_straight, fluid_split = os.path.join(a.work, "restart_fluid"), os.path.join(a.work, "restart_fluid_split")
    run_hemoflow(a.hemoflow, ["run", fluid_case, "--steps", "20", *out, fluid_straight])
    run_hemoflow(a.hemoflow, ["run", fluid_case, "--steps", "10", "--set", "checkpoint.every=10", *out, fluid_split])
    p = run_hemoflow(a.hemoflow, ["run", case, "--steps", str(steps), "--restart", fluid_split, *out,
                                  os.path.join(a.work, "restart_refused")], expect=None)
    print(p.stderr.strip())
    ok &= check(p.returncode == 2 and "the checkpoint holds no particle table 'cells', which plugin rbc" in p.stderr,
                f"a fluid checkpoint into a case with rbc: exit {p.returncode}")
    # Format 1, as written before checkpoints held particle tables.
    with h5py.File(os.path.join(fluid_split, "checkpoint.h5"), "a") as f:
        ok &= check(len(f["particles"]) == 0, "a fluid run's checkpoint has an empty /particles")
        del f["particles"]
        f.attrs["format_version"] = 1
    unseal(os.path.join(fluid_split, "checkpoint.h5"))
    run_hemoflow(a.hemoflow, ["run", fluid_case, "--steps", "20", "--restart", fluid_split, *out, fluid_split])
    c1, c2 = summary(fluid_straight)["population_checksum"], summary(fluid_split)["population_checksum"]
    return ok & check(c1 == c2, f"a fluid checkpoint of format_version 1 restores bitwise ({c2}, straight through {c1})")


def unseal(path):
    """A checkpoint edited on purpose: blank its seal (the checksum in its 512-byte user
    block, core/io/hdf5_file.hpp), which the edit broke; hemoflow then reads it unchecked."""
    with open(path, "r+b") as f:
        f.write(bytes(512))


def stability(a):
    case = os.path.join(a.work, "box.toml")
    box_case(case, [40e-6] * 3, "xyz", "[rbc]\nhaematocrit = 0.33\nrepulsion_energy = 1e-27\n")
    out = os.path.join(a.work, "stability")
    run_hemoflow(a.hemoflow, ["run", case, "--quiet", "--steps", "6000", "--set", "lattice.tau=1.5", "--set",
                              "run.precision=\"fp32\"", "--set", "run.check_every=1000", "--output", out])
    speeds = [float(x["mean_speed_m_s"]) for x in rows(out)]
    print(f"{rows(out)[0]['cells']} cells; mean speed every 1000 steps: {' '.join(f'{v:.2e}' for v in speeds)} m/s")
    return check(max(speeds) < 1e-9, f"the cells stay at rest: largest mean speed {max(speeds):.2e} m/s < 1e-9")


def iolet_tube_case(path):
    """A 30 um tube, 60 um long, with a velocity inlet feeding cells at haematocrit 0.2 and a
    pressure outlet (the iolets scenario; tests/mpi/rbc_same_answer.py's too)."""
    write_case(path, """[geometry]
shape = "pipe"
radius = 15.0e-6
length = 60.0e-6
axis = [1.0, 0.0, 0.0]
[[boundaries.iolet]]
name = "inlet"
center = [-30.0e-6, 0.0, 0.0]
normal = [-1.0, 0.0, 0.0]
radius = 15.0e-6
condition = "velocity"
profile = "parabolic"
velocity = 0.05
ramp = 0.0002
[[boundaries.iolet]]
name = "outlet"
center = [30.0e-6, 0.0, 0.0]
normal = [1.0, 0.0, 0.0]
radius = 15.0e-6
condition = "pressure"
pressure = 0.0""", "[rbc]\nhaematocrit = 0.2\ninflow = [\"inlet\"]\n")


def iolets(a):
    case = os.path.join(a.work, "pipe.toml")
    iolet_tube_case(case)
    out = os.path.join(a.work, "iolets")
    run_hemoflow(a.hemoflow, ["run", case, "--quiet", "--steps", "1500", "--set", "run.check_every=50",
                              "--set", "output.every=100", "--output", out])
    r = rows(out)
    balance = [int(x["cells"]) - int(x["entered_inlet"]) - int(x["entered_outlet"]) + int(x["left_inlet"]) +
               int(x["left_outlet"]) for x in r]
    last = r[-1]
    print(f"seeded {balance[0]}; at step {last['step']}: {last['cells']} cells, entered {last['entered_inlet']} at the "
          f"inlet, left {last['left_outlet']} at the outlet and {last['left_inlet']} at the inlet; haematocrit "
          f"{last['haematocrit']}")
    ok = check(len(set(balance)) == 1, f"cells = seeded + entered - left at all {len(r)} records")
    ok &= check(int(last["entered_inlet"]) > 0 and int(last["left_outlet"]) > 0, "cells entered at the inlet and left "
                "at the outlet")
    ok &= check(int(last["left_inlet"]) == 0 and int(last["entered_outlet"]) == 0, "none left at the inlet, none entered "
                "at the outlet")
    print(f"haematocrit at the end over the whole tube: {float(last['haematocrit']) / 0.2:.3f} of the target "
          "(not asserted; see the docstring)")
    import h5py

    cell_volume = 4.0 / 3.0 * math.pi * 4e-6 * 4e-6 * 1.25e-6  # the plugin's default cell
    fluid_volume = int(last["cells"]) * cell_volume / float(last["haematocrit"])  # a straight tube: uniform section
    half = 16e-6
    middle = fluid_volume * (2 * half) / 60e-6
    found = []
    for name in sorted(os.listdir(os.path.join(out, "particles"))):
        if not name.endswith(".h5") or int(name[6:-3]) < 800:
            continue
        with h5py.File(os.path.join(out, "particles", name), "r") as f:
            x = f["position"][:, 0]
        found.append(np.count_nonzero(np.abs(x) < half) * cell_volume / middle)
    mean = float(np.mean(found)) / 0.2
    print(f"haematocrit in the middle (|x| < 16 um), {len(found)} snapshots: "
          f"{', '.join(f'{h / 0.2:.3f}' for h in found)} of the target")
    return ok & check(len(found) >= 7 and 0.8 <= mean <= 1.2,
                      f"the haematocrit in the tube's middle over the second half is {mean:.3f} of the target "
                      "(within 0.8-1.2)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hemoflow", required=True)
    ap.add_argument("--case", help="cases/rbc_pipe.toml (threads)")
    ap.add_argument("--work", required=True)
    ap.add_argument("--scenario", required=True,
                    choices=["momentum", "relaxation", "shear", "threads", "bad_seed", "cpu_cuda", "restart", "iolets", "stability"])
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    ok = globals()[a.scenario](a)
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
