#!/usr/bin/env python3
"""Where the device idles in a run made with run.device_timeline = true (summary.json's
device_timeline, core/scheduler/scheduler.hpp): per rank, each action's host time, its
device span (device work plus any idle while the host waited inside the action) and the
device gap before it (idle: the host had not yet got to the action), in ms per step.
With --minus, the difference of two runs from the same start (N and 2N steps), so that
the set-up's and the first steps' one-off costs cancel (benchlib.differenced); with
--fenced (and --fenced-minus), the same case run with run.fence_actions = true, whose
action times are the device work itself: span less that is the idle inside an action
(roughly: a fenced action's time also holds its host work and a wait's latency).

usage: timeline.py RUN [--minus SHORT_RUN] [--fenced RUN [--fenced-minus SHORT_RUN]] [--rank R] [--json OUT]
       (RUN: a run's output folder or its summary.json)"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import differenced  # noqa: E402


def load(path):
    path = os.path.join(path, "summary.json") if os.path.isdir(path) else path
    with open(path) as f:
        return json.load(f)


def ranks_of(s):
    """Each rank's (action seconds, device timeline); one rank: the run's own."""
    reports = s.get("rank_reports") or [s]
    return [(r["action_seconds"], r.get("device_timeline")) for r in reports]


def table(s, fenced=None, rank=None):
    """Rows per rank: action, host ms, device span ms, device gap ms (and fenced ms), per step."""
    steps = s["steps"]
    out = []
    fenced_ranks = ranks_of(fenced) if fenced else None
    for r, (host, timeline) in enumerate(ranks_of(s)):
        if rank is not None and r != rank:
            continue
        if timeline is None:
            raise SystemExit("timeline.py: the run has no device_timeline (run it with --set run.device_timeline=true)")
        rows = []
        for action, t in timeline.items():
            row = {"action": action, "host_ms": 1e3 * host.get(action, 0.0) / steps,
                   "span_ms": 1e3 * t["span"] / steps, "gap_ms": 1e3 * t["gap"] / steps}
            if fenced_ranks:
                row["fenced_ms"] = 1e3 * fenced_ranks[r][0].get(action, 0.0) / fenced["steps"]
            rows.append(row)
        out.append({"rank": r, "rows": rows,
                    "device_ms": sum(x["span_ms"] + x["gap_ms"] for x in rows),
                    "gap_ms": sum(x["gap_ms"] for x in rows),
                    "fenced_ms": sum(x.get("fenced_ms", 0.0) for x in rows) if fenced_ranks else None})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run")
    ap.add_argument("--minus", help="the shorter run from the same start: differenced")
    ap.add_argument("--fenced", help="the same case with run.fence_actions = true")
    ap.add_argument("--fenced-minus", help="the fenced run's shorter partner")
    ap.add_argument("--rank", type=int)
    ap.add_argument("--json")
    a = ap.parse_args()
    s = load(a.run)
    if a.minus:
        s = differenced(s, load(a.minus))
    fenced = None
    if a.fenced:
        fenced = load(a.fenced)
        if a.fenced_minus:
            fenced = differenced(fenced, load(a.fenced_minus))
    result = table(s, fenced, a.rank)
    for r in result:
        print(f"\nrank {r['rank']}: device time per step {r['device_ms']:.3f} ms, of it gaps (device idle before an "
              f"action, waiting for the host) {r['gap_ms']:.3f} ms"
              + (f"; fenced actions {r['fenced_ms']:.3f} ms" if r["fenced_ms"] is not None else ""))
        head = "| action | host ms | device span ms | device gap ms |" + (" fenced ms |" if fenced else "")
        print(head)
        print("|---" * (head.count("|") - 1) + "|")
        for x in r["rows"]:
            if max(x["host_ms"], x["span_ms"], x["gap_ms"], x.get("fenced_ms", 0.0)) < 0.0005:
                continue
            print(f"| {x['action']} | {x['host_ms']:.3f} | {x['span_ms']:.3f} | {x['gap_ms']:.3f} |"
                  + (f" {x['fenced_ms']:.3f} |" if fenced else ""))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
