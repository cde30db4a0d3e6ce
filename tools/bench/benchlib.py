"""What the benchmark scripts of tools/bench/ share: where the repository is, the
commit a result belongs to, the bytes per update of the sparse kernel, and how a
result is written into docs/ (the numbers as JSON, the page as Markdown), and the time
per step from two runs differenced."""
import csv
import json
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def commit():
    """HEMO_COMMIT (the device machine gets a copy of the tree without .git), else HEAD."""
    return os.environ.get("HEMO_COMMIT") or subprocess.run(
        ["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip() or "unknown"


# Bytes of one stored population, by run.precision or lb_bgk.storage.
# "-dithered": lb_bgk.rounding = "dithered" (plain 16-bit names round to nearest).
STORAGE_BYTES = {"fp32": 4, "fp64": 8, "fp16s": 2, "e4m11": 2, "fp16s-dithered": 2, "e4m11-dithered": 2}


def sparse_bytes(storage):
    """Bytes per node update of the fused sparse kernel: 19 populations read and written,
    18 neighbour indices of 4 B: 38 s + 72 (fp32 224, fp64 376, 16-bit 148). `storage` is
    the population storage (lb_bgk.storage), which is the precision unless set."""
    return 38 * STORAGE_BYTES[storage] + 18 * 4


def brick_bytes(storage, fill):
    """Bytes per fluid-node update on the brick layout (lattice.layout = "bricks"): the 19
    populations read and written, and per brick its table of 27 ids, fluid and link masks
    and first link (128 B) shared by its 64 fill slots: 38 s + 128 / (64 fill), rounded.
    The least it moves: holes are masked off (their sectors may still be fetched where a
    brick's fluid slots share them), and a slot with a coded link adds its 4-byte link
    word, not counted here."""
    return round(38 * STORAGE_BYTES[storage] + 128 / (64 * fill))


def mpi_launch(mpiexec, ranks, unbound=False):
    """The MPI launch of `ranks` ranks (none for one). unbound: every rank may use every core
    (Open MPI binds each of 1-2 ranks to one core by default, so a set-up's OpenMP work, such
    as placing the cells by tile colours, would run on one thread: 2026-11-27, the 8x tube's
    placement on 2 ranks did not end in 9 minutes, against 85 s on 4 ranks bound to sockets)."""
    if ranks == 1:
        return []
    return [mpiexec, "--allow-run-as-root", "--oversubscribe", *(["--bind-to", "none"] if unbound else []), "-np",
            str(ranks)]


def run_json(cmd):
    """Runs a tool that prints one JSON object as its last line; stops the script with its
    output if it fails."""
    print("  $", " ".join(cmd), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stdout + p.stderr)
        raise SystemExit(f"failed (exit {p.returncode}): {' '.join(cmd)}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def run_summary(cmd, out):
    """Runs a hemoflow command that writes into `out`; stops the script with the tail of
    its output if it fails; returns out/summary.json (load_run)."""
    print("  $", " ".join(cmd), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stdout[-4000:] + p.stderr[-4000:])
        raise SystemExit(f"failed (exit {p.returncode}): {' '.join(cmd)}")
    return load_run(out)


def load_run(out):
    """A finished run's summary.json, its steps those it took (a restarted run's end step
    less its first)."""
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    s["steps"] -= s.get("first_step", 0)
    return s


def run_answer(out):
    """What a run computed, to compare bitwise: the last cells.csv row's state checksum (if
    the run had cells) and the population checksum, as "cells / populations"."""
    with open(os.path.join(out, "summary.json")) as f:
        populations = json.load(f)["population_checksum"]
    if not os.path.exists(os.path.join(out, "cells.csv")):
        return populations
    with open(os.path.join(out, "cells.csv")) as f:
        rows = list(csv.DictReader(f))
    return f"{rows[-1]['state_checksum'] if rows else '-'} / {populations}"


def ms_per_step(s):
    """Per action, ms per step on the slowest rank (one rank: the run's own)."""
    if s.get("rank_reports"):
        keys = {k for r in s["rank_reports"] for k in r["action_seconds"]}
        return {k: max(r["action_seconds"].get(k, 0.0) for r in s["rank_reports"]) / s["steps"] * 1e3 for k in keys}
    return {k: v / s["steps"] * 1e3 for k, v in s["action_seconds"].items()}


def write_json(docs, name, data):
    os.makedirs(docs, exist_ok=True)
    with open(os.path.join(docs, name), "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")


def publish(docs, stem, result, lines):
    """docs/STEM.json and docs/STEM.md with --docs; without, the page to stdout."""
    if docs:
        write_json(docs, stem + ".json", result)
        write_page(docs, stem + ".md", lines)
    else:
        print("\n".join(lines))


def write_page(docs, name, lines):
    """docs/NAME from its lines, also printed."""
    text = "\n".join(lines)
    with open(os.path.join(docs, name), "w") as f:
        f.write(text if text.endswith("\n") else text + "\n")
    print(text)


def replace_doc_section(docs, lines, page="performance.md"):
    """Replaces the section of docs/<page> whose heading is lines[0] ("## ...") with
    `lines`, or adds it before "## Reproduce" (the page's end if there is none)."""
    path = os.path.join(docs, page)
    text = open(path).read()
    body = "\n".join(lines) + "\n"
    start = text.find(lines[0] + "\n")
    if start >= 0:
        end = text.find("\n## ", start + 3)
        text = text[:start] + body + (text[end + 1:] if end >= 0 else "")
    else:
        at = text.find("## Reproduce")
        text = text[:at] + body + text[at:] if at >= 0 else text + "\n" + body
    with open(path, "w") as f:
        f.write(text)


def output_seconds(summary):
    """The output phase's time in a run's summary.json: the slowest rank's."""
    ranks = summary.get("rank_reports") or [summary]
    return max(r.get("phase_seconds", {}).get("output", 0.0) for r in ranks)


def differenced(long, short):
    """The steps a run took beyond a shorter one of the same case from the same start, as a
    summary.json of its own: steps, wall time, every action's time (and each rank's, with
    its exposed halo wait) are the differences, so that what both runs pay once (set-up,
    the last step's check, the device's backlog at the end) cancels, and the warm-up steps
    are left out of both (steady_seconds, where the runs have it; the actions' times still
    hold the warm-up, in both runs); the output phase's time is taken out of each run first
    (it did not cancel). A difference that is not positive (noise larger than the steps'
    time) gives no wall time (NaN), with a message. "timed_by" names the clock used.

    Beware: the output phase of a run's last step also holds the check that reads the
    device (mass, NaN), which waits for every step still queued. Where both runs fill the
    launch queue (long runs, or a wait every step: halos, cells) that backlog is the same
    in both and cancels; where the shorter run fits in the queue (a few kernels a step, a
    few hundred steps) its steps' device time is subtracted with the output phase and the
    difference is too small (for the 16.8 M-node box at 300-800 steps, a hundredth of the
    true time). steady_step_time (below) times one run's steady_seconds instead."""
    def minus(x, y):
        return {k: v - y.get(k, 0.0) for k, v in x.items()}

    def minus_timeline(x, y):  # run.device_timeline: {action: {"span": s, "gap": s}}
        return {k: {f: v[f] - y.get(k, {}).get(f, 0.0) for f in ("span", "gap")} for k, v in x.items()}
    d = dict(long)
    d["steps"] = long["steps"] - short["steps"]
    # steps_seconds (hemoflow since 2026-11-27): the loop's time without the run's end (the
    # closing of output files, run-end actions), which varies by seconds for a large case
    # (the 8x cell tube: 2.5 s between two runs) and does not cancel; wall_seconds before.
    key = "steps_seconds" if "steps_seconds" in long and "steps_seconds" in short else "wall_seconds"
    # steady_seconds (hemoflow since 2026-11-27): the loop after a warm-up of 10 steps,
    # which both runs skip alike. The first step after a restart took 0.8-1.3 s on the
    # MUPHY cell tube on 4 x H100 (2026-11-27), and its variation did not cancel: up to
    # 0.55 ms a step in a 500-step difference, most of the spread that call saw.
    if all("steady_seconds" in r and r.get("steady_steps", 0) > 0 for r in (long, short)) and \
            long["steps"] - long["steady_steps"] == short["steps"] - short["steady_steps"]:
        key = "steady_seconds"
    # Less each run's output phase (the slowest rank's): the runs write once, at their last
    # step (every cell downloaded and written to cells.csv), and that varied by 0.1-0.3 s
    # between runs of the MUPHY cell tube (4 x H100, 2026-11-27), +-0.4 ms a step at
    # N = 500; what it also holds of the device's backlog is at most one step's, in both.
    d["wall_seconds"] = (long[key] - output_seconds(long)) - (short[key] - output_seconds(short))
    d["timed_by"] = key
    d["action_seconds"] = minus(long.get("action_seconds", {}), short.get("action_seconds", {}))
    if "device_timeline" in long and "device_timeline" in short:
        d["device_timeline"] = minus_timeline(long["device_timeline"], short["device_timeline"])
    if long.get("rank_reports"):
        d["rank_reports"] = [{**rl, "action_seconds": minus(rl["action_seconds"], rs["action_seconds"]),
                              "halo_wait_seconds": rl.get("halo_wait_seconds", 0.0) - rs.get("halo_wait_seconds", 0.0),
                              **({"device_timeline": minus_timeline(rl["device_timeline"], rs["device_timeline"])}
                                 if "device_timeline" in rl and "device_timeline" in rs else {})}
                             for rl, rs in zip(long["rank_reports"], short["rank_reports"])]
    if not d["wall_seconds"] > 0:
        print(f"benchlib: the run of {long['steps']} steps took no longer than the one of {short['steps']} "
              f"({long['wall_seconds']:.3f} against {short['wall_seconds']:.3f} s): no time per step; run more steps",
              file=sys.stderr)
        d["wall_seconds"] = float("nan")
    d["mlups"] = long["fluid_nodes"] * d["steps"] / d["wall_seconds"] / 1e6
    return d


def step_time(hemoflow, case, steps, out, sets=(), backend="cuda"):
    """Time per step (ms) of `case` with `sets` (KEY=VALUE): the difference of hemoflow's
    wall time for 2N and for N steps, over N (differenced). Returns (ms, summary of the
    2N run); the runs go to out_N and out_2N."""
    summaries = []
    for n in (steps, 2 * steps):
        cmd = [hemoflow, "run", case, "--quiet", "--progress", "never", "--backend", backend, "--steps", str(n),
               "--output", f"{out}_{n}", "--overwrite", "--set", "output.final=false", "--set", f"run.check_every={n}"]
        for kv in sets:
            cmd += ["--set", kv]
        summaries.append(run_summary(cmd, f"{out}_{n}"))
    return 1e3 * differenced(summaries[1], summaries[0])["wall_seconds"] / steps, summaries[1]


def steady_step_time(hemoflow, case, steps, out, sets=(), backend="cuda"):
    """Time per step (ms) of one run of `case` with `sets`: steady_seconds over
    steady_steps, the steps after the warm-up timed between two waits for the device, so
    neither the set-up nor a backlog waited for inside the output phase (differenced's
    hazard) enters. Returns (ms, the run's summary)."""
    cmd = [hemoflow, "run", case, "--quiet", "--progress", "never", "--backend", backend, "--steps", str(steps),
           "--output", out, "--overwrite", "--set", "output.final=false", "--set", f"run.check_every={steps}"]
    for kv in sets:
        cmd += ["--set", kv]
    s = run_summary(cmd, out)
    if not s.get("steady_steps"):
        raise SystemExit(f"{out}: no steady_seconds in summary.json (run more steps than the warm-up)")
    return 1e3 * s["steady_seconds"] / s["steady_steps"], s
