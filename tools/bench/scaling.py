#!/usr/bin/env python3
"""Scaling of hemoflow over several GPUs, one MPI rank per GPU (issues 11 and 14): writes
docs/scaling.md, docs/scaling.json and docs/img/scaling_efficiency.png.

On a machine with G GPUs and an MPI launcher (hemoflow picks the device from the
node-local rank), over the GPU counts 1, 2, 4, ... up to G (--counts to choose):
  * same answer: a small pipe (walls, velocity and pressure iolets) on 1 and on G GPUs,
    population checksums compared (bitwise); and the same run checkpointed half-way on
    G GPUs and restarted on one (--restart): equal checksum;
  * strong scaling, fluid: the vessel tree of cases/bench/ at a spacing that gives
    >= 10^8 fluid nodes (--tree-dx);
  * weak scaling, fluid: the box with --weak-edge^3 nodes per GPU (320^3 = 32.8 M),
    the box N times longer on N GPUs;
  * strong scaling with red blood cells (--cells): the periodic tube of
    tools/bench/rbc.py at MUPHY's spacing 2.5 um and haematocrit 0.45, "muphy" (radius
    100 um, 3 mm: 6.0 x 10^6 fluid nodes, 5.1 x 10^5 cells, the paper's benchmark size)
    and "8x" (radius 200 um, 6 mm: 8 times the nodes and cells); the cells are placed once
    (one step on G GPUs, ending in a checkpoint) and every GPU count restarts from it;
    the cells' state checksum and the population checksum after the longer run are
    compared across the counts (bitwise: the same cells on any rank count).
Per run: time per step by group of actions on the slowest rank (summary.json
rank_reports), the exposed halo wait share, the partition imbalance, the bytes the halo
exchange moves per step (all ranks), MLUPS and the parallel efficiency (strong:
t_1 / (N t_N); weak: MLUPS_N / (N MLUPS_1)), against the targets of issue 14.
Bytes per update as tools/bench/bench.py counts them (node list or bricks, the layout
the run chose); the bandwidth fraction is of the copy bandwidth of all GPUs used.

With --backend cpu and --small, the same script runs tiny cases on the CPU with
`--oversubscribe` ranks: it proves that every path works for 4 and 8 ranks (timings
meaningless; nothing is written to docs unless --docs is given).

usage: scaling.py --build DIR --mpiexec orterun --gpus 4 [--steps 500] [--repeat 1] [--docs docs]
       scaling.py --report docs/scaling.json        (rewrite the page and plot only)
"""
import argparse
import csv
import datetime
import glob
import itertools
import json
import os
import subprocess
import sys
import time

from benchlib import (ROOT, brick_bytes, commit, differenced, load_run, mpi_launch, ms_per_step, run_answer,
                      run_summary, sparse_bytes, write_json, write_page)

# Issue 14's targets: (kind, case group, GPU count) -> least efficiency.
TARGETS = [("strong", "fluid", 4, 0.90, "strong scaling of the fluid tree at 4 GPUs"),
           ("strong", "fluid", 8, 0.80, "strong scaling of the fluid tree at 8 GPUs"),
           ("weak", "fluid", 8, 0.90, "weak scaling at 8 GPUs"),
           # Each cell case has its own rows (the MUPHY-size tube and the one 8 times larger),
           # so that neither stands in for the other.
           *[("strong", "cells", n, 0.84, f"with cells, above MUPHY's 84% (seed 004): {c}", f"tube {c} with cells")
             for c in ("muphy", "8x") for n in (4, 8)]]

# Actions grouped for the time per step (summary.json action names, in step order).
FLUID_GROUPS = {
    "interior": ["lb_bgk.collide_stream"],
    "edge": ["lb_bgk.collide_stream_edge"],
    "halo send": ["lb_bgk.halo_send"],
    "halo receive": ["lb_bgk.halo_receive"],
    "boundaries": ["boundaries.iolets", "boundaries.moving_walls"],
    "swap": ["lb_bgk.swap_populations"],
}
CELL_GROUPS = {  # as tools/bench/rbc.py's scaling page
    "migration": ["rbc.cells_to_tiles"],
    "frontier": ["rbc.frontier_gather", "rbc.frontier_post", "rbc.frontier_wait", "rbc.ghost_records",
                 "rbc.ghost_insert", "rbc.ghost_append", "rbc.ghost_sort", "rbc.ghost_order", "rbc.ghost_cover",
                 "rbc.ghost_records_post", "rbc.ghost_records_wait"],  # the first two: runs before 2026-11-27
    "forces": ["rbc.cell_forces_internal", "rbc.cell_forces"],
    "coupling": ["lb_bgk.streamed_velocity", "rbc.cell_kick", "rbc.spread_drag"],
    "drift": ["rbc.cell_drift"],
    "LB": ["lb_bgk.collide_stream", "lb_bgk.collide_stream_edge", "lb_bgk.halo_send", "lb_bgk.halo_receive"],
}


def run(a, ranks, case, out, steps, extra=(), unbound=False):
    cmd = [*mpi_launch(a.mpiexec, ranks, unbound), os.path.join(a.build, "bin", "hemoflow"), "run", case, "--quiet",
           "--progress", "never", "--backend", a.backend, "--steps", str(steps), "--output", out, "--overwrite",
           # --fence-actions: each action's device time in the table by group (as measured before
           # 2026-11-26, f2b4979 included); without, the default scheduling that users run.
           "--set", f"run.fence_actions={'true' if a.fence_actions else 'false'}",
           "--set", f'run.halo_transport="{a.halo_transport}"', *extra]
    t0 = time.time()
    s = run_summary(cmd, out)
    s["process_seconds"] = time.time() - t0
    return s


def comm_share(s):
    """Largest share, over the ranks, of the run's wall time spent waiting on the halo
    exchange with nothing left to compute (HaloExchange::wait_seconds: after the GPU
    finished the interior, plus the upload of the halo)."""
    wall = s["wall_seconds"]
    return max((r.get("halo_wait_seconds", 0.0) / wall for r in s.get("rank_reports", [])), default=0.0) if wall else 0.0


def grouped(ms, groups):
    return {g: sum(ms.get(k, 0.0) for k in acts) for g, acts in groups.items()}


def bytes_per_update(s):
    if s.get("layout") == "bricks" and s.get("brick_slots"):
        return brick_bytes(s["precision"], s["fluid_nodes"] / s["brick_slots"])
    return sparse_bytes(s["precision"])


def save_partial(a, rows, checks):
    """What has been measured so far, in the work folder: a call cut short keeps it, with
    what --merge needs (the device, commit, counts: a.meta, set before the first run)."""
    write_json(a.work, "scaling_partial.json", {**a.meta, "checks": checks, "runs": rows})


# Actions of the output phase: a run here writes once, at its last step (the cells' record
# downloads every cell, the final snapshot every node), which would weigh on the time per
# step of a short run as it would not on a long one; the step time leaves them out.
OUTPUT_ACTIONS = ["core.write_output", "core.check_mass_nan", "rbc.cell_output", "boundaries.iolet_monitor"]


def step_ms(r):
    """ms per step: the wall time per step less the output phase's actions (slowest rank's).
    Unfenced, an action's time is the host's and the device's shows where the host waits,
    often in those very actions (the mass check): there the wall time per step itself."""
    if not r.get("fenced", True) or r.get("differenced"):  # differenced: each run's output phase is out already
        return 1e3 * r["seconds_per_step"]
    return 1e3 * r["seconds_per_step"] - sum(r["ms_per_step"].get(k, 0.0) for k in OUTPUT_ACTIONS)


def row(a, kind, group, label, ranks, s, copy_bw, cells=None):
    b = bytes_per_update(s)
    r = {"kind": kind, "group": group, "case": label, "ranks": ranks, "nodes": s["fluid_nodes"],
         "precision": s["precision"], "layout": s.get("layout", "nodes"), "mlups": s["mlups"],
         "steps": s["steps"], "wall_seconds": s["wall_seconds"], "setup_seconds": s.get("setup_seconds", 0.0),
         "seconds_per_step": s["wall_seconds"] / s["steps"], "bytes_per_update": b,
         "bandwidth_fraction": s["mlups"] * 1e6 * b / (copy_bw * 1e9 * ranks) if copy_bw else 0.0,
         "comm_share": comm_share(s), "imbalance": s.get("imbalance", 1.0),
         "halo_bytes_per_step": sum(x.get("halo_bytes_per_step", 0) for x in s.get("rank_reports", [])),
         # Through MPI (Communicator::bytes_sent over the steps): halos staged through the
         # host, the cells' frontier, records and migrants, sizes and tokens; absent before 2026-11-27.
         "message_bytes_per_step": (sum(x["message_bytes_per_step"] for x in s["rank_reports"])
                                    if s.get("rank_reports") and "message_bytes_per_step" in s["rank_reports"][0] else None),
         "ms_per_step": ms_per_step(s), "device": s.get("device", ""),
         "halo_links": s.get("halo_links", 0), "halo_device_links": s.get("halo_device_links", 0),
         "fenced": a.fence_actions,
         # The run's median step (summary.json step_seconds, hemoflow since 2026-11-27; of a
         # differenced pair, the longer run's): a diagnostic beside step ms, not timed by
         # differences, so a first step's one-off cost does not move it.
         "median_step_ms": 1e3 * s["step_seconds"]["median"] if "step_seconds" in s else None}
    if cells is not None:
        r["cells"] = cells
    r["step_ms"] = step_ms(r)
    return r


def median_run(a, ranks, case, out, steps, extra):
    runs = [run(a, ranks, case, f"{out}_r{i}", steps, extra) for i in range(a.repeat)]
    runs.sort(key=lambda x: x["mlups"])
    s = runs[len(runs) // 2]
    s["mlups_runs"] = [x["mlups"] for x in runs]
    return s


def efficiencies(rows):
    """Strong: t_1 / (N t_N); weak (the same nodes per GPU): t_1 / t_N; t the step time
    (step_ms: the wall time per step without the one output at the end)."""
    for r in rows:
        one = next((x for x in rows if x["case"] == r["case"] and x["kind"] == r["kind"] and x["ranks"] == 1), None)
        if one is None:
            continue
        n = r["ranks"] if r["kind"] == "strong" else 1
        r["efficiency"] = step_ms(one) / (n * step_ms(r))
        # A diagnostic beside it, never a verdict: the same ratio of the runs' median steps
        # (summary.json step_seconds, binned to within 3.7%), which the steps away from the
        # median (the warm-up, the tail) do not move.
        if one.get("median_step_ms") and r.get("median_step_ms"):
            r["median_efficiency"] = one["median_step_ms"] / (n * r["median_step_ms"])


def verdicts(d):
    out = []
    for kind, group, n, least, what, *case in TARGETS:
        r = next((x for x in d["runs"] if x["kind"] == kind and x["group"] == group and x["ranks"] == n
                  and "efficiency" in x and (not case or x["case"] == case[0])), None)
        if r is None:
            out.append({"target": what, "gpus": n, "least": least, "value": None, "verdict": "not run"})
        else:
            out.append({"target": what, "gpus": n, "least": least, "value": r["efficiency"], "case": r["case"],
                        "verdict": "PASS" if r["efficiency"] >= least else "FAIL"})
    return out


def plot(d, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no matplotlib: the plot is not drawn (tools/bench/scaling.py --report scaling.json draws it later)")
        return False
    fig, ax = plt.subplots(figsize=(6, 4))
    for key in sorted({(r["kind"], r["case"]) for r in d["runs"]}):
        pts = sorted((r["ranks"], r["efficiency"]) for r in d["runs"] if (r["kind"], r["case"]) == key and "efficiency" in r)
        if len(pts) > 1:
            ax.plot([p[0] for p in pts], [100 * p[1] for p in pts], "o-", label=f"{key[0]}: {key[1]}")
    for kind, group, n, least, what, *case in TARGETS:
        ax.plot([n], [100 * least], "k_", markersize=14)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("GPUs (one MPI rank each)")
    ax.set_ylabel("parallel efficiency (%)")
    ax.set_ylim(0, 110)
    ax.set_title(f"hemoflow scaling, {d['device'].split(' (')[0]}, {d['commit']}")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


def transport_sentence(d):
    """How the halos travelled in this measurement (run.halo_transport, recorded since 2026-11-26)."""
    t = d.get("halo_transport", "host")
    links = [(r.get("halo_device_links", 0), r.get("halo_links", 0)) for r in d["runs"] if r.get("halo_links")]
    counted = (f"; in the runs, {sum(a for a, _ in links)} of {sum(b for _, b in links)} rank-to-neighbour links went "
               "device to device") if links else ""
    if t == "auto":
        return ("(Open MPI from the bundle, no CUDA-aware MPI; `run.halo_transport = \"auto\"`: halos are packed on "
                "the GPU and copied device to device into the neighbour rank's GPU by CUDA IPC while the interior "
                f"updates, MPI carrying only a one-byte token per neighbour{counted}). ")
    return ("(Open MPI from the bundle, no CUDA-aware MPI: halos are packed on the GPU, downloaded to pinned host memory "
            "while the interior updates, and sent by MPI). ")


def write_report(d, docs):
    """docs/scaling.md (and the plot) from the numbers of one measurement (scaling.json)."""
    n, checks, rows = d["gpus"], d["checks"], d["runs"]
    L = ["# Scaling on several GPUs", "",
         f"Measured {d['date']} at commit {d['commit']} by `{tidy_command(d['command'])}` on {n} x {d['device']}, one MPI rank per GPU "
         + transport_sentence(d) +

         f"Copy bandwidth of one GPU (hemo_membw): {d['copy_bandwidth_gbs']:.0f} GB/s. Each run took "
         f"{d['steps']} steps (cells: {d.get('cell_steps', d['steps'])}) after its set-up, timed by hemoflow itself "
         f"(summary.json), median of {d.get('repeat', 1)} run(s) (cells: of as many differenced pairs). "
         "Regenerate this page from scaling.json with `tools/bench/scaling.py --report docs/scaling.json`.", "",
         "## Targets (issue 14)", "",
         "| target | GPUs | least | measured | case | verdict |", "|---|---|---|---|---|---|"]
    for v in d["verdicts"]:
        val = f"{100 * v['value']:.1f}%" if v["value"] is not None else "-"
        L.append(f"| {v['target']} | {v['gpus']} | {100 * v['least']:.0f}% | {val} | {v.get('case', '-')} | "
                 f"**{v['verdict']}** |")
    if d.get("cell_seeding_setup_seconds"):
        placement = ("by tile colours on every core of the host (`rbc.placement = \"tiles\"`)"
                     if d.get("cell_placement") == "tiles" else "by random sequential addition on rank 0")
        L += ["", "Cells: each tube's cells were placed once, by one step on " + str(d.get("cell_seeding_ranks", n)) +
              " GPUs that ended in a checkpoint (set-up " + ", ".join(f"{k} {v:.0f} s" for k, v in
                                                                     d["cell_seeding_setup_seconds"].items())
              + ", mostly the placement, " + placement + "), and each GPU count restarted from it (its own set-up in "
              "the table), so every count steps the same cells. Their rows are differenced: a run of 2N and one of "
              "N steps from that checkpoint (N: " + ", ".join(sorted({f"{r['steps']} for the {r['case']}" for r in rows
                                                                  if r.get("differenced")})) +
              "), the time per step (and per action) from the difference, so that set-up, first steps and the "
              "closing output (every cell downloaded and written) cancel."]
    L += ["", "![efficiency against GPU count](img/scaling_efficiency.png)", "", "## Same answer", ""]
    for c in checks:
        L.append(f"- {c['what']}: {c['one']} and {c['many']}: **{'equal' if c['equal'] else 'DIFFERENT'}**")
    L += ["", "## Runs", "",
          "| kind | case | GPUs | fluid nodes | cells | layout, precision | MLUPS (wall) | ms/step (wall) | step ms | "
          "median step ms | efficiency | efficiency by median steps | B/update | bandwidth fraction | exposed halo wait (worst rank) | "
          "halo MB/step (all ranks) | MPI MB/step (all ranks) | imbalance | set-up s |",
          "|---" * 19 + "|"]
    for r in rows:
        eff = f"{100 * r['efficiency']:.1f}%" if "efficiency" in r else "-"
        eff += f" | {100 * r['median_efficiency']:.1f}%" if "median_efficiency" in r else " | -"
        L.append(f"| {r['kind']} | {r['case']} | {r['ranks']} | {r['nodes']:,} | {r.get('cells', 0):,} | "
                 f"{r['layout']}, {r['precision']} | {r['mlups']:.0f} | {1e3 * r['seconds_per_step']:.3f} | {step_ms(r):.3f} | "
                 + (f"{r['median_step_ms']:.3f}" if r.get("median_step_ms") else "-") + f" | {eff} | "
                 f"{r['bytes_per_update']} | {100 * r['bandwidth_fraction']:.1f}% | {100 * r['comm_share']:.1f}% | "
                 f"{r['halo_bytes_per_step'] / 1e6:.2f} | "
                 + (f"{r['message_bytes_per_step'] / 1e6:.2f}" if r.get("message_bytes_per_step") is not None else "-")
                 + f" | {r['imbalance']:.3f} | {r['setup_seconds']:.0f} |")
    paired = [r for r in rows if r.get("differenced")]
    if paired:
        L += ["", "Differenced pairs, ms per step (each row of the table takes their median; of two, the slower): " +
              "; ".join(f"{r['case']} on {r['ranks']} GPU(s): " + ", ".join(f"{x:.3f}" for x in r["ms_per_step_runs"])
                        for r in paired) + "."]
    for group, groups in (("fluid", FLUID_GROUPS), ("cells", CELL_GROUPS)):
        sel = [r for r in rows if r["group"] == group]
        if not sel:
            continue
        L += ["", f"### Time per step by group of actions, {group} (ms, slowest rank)", "",
              "| kind | case | GPUs | " + " | ".join(groups) + " | other | wall per step |", "|---" * (len(groups) + 5) + "|"]
        for r in sel:
            g = grouped(r["ms_per_step"], groups)
            named = {k for acts in groups.values() for k in acts}
            other = sum(v for k, v in r["ms_per_step"].items() if k not in named)
            L.append(f"| {r['kind']} | {r['case']} | {r['ranks']} | " + " | ".join(f"{v:.3f}" for v in g.values()) +
                     f" | {other:.3f} | {1e3 * r['seconds_per_step']:.3f} |")
    L += ["", "Step ms: the wall time per step less the output phase's actions (each run writes once, at its last "
          "step; on the slowest rank), or, for unfenced runs, the wall time per step; for differenced rows (since "
          "2026-11-27) the difference of the two runs' loop times (steps_seconds; since the night of 2026-11-27 their "
          "steady_seconds, the loop after a warm-up of 10 steps that both runs skip), each less its output phase "
          "(slowest rank). Median step ms: the median of the (longer) run's steps, the host's time in each step's "
          "actions (summary.json step_seconds: binned, to within 3.7%; '-' for runs before it was recorded), a "
          "diagnostic that a first step's one-off cost does not move. Efficiency by median steps: the same ratio of "
          "the median steps, a diagnostic (the verdicts take the step ms). Efficiency: strong, t_1 / (N t_N) of the step ms; weak, t_1 / t_N with the same "
          "nodes per GPU. MLUPS (wall): hemoflow's own, over the wall time with the output. Exposed halo wait: the time a rank waited for its messages after the "
          "GPU had finished the interior, plus the upload of the halo, over the run's wall time. Imbalance: the "
          "largest rank's fluid nodes over the mean. Only the populations that cross an interface travel (5 of 19 "
          "across a plane). Halo MB/step: the populations the ranks send each other a step, whichever way; MPI "
          "MB/step: what went through MPI (halos staged through the host, the cells' frontier, records and migrants, "
          "sizes, tokens; '-' for runs before this was counted). \"other\": output, checks and any action not grouped. On several GPUs the edge, halo send and interior "
          "kernels are queued without waiting (the interior overlaps the halo's transfer), so their device time shows "
          "in halo receive, which waits for all of it." + (
              " These runs were fenced (`run.fence_actions = true`): the device was waited for after every action, "
              "so each action's time is its device time." if d.get("fence_actions", True) else
              " These runs were not fenced (`run.fence_actions = false`, the default users run): the host queues "
              "kernels without waiting, so the time of an action is the host's, and the device's time shows where "
              "the host waits (halo receive, the mass checks, the last step's wait).")]
    for note in d.get("notes", []):
        L += ["", note]
    write_page(docs, "scaling.md", L)
    os.makedirs(os.path.join(docs, "img"), exist_ok=True)
    plot(d, os.path.join(docs, "img", "scaling_efficiency.png"))


def tidy_command(cmd):
    """A recorded command with paths inside the repository made relative to it."""
    out = []
    for x in cmd.split(" "):
        if x.startswith("/"):
            n = os.path.normpath(x)
            x = os.path.relpath(n, ROOT) if n.startswith(ROOT + os.sep) else n
        out.append(x)
    return " ".join(out)


def history_position(commit_id):
    """How many commits lead to commit_id (git rev-list --count), to order measurements of
    one day; -1 outside a repository or for a commit it does not know."""
    out = subprocess.run(["git", "rev-list", "--count", commit_id], cwd=ROOT, capture_output=True, text=True)
    return int(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip().isdigit() else -1


def index(paths):
    """The newest GPU measurement of each case over several scaling.json files (one call's
    or several merged): for each (kind, case), the rows of the newest file that has it (by
    date, then by place in the commit history, then by order given), each row with its
    source; the targets' verdicts from those rows. What docs/performance.md summarises."""
    found = []
    for i, p in enumerate(paths):
        with open(p) as f:
            d = json.load(f)
        if d.get("backend", "cuda") == "cuda":
            found.append(((d["date"], history_position(d["commit"]), i), d, p))
    found.sort(key=lambda x: x[0])
    newest = {}
    for _, d, p in found:
        for r in d["runs"]:
            newest[(r["kind"], r["case"])] = (d, p)
    runs = []
    for (kind, case), (d, p) in newest.items():
        source = {"page": os.path.splitext(os.path.basename(p))[0] + ".md", "commit": d["commit"], "date": d["date"],
                  "device": d["device"].split(" (")[0], "gpus": d["gpus"]}
        runs += [{**r, "source": source} for r in d["runs"] if (r["kind"], r["case"]) == (kind, case)]
    efficiencies(runs)
    out = {"runs": runs, "counts": sorted({r["ranks"] for r in runs}), "sources": [p for _, _, p in found]}
    out["verdicts"] = verdicts(out)
    return out


def index_lines(x):
    """docs/performance.md's "Several GPUs" section from index(): the targets and each
    case's step times, each with the measurement it comes from."""
    def where(r):
        s = r["source"]
        return f"{s['commit']}, {s['date']}, {s['gpus']} x {s['device']}: [{s['page']}]({s['page']})"

    L = ["The newest measurement of each case by `tools/bench/scaling.py` (one MPI rank per GPU), gathered from "
         + ", ".join(f"`docs/{os.path.basename(p)}`" for p in x["sources"])
         + " (`tools/bench/scaling.py --index docs/scaling*.json --docs docs` writes this section; each page has "
         "the time per step by phase, the halo bytes and the imbalance).", "",
         "| target (issue 14) | GPUs | least | measured | case | verdict | measured at |", "|---|---|---|---|---|---|---|"]
    for v in x["verdicts"]:
        r = next((r for r in x["runs"] if r["case"] == v.get("case") and r["ranks"] == v["gpus"]), None)
        val = f"{100 * v['value']:.1f}%" if v["value"] is not None else "-"
        L.append(f"| {v['target']} | {v['gpus']} | {100 * v['least']:.0f}% | {val} | {v.get('case', '-')} | "
                 f"**{v['verdict']}** | {where(r) if r else '-'} |")
    L += ["", "| kind | case | " + " | ".join(f"{n} GPU{'s' if n > 1 else ''}" for n in x["counts"]) + " | measured at |",
          "|---|---|" + "---|" * (len(x["counts"]) + 1)]
    for kind, case in dict.fromkeys((r["kind"], r["case"]) for r in x["runs"]):
        mine = [r for r in x["runs"] if (r["kind"], r["case"]) == (kind, case)]
        cells = []
        for n in x["counts"]:
            r = next((r for r in mine if r["ranks"] == n), None)
            cells.append(f"{step_ms(r):.2f} ms ({100 * r['efficiency']:.0f}%)" if r and "efficiency" in r else "-")
        L.append(f"| {kind} | {case} | " + " | ".join(cells) + f" | {where(mine[0])} |")
    return L + ["", "Step time on the slowest rank (efficiency in brackets; cells: the median of differenced pairs)."]


def update_performance(docs, paths=None):
    """Replaces the "## Several GPUs" section of docs/performance.md (where `docs` has one)
    with the index (index_lines) of `paths`, by default the scaling*.json files beside it."""
    path = os.path.join(docs, "performance.md")
    paths = paths or sorted(glob.glob(os.path.join(docs, "scaling*.json")))
    if not os.path.exists(path) or not paths:
        return
    text = open(path).read()
    start = text.find("## Several GPUs\n")
    end = text.find("\n## ", start + 3)  # the next section, whatever it is
    if start < 0 or end < start:
        return
    body = "## Several GPUs\n\n" + "\n".join(index_lines(index(paths))) + "\n"
    with open(path, "w") as f:
        f.write(text[:start] + body + text[end:])


def merge(paths):
    """One scaling.json from the results of several calls on the same machine and commit."""
    ds = [json.load(open(p)) for p in paths]
    d = dict(ds[0])
    for x in ds[1:]:
        if (x["device"], x["commit"]) != (d["device"], d["commit"]):
            raise SystemExit(f"cannot merge: {x['device']} {x['commit']} against {d['device']} {d['commit']}")
    d["checks"] = [c for x in ds for c in x["checks"]]
    d["runs"] = sorted((r for x in ds for r in x["runs"]), key=lambda r: (r["group"], r["case"], r["ranks"]))
    d["counts"] = sorted({n for x in ds for n in x["counts"]})
    d["gpus"] = max(x["gpus"] for x in ds)
    d["command"] = "; ".join(x["command"] for x in ds)
    d["cell_steps"] = max(x.get("cell_steps", 0) for x in ds)
    d["cell_seeding_setup_seconds"] = {k: v for x in ds for k, v in x.get("cell_seeding_setup_seconds", {}).items()}
    for r in d["runs"]:
        r["step_ms"] = step_ms(r)
    efficiencies(d["runs"])
    d["verdicts"] = verdicts(d)
    return d


def pair_folders(out, repeat=None):
    """The long runs' folders of a cell tube's differenced pairs, out[_r<i>] (each with its
    out[_r<i>]_short): `repeat` of them, or with None every complete pair there is (folders
    gathered from several calls, where a call cut short left fewer)."""
    folders = []
    for i in itertools.count():
        folder = out + ("" if i == 0 else f"_r{i}")
        if i == repeat or (repeat is None and not all(os.path.isfile(os.path.join(folder + t, "summary.json"))
                                                      for t in ("", "_short"))):
            return folders
        folders.append(folder)


def same_answer_checks(name, steps, runs):
    """Each of runs [(ranks, long run's folder), ...] against the first: the cells' state and
    population checksums after `steps` steps from the same checkpoint, bitwise."""
    one = run_answer(runs[0][1])
    checks = []
    for n, out in runs[1:]:
        many = run_answer(out)
        checks.append({"what": f"tube {name} with cells, {steps} steps from the same checkpoint: cells' state "
                               f"checksum and population checksum, {os.path.basename(runs[0][1])} and "
                               f"{os.path.basename(out)} ({runs[0][0]} and {n} ranks)",
                       "one": one, "many": many, "equal": one == many})
    return checks


def cell_row(a, name, n, out, repeat, copy_bw, cells=None):
    """The row of a cell tube on n GPUs from its pairs' folders (pair_folders): the median
    of the differenced pairs (each pair's ms per step kept)."""
    pairs = [differenced(load_run(f), load_run(f + "_short")) for f in pair_folders(out, repeat)]
    pairs.sort(key=lambda x: x["wall_seconds"])
    r = row(a, "strong", "cells", f"tube {name} with cells", n, pairs[len(pairs) // 2], copy_bw,
            cells=cell_count(out) if cells is None else cells)
    r["differenced"] = True
    r["ms_per_step_runs"] = [1e3 * x["wall_seconds"] / x["steps"] for x in pairs]
    return r


def rescan(d, work):
    """The cells rows of a finished call rebuilt from the summary.json files its runs left in
    `work` (the folders cells_<tube>_<n>[_r<i>][_short]), with this script's differencing:
    a measurement's pages redone after a change of method, without running anything."""
    a = argparse.Namespace(fence_actions=d.get("fence_actions", False))
    rows = []
    for r in d["runs"]:
        if r["group"] != "cells":
            rows.append(r)
            continue
        name = r["case"].split()[1]
        rows.append(cell_row(a, name, r["ranks"], os.path.join(work, f"cells_{name}_{r['ranks']}"), None,
                             d.get("copy_bandwidth_gbs", 0.0), r.get("cells")))
    d["runs"] = rows
    # The same-answer checks of the cells redone over every long run found (all pairs, all
    # counts, against the fewest GPUs' first run): folders gathered from several calls are
    # compared across the calls too.
    d["checks"] = [c for c in d["checks"] if " with cells, " not in c["what"]]
    for name in sorted({r["case"].split()[1] for r in rows if r["group"] == "cells"}):
        ranks = sorted(r["ranks"] for r in rows if r["group"] == "cells" and r["case"].split()[1] == name)
        runs = [(n, f) for n in ranks for f in pair_folders(os.path.join(work, f"cells_{name}_{n}"))]
        d["checks"] += same_answer_checks(name, 2 * d.get("cell_steps", 0), runs)
    efficiencies(d["runs"])
    d["verdicts"] = verdicts(d)
    d["rescanned"] = f"{datetime.date.today().isoformat()} at {commit()}"
    return d


def cell_tube(a, name, radius, length):
    """A tools/bench/rbc.py tube case file (periodic, haematocrit 0.45) with a.cell_steps steps."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import rbc
    path = os.path.join(a.work, f"tube_{name}.toml")
    rbc.tube_case(path, radius, length, a.cell_steps)
    return path


def cell_count(out):
    with open(os.path.join(out, "cells.csv")) as f:
        return int(list(csv.DictReader(f))[-1]["cells"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build")
    ap.add_argument("--mpiexec", default="mpirun")
    ap.add_argument("--gpus", type=int, default=2, help="GPUs of the machine (ranks on the CPU with --backend cpu)")
    ap.add_argument("--counts", help="GPU counts, e.g. 1,2,4 (default: 1 and the powers of 2 up to --gpus)")
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--cell-steps", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs of each fluid case, pairs of runs of each cell case (median reported)")
    ap.add_argument("--tree-dx", type=float, default=7.1e-6, help="m; 7.1e-6 gives 1.03 x 10^8 fluid nodes")
    ap.add_argument("--weak-edge", type=int, default=320, help="nodes along each edge of the box per GPU")
    ap.add_argument("--cells", default="muphy,8x", help="cell cases to run: muphy, 8x, or none")
    ap.add_argument("--only", default="checks,strong,weak,cells", help="parts to run")
    ap.add_argument("--cell-placement", choices=["sequential", "tiles"], default="sequential",
                    help="rbc.placement of the run that places the cells: 'tiles' places the 8x tube on every "
                         "core of the host (another placement of the same statistics; 'sequential' took 224-313 s)")
    ap.add_argument("--fence-actions", action="store_true",
                    help="run.fence_actions = true: the device waited for after every action, so that the table by "
                         "group of actions holds device times (slower; default: off, as users run)")
    ap.add_argument("--halo-transport", choices=["auto", "host"], default="auto",
                    help="run.halo_transport of every run: auto (device to device between GPUs of the node, CUDA "
                         "IPC) or host (staged through host memory and MPI)")
    ap.add_argument("--small", action="store_true", help="tiny cases (to prove the script on the CPU)")
    ap.add_argument("--work", default="/tmp/hemo_scaling")
    ap.add_argument("--docs", help="write scaling.md/.json and img/scaling_efficiency.png here")
    ap.add_argument("--report", help="only rewrite scaling.md, the plot and performance.md's section (next to it) "
                                     "from this scaling.json")
    ap.add_argument("--merge", nargs="+", help="scaling.json files of several calls (same machine and commit): "
                                               "merge them into --docs/scaling.json and write the pages")
    ap.add_argument("--rescan", metavar="WORK", help="with --report: rebuild the cells rows from the runs' summary.json "
                    "files in WORK (the call's --work, or its results copied), with this script's differencing")
    ap.add_argument("--index", nargs="+", metavar="JSON",
                    help="scaling.json files (docs/scaling*.json): print the newest measurement of each case (with "
                         "--docs DIR: into DIR/performance.md's \"Several GPUs\" section, which every --docs write "
                         "refreshes from the scaling*.json files beside it), and stop")
    ap.add_argument("--note", action="append", default=[], help="a paragraph for the page (what was not run, and why)")
    a = ap.parse_args()
    if a.index:
        print("\n".join(index_lines(index(a.index))))
        if a.docs:
            update_performance(a.docs, a.index)
        return 0
    if a.report or a.merge:
        d = merge(a.merge) if a.merge else json.load(open(a.report))
        if a.rescan:
            d = rescan(d, a.rescan)
        elif not a.merge:
            efficiencies(d["runs"])  # a page of an older measurement gets the columns added since
        d["notes"] = d.get("notes", []) + a.note
        docs = a.docs or os.path.dirname(os.path.abspath(a.report))
        os.makedirs(docs, exist_ok=True)
        if a.merge or a.rescan:
            write_json(docs, "scaling.json", d)
        write_report(d, docs)
        update_performance(docs)
        return 0
    os.makedirs(a.work, exist_ok=True)
    counts = [int(x) for x in a.counts.split(",")] if a.counts else [1] + [2 ** k for k in range(1, 5) if 2 ** k <= a.gpus]
    only = set(a.only.split(","))
    device, copy_bw = "CPU", 0.0
    if a.backend == "cuda":
        bw = json.loads(subprocess.run([os.path.join(a.build, "bin", "hemo_membw"), "--backend", "cuda"],
                                       capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1])
        device, copy_bw = bw["device"], bw["copy_bandwidth_gbs"]
    rows, checks = [], []
    G = max(counts)
    a.meta = {"date": datetime.date.today().isoformat(), "commit": commit(), "device": device,
              "copy_bandwidth_gbs": copy_bw, "gpus": G, "counts": counts, "steps": a.steps, "cell_steps": a.cell_steps,
              "repeat": a.repeat, "backend": a.backend, "command": "tools/bench/scaling.py " + " ".join(sys.argv[1:]),
              "halo_transport": a.halo_transport, "fence_actions": a.fence_actions, "cell_placement": a.cell_placement,
              "cell_seeding_ranks": G}

    if "checks" in only:  # 1. Same answer on 1 and G GPUs, and a restart from G onto 1.
        case = os.path.join(ROOT, "cases", "pipe_velocity.toml")
        # The default scheduling (no fence after each action): the answers must not depend on it.
        small = ["--set", "lattice.dx=5e-4", "--set", "output.every=0", "--set", "output.final=false",
                 "--set", "run.fence_actions=false"]
        s1 = run(a, 1, case, f"{a.work}/same_1", 200, small)
        sn = run(a, G, case, f"{a.work}/same_{G}", 200, small)
        checks.append({"what": f"pipe_velocity (dx 5e-4, {s1['fluid_nodes']} nodes, 200 steps, fp64): checksum on 1 "
                               f"and {G} ranks", "one": s1["population_checksum"], "many": sn["population_checksum"],
                       "equal": s1["population_checksum"] == sn["population_checksum"]})
        split = f"{a.work}/restart_{G}to1"
        run(a, G, case, split, 100, small + ["--set", "checkpoint.every=100"])
        sr = run(a, 1, case, split, 200, small + ["--restart", split])
        checks.append({"what": f"the same, checkpointed after step 100 on {G} ranks and restarted on 1: checksum "
                               "uninterrupted and restarted", "one": s1["population_checksum"],
                       "many": sr["population_checksum"], "equal": s1["population_checksum"] == sr["population_checksum"]})

    if "strong" in only:  # 2. Strong scaling of the fluid tree.
        tree = os.path.join(ROOT, "cases", "bench", "vessel_tree.toml")
        extra = ["--set", f"lattice.dx={1.32e-5 * 4 if a.small else a.tree_dx}"]
        for n in counts:
            s = median_run(a, n, tree, f"{a.work}/tree_{n}", a.steps, extra)
            rows.append(row(a, "strong", "fluid", "vessel tree", n, s, copy_bw))
            save_partial(a, rows, checks)

    if "weak" in only:  # 3. Weak scaling: the box with weak_edge^3 nodes per GPU.
        box = os.path.join(ROOT, "cases", "bench", "box.toml")
        edge = 32 if a.small else a.weak_edge
        for n in counts:
            size = edge * 3.90625e-6
            extra = ["--set", f"geometry.size=[{n * size!r},{size!r},{size!r}]"]
            s = median_run(a, n, box, f"{a.work}/box_{n}", a.steps, extra)
            rows.append(row(a, "weak", "fluid", f"box {edge}^3 per GPU", n, s, copy_bw))
            save_partial(a, rows, checks)

    seeding = a.meta["cell_seeding_setup_seconds"] = {}  # set-up of the run that placed each tube's cells
    if "cells" in only:  # 4. Strong scaling with red blood cells.
        sizes = {"muphy": (100e-6, 3e-3), "8x": (200e-6, 6e-3)}
        if a.small:
            sizes = {"muphy": (25e-6, 2e-4), "8x": (50e-6, 4e-4)}
        for name in [c for c in a.cells.split(",") if c in sizes]:
            case = cell_tube(a, name, *sizes[name])
            # The cells are placed once (random sequential addition on rank 0, minutes for
            # the 8x tube), by one step on G ranks that ends in a checkpoint; every GPU count
            # then restarts from it (any rank count restarts bitwise) and is timed over
            # --cell-steps steps after its own set-up.
            seed = f"{a.work}/cells_{name}_seed"
            sd = run(a, G, case, seed, 1, ["--set", "checkpoint.final=true", "--set", f'rbc.placement="{a.cell_placement}"'],
                     unbound=True)
            seeding[name] = sd["setup_seconds"]
            firsts = []  # each count's first long run, for the same-answer checks
            for n in counts:
                # Timed as the difference of a run of 2N and one of N steps from that
                # checkpoint: each one's set-up, first steps (kernels loaded, buffers grown)
                # and closing output (every cell downloaded and written: about 0.7 s for
                # the MUPHY tube, 2 ms a step over 300 steps) cancel.
                # With --repeat R, R such pairs (alternated: short, long, short, long, ...),
                # the median of their differenced times reported (the spread between runs of
                # one machine was larger than the changes sought, docs/rbc_ranks.md).
                out = f"{a.work}/cells_{name}_{n}"
                # No closing snapshot (the 8x tube's 4.8 x 10^7 nodes took seconds of each
                # run's end); the cells' record and the population checksum are still written.
                timed = ["--restart", seed, "--set", "output.final=false"]
                for i in range(a.repeat):
                    tag = "" if i == 0 else f"_r{i}"
                    run(a, n, case, f"{out}{tag}_short", 1 + a.cell_steps, timed)
                    run(a, n, case, f"{out}{tag}", 1 + 2 * a.cell_steps, timed)
                rows.append(cell_row(a, name, n, out, a.repeat, copy_bw))
                # Every count restarted from the same cells: the same answer, bitwise.
                firsts.append((n, out))
                if len(firsts) > 1:
                    checks += same_answer_checks(name, 2 * a.cell_steps, [firsts[0], firsts[-1]])
                save_partial(a, rows, checks)

    efficiencies(rows)
    data = {**a.meta, "checks": checks, "runs": rows}
    data["verdicts"] = verdicts(data)
    print(json.dumps({k: v for k, v in data.items() if k != "runs"}, indent=1))
    for r in rows:
        print(f"{r['kind']:6} {r['case']:28} {r['ranks']} ranks: {r['mlups']:.0f} MLUPS, "
              f"{1e3 * r['seconds_per_step']:.3f} ms/step, efficiency {100 * r.get('efficiency', 1):.1f}%", flush=True)
    if a.docs:
        os.makedirs(a.docs, exist_ok=True)
        write_json(a.docs, "scaling.json", data)
        write_report(data, a.docs)
        update_performance(a.docs)
    else:
        write_json(a.work, "scaling.json", data)
    return 0 if all(c["equal"] for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
