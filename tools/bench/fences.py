#!/usr/bin/env python3
"""What waiting for the GPU after every action costs (run.fence_actions): each case run
with and without the fences, the same steps, the variants alternated --repeat times.

On CUDA every kernel goes to one stream; without fences the host queues the next
actions while the device works and waits only where a result is read (a copy to the
host, a reduction, MPI staging) and after the last step. With run.fence_actions = true
it also waits after every action, so that the time table gives each action its device
time. The same kernels run in the same order, so the answers must be bitwise the same:
the population checksums of the two runs are compared (a check: equal or FAIL).

Time per step: the difference of runs of 2N and N steps over N (what a run pays once
cancels). Writes docs/fences.json and the section "Device fences" of docs/performance.md
(with --docs).

usage: fences.py --hemoflow .bundle/bin/hemoflow [--repeat 3] [--only pipe aorta ...] [--docs docs]
       fences.py --report docs/fences.json   (the section again from a measurement)
       (HEMO_DATA_DIR must point at the vascular data, for the aorta and the carotid)
"""
import argparse
import datetime
import json
import os
import statistics
import sys

from benchlib import ROOT, commit, replace_doc_section, step_time, write_json

# name, case, N (steps of the shorter run), settings: small to large, the fluid alone and
# with what each kind of plugin adds (iolets with Windkessel outlets, lb_vlbm, cells).
CASES = [
    ("pipe", "cases/poiseuille_pipe.toml", 2000, []),
    ("aorta", "cases/aorta.toml", 2000, ['run.plugins=["lb_bgk","lb_vlbm","boundaries"]']),
    ("carotid_pulsatile", "cases/carotid_pulsatile.toml", 1000, []),
    ("rbc_pipe", "cases/rbc_pipe.toml", 200, []),
    ("vessel_tree", "cases/bench/vessel_tree.toml", 200, []),
]


def run(a, name, case, steps, sets, fence, rep):
    ms, s = step_time(a.hemoflow, os.path.join(ROOT, case), steps,
                      f"{a.work}/{name}_{'fenced' if fence else 'free'}_{rep}",
                      [f"run.fence_actions={'true' if fence else 'false'}", *sets])
    return {"ms": ms, "checksum": s["population_checksum"], "nodes": s["fluid_nodes"], "device": s.get("device", "")}


def section(d):
    lines = ["## Device fences", "",
             f"Measured {d['date']} at commit {d['commit']} on {d['device']} by `tools/bench/fences.py --repeat "
             f"{d['repeat']}` (numbers in `docs/fences.json`): each case with `run.fence_actions = true` (the device "
             "waited for after every action, as every run did before 2026-11-26) and `false` (the default: the device "
             "waits only where a result is read), time per step from runs of 2N and N steps, medians. The checksum "
             "check: the populations after 2N steps bitwise equal in the two modes.", "",
             "| case | fluid nodes | N | fenced, ms per step | free, ms per step | change | checksums |",
             "|---|---|---|---|---|---|---|"]
    for r in d["cases"]:
        lines.append(f"| {r['name']} | {r['nodes']:,} | {r['steps']} | {r['fenced_ms']:.4f} | {r['free_ms']:.4f} | "
                     f"{100 * (r['free_ms'] / r['fenced_ms'] - 1):+.1f}% | {'equal' if r['equal'] else '**FAIL**'} |")
    return lines + [""]


def update_performance(docs, d):
    replace_doc_section(docs, section(d))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hemoflow")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", nargs="*", help="case names (default: all)")
    ap.add_argument("--work", default="/tmp/hemo_fences")
    ap.add_argument("--docs")
    ap.add_argument("--report", help="only rewrite performance.md's section (next to it) from this fences.json")
    a = ap.parse_args()
    if a.report:
        with open(a.report) as f:
            update_performance(os.path.dirname(os.path.abspath(a.report)), json.load(f))
        return 0
    if not a.hemoflow:
        ap.error("--hemoflow is needed to measure (or --report to rewrite the section)")
    cases = [c for c in CASES if not a.only or c[0] in a.only]
    results = {}
    for rep in range(a.repeat):
        for name, case, steps, sets in cases:
            for fence in (True, False):
                results.setdefault((name, fence), []).append(run(a, name, case, steps, sets, fence, rep))
    d = {"date": datetime.date.today().isoformat(), "commit": commit(), "repeat": a.repeat, "cases": [],
         "device": results[(cases[0][0], True)][0]["device"]}
    for name, case, steps, sets in cases:
        f, u = results[(name, True)], results[(name, False)]
        d["cases"].append({"name": name, "case": case, "steps": steps, "sets": sets, "nodes": f[0]["nodes"],
                           "fenced_ms": statistics.median(x["ms"] for x in f),
                           "free_ms": statistics.median(x["ms"] for x in u),
                           "fenced_runs": [x["ms"] for x in f], "free_runs": [x["ms"] for x in u],
                           "equal": len({x["checksum"] for x in f + u}) == 1})
    print("\n".join(section(d)))
    write_json(a.docs or a.work, "fences.json", d)
    if a.docs:
        update_performance(a.docs, d)
    return 0 if all(r["equal"] for r in d["cases"]) else 1


if __name__ == "__main__":
    sys.exit(main())
