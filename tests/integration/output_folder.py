#!/usr/bin/env python3
"""Output folders are safe (issue 49 item 1), with the Poiseuille pipe case:

- two runs into one folder: while a long run holds it, a second exits 2 naming the first
  (its process id and case), and the first runs on and stops cleanly on SIGTERM;
- a stale checkpoint: a fresh run into a folder holding checkpoint.h5 (a run that can be
  continued) exits 2 and leaves the folder byte for byte as it was; with --overwrite it
  replaces the run, checkpoint included;
- finished results: a fresh run into a folder holding another run's results without a
  checkpoint (snapshots, CSV series, its summary) exits 2 naming them and leaves the folder
  as it was; with --overwrite the old run's files go (a snapshot only it wrote included);
  a run that failed before its first step may be rerun into its folder as it is;
- a failed rerun: a run with bad input into a folder holding another run's results exits 2
  and leaves every file as it was (summary.json, case.toml); into a new folder it writes
  a summary.json that says why;
- a signal during set-up: the folder is either as it was or this run's as a whole (its
  summary.json not the old "ok");
- partial files (*.tmp) that a killed write left are removed by the next run.
"""
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time

from common import arguments, check, summary


def snapshot(folder):
    """{relative path: sha256} of every file below the folder, the lock file left out."""
    out = {}
    for root, _, files in os.walk(folder):
        for f in files:
            if f == ".hemoflow.lock":
                continue
            p = os.path.join(root, f)
            with open(p, "rb") as h:
                out[os.path.relpath(p, folder)] = hashlib.sha256(h.read()).hexdigest()
    return out


def main():
    a = arguments(__doc__)
    shutil.rmtree(a.work, ignore_errors=True)
    run = lambda out, *extra: subprocess.run([a.hemoflow, "run", a.case, "--quiet", "--output", out, *extra],  # noqa: E731
                                             capture_output=True, text=True)
    ok = True

    # Two runs into one folder.
    busy = os.path.join(a.work, "busy")
    long_run = subprocess.Popen([a.hemoflow, "run", a.case, "--quiet", "--output", busy, "--steps", "10000000"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for _ in range(200):  # until it holds the folder (its "running" summary is written after set-up)
        if os.path.exists(os.path.join(busy, "summary.json")):
            break
        time.sleep(0.05)
    second = run(busy, "--steps", "10")
    print(second.stderr.strip()[:300])
    ok &= check(second.returncode == 2 and "is in use by another run" in second.stderr
                and f"process {long_run.pid}" in second.stderr and "poiseuille_pipe.toml" in second.stderr,
                "a second run into a busy folder exits 2 naming the first (process id, case)")
    long_run.send_signal(signal.SIGTERM)
    rc = long_run.wait(timeout=120)
    ok &= check(rc == 4 and summary(busy)["status"] == "interrupted", "the first run goes on and stops cleanly (exit 4)")

    # A stale checkpoint (the interrupted run's).
    before = snapshot(busy)
    ok &= check("checkpoint.h5" in before, "the interrupted run left a checkpoint")
    fresh = run(busy, "--steps", "10")
    ok &= check(fresh.returncode == 2 and "holds checkpoint.h5, a run that can be continued" in fresh.stderr
                and "--overwrite" in fresh.stderr, "a fresh run over a checkpoint exits 2 and names --overwrite")
    ok &= check(snapshot(busy) == before, "and leaves the folder byte for byte as it was")
    over = run(busy, "--steps", "10", "--overwrite")
    ok &= check(over.returncode == 0 and not os.path.exists(os.path.join(busy, "checkpoint.h5"))
                and summary(busy)["status"] == "ok" and summary(busy)["steps"] == 10,
                "with --overwrite it replaces the run, checkpoint included")

    # Finished results without a checkpoint.
    done = os.path.join(a.work, "done")
    first = run(done, "--steps", "20", "--set", "output.every=10", "--set", "checkpoint.final=false")
    before = snapshot(done)
    ok &= check(first.returncode == 0 and "checkpoint.h5" not in before
                and any(f.startswith("fields") for f in before), "a finished run left snapshots and no checkpoint")
    again = run(done, "--steps", "10")
    print(again.stderr.strip()[:300])
    ok &= check(again.returncode == 2 and "holds another run's results" in again.stderr and "fields/" in again.stderr
                and "summary.json of 20 steps" in again.stderr and "--overwrite" in again.stderr,
                "a fresh run over finished results exits 2 naming them and --overwrite")
    ok &= check(snapshot(done) == before, "and leaves the folder byte for byte as it was")
    over = run(done, "--steps", "10", "--overwrite", "--set", "output.every=0")
    left = [f for f in snapshot(done) if f.startswith("fields") and "000020" in f]
    ok &= check(over.returncode == 0 and summary(done)["steps"] == 10 and not left,
                "with --overwrite the old run's files go (its step-20 snapshot too)")
    failed = os.path.join(a.work, "failed_setup")
    run(failed, "--steps", "10", "--set", "lattice.dx=-1")
    fixed = run(failed, "--steps", "10")
    ok &= check(fixed.returncode == 0 and summary(failed)["steps"] == 10,
                "a run that failed before its first step is rerun into its folder without --overwrite")

    # A failed rerun.
    before = snapshot(busy)
    bad = run(busy, "--steps", "10", "--set", "lattice.dx=-1")
    ok &= check(bad.returncode == 2 and snapshot(busy) == before,
                "a run with bad input leaves another run's folder as it was (summary.json, case.toml)")
    new = os.path.join(a.work, "new")
    bad = run(new, "--steps", "10", "--set", "lattice.dx=-1")
    ok &= check(bad.returncode == 2 and summary(new)["status"].startswith("bad input"),
                "into a new folder it writes a summary.json that says why")

    # A signal during set-up: as it was, or this run's as a whole.
    before = snapshot(busy)
    p = subprocess.Popen([a.hemoflow, "run", a.case, "--quiet", "--output", busy, "--steps", "10", "--overwrite"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.05)
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=60)
    after = snapshot(busy)
    whole = summary(busy)["status"] != "ok" or summary(busy)["steps"] == 10
    ok &= check(after == before or whole, "a signal in set-up leaves the folder as it was or this run's")

    # Partial files.
    for f in (os.path.join(busy, "snapshot.h5.tmp"), os.path.join(busy, "fields", "f_000010.h5.tmp")):
        os.makedirs(os.path.dirname(f), exist_ok=True)
        open(f, "w").close()
    again = run(busy, "--steps", "10", "--overwrite")
    left = [f for f in snapshot(busy) if f.endswith(".tmp")]
    ok &= check(again.returncode == 0 and not left, "the next run removes the *.tmp a killed write left")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
