"""Validation study pulse_reflection: how much of a pressure pulse a pressure outlet, and a
velocity inlet, send back (cases/pulse_reflection.toml, cases/pulse_reflection_inlet.toml).

A straight pipe, R = 2 mm and 0.1 m long, tau 0.52; the inlet's centre-line velocity rises
and falls once over 10 ms (a raised cosine, 0.02 m/s at its peak). The pulse runs down the
pipe at the lattice's sound speed; the probe 10 mm before the outlet records it passing
and, 2 x 10 mm / c_s later, whatever the outlet sent back. The reference is the same pipe
extended 0.2 m beyond the outlet (the same voxels: a pipe's lattice starts at its inlet
end, -L/2, in both), at whose far end nothing reflects in time: the
two probes agree to rounding until the echo arrives. The reflection coefficient is
  R = (largest |p_short - p_long| from the incident pulse's peak to 2 pulse lengths after
       the echo's arrival, with its sign) / (the incident pulse's peak pressure),
for the absorbing outlet (`absorbing = true`, the case) and the plain one, at 4, 6 and 8
nodes per radius (tau fixed: 20, 44 and 79 steps per pulse).
Check pulse.reflection: |R| of the absorbing outlet at the finest level (issue 48 item 3:
below 5%). The plain outlet's R (about -1, less the viscous losses) is a diagnostic.

The inlet's the other way round: the outlet's pressure rises and falls once over 10 ms
(10 Pa), the pulse runs up the pipe to a velocity inlet that holds no flow, and the probe
10 mm after the inlet records it passing and what the inlet sent back; the reference
extends the pipe 0.2 m upstream of the inlet (the same voxels: the extension is a whole
number of dx). Check pulse.inlet_reflection: |R| of the absorbing (Zou-He, held-flow)
inlet at the finest level; the plain Zou-He inlet's R (about +1) is a diagnostic.
Reduced (CPU): 4 nodes per radius, its own tolerances.
"""
import os

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NAN = float("nan")
R_PIPE, LENGTH, NU, TAU = 0.002, 0.1, 3.3e-6, 0.52
PULSE = 0.01          # s (cases/data/pulse_10ms.csv)
PROBE_TO_OUTLET = 0.01  # m from the iolet that reflects (the outlet's, or the inlet's) to the probe
EXTRA = 0.2           # m of pipe the reference adds beyond the iolet that reflects

SOURCES = {"pulse_reflection": ["cases/pulse_reflection.toml", "cases/data/pulse_10ms.csv",
                                "cases/pulse_reflection_inlet.toml", "cases/data/pressure_pulse_10ms.csv",
                                "tools/validation/pulse_reflection.py"]}

# The two set-ups: the case, the iolet whose reflection is measured (its index), the probe,
# the check, and the --set that makes the long reference (the pipe extended beyond that
# iolet, which moves with its end).
SIDES = {
    "outlet": dict(case="pulse_reflection.toml", iolet=1, probe="near_outlet", check="pulse.reflection",
                   sign=+1),
    "inlet": dict(case="pulse_reflection_inlet.toml", iolet=0, probe="near_inlet", check="pulse.inlet_reflection",
                  sign=-1),
}


def levels(reduced):
    return (4,) if reduced else (4, 6, 8)


def probe(out, name):
    path = os.path.join(out, name + ".csv")
    d = np.genfromtxt(path, delimiter=",", names=True)
    return d["time_s"], d["pressure_Pa"], float(d["x_m"][0])


def reflection(short, long_):
    """R of the short pipe's outlet against the long pipe (see the module's text), and
    the largest difference before the echo (how identical the two runs are until then)."""
    t, p, _ = short
    tl, pl, _ = long_
    n = min(len(t), len(tl))
    t, d, pl = t[:n], p[:n] - pl[:n], pl[:n]
    peak_at = t[int(np.argmax(pl))]
    incident = float(pl.max())
    window = (t >= peak_at) & (t <= peak_at + 4 * PULSE)
    before = float(np.abs(d[t < peak_at]).max()) if np.any(t < peak_at) else NAN
    k = int(np.argmax(np.abs(d[window])))
    return float(d[window][k] / incident), before, incident


def pulse_reflection(ctx):
    records = []
    finest = levels(ctx.reduced)[-1]
    for side, how in SIDES.items():
        for n in levels(ctx.reduced):
            records += level(ctx, side, how, n, n == finest)
    return records


def level(ctx, side, how, n, finest):
    """The rows of one resolution (n nodes per radius) at one side."""
    records = []
    dx = R_PIPE / n
    sign, k = how["sign"], how["iolet"]
    # The probe on a node's centre (nodes sit at -L/2 + (i + 1/2) dx), about 10 mm from the
    # iolet that reflects, so that both pipes sample the same node.
    near = round(PROBE_TO_OUTLET / dx) + 0.5
    x = -LENGTH / 2 + ((round(LENGTH / dx) - near) if sign > 0 else near) * dx
    # The lattice's sound speed c_s = dx / (dt sqrt 3) falls as dx at fixed tau: run until
    # the echo has passed the probe (0.09 + 0.02 m at c_s) and five pulse lengths more.
    dt = (TAU - 0.5) * dx * dx / (3.0 * NU)
    end = (LENGTH + PROBE_TO_OUTLET) / (dx / (dt * 3 ** 0.5)) + 5 * PULSE
    base = ["--set", f"lattice.dx={dx!r}", "--set", f"lattice.tau={TAU!r}", "--set", f"run.end_time={end!r}",
            "--set", f"output.probe.0.position=[{x!r},0.0,0.0]"]
    # The reference: EXTRA more pipe beyond the iolet, a whole number of dx, which moves.
    extra = round(EXTRA / dx) * dx
    end_x = sign * (LENGTH / 2 + extra)
    long_sets = ["--set", f"geometry.length={LENGTH + extra!r}", "--set", f"geometry.center=[{sign * extra / 2!r},0.0,0.0]",
                 "--set", f"boundaries.iolet.{k}.center=[{end_x!r},0.0,0.0]", "--set", f"boundaries.iolet.{k}.absorbing=false"]
    res = f"R = {n} dx, tau {TAU}"
    runs = {}
    for label, extra_sets in (("absorbing", []), ("plain", ["--set", f"boundaries.iolet.{k}.absorbing=false"]),
                              ("long", long_sets)):
        out = os.path.join(ctx.work, f"pulse_reflection_{side}_{label}_R{n}")
        s = ctx.run(how["case"], out, *base, *extra_sets)
        runs[label] = (s, out)
    if any(s is None for s, _ in runs.values()):
        records.append(ctx.failed("pulse_reflection", f"{side}, {res}", how["check"] if finest else None))
        return records
    long_ = probe(runs["long"][1], how["probe"])
    for label in ("absorbing", "plain"):
        short = probe(runs[label][1], how["probe"])
        if short[2] != long_[2]:
            records.append(ctx.failed("pulse_reflection", res + f": the reference's probe node differs "
                                      f"(x = {long_[2]} m, not {short[2]} m)", how["check"]))
            break
        r, before, incident = reflection(short, long_)
        s = runs[label][0]
        where = res + f" ({s['fluid_nodes']} nodes, {s['steps']} steps; incident peak {incident:.3g} Pa)"
        records.append(ctx.diagnostic("pulse_reflection", f"{label} {side}: reflection coefficient R", r, where))
        records.append(ctx.diagnostic("pulse_reflection", f"{label} {side}: largest |p - p_reference| before "
                                      "the echo / incident peak (0: the runs agree until then)",
                                      before / incident, where))
        if label == "absorbing" and finest:
            records.append(ctx.check(how["check"], abs(r), where, backend=s["backend"]))
    return records


CHECKS = {"pulse_reflection": pulse_reflection}
