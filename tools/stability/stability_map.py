#!/usr/bin/env python3
"""Stability map of the collision operators: for each operator, geometry (pipe with a
velocity inlet and a pressure outlet; bifurcation), Mach number (0.05, 0.1) and
resolution (nodes across the inlet), the highest Reynolds number Re = U_max D / nu at
which a run survives, and the relaxation time tau that goes with it.

A run lasts `--flow-throughs` times L / U_mean (L: the pipe's length, or the parent plus
one branch of the bifurcation; U_mean = U_max / 2), with the inflow ramped up over the
first half flow-through. It counts as STABLE when hemoflow finishes (no NaN or inf in its
checks every 100 steps) and the last outflow matches the inflow within 10% (a bounded,
settled flow; a run that ends with an imbalance of more than that is recorded with its
reason). Re is searched on the grid Re_k = 10 * 2^(k/4) (steps of 19%): up or down in
factors of 2 from a first guess until stability changes, then bisected to one grid step.
The guess for a resolution is the previous resolution's limit scaled by the ratio of
nodes across. Runs of different cells may go in parallel (--jobs), but on one GPU more
than two processes lose more to time-slicing between their contexts than they gain.

Writes docs/stability.json (every run: Re, tau, steps, outcome, seconds) and
docs/stability.md with docs/img/stability.png.

usage: tools/stability/run [--backend cuda] [--hemoflow PATH] [--nodes 16 32 64]
                           [--operators bgk trt regularized] [--jobs 8] [--docs DIR]
"""
import argparse
import concurrent.futures as cf
import datetime
import json
import math
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "analysis"))
import hemo_output  # noqa: E402

NU = 3.3e-6          # m^2/s, the templates' viscosity
CS = 1.0 / math.sqrt(3.0)
GEOMETRIES = {
    # name: (template, diameter of the inlet [m], flow-through length in diameters)
    "pipe": ("pipe.toml", 4.0e-3, 4.0),
    "bifurcation": ("bifurcation.toml", 4.0e-3, 6.0),    # parent 3 D + branch 3 D
}
RE_MAX = 20000.0     # the search stops here (reported as ">=")
MIN_TAU_GAP = 2e-4   # tau - 1/2 below this is not tried (fp32 rounding of omega)


def operator_sets(operator):
    """--set arguments for an operator name: 'bgk', 'regularized', 'trt' or 'trt:MAGIC'."""
    name, _, magic = operator.partition(":")
    # The map runs past the limits hemoflow refuses by default (the grid Reynolds number
    # of each operator, lb_bgk.max_grid_reynolds, comes from this map), so it lifts them.
    sets = ["--set", f'lb_bgk.collision="{name}"', "--set", "lb_bgk.max_grid_reynolds=1e9"]
    return sets + (["--set", f"lb_bgk.magic={magic}"] if magic else [])


def re_of(k):
    return 10.0 * 2.0 ** (k / 4.0)


def k_of(re):
    return 4.0 * math.log2(re / 10.0)


class Runner:
    def __init__(self, args):
        self.a = args
        self.records = []

    def lattice(self, geometry, nodes, mach, re):
        """dx, tau, U_max (m/s), steps and ramp time (s) of one run."""
        _, D, length = GEOMETRIES[geometry]
        u = mach * CS                        # lattice U_max
        tau = 0.5 + 3.0 * u * nodes / re     # nu_lattice = u N / Re
        dx = D / nodes
        dt = (tau - 0.5) * dx * dx / (3.0 * NU)
        through = length * nodes / (0.5 * u)  # steps per flow-through at U_mean
        steps = int(math.ceil(self.a.flow_throughs * through))
        return dx, tau, u * dx / dt, steps, 0.5 * through * dt

    def run(self, operator, geometry, nodes, mach, k):
        re = re_of(k)
        dx, tau, velocity, steps, ramp = self.lattice(geometry, nodes, mach, re)
        out = os.path.join(self.a.work, f"{geometry}_{operator}_M{mach}_N{nodes}_k{k}")
        cmd = [self.a.hemoflow, "run", os.path.join(HERE, GEOMETRIES[geometry][0]), "--quiet", "--progress", "never",
               "--output", out, "--overwrite", "--backend", self.a.backend, "--steps", str(steps),
               "--set", f"lattice.dx={dx!r}", "--set", f"lattice.tau={tau!r}",
               *operator_sets(operator),
               "--set", f"boundaries.iolet.0.velocity={velocity!r}", "--set", f"boundaries.iolet.0.ramp={ramp!r}"]
        t0 = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="2"))
        seconds = time.time() - t0
        outcome, detail = "stable", ""
        if p.returncode == 3:
            outcome, detail = "diverged", (p.stderr.strip().splitlines() or [""])[-1][:200]
        elif p.returncode != 0:
            outcome, detail = "error", (p.stderr.strip().splitlines() or [""])[-1][:200]
        else:
            flows = hemo_output.iolet_flows(out)
            inflow = flows.get("inlet", 0.0)
            outflow = -sum(v for n, v in flows.items() if n != "inlet")
            imbalance = abs(outflow / inflow - 1.0) if inflow else float("inf")
            detail = f"outflow/inflow - 1 = {outflow / inflow - 1.0:.2e}" if inflow else "no inflow"
            if not imbalance < 0.1:
                outcome = "unsettled"
        rec = {"operator": operator, "geometry": geometry, "mach": mach, "nodes_across": nodes, "reynolds": re,
               "tau": tau, "steps": steps, "outcome": outcome, "detail": detail, "seconds": round(seconds, 2)}
        print(f"  {geometry:11s} {operator:11s} Ma {mach:<4} N {nodes:3d} Re {re:8.1f} tau {tau:.5f} "
              f"{steps:7d} steps: {outcome} ({seconds:.1f} s) {detail}", flush=True)
        self.records.append(rec)
        if outcome != "error":
            subprocess.run(["rm", "-rf", out])
        return outcome == "stable", outcome

    def search(self, operator, geometry, nodes, mach, guess_k):
        """Highest stable grid index k (and lowest unstable) for one cell."""
        u = mach * CS
        k_cap = math.floor(min(k_of(RE_MAX), k_of(3.0 * u * nodes / MIN_TAU_GAP)))
        stable_k, unstable_k = None, None
        k = max(0, min(int(round(guess_k)), k_cap))
        while True:
            ok, outcome = self.run(operator, geometry, nodes, mach, k)
            if outcome == "error":
                return None, None, "error"
            if ok:
                stable_k = k
                if k >= k_cap:
                    break
                if unstable_k is None:
                    k = min(k + 4, k_cap)
                    continue
            else:
                unstable_k = k
                if k == 0:
                    break
                if stable_k is None:
                    k = max(k - 4, 0)
                    continue
            if unstable_k - stable_k <= 1:
                break
            k = (stable_k + unstable_k) // 2
        return stable_k, unstable_k, "ok"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", choices=["cpu", "cuda"], default="cuda")
    ap.add_argument("--hemoflow", default=os.path.join(ROOT, "build", "bin", "hemoflow"))
    ap.add_argument("--nodes", type=int, nargs="+", default=[16, 32, 48])
    ap.add_argument("--operators", nargs="+", default=["bgk", "trt", "regularized"])
    ap.add_argument("--geometries", nargs="+", default=list(GEOMETRIES), choices=list(GEOMETRIES))
    ap.add_argument("--mach", type=float, nargs="+", default=[0.05, 0.1])
    ap.add_argument("--flow-throughs", type=float, default=3.0)
    ap.add_argument("--jobs", type=int, default=2, help="runs in parallel")
    ap.add_argument("--work", default=os.path.join(ROOT, "out", "stability"))
    ap.add_argument("--docs", default=os.path.join(ROOT, "docs"))
    ap.add_argument("--first-re", type=float, default=100.0, help="first guess at the coarsest resolution")
    ap.add_argument("--from-json", nargs="*", metavar="JSON",
                    help="write stability.md and the plot from earlier runs, running nothing: the stability.json in "
                         "--docs, or these files merged into it (a map made in parts, e.g. one geometry per call)")
    a = ap.parse_args()
    if a.from_json is not None:
        if a.from_json:
            merge_json(a.from_json, os.path.join(a.docs, "stability.json"))
        write_docs(a.docs)
        return 0
    os.makedirs(a.work, exist_ok=True)
    runner = Runner(a)
    cells = [(o, g, m) for g in a.geometries for m in a.mach for o in a.operators]
    results = {}
    t0 = time.time()
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        def chain(cell):
            o, g, m = cell
            nodes = sorted(a.nodes)
            guess = k_of(a.first_re)
            out = []
            for i, n in enumerate(nodes):
                s, u, status = runner.search(o, g, n, m, guess)
                out.append((n, s, u, status))
                if s is not None and i + 1 < len(nodes):
                    guess = s + 4.0 * math.log2(nodes[i + 1] / n)  # Re_max grows about as N
            return cell, out
        for cell, out in pool.map(chain, cells):
            results[cell] = out
    elapsed = time.time() - t0
    write_json(a, runner.records, summary_rows(results), elapsed)
    write_docs(a.docs)
    return 0


def summary_rows(results):
    rows = []
    for (o, g, m), out in results.items():
        for n, s, u, status in out:
            u_lat = m * CS
            rows.append({
                "operator": o, "geometry": g, "mach": m, "nodes_across": n, "status": status,
                "re_stable": re_of(s) if s is not None else None,
                "re_unstable": re_of(u) if u is not None else None,
                "tau_stable": 0.5 + 3.0 * u_lat * n / re_of(s) if s is not None else None,
            })
    return rows


def write_json(a, records, rows, elapsed):
    """docs/stability.json: how it ran, each cell's result, and every run."""
    os.makedirs(a.docs, exist_ok=True)
    commit = os.environ.get("HEMO_COMMIT") or subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT,
                                                             capture_output=True, text=True).stdout.strip()
    device = a.backend
    try:
        info = subprocess.run([a.hemoflow, "info"], capture_output=True, text=True).stdout
        if a.backend == "cuda":
            device = next((ln.strip() for ln in info.splitlines() if ln.strip().startswith("[0]")), a.backend)
    except OSError:
        pass
    meta = {"date": str(datetime.date.today()), "commit": commit, "device": device, "backend": a.backend,
            "flow_throughs": a.flow_throughs, "seconds": round(elapsed, 1),
            "command": "tools/stability/run " + " ".join(sys.argv[1:])}
    with open(os.path.join(a.docs, "stability.json"), "w") as f:
        json.dump({"meta": meta, "cells": rows, "runs": records}, f, indent=1)
        f.write("\n")


def merge_json(paths, target):
    """One stability.json from several partial ones: cells and runs concatenated, the
    meta of the first with every part's command, commit, device and time."""
    parts = [json.load(open(p)) for p in paths]
    meta = dict(parts[0]["meta"])
    meta["command"] = "; ".join(p["meta"]["command"] for p in parts)
    meta["commit"] = ", ".join(dict.fromkeys(p["meta"]["commit"] for p in parts))
    meta["device"] = ", ".join(dict.fromkeys(p["meta"]["device"] for p in parts))
    meta["seconds"] = sum(p["meta"]["seconds"] for p in parts)
    merged = {"meta": meta, "cells": [c for p in parts for c in p["cells"]], "runs": [r for p in parts for r in p["runs"]]}
    os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
    with open(target, "w") as f:
        json.dump(merged, f, indent=1)
        f.write("\n")


def write_docs(docs):
    """docs/stability.md and img/stability.png from docs/stability.json."""
    with open(os.path.join(docs, "stability.json")) as f:
        data = json.load(f)
    meta, rows = data["meta"], data["cells"]
    ops = list(dict.fromkeys(r["operator"] for r in rows))

    def cell_text(r):
        if r is None or r["status"] != "ok":
            return "error"
        if r["re_stable"] is None:
            return f"< {r['re_unstable']:.0f}"
        top = "" if r["re_unstable"] is not None else ">= "
        return f"{top}{r['re_stable']:.0f} ({r['tau_stable']:.4f})"

    lines = ["# Stability map of the collision operators", "",
             f"Generated by `{meta['command']}` on {meta['date']} at commit `{meta['commit']}` ({meta['device']}, "
             f"{meta['backend']}, fp32), in {meta['seconds'] / 60:.1f} min. Each entry is the highest Reynolds number "
             f"Re = U_max D / nu (on the inlet diameter) at which the run survived {meta['flow_throughs']:g} "
             "flow-through times, with its tau in brackets; the next step up the grid (19% higher) diverged or did not "
             "settle. `>=` means the search reached its cap without a failure. How runs are judged: "
             "tools/stability/stability_map.py; every run is in stability.json.", ""]
    for g in dict.fromkeys(r["geometry"] for r in rows):
        lines += [f"## {g}", "", "| Mach | nodes across | " + " | ".join(ops) + " |",
                  "|---|---|" + "---|" * len(ops)]
        for m in dict.fromkeys(r["mach"] for r in rows):
            for n in sorted(dict.fromkeys(r["nodes_across"] for r in rows)):
                cells = [next((r for r in rows if (r["operator"], r["geometry"], r["mach"], r["nodes_across"]) ==
                               (o, g, m, n)), None) for o in ops]
                lines.append(f"| {m} | {n} | " + " | ".join(cell_text(c) for c in cells) + " |")
        lines.append("")
    lines += ["## Lowest stable tau", "", "| operator | lowest tau that survived | where |", "|---|---|---|"]
    for o in ops:
        ok = [r for r in rows if r["operator"] == o and r["tau_stable"] is not None]
        if ok:
            best = min(ok, key=lambda r: r["tau_stable"])
            lines.append(f"| {o} | {best['tau_stable']:.5f} | {best['geometry']}, Mach {best['mach']}, "
                         f"{best['nodes_across']} across, Re {best['re_stable']:.0f} |")
    lines += ["", "![stability map](img/stability.png)", ""]
    notes = os.path.join(HERE, "notes.md")
    if os.path.exists(notes):
        lines += [open(notes).read()]
    with open(os.path.join(docs, "stability.md"), "w") as f:
        f.write("\n".join(lines))
    plot(docs, rows, ops)
    print(f"wrote {docs}/stability.md and img/stability.png")


def plot(docs, rows, ops):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(no matplotlib: plot skipped)")
        return
    geoms = list(dict.fromkeys(r["geometry"] for r in rows))
    fig, axes = plt.subplots(1, len(geoms), figsize=(5.5 * len(geoms), 4.2), squeeze=False)
    colours = dict(zip(ops, ["tab:red", "tab:blue", "tab:green", "tab:purple"]))
    for ax, g in zip(axes[0], geoms):
        for o in ops:
            for m, style in zip(sorted(dict.fromkeys(r["mach"] for r in rows)), ["-o", "--s"]):
                pts = sorted((r["nodes_across"], r["re_stable"]) for r in rows
                             if (r["operator"], r["geometry"], r["mach"]) == (o, g, m) and r["re_stable"])
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], style, color=colours[o], label=f"{o}, Ma {m}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        nodes = sorted(dict.fromkeys(r["nodes_across"] for r in rows))
        ax.set_xticks(nodes)
        ax.set_xticklabels([str(n) for n in nodes])
        ax.minorticks_off()
        ax.set_xlabel("nodes across the inlet")
        ax.set_ylabel("highest stable Re (U_max D / nu)")
        ax.set_title(g)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    os.makedirs(os.path.join(docs, "img"), exist_ok=True)
    fig.savefig(os.path.join(docs, "img", "stability.png"), dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
