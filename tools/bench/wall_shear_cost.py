#!/usr/bin/env python3
"""What accumulating wall shear statistics every step costs (issue 17, item 6): the aorta
case (cases/aorta.toml, lb_bgk + lb_vlbm + boundaries) on one GPU, with and without the
wall_shear plugin sampling WSS into TAWSS/OSI/RRT every step (wall_shear.sample_every = 1,
no instantaneous files), the runs alternated --repeat times, the median time per step of
each compared. Target: at most 5% more time per step.

The time per step is hemoflow's own (summary.json: wall time of the steps, set-up left
out) less the output phase's actions that run once at the end (the statistics file and
the final snapshot: a run of N steps pays them once, a long run too).

Writes docs/wall_shear_cost.json and the section "Wall shear statistics" of
docs/performance.md (with --docs).

usage: wall_shear_cost.py --hemoflow .bundle/bin/hemoflow [--steps 3000] [--repeat 3] [--docs docs]
       (HEMO_DATA_DIR must point at the vascular data, as for the aorta case)
"""
import argparse
import datetime
import json
import os
import statistics
import sys

from benchlib import ROOT, commit, run_summary, write_json

TARGET = 0.05
ONCE = ["core.write_output", "core.check_mass_nan", "wall_shear.wall_shear_stats", "boundaries.iolet_monitor"]


def run(a, out, with_wss):
    plugins = '["lb_bgk","lb_vlbm","boundaries","wall_shear"]' if with_wss else '["lb_bgk","lb_vlbm","boundaries"]'
    cmd = [a.hemoflow, "run", os.path.join(ROOT, "cases", "aorta.toml"), "--quiet", "--progress", "never",
           "--backend", a.backend, "--steps", str(a.steps), "--output", out, "--set", f"run.plugins={plugins}",
           "--set", "output.final=false", "--set", f"run.check_every={a.steps}"]
    if with_wss:
        cmd += ["--set", "wall_shear.every=0", "--set", "wall_shear.sample_every=1"]
        for kv in a.set or []:  # a variant (wall_shear.evaluate=node, ...): after the defaults, so it wins
            cmd += ["--set", kv]
    s = run_summary(cmd, out)
    once = sum(v for k, v in s["action_seconds"].items() if k in ONCE)
    return {"ms_per_step": 1e3 * (s["wall_seconds"] - once) / s["steps"], "fluid_nodes": s["fluid_nodes"],
            "device": s.get("device", ""), "wall_shear_ms_per_step": 1e3 * s["action_seconds"].get("wall_shear.wall_shear", 0.0) / s["steps"],
            "layout": s.get("layout", ""), "precision": s.get("precision", "")}


def section(d):
    v = "PASS" if d["overhead"] <= TARGET else "FAIL"
    return ["## Wall shear statistics", "",
            f"Measured {d['date']} at commit {d['commit']} on {d['device']} by `tools/bench/wall_shear_cost.py "
            f"--steps {d['steps']} --repeat {d['repeat']}`: the aorta case ({d['fluid_nodes']:,} fluid nodes, "
            f"{d['layout']}, {d['precision']}) with and without the wall_shear plugin sampling the wall shear stress "
            "into TAWSS, OSI and RRT every step (numbers in `docs/wall_shear_cost.json`).", "",
            "| run | ms per step (median) | runs |", "|---|---|---|",
            f"| without wall_shear | {d['without_ms']:.4f} | {', '.join(f'{x:.4f}' for x in d['without_runs'])} |",
            f"| with wall_shear, every step | {d['with_ms']:.4f} | {', '.join(f'{x:.4f}' for x in d['with_runs'])} |", "",
            f"Cost: {100 * d['overhead']:+.1f}% per step (the plugin's own action, which does not wait for its kernel: "
            f"{d['wall_shear_ms']:.4f} ms per step on the host) "
            f"against at most {100 * TARGET:.0f}% (issue 17): **{v}**.", ""]


def update_performance(docs, d):
    """Adds or replaces the "## Wall shear statistics" section of docs/performance.md, before "## Reproduce"."""
    path = os.path.join(docs, "performance.md")
    text = open(path).read()
    body = "\n".join(section(d)) + "\n"
    start = text.find("## Wall shear statistics\n")
    if start >= 0:
        end = text.find("\n## ", start + 3)
        text = text[:start] + body + text[end + 1:]
    else:
        at = text.find("## Reproduce")
        text = text[:at] + body + text[at:]
    with open(path, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hemoflow")
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--work", default="/tmp/hemo_wss_cost")
    ap.add_argument("--docs")
    ap.add_argument("--set", action="append", help="KEY=VALUE for the run with wall_shear (repeatable): a variant")
    ap.add_argument("--report", help="only rewrite performance.md's section (next to it) from this wall_shear_cost.json")
    a = ap.parse_args()
    if a.report:
        with open(a.report) as f:
            update_performance(os.path.dirname(os.path.abspath(a.report)), json.load(f))
        return 0
    without, with_ = [], []
    for i in range(a.repeat):  # alternated, so drifts of the clock hit both alike
        without.append(run(a, f"{a.work}/without_{i}", False))
        with_.append(run(a, f"{a.work}/with_{i}", True))
    wo = statistics.median(x["ms_per_step"] for x in without)
    wi = statistics.median(x["ms_per_step"] for x in with_)
    d = {"date": datetime.date.today().isoformat(), "commit": commit(), "device": without[0]["device"],
         "steps": a.steps, "repeat": a.repeat, "fluid_nodes": without[0]["fluid_nodes"], "layout": without[0]["layout"],
         "precision": without[0]["precision"], "without_ms": wo, "with_ms": wi,
         "without_runs": [x["ms_per_step"] for x in without], "with_runs": [x["ms_per_step"] for x in with_],
         "wall_shear_ms": statistics.median(x["wall_shear_ms_per_step"] for x in with_), "overhead": wi / wo - 1,
         "target": TARGET, "variant": a.set or []}
    print("\n".join(section(d)))
    if a.docs:
        write_json(a.docs, "wall_shear_cost.json", d)
        update_performance(a.docs, d)
    else:
        write_json(a.work, "wall_shear_cost.json", d)
    return 0


if __name__ == "__main__":
    sys.exit(main())
