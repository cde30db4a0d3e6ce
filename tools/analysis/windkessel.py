#!/usr/bin/env python3
"""Windkessel (RCR) outlets: the RCR model driven by the imposed inflow, and a run's
outlet pressure against it (docs/windkessel.md).

The model (Westerhof, Lankhaar and Westerhof, Med. Biol. Eng. Comput. 47, 131 (2009)):
    C dp_c/dt = Q - (p_c - p_d) / R_d,    p = p_c + R_p Q,
stepped exactly for a Q held over each (sub-)step (physics/windkessel.hpp, in numpy).
In an incompressible fluid in rigid vessels the outflow is the imposed inflow (times the
outlet's share of it, where there are several outlets): that drives the reference.

Two uses.

  windkessel.py OUT_DIR
      The validation check (cases/windkessel_pipe.toml, `analyse`): one inlet 'inlet',
      one outlet 'outlet'. Ladd's inlet values depend on time only, so the inflow is the
      inlet's nominal flow (centre-line value_at(t), ramp included) times one constant,
      the ratio of the inlet's measured flow to its nominal flow (the discrete disc is not
      exactly pi R^2). The pressure is compared where iolets.csv measures it: the mean
      over the outlet's nodes. Zou-He imposes the pressure there; the link-wise rules
      (anti-bounce-back, Nash) on the plane dx/2 downstream, so for them the reference
      adds the Poiseuille gradient over that half spacing, 8 mu Q / (pi R^4) dx / 2.

  windkessel.py --case CASE.toml --outlet NAME [--share S] [--compare OUT_DIR]
  windkessel.py --inflow FILE (--radius R | --flow) --rp RP --c C --rd RD [--pd PD] [--share S]
      One outlet driven by share x a periodic inflow (a case's velocity inlet, time =
      "csv" or "sinusoidal", e.g. cases/aorta_windkessel.toml; or a two-column file of
      time and centre-line velocity of a parabolic profile of radius R, or with --flow of
      time and flow rate in m^3/s). Prints the periodic state (the model after many
      cycles, found in one: p_c(T) is affine in p_c(0)): its mean, range and p_c at the
      cycle's start, which a case's pressure_distal and pressure_initial are set from.
      The share defaults to the steady split the Windkessel outlets' total resistances
      R_p + R_d alone give (all outlets must then be Windkessel outlets with one p_d; it
      ignores the domain's own resistance). With --compare OUT_DIR (a run of the case),
      the run's iolets.csv against the model stepped from the case's start
      (pressure_initial, the inlet's ramp) at the run's dt: the pressure the coupling
      imposed (<outlet>_windkessel_pressure_Pa) and the nodes' mean pressure
      (<outlet>_pressure_Pa) over the last period, the measured flow share, and the model
      driven by the run's own measured outflow (which separates a different split from
      the coupling's lag and the lattice's compressibility).

Standard library plus numpy (matplotlib for --plot).
"""
import argparse
import csv
import math
import os
import re
import sys
import tomllib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hemo_output  # noqa: E402


def rcr_step(pc, q, dt, rp, c, rd, pd):
    """p_c after dt with the outflow q held: the exact solution (physics/windkessel.hpp)."""
    settled = pd + rd * q
    return settled + (pc - settled) * math.exp(-dt / (rd * c))


def rcr_states(q, dt, c, rd, pd, pc0):
    """p_c at the start of every step and after the last (len(q) + 1 values): rcr_step
    from p_c = pc0 with the outflow q[n] (m^3/s) held over step n."""
    decay = math.exp(-dt / (rd * c))
    pc = np.empty(len(q) + 1)
    pc[0] = x = pc0
    for n, settled in enumerate(pd + rd * np.asarray(q, float)):
        x = settled + (x - settled) * decay
        pc[n + 1] = x
    return pc


def read_series(path):
    """(time, value) of a two-column file as hemoflow reads a csv iolet
    (plugins/boundaries/time_series.cpp): '#' comments, blank lines, an optional header
    line starting with a letter or a quote, commas or white space between the columns."""
    ts, vs = [], []
    with open(path) as f:
        for line in f:
            s = line.strip()
            if not s or s.startswith("#") or s[0].isalpha() or s[0] in "\"'":
                continue
            a, b = re.split(r"[,\s]+", s)[:2]
            ts.append(float(a))
            vs.append(float(b))
    return np.array(ts), np.array(vs)


def series_at(ts, vs, t, periodic=True):
    """Linear interpolation, repeated with period ts[-1] - ts[0] (TimeSeries::at)."""
    t = np.asarray(t, float)
    if periodic:
        t = ts[0] + np.mod(t - ts[0], ts[-1] - ts[0])
        t = np.where(t >= ts[-1], ts[0], t)
    return np.interp(t, ts, vs)


def columns(out_dir):
    with open(os.path.join(out_dir, "iolets.csv")) as f:
        rows = list(csv.DictReader(f))
    return {k: np.array([float(r[k]) for r in rows]) for k in rows[0]}


def iolet(case, name):
    return next(i for i in case["boundaries"]["iolet"] if i["name"] == name)


def nominal_value(inlet, t, base_dir="."):
    """The inlet's centre-line value at time(s) t (IoletSpec::value_at: constant,
    sinusoidal or csv, relative to base_dir; ramp)."""
    t = np.asarray(t, float)
    kind = inlet.get("time", "constant")
    if kind == "csv":
        v = series_at(*read_series(os.path.join(base_dir, inlet["csv"])), t, inlet.get("periodic", True))
    else:
        v = np.full(t.shape, float(inlet["velocity"]))
        if kind == "sinusoidal":
            v = v + inlet.get("amplitude", 0.0) * np.sin(2 * np.pi * t / inlet["period"] + inlet.get("phase", 0.0))
    ramp = inlet.get("ramp", 0.0)
    if ramp > 0:
        v = v * np.where(t < ramp, 0.5 * (1 - np.cos(np.pi * np.minimum(t, ramp) / ramp)), 1.0)
    return v


def analyse(out_dir, inlet_name="inlet", outlet_name="outlet", substeps=8):
    case = hemo_output.case(out_dir)
    s = hemo_output.summary(out_dir)
    dt, dx = s["dt"], s["dx"]
    rho, nu = case["fluid"]["density"], case["fluid"]["viscosity"]
    inlet, outlet = iolet(case, inlet_name), iolet(case, outlet_name)
    rp, c, rd = outlet["resistance_proximal"], outlet["compliance"], outlet["resistance_distal"]
    pd = outlet.get("pressure_distal", 0.0)
    pc0 = outlet.get("pressure_initial", pd)
    cols = columns(out_dir)
    t = cols["time"]
    q_in = cols[f"{inlet_name}_flow_m3_per_s"]
    # The discrete inlet's flow per unit centre-line value (constant: Ladd's values are
    # the profile's shape times value_at(t)).
    nominal = nominal_value(inlet, t)
    use = np.abs(nominal) > 0.5 * np.max(np.abs(nominal))
    per_value = float(np.median(q_in[use] / nominal[use]))

    # The reference: the model stepped from t = 0 with the imposed inflow, sampled at the
    # rows' steps; `substeps` exact steps per LB step with Q at each sub-step's midpoint.
    steps = int(round(t[-1] / dt))
    h = dt / substeps
    mids = (np.arange(steps)[:, None] * dt + (np.arange(substeps) + 0.5) * h).ravel()
    pc_steps = rcr_states(per_value * nominal_value(inlet, mids), h, c, rd, pd, pc0)[::substeps]
    rows = np.array(sorted({int(round(x / dt)) for x in t}))
    p_ref = pc_steps[rows] + rp * per_value * nominal_value(inlet, rows * dt)
    q_ref = per_value * nominal_value(inlet, t)
    radius = outlet["radius"]
    # Link-wise rules set the pressure on the plane, dx/2 downstream of the outlet's nodes:
    # Poiseuille's gradient over dx/2. Zou-He sets it at the nodes themselves.
    behind = 0.0 if outlet.get("model") == "zou_he" else 0.5 * dx
    offset = 8 * rho * nu * q_ref / (math.pi * radius ** 4) * behind
    p_nodes = cols[f"{outlet_name}_pressure_Pa"]
    period = inlet.get("period", t[-1])
    last = t >= t[-1] - period * (1 - 1e-9)
    ref_last = p_ref[last] + offset[last]
    amplitude = 0.5 * (ref_last.max() - ref_last.min())
    err = np.abs(p_nodes[last] - ref_last)
    # The model's own pressure (what the run imposed at the plane) against the same reference.
    p_model = cols[f"{outlet_name}_windkessel_pressure_Pa"]
    return {
        "t": t, "p_nodes": p_nodes, "p_ref": p_ref + offset, "p_model": p_model, "last": last,
        "amplitude": amplitude, "max_error": float(err.max() / amplitude),
        "model_error": float(np.abs(p_model[last] - p_ref[last]).max() / amplitude),
        "mean_error": float((p_nodes[last].mean() - ref_last.mean()) / amplitude),
        "offset": float(offset[last].mean() / amplitude),
        "flow_ratio": float(np.mean(-cols[f"{outlet_name}_flow_m3_per_s"][last]) / np.mean(q_ref[last])),
        "per_value": per_value,
    }


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for label, r in results:
        m = r["last"]
        ax.plot(r["t"][m], r["p_nodes"][m], label=f"LB, {label}")
    label, r = results[-1]
    ax.plot(r["t"][r["last"]], r["p_ref"][r["last"]], "k--", label="RCR model, imposed inflow")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("outlet pressure [Pa]")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# --- An outlet driven by a periodic inflow (a csv or sinusoidal inlet) -------------------

def outlet_model(a):
    """From the command line (and the case, if given): the outlet's RCR, the inflow Q(t)
    into the domain in m^3/s without the ramp and its period, the share, the ramp and
    p_c(0). Explicit options override the case."""
    m = {"ramp": 0.0, "inlet": None, "outlet": a.outlet}
    if a.case:
        with open(a.case, "rb") as f:
            case = tomllib.load(f)
        base = os.path.dirname(os.path.abspath(a.case))
        iolets = case["boundaries"]["iolet"]
        inlets = [i for i in iolets if i["condition"] == "velocity"]
        inlet = iolet(case, a.inlet) if a.inlet else inlets[0]
        out = iolet(case, a.outlet)
        m.update(rp=out["resistance_proximal"], c=out["compliance"], rd=out["resistance_distal"],
                 pd=out.get("pressure_distal", 0.0), ramp=inlet.get("ramp", 0.0), inlet=inlet["name"])
        m["pc0"] = out.get("pressure_initial", m["pd"])
        profile = inlet.get("profile", "parabolic")
        if profile not in ("parabolic", "uniform"):
            raise SystemExit(f"windkessel.py: a {profile} inlet is not supported (parabolic or uniform)")
        area = {"parabolic": 0.5, "uniform": 1.0}[profile] * math.pi * inlet["radius"] ** 2
        still = dict(inlet, ramp=0.0)
        m["inflow"] = lambda t: area * nominal_value(still, t, base)
        if inlet.get("time") == "csv":
            ts, _ = read_series(os.path.join(base, inlet["csv"]))
            m["period"] = ts[-1] - ts[0]
        else:
            m["period"] = inlet["period"]
        if a.share is None:
            wk = [i for i in iolets if i.get("time") == "windkessel"]
            if len(wk) + len(inlets) != len(iolets) or len({i.get("pressure_distal", 0.0) for i in wk}) != 1:
                raise SystemExit("windkessel.py: give --share (not every outlet is a Windkessel outlet with one p_d)")
            g = {i["name"]: 1.0 / (i["resistance_proximal"] + i["resistance_distal"]) for i in wk}
            m["share"] = g[a.outlet] / sum(g.values())
    if a.inflow:
        ts, vs = read_series(a.inflow)
        if not a.flow and a.radius is None:
            raise SystemExit("windkessel.py: --inflow needs --radius (centre-line velocities) or --flow")
        scale = 1.0 if a.flow else 0.5 * math.pi * a.radius ** 2
        m["inflow"] = lambda t: scale * series_at(ts, vs, t)
        m["period"] = ts[-1] - ts[0]
    for key in ("rp", "c", "rd", "pd", "share"):
        if getattr(a, key) is not None:
            m[key] = getattr(a, key)
    m.setdefault("pd", 0.0)
    m.setdefault("share", 1.0)
    m.setdefault("pc0", m["pd"])
    missing = [k for k in ("inflow", "rp", "c", "rd") if k not in m]
    if missing:
        raise SystemExit(f"windkessel.py: missing {', '.join(missing)} (give --case or --inflow and --rp --c --rd)")
    return m


def periodic_state(m, dt):
    """The model's periodic state over one cycle, sampled at steps of about dt: times, Q,
    p and p_c."""
    n = int(round(m["period"] / dt))
    dt = m["period"] / n
    t = np.arange(n + 1) * dt
    q = m["share"] * m["inflow"](t[:-1] + 0.5 * dt)
    from_zero = rcr_states(q, dt, m["c"], m["rd"], m["pd"], 0.0)  # p_c(T) = a p_c(0) + from_zero[-1]
    pc0 = from_zero[-1] / (1.0 - math.exp(-m["period"] / (m["rd"] * m["c"])))
    pc = from_zero + pc0 * np.exp(-t / (m["rd"] * m["c"]))  # the same steps from p_c(0) = pc0
    q_t = m["share"] * m["inflow"](t)
    return t, q_t, pc + m["rp"] * q_t, pc


def transient(m, t_rows, dt):
    """The model stepped from the case's start (p_c = pc0, the inlet's ramp) at dt,
    sampled at t_rows: Q, p and p_c."""
    ramp = m["ramp"]

    def q_of(t):
        f = np.where(t < ramp, 0.5 * (1 - np.cos(np.pi * np.minimum(t, ramp) / ramp)), 1.0) if ramp > 0 else 1.0
        return m["share"] * m["inflow"](t) * f

    steps = int(round(t_rows[-1] / dt))
    pc = rcr_states(q_of((np.arange(steps) + 0.5) * dt), dt, m["c"], m["rd"], m["pd"], m["pc0"])
    rows = np.rint(t_rows / dt).astype(int)
    q = q_of(t_rows)
    return q, pc[rows] + m["rp"] * q, pc[rows]


def compare(m, out_dir):
    cols = columns(out_dir)
    dt = hemo_output.summary(out_dir)["dt"]
    t = cols["time"]
    scale = 1.0
    if m["inlet"]:
        # The discrete inlet's flow over its nominal flow (the disc on the lattice is not
        # exactly pi R^2; Ladd's values are the profile's shape times value_at(t)): the
        # reference is driven by the flow the run imposed.
        q_in = cols[f"{m['inlet']}_flow_m3_per_s"]
        q_nom = transient(m, t, dt)[0] / m["share"]
        use = np.abs(q_nom) > 0.5 * np.max(np.abs(q_nom))
        scale = float(np.median(q_in[use] / q_nom[use]))
        inflow = m["inflow"]
        m = dict(m, inflow=lambda x: scale * inflow(x))
    q_ref, p_ref, pc_ref = transient(m, t, dt)
    name = m["outlet"]
    q_out = -cols[f"{name}_flow_m3_per_s"]
    p_wk, p_nodes = cols[f"{name}_windkessel_pressure_Pa"], cols[f"{name}_pressure_Pa"]
    last = t >= t[-1] - m["period"] * (1 - 1e-9)
    amplitude = 0.5 * (p_ref[last].max() - p_ref[last].min())
    # The model driven by the run's own outflow (interpolated between the rows).
    steps = int(round(t[-1] / dt))
    pc_own = rcr_states(np.interp((np.arange(steps) + 0.5) * dt, t, q_out), dt, m["c"], m["rd"], m["pd"], m["pc0"])
    p_own = pc_own[np.rint(t / dt).astype(int)] + m["rp"] * q_out
    r = {"t": t, "last": last, "p_ref": p_ref, "p_wk": p_wk, "p_nodes": p_nodes, "p_own": p_own,
         "amplitude": amplitude, "rows_last_period": int(last.sum()), "inlet_flow_over_nominal": scale}
    r["run_mean_Pa"] = float(p_wk[last].mean())
    r["reference_mean_Pa"] = float(p_ref[last].mean())
    r["imposed_max_error"] = float(np.abs(p_wk[last] - p_ref[last]).max() / amplitude)
    r["nodes_max_error"] = float(np.abs(p_nodes[last] - p_ref[last]).max() / amplitude)
    r["own_outflow_max_error"] = float(np.abs(p_wk[last] - p_own[last]).max() / amplitude)
    if m["inlet"]:
        r["flow_share"] = float(q_out[last].mean() / q_in[last].mean())
    r["outflow_over_reference"] = float(q_out[last].mean() / q_ref[last].mean())
    return r


def cycle_balance(out_dir, inlet, period):
    """Per whole period of a run: the inlet's mean flow, the mean flow out through every
    other iolet, and outflow / inflow - 1 (the trapezoid rule over iolets.csv's rows)."""
    cols = columns(out_dir)
    t = cols["time"]
    q_in = cols[f"{inlet}_flow_m3_per_s"]
    q_out = -sum(v for k, v in cols.items() if k.endswith("_flow_m3_per_s") and k != f"{inlet}_flow_m3_per_s")
    rows = []
    for k in range(int(t[-1] / period + 1e-9)):
        use = (t > k * period - 1e-12) & (t <= (k + 1) * period + 1e-12)
        vin, vout = np.trapz(q_in[use], t[use]), np.trapz(q_out[use], t[use])
        rows.append((k + 1, vin / period, vout / period, vout / vin - 1.0))
    return rows


def main_outlet(a):
    m = outlet_model(a)
    t, q, p, pc = periodic_state(m, a.dt)
    mean = lambda y: float(np.trapz(y, t) / m["period"])  # noqa: E731
    print(f"outlet {m['outlet'] or ''}: R_p = {m['rp']:.5g}, C = {m['c']:.5g}, R_d = {m['rd']:.5g}, "
          f"p_d = {m['pd']:.6g} Pa, share {m['share']:.4f}, R_d C = {m['rd'] * m['c']:.4g} s")
    print(f"periodic state (period {m['period']:.6g} s, dt {t[1]:.3g} s): Q mean {mean(q):.5g} m^3/s")
    print(f"  p:   mean {mean(p):.6g}  min {p.min():.6g} (t = {t[p.argmin()]:.4f} s)  "
          f"max {p.max():.6g} (t = {t[p.argmax()]:.4f} s)  Pa")
    print(f"  p_c: mean {mean(pc):.6g}  min {pc.min():.6g}  max {pc.max():.6g}  at t = 0 {pc[0]:.6g}  Pa")
    print(f"  p_d + (R_p + R_d) Q_mean = {m['pd'] + (m['rp'] + m['rd']) * mean(q):.6g} Pa")
    out = {"t": t, "q": q, "p": p, "pc": pc}
    if a.compare:
        r = compare(m, a.compare)
        print(f"run {a.compare}, from p_c(0) = {m['pc0']:.6g} Pa, last period ({r['rows_last_period']} rows): "
              f"reference amplitude {r['amplitude']:.5g} Pa, mean {r['reference_mean_Pa']:.6g} Pa, "
              f"run's mean {r['run_mean_Pa']:.6g} Pa")
        for k in ("imposed_max_error", "nodes_max_error", "own_outflow_max_error", "flow_share", "outflow_over_reference",
                  "inlet_flow_over_nominal"):
            if k in r:
                print(f"  {k:24} {r[k]:.5g}")
        if r["t"][-1] < m["period"]:
            print("  (the run is shorter than one period: these are not a cycle's errors)")
        if m["inlet"]:
            for k, q_in, q_out, imbalance in cycle_balance(a.compare, m["inlet"], m["period"]):
                print(f"  cycle {k}: mean inflow {q_in:.5g} m^3/s, mean outflow {q_out:.5g} m^3/s, "
                      f"outflow / inflow - 1 = {imbalance:+.5f}")
        out = r
    if a.csv:
        keys = ["t", "q", "p", "pc"] if not a.compare else ["t", "p_ref", "p_wk", "p_nodes", "p_own"]
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(keys)
            w.writerows(zip(*(out[k] for k in keys)))
    if a.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(8, 4))
        if a.compare:
            ax.plot(out["t"], out["p_wk"], label="run: imposed (windkessel_pressure)")
            ax.plot(out["t"], out["p_nodes"], label="run: outlet nodes' mean")
            ax.plot(out["t"], out["p_own"], ":", label="RCR driven by the run's outflow")
            ax.plot(out["t"], out["p_ref"], "k--", label="RCR driven by share x inflow")
        else:
            ax.plot(t, p, label="p")
            ax.plot(t, pc, label="p_c")
        ax.set_xlabel("t [s]")
        ax.set_ylabel("gauge pressure [Pa]")
        ax.legend()
        fig.tight_layout()
        fig.savefig(a.plot, dpi=120)
        plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir", nargs="?", help="the validation check: a run of cases/windkessel_pipe.toml")
    ap.add_argument("--case", help="a case with a csv or sinusoidal velocity inlet and Windkessel outlets")
    ap.add_argument("--outlet", help="the outlet's name in the case")
    ap.add_argument("--inlet", help="the velocity inlet's name (default: the case's first)")
    ap.add_argument("--inflow", help="two-column file: time (s), centre-line velocity (m/s; or flow with --flow)")
    ap.add_argument("--radius", type=float, help="--inflow: the parabolic profile's radius (m)")
    ap.add_argument("--flow", action="store_true", help="--inflow's second column is the flow rate (m^3/s)")
    ap.add_argument("--rp", type=float, help="R_p (Pa s/m^3)")
    ap.add_argument("--c", type=float, help="C (m^3/Pa)")
    ap.add_argument("--rd", type=float, help="R_d (Pa s/m^3)")
    ap.add_argument("--pd", type=float, help="p_d (Pa), default 0")
    ap.add_argument("--share", type=float, help="the outlet's share of the inflow")
    ap.add_argument("--dt", type=float, default=1e-4, help="step of the periodic state (s)")
    ap.add_argument("--compare", metavar="OUT_DIR", help="a run of the case: its iolets.csv against the model")
    ap.add_argument("--csv", help="write the periodic state (or with --compare the comparison) to this file")
    ap.add_argument("--plot", help="draw it into this PNG file")
    a = ap.parse_args()
    if a.case or a.inflow:
        if a.case and not a.outlet:
            ap.error("--case needs --outlet")
        return main_outlet(a)
    if not a.out_dir:
        ap.error("give OUT_DIR, or --case/--inflow")
    r = analyse(a.out_dir)
    for k in ("amplitude", "max_error", "model_error", "mean_error", "offset", "flow_ratio"):
        print(f"{k:12} {r[k]:.6g}")


if __name__ == "__main__":
    main()
