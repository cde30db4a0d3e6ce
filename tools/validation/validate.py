"""Validation suite driver: each check runs hemoflow on a case, compares with a reference
and returns records; this script collects them into docs/validation.{md,json}.

Every number in docs/validation.md comes from here. Add a check by writing a function
that takes the Context and returns a list of Record (see poiseuille_pipe below)."""
import argparse
import datetime
import json
import math
import os
import re
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "analysis"))
import hemo_output  # noqa: E402
import poiseuille  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import geometry_checks  # noqa: E402
import iolet_checks  # noqa: E402
import pressure_rules  # noqa: E402
import rbc_tubes  # noqa: E402
import reference_cases  # noqa: E402
import sphere_check  # noqa: E402
import wall_shear_checks  # noqa: E402

import numpy as np  # noqa: E402

DOCS = os.path.join(ROOT, "docs")  # --docs moves the report (e.g. to $OUT on a lent GPU machine)


NAN = float("nan")


REFERENCES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "references.toml")


def load_references(path=REFERENCES_FILE):
    """references.toml as {"group.name": entry}: every check's reference and tolerance."""
    import tomllib

    with open(path, "rb") as f:
        table = tomllib.load(f)
    return {f"{group}.{name}": entry for group, entries in table.items() for name, entry in entries.items()}


REFERENCES = load_references()


@dataclass
class Record:
    """One row of the report. A check (kind "check") has a reference with its source, a
    tolerance from references.toml and a verdict; a diagnostic has a value only (its
    reference, where it has one, is for the reader) and never counts as a pass."""
    case: str
    quantity: str
    kind: str                       # "check" or "diagnostic"
    value: float
    resolution: str
    backend: str
    reference: float = NAN
    reference_source: str = ""
    error: float = NAN
    tolerance: float = NAN
    passed: object = None           # True / False for a check, None for a diagnostic
    key: str = ""                   # the check's entry in references.toml
    known_failure: str = ""         # references.toml's reason a FAIL is expected (the report still shows FAIL)
    commit: str = ""
    collision: str = ""             # lb_bgk.collision of the runs behind the row
    study: str = ""                 # the validate.py check (CHECKS) that made the row
    seconds: float = NAN            # that check's wall time
    device: str = ""                # the device its runs used, as their summaries name it
    date: str = ""                  # the day it ran (YYYY-MM-DD)
    storage: str = ""               # the populations' storage of its runs (fp64, fp32, fp16s, e4m11; "case": not recorded)
    storage_option: str = ""        # validate.py's --storage for the check ("": each case's own precision)


def observed_order(resolutions, errors):
    """Order p of error ~ C N^-p, N the nodes per length: the least-squares slope of
    log(error) against log(1/N) over every level of a study."""
    n = np.asarray(resolutions, dtype=float)
    e = np.abs(np.asarray(errors, dtype=float))
    if len(n) < 2 or np.any(e <= 0) or not np.all(np.isfinite(e)):
        return NAN
    return float(-np.polyfit(np.log(n), np.log(e), 1)[0])


@dataclass
class Context:
    hemoflow: str
    backend: str
    work: str
    commit: str
    reduced: bool = False   # the small versions the test suite runs
    collision: str = ""     # lb_bgk.collision for every run; "" keeps each case's own
    storage: str = ""       # lb_bgk.storage for every run (in fp32); "" keeps each case's own precision
    plots: list = field(default_factory=list)
    device: str = ""        # as the runs' summaries name it
    ran: str = ""           # the storage of the latest run, given to the rows made after it

    def check(self, key, value, resolution, reference=None, backend=None, quantity=None):
        """A check: `value` against the reference and tolerance of references.toml's
        entry `key`. `reference` is given only where the entry has none (an equation
        evaluated for the run's parameters); `quantity` refines the entry's name (e.g. the
        rule and tau of one row of a study)."""
        entry = REFERENCES[key]
        tol = entry.get("tolerance_reduced" if self.reduced else "tolerance")
        if "reference" in entry:
            if reference is not None and reference != entry["reference"]:
                raise ValueError(f"[{key}]: the reference is fixed in references.toml ({entry['reference']})")
            reference = entry["reference"]
        elif reference is None:
            raise ValueError(f"[{key}] has no reference value: pass the one its source defines")
        if entry["error"] == "relative":
            error = (value - reference) / reference if reference else NAN
        else:
            error = value - reference
        if tol is None:  # an entry without a tolerance for this size: reported, not asserted
            return self.diagnostic(entry["case"], quantity or entry["quantity"], value, resolution, reference,
                                   entry["source"], error, backend)
        bound = entry["bound"]
        if error != error:
            passed = False
        elif bound == "both":
            passed = abs(error) <= tol
        elif bound == "below":
            passed = error >= -tol
        else:
            passed = error <= tol
        return Record(entry["case"], quantity or entry["quantity"], "check", value, resolution, backend or self.backend,
                      reference, entry["source"], error, tol, bool(passed), key,
                      "" if passed else known_reason(entry, self.ran), storage=self.ran)

    def diagnostic(self, case, quantity, value, resolution, reference=NAN, source="", error=NAN, backend=None):
        """A value reported for the reader: no tolerance, no verdict, not counted."""
        return Record(case, quantity, "diagnostic", value, resolution, backend or self.backend, reference, source, error,
                      storage=self.ran)

    def study(self, case, quantity, levels, key=None, unit="N"):
        """Rows of a convergence study: the error at each level (diagnostics; the finest
        level's check is the caller's) and the observed order by least squares over all
        levels, a check against references.toml's `key` where the scheme's theory gives an
        order, a diagnostic otherwise. `levels` maps nodes per length to the error."""
        ns = sorted(n for n, e in levels.items() if e == e)
        rows = [self.diagnostic(case, f"{quantity}, {unit} = {n}", levels[n], f"{unit} = {n}") for n in ns]
        order = observed_order(ns, [levels[n] for n in ns])
        span = f"{unit} = {', '.join(str(n) for n in ns)}"
        if key:  # fewer than three levels ran: the order cannot be judged (NaN fails)
            rows.append(self.check(key, order if len(ns) >= 3 else NAN, span))
        else:
            rows.append(self.diagnostic(case, f"observed order of {quantity} (least squares)", order, span))
        return rows

    def plot_path(self, name):
        return os.path.join(DOCS, "img", name) if not self.reduced else os.path.join(self.work, name)

    def run(self, case, out, *args):
        path = os.path.join(ROOT, "cases", case)
        cmd = [self.hemoflow, "run", path, "--quiet", "--output", out, "--backend", self.backend, *args]
        if self.collision:
            cmd += ["--set", f'lb_bgk.collision="{self.collision}"']
        if os.environ.get("HEMO_VALIDATE_SMOKE_STEPS"):
            # A dry run of the scripts' code paths (every case set up, a few steps, every
            # analysis run on the unconverged fields): the numbers mean nothing.
            cmd += ["--steps", os.environ["HEMO_VALIDATE_SMOKE_STEPS"]]
        if self.storage:  # last, so that it overrides any precision the study sets itself
            storage, _, rounding = self.storage.partition("-")  # "e4m11-dithered": lb_bgk.rounding too
            cmd += ["--set", 'run.precision="fp32"', "--set", f'lb_bgk.storage="{storage}"']
            if storage != "fp32":  # lb_bgk.rounding applies to the 16-bit storages only
                cmd += ["--set", f'lb_bgk.rounding="{rounding or "nearest"}"']
        self.ran = self.storage or run_storage(path, args)
        print("  $", " ".join(cmd), flush=True)
        # HEMO_VALIDATE_REUSE=1 analyses a finished run again instead of repeating it: a
        # run is reused only when it completed with exactly this command line.
        marker = os.path.join(out, "validate_command.txt")
        if os.environ.get("HEMO_VALIDATE_REUSE") and os.path.exists(marker) and \
                os.path.exists(os.path.join(out, "summary.json")):
            with open(marker) as f:
                if f.read() == " ".join(cmd):
                    print("  (reused the finished run)", flush=True)
                    summary = hemo_output.summary(out)
                    self.device = summary.get("device", self.device)
                    return summary
        done = subprocess.run(cmd)
        if done.returncode != 0:
            # Reported as a failed row (e.g. a run that diverged), so the rest still runs.
            print(f"  exit code {done.returncode}", flush=True)
            return None
        with open(marker, "w") as f:
            f.write(" ".join(cmd))
        summary = hemo_output.summary(out)
        self.device = summary.get("device", self.device)
        return summary

    def failed(self, case, resolution, key=None):
        """A run that did not finish: a failing check (of `key`, or of "the run completes")."""
        source = REFERENCES[key]["source"] if key else "the run must complete"
        quantity = REFERENCES[key]["quantity"] if key else "run completed"
        return Record(case, f"{quantity}: run failed", "check", NAN, resolution, self.backend, NAN, source, NAN, NAN,
                      False, key or "", known_reason(REFERENCES[key], self.ran) if key else "", storage=self.ran)


def run_storage(case_file, args):
    """The populations' storage of a run without --storage: lb_bgk.storage, else
    run.precision (the last --set of each in `args`, else the case file's), else hemoflow's
    default precision, fp64; "case" where the case file cannot be read."""
    import tomllib

    try:
        with open(case_file, "rb") as f:
            case = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError):
        return "case"
    sets = dict(a.split("=", 1) for a in args if a.startswith(("run.precision=", "lb_bgk.storage=")))
    value = (sets.get("lb_bgk.storage") or case.get("lb_bgk", {}).get("storage") or sets.get("run.precision")
             or case.get("run", {}).get("precision", "fp64"))
    return value.strip("\"'")


def poiseuille_pipe(ctx):
    """Body-force pipe at 8, 16 and 32 nodes per radius (the same at reduced size: it is
    small): the L2 error at each, the finest asserted, and the observed order."""
    R = 5.0e-4
    records, errors, profiles = [], {}, {}
    levels = (8, 16, 32)
    for nodes in levels:
        dx = R / nodes
        out = os.path.join(ctx.work, f"poiseuille_R{nodes}")
        s = ctx.run("poiseuille_pipe.toml", out, "--set", f"lattice.dx={dx!r}",
                    "--set", f"geometry.length={8 * dx!r}", "--set", "output.probe=[]")
        if s is None:
            records.append(ctx.failed("poiseuille_pipe", f"R = {nodes} dx", "poiseuille.l2_finest"))
            continue
        err, n, umax_exact, umax = poiseuille.l2_error(out)
        errors[nodes] = err
        case = hemo_output.case(out)
        coords, data = hemo_output.fields(out)
        exact, axis, r = poiseuille.analytic(case, coords)
        profiles[nodes] = (r, data["velocity"] @ axis)
        res = f"R = {nodes} dx ({s['fluid_nodes']} nodes, tau {s['tau']:.3f})"
        if nodes == levels[-1]:
            records.append(ctx.check("poiseuille.l2_finest", err, res, backend=s["backend"]))
        records.append(ctx.diagnostic("poiseuille_pipe", "centre-line velocity [m/s]", umax, res, umax_exact,
                                      "Hagen-Poiseuille g R^2/(4 nu) at the nearest node", (umax - umax_exact) / umax_exact,
                                      s["backend"]))
    records += ctx.study("poiseuille_pipe", "relative L2 error of the axial velocity", errors, "poiseuille.order",
                         unit="R/dx")
    if ctx.reduced or 16 not in profiles:
        return records
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
    """Closed lid-driven box: relative mass drift over 2000 steps, fp64 (asserted) and
    fp32 (reported: the drift is the collision's accumulated rounding). With --storage it
    runs once, in that storage (fp32 arithmetic), and the drift is reported, not asserted:
    rounding the populations every step cannot conserve mass exactly (notes.md)."""
    records = []
    for precision in ("fp32",) if ctx.storage else ("fp64", "fp32"):
        out = os.path.join(ctx.work, f"lid_mass_{precision}")
        s = ctx.run("lid_driven_cavity.toml", out, "--set", f'run.precision="{precision}"', "--set", "run.check_every=10")
        if s is None:
            records.append(ctx.failed("lid_driven_cavity", precision, "lid_mass.fp64"))
            continue
        drift = s["mass_relative_drift"]
        res = f"{s['fluid_nodes']} nodes, {s['steps']} steps, {precision}"
        if precision == "fp64":
            records.append(ctx.check("lid_mass.fp64", drift, res, backend=s["backend"]))
        else:
            records.append(ctx.diagnostic("lid_driven_cavity", "relative mass drift (fp32)", drift, res,
                                          backend=s["backend"]))
    return records


CHECKS = {"poiseuille_pipe": poiseuille_pipe, "lid_mass": lid_mass}
CHECKS.update(iolet_checks.CHECKS)
CHECKS.update(pressure_rules.CHECKS)
CHECKS.update(reference_cases.CHECKS)
CHECKS.update(sphere_check.CHECKS)
CHECKS.update(geometry_checks.CHECKS)
CHECKS.update(rbc_tubes.CHECKS)
CHECKS.update(wall_shear_checks.CHECKS)


def fmt(x):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:.4g}" if isinstance(x, float) else str(x)


PLOT_TITLES = {"poiseuille_pipe.png": "Poiseuille pipe", "pipe_pressure.png": "Pipe, pressure iolets (Zou-He)",
               "pipe_velocity.png": "Pipe, parabolic velocity inlet (Ladd)", "womersley.png": "Womersley flow",
               "vlbm_pipe_lb_vlbm.png": "Tilted STL pipe, lb_vlbm", "vlbm_pipe_lb_bgk.png": "Tilted STL pipe, lb_bgk",
               "aorta.png": "aorta (lb_vlbm): velocity magnitude on a slice",
               "carotid.png": "carotid (lb_vlbm): velocity magnitude, largest across a 4 mm slab",
               "cavity_re1000.png": "Lid-driven cavity, Re = 1000",
               "rbc_tubes_viscosity.png": "Red blood cells in tubes: relative apparent viscosity",
               "rbc_tubes_fahraeus.png": "Red blood cells in tubes: tube over discharge haematocrit",
               "rbc_tubes_radial.png": "Red blood cells in tubes: radial distribution of cell centres"}


def headline(records):
    """The report's first line: checks only, per collision operator and per storage."""
    checks = [r for r in records if r.kind == "check"]
    failed = [r for r in checks if not r.passed]

    def per(attr):
        return "; ".join(f"{v}: {sum(r.passed for r in checks if getattr(r, attr) == v)}/"
                         f"{sum(getattr(r, attr) == v for r in checks)}"
                         for v in dict.fromkeys(getattr(r, attr) for r in checks))
    # (rows of a report older than the storage column name none: no clause for them alone)
    per_storage = f"; by storage: {per('storage')}" if any(r.storage != "case" for r in checks) else ""
    n_diag = sum(r.kind == "diagnostic" for r in records)
    known = sum(bool(r.known_failure) for r in failed)
    return (f"**{len(checks) - len(failed)} of {len(checks)} checks pass, {len(failed)} fail** "
            + (f"({known} of the failures are known and explained in the notes) " if known else "")
            + 
            f"(by collision operator: {per('collision')}{per_storage}). {n_diag} diagnostic rows are reported "
            "below without a verdict and are not counted.")


STORAGES = ("fp64", "case", "fp32", "fp16s", "e4m11", "fp16s-dithered", "e4m11-dithered")  # the columns' order in storage_cost


def storage_cost(records):
    """The section "Accuracy cost of the population storage": each row (same case,
    quantity, resolution, collision and kind) that exists in more than one storage, its
    values side by side and their differences from the fp32-storage value (from the case's
    own precision where no fp32 row exists). No section where nothing ran twice."""
    groups = {}
    for r in records:
        groups.setdefault((r.kind, r.case, r.quantity, r.resolution, r.collision), []).append(r)
    groups = {k: rows for k, rows in groups.items() if len({r.storage for r in rows}) > 1}
    if not groups:
        return []
    labels = {r.storage for rows in groups.values() for r in rows}
    columns = [s for s in STORAGES if s in labels] + sorted(labels - set(STORAGES))
    name = {"case": "case's own"}  # the label of rows older than the storage column
    lines = ["", "## Accuracy cost of the population storage", "",
             "The 16-bit storages (`lb_bgk.storage`: fp16s, IEEE half of f - w; e4m11, 4 exponent and 11 mantissa "
             "bits of f - w) keep fp32 arithmetic and round the populations once per step; one such rounding moves "
             "the velocity by 1.1-1.9e-4 of u_max for fp16s and 0.7-1.0e-4 for e4m11 (docs/fp16_storage.md). The "
             "tables give what that costs each result over whole runs: every row that ran in more than one storage "
             "(same case, quantity, resolution and collision operator), its value in each, and the difference "
             "from the fp32-storage value. fp64 is the case's own precision where a case runs in fp64"
             + (", and `case` a row whose storage was not recorded (the case's own precision)" if "case" in labels
                else "")
             + ". A check keeps its reference and tolerance in every storage (its verdict beside each value); a "
             "diagnostic has none."]
    if any(not any(r.storage == "fp32" for r in rows) for rows in groups.values()):
        lines += ["", "Where a row has no fp32-storage value, the difference is from the case's own precision "
                  "instead, and the cell names it (e.g. \"from fp64\")."]
    for kind, title in (("check", "Checks"), ("diagnostic", "Diagnostics (no tolerance, no verdict)")):
        rows_of_kind = [(k, rows) for k, rows in groups.items() if k[0] == kind]
        if not rows_of_kind:
            continue
        lines += ["", f"### {title}", "",
                  "| case | quantity | resolution | collision | " + " | ".join(name.get(c, c) for c in columns)
                  + " | difference from fp32 |",
                  "|---" * (5 + len(columns)) + "|"]
        for (_, case, quantity, resolution, collision), rows in rows_of_kind:
            def cell(r):
                return fmt(r.value) + ("" if kind == "diagnostic" else " pass" if r.passed else " **FAIL**")
            cells = [" / ".join(dict.fromkeys(cell(r) for r in rows if r.storage == c)) or "-" for c in columns]
            first = {c: next((r.value for r in rows if r.storage == c), NAN) for c in columns}
            base = next((c for c in ("fp32", "fp64", "case") if c in first and first[c] == first[c]), None)
            diffs = "-" if base is None else "; ".join(
                f"{name.get(c, c)}: {fmt(first[c] - first[base])}" for c in columns if c != base and first[c] == first[c])
            if base not in (None, "fp32") and diffs != "-":
                diffs += f" (from {name.get(base, base)})"
            lines.append(f"| {case} | {quantity} | {resolution} | {collision} | " + " | ".join(cells)
                         + f" | {diffs or '-'} |")
    return lines


def provenance(records, backend, parts):
    """The report's first sentence: which commit ran on which device on which day; one
    clause per part where the studies ran in parts (different commits, devices or days)."""
    if len(parts) == 1:
        (commit, device, date), = parts
        return (f"Generated by `tools/validate --backend {backend}` on {date} at commit `{commit}` ({device}). "
                "Every number below comes from that script; rerun it to reproduce them.")
    clauses = []
    for part in parts:
        studies = list(dict.fromkeys(r.study for r in records if (r.commit, r.device, r.date) == part))
        clauses.append(f"{', '.join(studies)} at commit `{part[0]}` on {part[2]} ({part[1]})")
    return (f"Generated by `tools/validate --backend {backend}` in {len(parts)} parts (validation.json gives each "
            "row's commit, device and date): " + "; ".join(clauses) + ". Every number below comes from that "
            "script; rerun it to reproduce them.")


def write_report(records, ctx, device, date=None):
    os.makedirs(DOCS, exist_ok=True)
    commits = list(dict.fromkeys(r.commit for r in records))
    for r in records:  # rows of a report older than the device and date columns
        r.device, r.date = r.device or device, r.date or str(date or datetime.date.today())
    parts = list(dict.fromkeys((r.commit, r.device, r.date) for r in records))
    with open(os.path.join(DOCS, "validation.json"), "w") as f:
        json.dump([{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in asdict(r).items()}
                   for r in records], f, indent=1)
        f.write("\n")
    lines = [
        "# Validation report",
        "",
        provenance(records, ctx.backend, parts),
        "",
        headline(records),
        "",
        "A **check** compares a value with a reference and a tolerance that were fixed before the run, in "
        "`tools/validation/references.toml` (changes to them are dated in the notes below). A **diagnostic** is a "
        "value shown for the reader: it has no tolerance and no verdict.",
        "",
        "## Checks",
        "",
        "| verdict | case | quantity | hemoflow | reference (source) | error | tolerance | resolution | collision | storage "
        "| backend |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in records:
        if r.kind == "check":
            verdict = "pass" if r.passed else ("**FAIL** (known)" if r.known_failure else "**FAIL**")
            lines.append(f"| {verdict} | {r.case} | {r.quantity} | {fmt(r.value)} | "
                         f"{fmt(r.reference)} ({r.reference_source}) | {fmt(r.error)} | {fmt(r.tolerance)} | "
                         f"{r.resolution} | {r.collision} | {r.storage} | {r.backend} |")
    lines += ["", "## Diagnostics", "",
              "| case | quantity | hemoflow | for comparison (source) | resolution | collision | storage |",
              "|---|---|---|---|---|---|---|"]
    for r in records:
        if r.kind == "diagnostic":
            ref = f"{fmt(r.reference)} ({r.reference_source})" if r.reference_source else "-"
            lines.append(f"| {r.case} | {r.quantity} | {fmt(r.value)} | {ref} | {r.resolution} | {r.collision} | "
                         f"{r.storage} |")
    lines += storage_cost(records)
    lines += ["", "## Run log", "", "Wall time of each check (all its runs, analysis and plots included).", "",
              "| check | collision | storage | rows | failed checks | seconds | commit | device | date |",
              "|---|---|---|---|---|---|---|---|---|"]
    total = 0.0
    for (study, op, option) in dict.fromkeys((r.study, r.collision, r.storage_option) for r in records):
        rows = [r for r in records if r.study == study and r.collision == op and r.storage_option == option]
        sec = rows[0].seconds
        storage = f"--storage {option}" if option else ", ".join(dict.fromkeys(r.storage for r in rows))
        total += sec if sec == sec else 0.0
        lines.append(f"| {study} | {op} | {storage} | {len(rows)} | "
                     f"{sum(r.kind == 'check' and not r.passed for r in rows)} | "
                     f"{fmt(sec)} | {rows[0].commit} | {rows[0].device} | {rows[0].date} |")
    lines.append(f"| total | | | {len(records)} | {sum(r.kind == 'check' and not r.passed for r in records)} | "
                 f"{total:.0f} | | | |")
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "notes.md")) as f:
        lines += ["", f.read()]
    for title, path in ctx.plots:
        lines += [f"## {title}", "", f"![{title}]({path})", ""]
    with open(os.path.join(DOCS, "validation.md"), "w") as f:
        f.write("\n".join(lines))


def default_collision(hemoflow):
    """The default of lb_bgk.collision in this build (hemoflow info --keys)."""
    keys = subprocess.run([hemoflow, "info", "--keys"], capture_output=True, text=True).stdout
    m = re.search(r"collision\b.*?default\s*\"?(\w+)", keys)
    return m.group(1) if m else "bgk"


STORAGE16 = ("fp16s", "e4m11", "fp16s-dithered", "e4m11-dithered")


def known_reason(entry, storage):
    """references.toml's reason a check is expected to fail, for the case's own precision;
    none under a 16-bit storage, where the reason may not hold (tools/validation/notes.md)."""
    return "" if storage in STORAGE16 else entry.get("known_failure", "")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--backend", choices=["cpu", "cuda"], default="cpu")
    ap.add_argument("--hemoflow", default=os.path.join(ROOT, "build", "bin", "hemoflow"))
    ap.add_argument("--work", default=os.path.join(ROOT, "out", "validation"))
    ap.add_argument("--only", choices=sorted(CHECKS), action="append")
    ap.add_argument("--docs", help="folder for validation.md, validation.json and img/ (default: docs/)")
    ap.add_argument("--from-json", action="extend", nargs="+",
                    help="rewrite validation.md from earlier runs' validation.json files (repeat to merge runs "
                         "made in parts, e.g. one per device call) and the plots beside them, running nothing")
    ap.add_argument("--device", default="", help="with --from-json: the device that earlier run used")
    ap.add_argument("--date", help="with --from-json: the date of that run")
    ap.add_argument("--collision", choices=["bgk", "trt", "regularized"],
                    help="run every case with this collision operator (lb_bgk.collision) instead of the case's own")
    ap.add_argument("--storage", choices=["fp32", "fp16s", "e4m11", "fp16s-dithered", "e4m11-dithered"],
                    help="run every case in fp32 with this population storage (lb_bgk.storage) instead of the "
                         "case's own precision; plain: lb_bgk.rounding = nearest, -dithered: dithered")
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
        for r in rows:  # a reason known for the case's precision does not explain a 16-bit failure
            if r.get("storage") in STORAGE16:
                r["known_failure"] = ""
        records = [Record(**{"storage": "case",  # rows of a report older than the storage column
                             **{k: (NAN if v is None and k != "passed" else v) for k, v in r.items()}}) for r in rows]
        ctx = Context(a.hemoflow, rows[0]["backend"], a.work, rows[0]["commit"])
        ran = {r.study for r in records}
        for name, title in PLOT_TITLES.items():
            study = {"aorta.png": "real_geometry", "carotid.png": "real_geometry", "cavity_re1000.png": "cavity",
                     "vlbm_pipe_lb_vlbm.png": "vlbm_pipe", "vlbm_pipe_lb_bgk.png": "vlbm_pipe",
                     "rbc_tubes_viscosity.png": "rbc_tubes", "rbc_tubes_fahraeus.png": "rbc_tubes",
                     "rbc_tubes_radial.png": "rbc_tubes"}.get(name, name[:-4])
            if study in ran and os.path.exists(os.path.join(DOCS, "img", name)):  # no picture from an older run
                ctx.plots.append((title, "img/" + name))
        write_report(records, ctx, a.device, a.date)
        print(f"rewrote {os.path.join(DOCS, 'validation.md')} from {', '.join(a.from_json)}")
        return 0
    ctx = Context(a.hemoflow, a.backend, a.work, commit, reduced=a.reduced, collision=a.collision or "",
                  storage=a.storage or "")
    os.makedirs(a.work, exist_ok=True)
    records = []
    collision = a.collision or default_collision(a.hemoflow)
    for name in a.only or CHECKS:
        print(f"== {name}", flush=True)
        t0 = time.time()
        ctx.ran = ctx.storage or "case"  # for rows made before the check's first run
        rows = CHECKS[name](ctx)
        for r in rows:
            r.study, r.seconds, r.commit, r.collision = name, round(time.time() - t0, 1), commit, collision
            r.storage_option = a.storage or ""
            r.device, r.date = ctx.device or a.backend, str(datetime.date.today())
        records += rows
    if not a.reduced:
        write_report(records, ctx, ctx.device or a.backend)
    print(f"{'kind':10} {'case':18} {'quantity':60} {'value':>11} {'error':>10} {'tol':>8} {'storage':7} verdict")
    for r in records:
        verdict = "-" if r.kind == "diagnostic" else ("pass" if r.passed else "FAIL")
        print(f"{r.kind:10} {r.case:18} {r.quantity[:60]:60} {fmt(r.value):>11} {fmt(r.error):>10} "
              f"{fmt(r.tolerance):>8} {r.storage:7} {verdict}")
    checks = [r for r in records if r.kind == "check"]
    if not checks:
        print("no check ran (the checks' data are absent, or every row is a diagnostic): skipped")
        return 77  # ctest's SKIP_RETURN_CODE
    failed = [r for r in checks if not r.passed]
    unknown = [r for r in failed if not r.known_failure]
    print(f"{len(checks) - len(failed)}/{len(checks)} checks passed ({len(records) - len(checks)} diagnostics)" +
          ("" if a.reduced else f"; wrote {DOCS}/validation.md and validation.json"))
    for r in failed:
        print(f"FAIL {r.case}: {r.quantity}" + (f" (known: {r.known_failure})" if r.known_failure else ""))
    # A known failure (references.toml says why, and the report shows it as FAIL) does not
    # fail the test suite; every other failing check does.
    return 1 if unknown else 0


if __name__ == "__main__":
    sys.exit(main())
