#!/usr/bin/env python3
"""Two or more builds of hemoflow timed on one case, interleaved, from one checkpoint.

A change's effect on a step of a few ms was smaller than the spread between runs on one
machine (docs/rbc_ranks.md: 2.0-3.1 ms for the same code on 4 x H100, in the steps away
from the median, the first after the restart above all, which a difference does not
cancel; since 2026-11-27 differences are timed by summary.json's steady_seconds, after a
warm-up, which on 4 x H100 on 2026-11-28 narrowed an A/A's spread to 2.35-2.67 ms, not
to a few percent), so a comparison of builds run one after the other says little. This script starts every run from the same checkpoint (made once, by the first
build), times each build as the difference of a run of 2N and one of N steps
(benchlib.differenced: set-up, warm-up and each run's output phase left out), and
alternates the builds round by round (A, B, C, A, B, C, ...), so that a drift of the
machine touches all alike. Reported: each build's median ms per step and every round's;
the change against the first build, with a reading (faster or slower where the two
builds' ranges of rounds do not overlap, else within the noise); the slowest rank's ms
per step of each action; how each round's steps spread (the longer run's median, 90th
and 99th percentile and largest step, summary.json's step_seconds); and whether every
build's populations and cells after 2N steps are bitwise the same (population_checksum;
the cells' state checksum in cells.csv if the case has cells). The same build under two
names (an A/A) shows the noise itself.

A build is NAME=DIR, DIR holding bin/hemoflow (and its plugins, found beside it as the
bundle puts them, or in DIR/lib). Set-up options go to every run (--set). The same DIR
under two names, with --launch NAME="mpiexec options" for one of them, compares ways of
launching one build (binding, -x OMP_NUM_THREADS=...) on many ranks.

usage: ab.py --build new=.bundle --build old=.bundle_old --case tube.toml --ranks 4
             [--mpiexec orterun] [--steps 500] [--rounds 3] [--set key=value ...] [--json OUT]
             [--launch NAME="--bind-to none" ...]
"""
import argparse
import json
import os
import shlex
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import differenced, mpi_launch, ms_per_step, run_answer, run_summary  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", action="append", required=True, help="NAME=DIR (two or more)")
    ap.add_argument("--case", required=True)
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--mpiexec", default="mpirun")
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--steps", type=int, default=500, help="N: runs of 2N and N steps (default 500)")
    ap.add_argument("--rounds", type=int, default=3, help="pairs per build, interleaved (default 3)")
    ap.add_argument("--set", action="append", default=[], help="key=value for every run")
    ap.add_argument("--work", default="/tmp/ab")
    ap.add_argument("--json", help="write the results here (again after every round, so a run cut short keeps its rounds)")
    ap.add_argument("--launch", action="append", default=[],
                    help='NAME="options": mpiexec options for build NAME\'s timed runs (e.g. "--bind-to none")')
    a = ap.parse_args()
    builds = [b.split("=", 1) for b in a.build]
    if len(builds) < 2 or any(len(b) != 2 for b in builds):
        raise SystemExit("ab.py: give two or more --build NAME=DIR")
    launch = {}
    for spec in a.launch:
        name, _, options = spec.partition("=")
        if name not in dict(builds) or not options:
            raise SystemExit(f"ab.py: --launch {spec}: expected NAME=OPTIONS with NAME one of the builds")
        if a.ranks == 1:
            raise SystemExit("ab.py: --launch needs --ranks 2 or more (one rank runs without mpiexec)")
        launch[name] = shlex.split(options)
    os.makedirs(a.work, exist_ok=True)
    sets = [x for kv in a.set for x in ("--set", kv)]

    def run(build, out, steps, extra=(), unbound=False, options=()):
        cmd = [*mpi_launch(a.mpiexec, a.ranks, unbound), *options, os.path.join(build, "bin", "hemoflow"), "run", a.case,
               "--quiet", "--progress", "never", "--backend", a.backend, "--steps", str(steps), "--output", out, "--overwrite",
               *sets, *extra]
        return run_summary(cmd, out)

    seed = os.path.join(a.work, "seed")
    # The seed run unbound: its set-up may place cells on every core (benchlib.mpi_launch).
    run(builds[0][1], seed, 1, ["--set", "checkpoint.final=true"], unbound=True)
    pairs = {name: [] for name, _ in builds}
    answers = {name: set() for name, _ in builds}
    spread = {name: [] for name, _ in builds}  # each round's long run: summary.json step_seconds, ms

    def ms(d):
        return 1e3 * d["wall_seconds"] / d["steps"]

    def verdict(times, base_times):
        """Against the first build, round by round (the rounds are interleaved): how many
        rounds were faster, and whether the two builds' ranges of rounds are apart. A change
        whose ranges overlap is within the run-to-run noise: no conclusion."""
        reading = ("faster" if max(times) < min(base_times) else
                   "slower" if min(times) > max(base_times) else "within the noise")
        return {"faster_rounds": sum(t < b for t, b in zip(times, base_times)), "rounds": len(times),
                "reading": reading}

    def summary(rounds_done):
        result = {"case": a.case, "ranks": a.ranks, "steps": a.steps, "rounds": rounds_done, "sets": a.set,
                  "device": pairs[builds[0][0]][0].get("device"), "builds": {}}
        base_times = [ms(d) for d in pairs[builds[0][0]][:rounds_done]]
        base = statistics.median(base_times)
        for i, (name, build) in enumerate(builds):
            times = [ms(d) for d in pairs[name][:rounds_done]]
            med = statistics.median(times)
            per_pair = [ms_per_step(d) for d in pairs[name][:rounds_done]]
            per_action = {k: statistics.median(p.get(k, 0.0) for p in per_pair) for k in per_pair[0]}
            result["builds"][name] = {"dir": build, "launch": launch.get(name, []), "ms_per_step": med, "rounds_ms": times, "change": med / base - 1,
                                      "actions_ms": per_action, "answers": sorted(answers[name]),
                                      "rounds_step_ms": spread[name][:rounds_done],
                                      "verdict": verdict(times, base_times) if i else None}
        result["same_answer"] = len(set().union(*answers.values())) == 1
        return result

    for r in range(a.rounds):
        for name, build in builds:
            out = os.path.join(a.work, f"{name}_{r}")
            short = run(build, out + "_short", 1 + a.steps, ["--restart", seed], options=launch.get(name, ()))
            long = run(build, out, 1 + 2 * a.steps, ["--restart", seed], options=launch.get(name, ()))
            pairs[name].append(differenced(long, short))
            answers[name].add(run_answer(out))
            q = {k: 1e3 * v for k, v in long.get("step_seconds", {}).items()}  # hemoflow since 2026-11-27
            spread[name].append(q)
            d = pairs[name][-1]
            steps = f" (steps of the {2 * a.steps}-step run: " + ", ".join(f"{k} {v:.3f}" for k, v in q.items()) + " ms)"
            print(f"round {r + 1} {name}: {1e3 * d['wall_seconds'] / d['steps']:.3f} ms/step{steps if q else ''}", flush=True)
        # Every finished round is kept: a run cut short by a time limit still leaves its rounds.
        result = summary(r + 1)
        if a.json:
            with open(a.json, "w") as f:
                json.dump(result, f, indent=1)
    all_answers = set().union(*answers.values())
    print(f"\n{a.ranks} rank(s), {a.case}, pairs of {2 * a.steps} and {a.steps} steps, {a.rounds} rounds interleaved")
    print("| build | ms/step (median) | rounds | change | faster rounds | reading |")
    print("|---|---|---|---|---|---|")
    for name, b in result["builds"].items():
        v = b["verdict"]
        print(f"| {name} | {b['ms_per_step']:.3f} | {', '.join(f'{t:.3f}' for t in b['rounds_ms'])} | "
              f"{100 * b['change']:+.1f}% | " + (f"{v['faster_rounds']} of {v['rounds']} | {v['reading']} |" if v else "- | - |"))
    names = list(result["builds"])
    keys = sorted({k for b in result["builds"].values() for k in b["actions_ms"]})
    print("\n| action (slowest rank, ms/step, median) | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for k in keys:
        vals = [result["builds"][n]["actions_ms"].get(k, 0.0) for n in names]
        if max(abs(v) for v in vals) >= 0.005:
            print(f"| {k} | " + " | ".join(f"{v:.3f}" for v in vals) + " |")
    print(f"\nsame populations and cells after {2 * a.steps} steps in every run: "
          f"{'yes' if result['same_answer'] else 'NO: ' + ', '.join(sorted(all_answers))}")
    return 0 if result["same_answer"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
