#!/usr/bin/env python3
"""An output that cannot be written ends the run with a message naming the file and the
bytes, exit code 5, and leaves what was written before intact (issue 18).

A full disk is played by the process's file size limit (RLIMIT_FSIZE, `ulimit -f`): a write
beyond it fails with EFBIG, as on a full disk with ENOSPC. hemoflow ignores SIGXFSZ itself
(the test leaves the signal's default, which would kill the process). Tests run as root,
for whom no permission stops a write: the unwritable folder is a path under a regular file.

  checkpoint  a run to step 20 writes checkpoint.h5 (2 MiB); its restart in the same folder
              to step 40, limited to 1 MiB per file, cannot write the next one: exit 5, the
              message names checkpoint.h5, the bytes and EFBIG and says the step-20
              checkpoint is kept; checkpoint.h5 is still step 20's, no .tmp is left,
              summary.json says "write failed"; a restart from it without the limit ends
              with the uninterrupted run's checksum (bitwise);
  probe       a line probe recorded every step, limited to 16 KiB per file: the probe's
              CSV fails at its fifth row; the message names it and the row's bytes; the
              rows before are whole;
  snapshot    fields every 5 steps, limited to 256 KiB: fields/mesh.h5 (520 KiB) fails;
  folder      --output under a regular file: exit 5, the message names the folder and says
              a part of the path is a file.
With --mpiexec only the checkpoint scenario, on 2 ranks: rank 0 fails to write and ends the
job with exit 5. (The limit is set for the ranks alone, inside the launch, and their shared
memory transport is left out: Open MPI's own files in /dev/shm exceed it.)
"""
import argparse
import os
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys

import h5py

from common import check, summary

SETTINGS = ["--set", "lattice.dx=1e-3", "--set", "output.every=0", "--set", "output.final=false",
            "--set", "run.check_every=10"]
ENV = dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")


def hemoflow(a, out, extra, limit=None):
    """Runs the case (on 2 ranks with --mpiexec); `limit`: the file size limit in bytes."""
    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # hemoflow must ignore it itself
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    command = [a.hemoflow, "run", a.case, *SETTINGS, "--quiet", "--output", out, *extra]
    if a.mpiexec:
        ulimit = f"ulimit -f {limit // 1024}; " if limit else ""
        command = [a.mpiexec, "--mca", "btl", "self,tcp", "-np", "2", "bash", "-c",
                   f"{ulimit}exec {' '.join(shlex.quote(c) for c in command)}"]
        limit = None
    return subprocess.run(command, capture_output=True, text=True, env=ENV, timeout=120,
                          preexec_fn=limited if limit else None)


def must(p, what):
    if p.returncode != 0:
        print(p.stdout, p.stderr)
        raise SystemExit(f"FAIL: {what} exited {p.returncode}")


def error_line(p):
    return next((l for l in p.stderr.splitlines() if l.startswith("error")), "(no error line)")


def checkpoint_full(a, work):
    out = os.path.join(work, "checkpoint")
    must(hemoflow(a, out, ["--steps", "20", "--set", "checkpoint.final=true"]), "the run to step 20")
    with open(os.path.join(out, "case.toml")) as f:
        case_before = f.read()
    p = hemoflow(a, out, ["--steps", "40", "--restart", out, "--set", "checkpoint.final=true"], limit=1 << 20)
    line = error_line(p)
    path = os.path.join(out, "checkpoint.h5")
    ok = check(p.returncode == 5, f"checkpoint: exit {p.returncode} (5: a write failed)")
    ok &= check(re.search(rf"cannot write {re.escape(path)}: .*errno EFBIG.*: [0-9]+ bytes = .* of a file of about 2\.0 MiB",
                          line) is not None, f"checkpoint: names the file, the cause and the bytes: {line}")
    ok &= check(f"the checkpoint after step 20, {path}, is kept" in line, "checkpoint: says the step-20 checkpoint is kept")
    with h5py.File(path) as f:
        ok &= check(int(f.attrs["step"]) == 20, f"checkpoint.h5 is still step 20's (step {int(f.attrs['step'])})")
    ok &= check(not os.path.exists(path + ".tmp"), "no checkpoint.h5.tmp left")
    s = summary(out)
    ok &= check(s["status"].startswith("write failed: cannot write " + path) and s["exit_code"] == 5,
                f"summary.json: {s['status'][:60]}..., exit_code {s['exit_code']}")
    with open(os.path.join(out, "case.toml")) as f:
        case_after = f.read()
    ok &= check("--steps 40" in case_after and case_after != case_before, "case.toml of the failed run is whole")
    p = hemoflow(a, out, ["--steps", "40", "--restart", out])
    must(p, "the restart without the limit")
    reference = os.path.join(work, "uninterrupted")
    must(hemoflow(a, reference, ["--steps", "40"]), "the uninterrupted run")
    ok &= check(summary(out)["population_checksum"] == summary(reference)["population_checksum"],
                f"the restart from the kept checkpoint ends with the uninterrupted checksum "
                f"{summary(reference)['population_checksum']}")
    return ok


def probe_full(a, work):
    out = os.path.join(work, "probe")
    p = hemoflow(a, out, ["--steps", "20", "--set", "output.probe.0.every=1"], limit=16 << 10)
    line = error_line(p)
    path = os.path.join(out, "plane_a.csv")
    ok = check(p.returncode == 5, f"probe: exit {p.returncode}")
    ok &= check(re.search(rf"cannot write {re.escape(path)}: .*errno EFBIG.*failed to append a row: [0-9]+ bytes", line)
                is not None, f"probe: names the file, the cause and the row's bytes: {line}")
    with open(path) as f:
        lines = f.read().split("\n")
    rows = [l for l in lines[1:] if l]
    ok &= check(lines[0].startswith("step,time") and len(rows) % 65 == 0 and len(rows) > 0 and lines[-1] == "",
                f"probe: header and {len(rows) // 65} whole rows of 65 points before the failure")
    ok &= check(summary(out)["exit_code"] == 5, "probe: summary.json written, exit_code 5")
    return ok


def snapshot_full(a, work):
    out = os.path.join(work, "snapshot")
    p = hemoflow(a, out, ["--steps", "10", "--set", "output.every=5"], limit=256 << 10)
    line = error_line(p)
    path = os.path.join(out, "fields", "mesh.h5")
    ok = check(p.returncode == 5, f"snapshot: exit {p.returncode}")
    ok &= check(re.search(rf"cannot write {re.escape(path)}: .*errno EFBIG.*: [0-9]+ bytes", line) is not None,
                f"snapshot: names the file, the cause and the bytes: {line}")
    ok &= check(not os.path.exists(path) and not os.path.exists(path + ".tmp"), "snapshot: no part of mesh.h5 left")
    return ok


def folder_is_file(a, work):
    blocker = os.path.join(work, "a_file")
    with open(blocker, "w") as f:
        f.write("not a folder\n")
    out = os.path.join(blocker, "out")
    p = hemoflow(a, out, ["--steps", "2"])
    line = error_line(p)
    ok = check(p.returncode == 5, f"folder: exit {p.returncode}")
    ok &= check(f"cannot write {out}: a part of the path is a file, not a folder (errno ENOTDIR)" in line,
                f"folder: {line}")
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hemoflow", required=True)
    ap.add_argument("--case", required=True)
    ap.add_argument("--mpiexec", help="the checkpoint scenario on 2 ranks")
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    work = a.work
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    ok = checkpoint_full(a, work)
    if not a.mpiexec:
        ok &= probe_full(a, work)
        ok &= snapshot_full(a, work)
        ok &= folder_is_file(a, work)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
