#!/usr/bin/env python3
"""A run that diverges says where and what to try (issue 18; docs/architecture.md, "When a
run diverges").

A pipe driven by 500 Pa between its pressure iolets (no velocity imposed, so no Mach number
is checked before the run; the flow speeds up past Mach 0.3 at the outlet within 340 steps
and blows up by step 390), monitored every 10 steps, on one rank and (with --mpiexec) on
two:
  - exit code 3; the error names the step, the node and its position, the nearest iolet,
    the step where the largest speed passed Mach 0.3, what to try and the report's path;
  - divergence.json: the step (a monitor step), the non-finite nodes, the node with its 18
    neighbours (walls named, values of fluid ones), the nearest wall and iolet, the speed
    history (every 10 steps, ascending, ending at the last monitor step before), its onset
    next to iolet 'outlet', suggestions;
  - summary.json: status "diverged", failed_step, divergence_report;
  - on two ranks: the same report as on one (the history merged over the ranks, the
    node of lowest voxel index wherever it lives), and summary.json written by rank 0;
  - monitored every 300 steps, the NaNs fill the pipe by the check: the error says so
    (how many of how many nodes) instead of naming a node, and places the onset at the
    outlet from the speed history.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

from common import check, summary

HERE = os.path.dirname(os.path.abspath(__file__))
CASE = os.path.join(HERE, "..", "..", "cases", "pipe_pressure.toml")
# The inlet at +x and the outlet at -x (the case the other way round): the non-finite node
# of lowest voxel index then lives on rank 1 of 2 as SCOTCH partitions it here, so its
# values travel to rank 0. Halfway bounce-back walls and the regularized operator: the
# scenario whose blow-up starts at the outlet (with interpolated walls, or the case's own
# trt, this pipe's starts at the inlet's rim instead).
SETTINGS = ["--set", "lattice.dx=1e-3", "--set", 'boundaries.wall="staircase"', "--set", 'lb_bgk.collision="regularized"', "--set", "boundaries.iolet.0.pressure=500", "--set", "boundaries.iolet.0.ramp=0",
            "--set", "boundaries.iolet.0.center=[0.032,0.0,0.0]", "--set", "boundaries.iolet.0.normal=[1.0,0.0,0.0]",
            "--set", "boundaries.iolet.1.center=[-0.032,0.0,0.0]", "--set", "boundaries.iolet.1.normal=[-1.0,0.0,0.0]",
            "--set", "run.check_every=10", "--set", "output.probe=[]", "--steps", "3000", "--quiet"]
ENV = dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")


def diverge(a, ranks, out):
    launcher = [a.mpiexec, "-np", str(ranks)] if ranks > 1 else []
    shutil.rmtree(out, ignore_errors=True)
    return subprocess.run(launcher + [a.hemoflow, "run", CASE, *SETTINGS, "--output", out], capture_output=True,
                          text=True, env=ENV, timeout=120)


def check_run(p, out, tag):
    report_path = os.path.join(out, "divergence.json")
    error = next((l for l in p.stderr.splitlines() if l.startswith("error: non-finite")), "")
    ok = check(p.returncode == 3, f"{tag}: exit code {p.returncode} (3: diverged)")
    ok &= check(re.search(r"found at step [0-9]+0 \(checked every 10 steps\) at node [0-9]+, voxel \([0-9, ]+\), "
                          r"x = \(.*\) m, .*iolet 'outlet'", error) is not None, f"{tag}: where: {error[:200]}...")
    ok &= check(re.search(r"The largest speed passed Mach 0.3 at step [0-9]+: .* at iolet 'outlet'", error) is not None,
                f"{tag}: the onset at the outlet")
    ok &= check("To try: the flow reached Mach" in error and error.endswith("Report: " + report_path),
                f"{tag}: what to try, and the report's path")
    ok &= check("largest speed on the last 16 monitor steps (every 10 steps)" in p.stderr, f"{tag}: the history logged")
    with open(report_path) as f:
        r = json.load(f)
    s = summary(out)
    ok &= check(s["status"].startswith("diverged: non-finite density") and s["exit_code"] == 3
                and s["failed_step"] == r["step"] and s.get("divergence_report") == report_path,
                f"{tag}: summary.json: diverged at step {s.get('failed_step')}, report {s.get('divergence_report')}")
    node = r["node"]
    ok &= check(r["step"] % 10 == 0 and r["non_finite_nodes"] > 0 and len(node["neighbours"]) == 19,
                f"{tag}: step {r['step']}, {r['non_finite_nodes']} non-finite nodes, the node and 18 neighbours")
    kinds = {n["kind"] for n in node["neighbours"]}
    ok &= check(node["neighbours"][0]["density"] is None and kinds <= {"fluid", "fluid (another rank's)", "wall",
                                                                         "iolet:inlet", "iolet:outlet"},
                f"{tag}: the node's density is not finite (null); neighbours {sorted(kinds)}")
    history = r["speed_history"]
    steps = [h["step"] for h in history]
    ok &= check(r["speed_history_every"] == 10 and steps == list(range(r["step"] - 10 * len(steps), r["step"], 10))
                and len(steps) == 16, f"{tag}: speed history at steps {steps[0]}..{steps[-1]}, every 10")
    onset = r["onset"]
    ok &= check(onset["mach"] > 0.3 and onset["nearest_iolet"]["boundary"] == "outlet"
                and onset["nearest_iolet"]["distance_spacings"] <= 3,
                f"{tag}: onset at step {onset['step']}, Mach {onset['mach']:.3g}, "
                f"{onset['nearest_iolet']['distance_spacings']:.3g} spacings from iolet "
                f"'{onset['nearest_iolet']['boundary']}'")
    ok &= check(node["nearest_iolet"]["boundary"] in ("inlet", "outlet") and node["nearest_wall"] is not None,
                f"{tag}: the node's nearest iolet ({node['nearest_iolet']['boundary']}, "
                f"{node['nearest_iolet']['distance']:.3g} m) and wall ({node['nearest_wall']['distance']:.3g} m)")
    ok &= check(len(r["suggestions"]) >= 2 and "lattice.dt" in r["suggestions"][0], f"{tag}: suggestions")
    return ok, r


def check_spread(a, out):
    """Checked every 300 steps: every node is NaN by then (issue 49 item 6)."""
    settings = [x if x != "run.check_every=10" else "run.check_every=300" for x in SETTINGS]
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run([a.hemoflow, "run", CASE, *settings, "--output", out], capture_output=True, text=True, env=ENV,
                       timeout=120)
    error = next((l for l in p.stderr.splitlines() if l.startswith("error: non-finite")), "")
    return check(p.returncode == 3 and re.search(r"found at step [0-9]+ \(checked every 300 steps\) in ([0-9]+) of \1 "
                                                 r"fluid nodes: it has spread over the domain", error) is not None
                 and " at node " not in error
                 and re.search(r"The largest speed passed Mach 0.3 at step [0-9]+: .* at iolet 'outlet'", error) is not None,
                 f"spread: the error counts the nodes and places the onset at the outlet: {error[:240]}...")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hemoflow", required=True)
    ap.add_argument("--mpiexec", help="also on two ranks")
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    one = os.path.join(a.work, "one_rank")
    ok, report = check_run(diverge(a, 1, one), one, "1 rank")
    ok &= check_spread(a, os.path.join(a.work, "spread"))
    if a.mpiexec:
        two = os.path.join(a.work, "two_ranks")
        ok2, report2 = check_run(diverge(a, 2, two), two, "2 ranks")
        ok &= ok2
        print(f"the node lives on rank {report2['node']['rank']} of 2")
        for r in (report, report2):
            r["node"].pop("rank")
        ok &= check(report == report2, "2 ranks: the same report as one rank (node, neighbours, history, onset)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
