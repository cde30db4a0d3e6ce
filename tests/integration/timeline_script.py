#!/usr/bin/env python3
"""tools/bench/timeline.py on made-up summaries (no GPU needed): two ranks, two actions,
a run of 20 and one of 10 steps from the same start, and a fenced pair; the per-step
host time, device span, gap and fenced time must be the differences over 10 steps."""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def summary(steps, scale, fenced=False):
    ranks = []
    for r in range(2):
        k = scale * (1 + r)  # rank 1 twice rank 0
        ranks.append({"action_seconds": {"p.a": k * 1e-3, "p.b": k * 2e-3},
                      **({} if fenced else {"device_timeline": {"p.a": {"span": k * 3e-3, "gap": k * 0.5e-3},
                                                                "p.b": {"span": k * 1e-3, "gap": k * 0.25e-3}}})})
    s = {"steps": steps, "steps_seconds": scale * 0.1, "wall_seconds": scale * 0.1, "fluid_nodes": 1000,
         "phase_seconds": {}, "action_seconds": ranks[0]["action_seconds"], "rank_reports": ranks}
    if not fenced:
        s["device_timeline"] = ranks[0]["device_timeline"]
    return s


def main():
    work = tempfile.mkdtemp(prefix="timeline_")
    files = {}
    for name, steps, scale, fenced in (("long", 20, 3.0, False), ("short", 10, 1.0, False),
                                       ("flong", 20, 2.0, True), ("fshort", 10, 1.0, True)):
        files[name] = os.path.join(work, name + ".json")
        with open(files[name], "w") as f:
            json.dump(summary(steps, scale, fenced), f)
    out = os.path.join(work, "t.json")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "bench", "timeline.py"), files["long"],
                        "--minus", files["short"], "--fenced", files["flong"], "--fenced-minus", files["fshort"],
                        "--json", out], capture_output=True, text=True)
    print(r.stdout, r.stderr)
    if r.returncode != 0:
        return 1
    t = json.load(open(out))
    # Differenced: (3 - 1) x per-rank seconds over 10 steps; fenced: (2 - 1) x over 10.
    ok = True
    for rank in (0, 1):
        k = 1 + rank
        rows = {x["action"]: x for x in t[rank]["rows"]}
        want = {"p.a": (2 * k * 1e-3, 2 * k * 3e-3, 2 * k * 0.5e-3, k * 1e-3),
                "p.b": (2 * k * 2e-3, 2 * k * 1e-3, 2 * k * 0.25e-3, k * 2e-3)}
        for action, (host, span, gap, fenced) in want.items():
            got = rows[action]
            for key, w in (("host_ms", host), ("span_ms", span), ("gap_ms", gap), ("fenced_ms", fenced)):
                if abs(got[key] - 1e3 * w / 10) > 1e-9:
                    print(f"rank {rank} {action} {key}: {got[key]} != {1e3 * w / 10}")
                    ok = False
        if abs(t[rank]["device_ms"] - 1e3 * 2 * k * 4.75e-3 / 10) > 1e-9:
            print(f"rank {rank} device_ms {t[rank]['device_ms']}")
            ok = False
    print("timeline.py: " + ("as expected" if ok else "WRONG"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
