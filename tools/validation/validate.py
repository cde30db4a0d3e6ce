"""Validation suite driver: each check runs hemoflow on a case, compares with a reference
and returns records; this script collects them into docs/validation.{md,json}.

Every number in docs/validation.md comes from here. Add a check by writing a function
that takes the Context and returns a list of Record (see poiseuille_pipe below)."""
import argparse
import datetime
import json
import math
import os
import subprocess
import sys
from dataclasses import asdict, dataclass, field

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "analysis"))
import hemo_output  # noqa: E402
import poiseuille  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import geometry_checks  # noqa: E402
import iolet_checks  # noqa: E402

import numpy as np  # noqa: E402

DOCS = os.path.join(ROOT, "docs")  # --docs moves the report (e.g. to $OUT on a lent GPU machine)


NAN = float("nan")


@dataclass
class Record:
    case: str
    quantity: str
    reference_source: str
    reference: float
    value: float
    error: float
    tolerance: float
    passed: bool
    resolution: str
    backend: str
    commit: str = ""
    collision: str = "bgk"   # lb_bgk.collision of the runs behind the row


@dataclass
class Context:
    hemoflow: str
    backend: str
    work: str
    commit: str
    reduced: bool = False   # the small versions the test suite runs on the CPU
    collision: str = ""     # lb_bgk.collision for every run; "" keeps each case's own
    plots: list = field(default_factory=list)

    def record(self, case, quantity, source, reference, value, error, tolerance, resolution, backend=None):
        """A check's result; `tolerance` NaN means reported, not asserted."""
        passed = True if tolerance != tolerance else abs(error) < tolerance
        return Record(case, quantity, source, reference, value, error, tolerance, passed, resolution,
                      backend or self.backend)

    def plot_path(self, name):
        return os.path.join(DOCS, "img", name) if not self.reduced else os.path.join(self.work, name)

    def run(self, case, out, *args):
        cmd = [self.hemoflow, "run", os.path.join(ROOT, "cases", case), "--quiet", "--output", out,
               "--backend", self.backend, *args]
        if self.collision:
            cmd += ["--set", f'lb_bgk.collision="{self.collision}"']
        print("  $", " ".join(cmd), flush=True)
        done = subprocess.run(cmd)
        if done.returncode != 0:
            # Reported as a failed row (e.g. a run that diverged), so the rest still runs.
            print(f"  exit code {done.returncode}", flush=True)
            return None
        return hemo_output.summary(out)

    def failed(self, case, resolution):
        status = "run failed"
        return Record(case, status, "-", NAN, NAN, NAN, 0.0, False, resolution, self.backend)


def poiseuille_pipe(ctx):
    """Body-force pipe at 8, 16, 32 nodes per radius: L2 error and observed order."""
    R = 5.0e-4
    records, errors, profiles = [], {}, {}
    for nodes in (8, 16) if ctx.reduced else (8, 16, 32):
        dx = R / nodes
        out = os.path.join(ctx.work, f"poiseuille_R{nodes}")
        s = ctx.run("poiseuille_pipe.toml", out, "--set", f"lattice.dx={dx!r}",
                    "--set", f"geometry.length={8 * dx!r}", "--set", "output.probe=[]")
        err, n, umax_exact, umax = poiseuille.l2_error(out)
        errors[nodes] = err
        case = hemo_output.case(out)
        coords, data = hemo_output.fields(out)
        exact, axis, r = poiseuille.analytic(case, coords)
        profiles[nodes] = (r, data["velocity"] @ axis)
        records.append(Record("poiseuille_pipe", "relative L2 error of axial velocity", "Hagen-Poiseuille u = g(R^2-r^2)/(4 nu)",
                              0.0, err, err, 0.02 if nodes == 16 else float("nan"), err < 0.02 if nodes >= 16 else True,
                              f"R = {nodes} dx ({s['fluid_nodes']} nodes)", s["backend"]))
        records.append(Record("poiseuille_pipe", "centre-line velocity [m/s]", "Hagen-Poiseuille g R^2/(4 nu) at the nearest node",
                              umax_exact, umax, (umax - umax_exact) / umax_exact, float("nan"), True,
                              f"R = {nodes} dx", s["backend"]))
    for a, b in ((8, 16),) if ctx.reduced else ((8, 16), (16, 32)):
        order = math.log2(errors[a] / errors[b])
        records.append(Record("poiseuille_pipe", f"observed order of convergence R={a}->{b}", "second-order scheme",
                              2.0, order, order - 2.0, 1.8 if a == 8 else float("nan"), order >= 1.8 if a == 8 else True,
                              f"R = {a}, {b} dx", ctx.backend))
    # Plot: profile at R = 16 against theory, and the error against resolution.
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("  (no matplotlib: plot skipped)")
        return records
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    r16, u16 = profiles[16]
    rr = np.linspace(0, R, 200)
    g = 1.056
    nu = 3.3e-6
    ax1.plot(rr * 1e3, g * (R * R - rr * rr) / (4 * nu), "k-", label="Hagen-Poiseuille")
    ax1.plot(r16 * 1e3, u16, ".", ms=3, label="hemoflow, R = 16 dx (all nodes)")
    ax1.set_xlabel("r [mm]")
    ax1.set_ylabel("axial velocity [m/s]")
    ax1.legend()
    ax1.set_title("Poiseuille pipe, body force")
    res = sorted(errors)
    ax2.loglog(res, [errors[n] for n in res], "o-", label="hemoflow L2 error")
    ax2.loglog(res, [errors[8] * (8 / n) ** 2 for n in res], "k--", label="second order")
    ax2.set_xlabel("nodes per radius")
    ax2.set_ylabel("relative L2 error")
    ax2.legend()
    fig.tight_layout()
    path = ctx.plot_path("poiseuille_pipe.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    ctx.plots.append(("Poiseuille pipe", "img/poiseuille_pipe.png"))
    return records


def lid_mass(ctx):
    """Closed lid-driven box: relative mass drift over 2000 steps, fp64 and fp32."""
    records = []
    for precision, tol in (("fp64", 1e-10), ("fp32", float("nan"))):
        out = os.path.join(ctx.work, f"lid_mass_{precision}")
        s = ctx.run("lid_driven_cavity.toml", out, "--set", f'run.precision="{precision}"', "--set", "run.check_every=10")
        drift = s["mass_relative_drift"]
        records.append(Record("lid_driven_cavity", f"relative mass drift over {s['steps']} steps ({precision})",
                              "exact conservation (bounce-back permutes populations)", 0.0, drift, abs(drift), tol,
                              abs(drift) < tol if tol == tol else True, f"{s['fluid_nodes']} nodes", s["backend"]))
    return records


CHECKS = {"poiseuille_pipe": poiseuille_pipe, "lid_mass": lid_mass}
CHECKS.update(iolet_checks.CHECKS)
CHECKS.update(geometry_checks.CHECKS)


def fmt(x):
    if isinstance(x, float) and (math.isnan(x)):
        return "-"
    return f"{x:.4g}" if isinstance(x, float) else str(x)


PLOT_TITLES = {"poiseuille_pipe.png": "Poiseuille pipe", "pipe_pressure.png": "Pipe, pressure iolets (Zou-He)",
               "pipe_velocity.png": "Pipe, parabolic velocity inlet (Ladd)", "womersley.png": "Womersley flow",
               "vlbm_pipe_lb_vlbm.png": "Tilted STL pipe, lb_vlbm", "vlbm_pipe_lb_bgk.png": "Tilted STL pipe, lb_bgk",
               "aorta.png": "aorta (lb_vlbm): velocity magnitude on a slice",
               "carotid.png": "carotid (lb_vlbm): velocity magnitude, largest across a 4 mm slab",
               "cavity_re1000.png": "Lid-driven cavity, Re = 1000"}


def write_report(records, ctx, device, date=None):
    os.makedirs(DOCS, exist_ok=True)
    commits = list(dict.fromkeys(r.commit for r in records))
    with open(os.path.join(DOCS, "validation.json"), "w") as f:
        json.dump([{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in asdict(r).items()}
                   for r in records], f, indent=1)
        f.write("\n")
    lines = [
        "# Validation report",
        "",
        f"Generated by `tools/validate --backend {ctx.backend}` on {date or datetime.date.today()} at commit "
        + ", ".join(f"`{c}`" for c in commits) + f" ({device}). Every number below comes from that script; rerun it "
        "to reproduce them." + (" The checks ran in parts; validation.json gives each row's commit." if len(commits) > 1 else ""),
        "Tolerance `-` means the row is reported, not asserted.",
        "",
        "| case | quantity | reference (source) | hemoflow | error | tolerance | passed | resolution | backend |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in records:
        lines.append(f"| {r.case} | {r.quantity} | {fmt(r.reference)} ({r.reference_source}) | {fmt(r.value)} | "
                     f"{fmt(r.error)} | {fmt(r.tolerance)} | {'yes' if r.passed else '**no**'} | {r.resolution} | {r.backend} |")
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "notes.md")) as f:
        lines += ["", f.read()]
    for title, path in ctx.plots:
        lines += [f"## {title}", "", f"![{title}]({path})", ""]
    with open(os.path.join(DOCS, "validation.md"), "w") as f:
        f.write("\n".join(lines))


def default_collision(hemoflow):
    """The default of lb_bgk.collision in this build (hemoflow info --keys)."""
    keys = subprocess.run([hemoflow, "info", "--keys"], capture_output=True, text=True).stdout
    import re

    m = re.search(r"collision\b.*?default\s*\"?(\w+)", keys)
    return m.group(1) if m else "bgk"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--backend", choices=["cpu", "cuda"], default="cpu")
    ap.add_argument("--hemoflow", default=os.path.join(ROOT, "build", "bin", "hemoflow"))
    ap.add_argument("--work", default=os.path.join(ROOT, "out", "validation"))
    ap.add_argument("--only", choices=sorted(CHECKS), action="append")
    ap.add_argument("--docs", help="folder for validation.md, validation.json and img/ (default: docs/)")
    ap.add_argument("--from-json", action="append",
                    help="rewrite validation.md from earlier runs' validation.json files (repeat to merge runs "
                         "made in parts, e.g. one per device call) and the plots beside them, running nothing")
    ap.add_argument("--device", default="", help="with --from-json: the device that earlier run used")
    ap.add_argument("--date", help="with --from-json: the date of that run")
    ap.add_argument("--collision", choices=["bgk", "trt", "regularized"],
                    help="run every case with this collision operator (lb_bgk.collision) instead of the case's own")
    ap.add_argument("--reduced", action="store_true",
                    help="the small versions the test suite runs (CPU-sized); prints results, writes no docs")
    a = ap.parse_args()
    global DOCS
    DOCS = os.path.abspath(a.docs) if a.docs else DOCS
    commit = os.environ.get("HEMO_COMMIT") or subprocess.run(
        ["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip() or "unknown"
    if not a.reduced:
        os.makedirs(os.path.join(DOCS, "img"), exist_ok=True)
    if a.from_json:
        rows = [row for path in a.from_json for row in json.load(open(path))]
        records = [Record(**{k: (NAN if v is None else v) for k, v in r.items()}) for r in rows]
        ctx = Context(a.hemoflow, rows[0]["backend"], a.work, rows[0]["commit"])
        for name, title in PLOT_TITLES.items():
            if os.path.exists(os.path.join(DOCS, "img", name)):
                ctx.plots.append((title, "img/" + name))
        write_report(records, ctx, a.device, a.date)
        print(f"rewrote {os.path.join(DOCS, 'validation.md')} from {', '.join(a.from_json)}")
        return 0
    ctx = Context(a.hemoflow, a.backend, a.work, commit, reduced=a.reduced, collision=a.collision or "")
    os.makedirs(a.work, exist_ok=True)
    records = []
    for name in a.only or CHECKS:
        print(f"== {name}", flush=True)
        records += CHECKS[name](ctx)
    for r in records:
        r.commit = commit
        r.collision = a.collision or default_collision(a.hemoflow)
    if not a.reduced:
        device = hemo_output.summary(os.path.join(a.work, "lid_mass_fp64"))["device"] if "lid_mass" in (a.only or CHECKS) else a.backend
        write_report(records, ctx, device)
    print(f"{'case':18} {'quantity':52} {'value':>12} {'error':>10} passed")
    for r in records:
        print(f"{r.case:18} {r.quantity[:52]:52} {fmt(r.value):>12} {fmt(r.error):>10} {r.passed}")
    if not records:
        print("nothing ran (the checks' data are absent): skipped")
        return 77  # ctest's SKIP_RETURN_CODE
    failed = [r for r in records if not r.passed]
    print(f"{len(records) - len(failed)}/{len(records)} checks passed" +
          ("" if a.reduced else "; wrote docs/validation.md and docs/validation.json"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
